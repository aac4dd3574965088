#include "fuzz/reducer.h"

#include <cmath>
#include <map>
#include <set>

#include "compare/attribution.h"
#include "runtime/exec/eval_node.h"

namespace tare::fuzz {
namespace {

/// Only f's engine (all of them when `engine` names none, e.g. a crash while nodes ran alone).
Engines Only(const Engines& all, const std::string& engine) {
  Engines e;
  e.on_engine = all.on_engine;
  for (const std::string& b : all.backends)
    if (b == engine) e.backends.push_back(b);
  for (const Peer& p : all.peers)
    if (p.name == engine) e.peers.push_back(p);
  if (e.backends.empty() && e.peers.empty()) return all;
  return e;
}

/// Nodes [begin, end) of c's model alone: values read from outside the window become graph
/// inputs fed from `values` (ref64's, rounded to float32); the window's values no later window
/// node reads are its outputs. Empty model when a needed value is missing.
FuzzCase Window(const FuzzCase& c, size_t begin, size_t end, const std::map<std::string, Tensor>& values) {
  const Graph& g = c.model->graph;
  FuzzCase w;
  w.seed = c.seed;
  w.model = std::make_shared<Model>();
  w.model->provenance = c.model->provenance;
  Graph& h = w.model->graph;
  std::map<int, int> map;  // old value id -> new
  std::set<int> produced;
  for (size_t i = begin; i < end; ++i)
    for (int v : g.nodes[i].outputs) produced.insert(v);
  auto get = [&](int v) -> int {
    if (v < 0) return -1;
    if (auto it = map.find(v); it != map.end()) return it->second;
    Value val = g.values[static_cast<size_t>(v)];
    const int id = h.AddValue(val);
    map[v] = id;
    if (!val.is_constant && !produced.count(v)) {
      h.inputs.push_back(id);
      auto it = values.find(val.name);
      Tensor t;
      if (it != values.end()) {
        Result<Tensor> f = ConvertTensor(it->second, DType::kFloat32);
        if (f.ok()) t = *f;
      }
      w.inputs.push_back({val.name, t});
    }
    return id;
  };
  std::set<int> read_inside;
  for (size_t i = begin; i < end; ++i) {
    Node n = g.nodes[i];
    for (int& v : n.inputs) {
      read_inside.insert(v);
      v = get(v);
    }
    for (int& v : n.outputs) v = get(v);
    h.nodes.push_back(n);
  }
  for (size_t i = begin; i < end; ++i)
    for (int v : g.nodes[i].outputs)
      if (v >= 0 && !read_inside.count(v)) h.outputs.push_back(map[v]);
  for (const NamedTensor& in : w.inputs)
    if (in.tensor.numel() == 0 && in.tensor.shape.empty()) return FuzzCase{};
  return w;
}

/// Whether g is the finding `want` again: the same engine and kind, and the same op (budget) or
/// the same message up to its first digit (error).
bool Same(const Finding& want, const Finding& g) {
  if (g.engine != want.engine || g.kind != want.kind) return false;
  if (want.kind == "budget") return g.op == want.op;
  if (want.kind == "error" || want.kind == "crash" || want.kind == "hang") return g.Key() == want.Key();
  return true;
}

/// Whether `c` shows `want` again (Same); fills *out with it.
bool Shows(const FuzzCase& c, const Finding& want, const Engines& e, const CheckFn& check, Finding* out, int* checks) {
  if (!c.model || c.model->graph.nodes.empty()) return false;
  ++*checks;
  CheckResult r = check ? check(c, e) : Check(c, e);
  for (const Finding& f : r.findings)
    if (Same(want, f)) {
      *out = f;
      return true;
    }
  return false;
}

/// c with graph input `input`'s dim `dim` cut to its first `size` elements, every node's output
/// shape inferred again (the op specs' InferNode); an empty case when a node rejects the new
/// shapes or the input is not a float32 tensor.
FuzzCase Shrunk(const FuzzCase& c, size_t input, size_t dim, int64_t size) {
  const Tensor& x = c.inputs[input].tensor;
  if (x.dtype != DType::kFloat32 || dim >= x.shape.size() || size < 1 || size >= x.shape[dim]) return FuzzCase{};
  FuzzCase t = c;
  t.model = std::make_shared<Model>(*c.model);
  Graph& g = t.model->graph;
  Shape shape = x.shape;
  shape[dim] = size;
  Result<Tensor> cut = Tensor::Alloc(DType::kFloat32, shape);
  if (!cut.ok()) return FuzzCase{};
  // Row-major copy of the leading part: outer blocks of dims before `dim`, inner runs after it.
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < dim; ++d) outer *= x.shape[d];
  for (size_t d = dim + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < size * inner; ++k) cut->as<float>()[o * size * inner + k] = x.as<float>()[o * x.shape[dim] * inner + k];
  t.inputs[input].tensor = *cut;
  bool found = false;
  for (int v : g.inputs)
    if (g.values[static_cast<size_t>(v)].name == c.inputs[input].name) {
      g.values[static_cast<size_t>(v)].shape = shape;
      found = true;
    }
  if (!found) return FuzzCase{};
  for (const Node& n : g.nodes) {
    std::vector<ValueInfo> in;
    for (int v : n.inputs) {
      ValueInfo vi;
      vi.present = v >= 0;
      if (v >= 0) {
        const Value& val = g.values[static_cast<size_t>(v)];
        vi.dtype = val.dtype;
        vi.shape = val.shape;
        if (val.is_constant) vi.value = &val.constant;
      }
      in.push_back(vi);
    }
    Result<std::vector<ValueInfo>> out = InferNode(n, in);
    if (!out.ok() || out->size() < n.outputs.size()) return FuzzCase{};
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      if (n.outputs[i] < 0) continue;
      const ValueInfo& o = (*out)[i];
      Result<int64_t> count = NumElements(o.shape);
      if (!o.present || !count.ok() || *count < 1) return FuzzCase{};
      g.values[static_cast<size_t>(n.outputs[i])].shape = o.shape;
    }
  }
  return t;
}

/// Rounds x's values to `digits` significant digits (0: to integers, clamped to [-4, 4]).
Tensor Simplified(const Tensor& x, int digits) {
  Tensor t = x;
  t.data = nullptr;
  t = Tensor::Alloc(x.dtype, x.shape).value();
  for (int64_t i = 0; i < x.numel(); ++i) {
    const float v = x.as<float>()[i];
    float s = v;
    if (std::isfinite(v) && v != 0) {
      if (digits == 0) {
        s = std::round(std::fmax(-4.0f, std::fmin(4.0f, v)));
      } else {
        const double p = std::pow(10.0, digits - 1 - static_cast<int>(std::floor(std::log10(std::fabs(v)))));
        s = static_cast<float>(std::round(v * p) / p);
      }
    }
    t.as<float>()[i] = s;
  }
  return t;
}

}  // namespace

Reduced Reduce(const FuzzCase& c, const Finding& f, const Engines& engines, int max_checks, const CheckFn& check) {
  Reduced r;
  r.c = c;
  r.finding = f;
  const Engines e = Only(engines, f.engine);
  if (!Shows(c, f, e, check, &r.finding, &r.checks)) return r;
  r.reproduced = true;
  // 1. The smallest window of consecutive nodes.
  size_t traced = 0;
  Result<BackendRun> ref64 = RunModel(c.model, "ref64", c.inputs, true, &traced);
  if (ref64.ok()) {
    const size_t n = c.model->graph.nodes.size();
    bool done = false;
    for (size_t len = 1; len < n && !done && r.checks < max_checks; ++len)
      for (size_t b = 0; b + len <= n && !done && r.checks < max_checks; ++b) {
        // A budget finding names its node: only windows holding it.
        if (!f.node.empty()) {
          bool holds = false;
          for (size_t i = b; i < b + len; ++i) holds = holds || c.model->graph.nodes[i].name == f.node;
          if (!holds) continue;
        }
        FuzzCase w = Window(c, b, b + len, ref64->values);
        Finding got;
        if (Shows(w, f, e, check, &got, &r.checks)) {
          r.c = w;
          r.finding = got;
          done = true;
        }
      }
  }
  // 2. Smaller inputs: each dim of each graph input halved, else made one less (its leading part
  // kept), while the finding still shows.
  for (size_t i = 0; i < r.c.inputs.size() && r.checks < max_checks; ++i)
    for (size_t d = 0; d < r.c.inputs[i].tensor.shape.size() && r.checks < max_checks; ++d)
      while (r.checks < max_checks && r.c.inputs[i].tensor.shape[d] > 1) {
        const int64_t n = r.c.inputs[i].tensor.shape[d];
        bool smaller = false;
        const int64_t tries[2] = {n / 2, n - 1};  // halved, else one less
        for (int k = 0; k < 2; ++k) {
          const int64_t size = tries[k];
          if (size < 1 || (k == 1 && size == tries[0])) continue;
          FuzzCase t = Shrunk(r.c, i, d, size);
          Finding got;
          if (t.model && Shows(t, f, e, check, &got, &r.checks)) {
            r.c = t;
            r.finding = got;
            smaller = true;
            break;
          }
        }
        if (!smaller) break;
      }
  // 3. Attributes removed one at a time.
  for (size_t i = 0; i < r.c.model->graph.nodes.size() && r.checks < max_checks; ++i) {
    std::vector<std::string> names;
    for (const auto& [name, a] : r.c.model->graph.nodes[i].attrs) names.push_back(name);
    for (const std::string& name : names) {
      if (r.checks >= max_checks) break;
      FuzzCase t = r.c;
      t.model = std::make_shared<Model>(*r.c.model);
      t.model->graph.nodes[i].attrs.erase(name);
      Finding got;
      if (Shows(t, f, e, check, &got, &r.checks)) {
        r.c = t;
        r.finding = got;
      }
    }
  }
  // 4. Simpler input values.
  for (int digits : {3, 0})
    for (size_t i = 0; i < r.c.inputs.size() && r.checks < max_checks; ++i) {
      if (r.c.inputs[i].tensor.dtype != DType::kFloat32) continue;
      FuzzCase t = r.c;
      t.inputs[i].tensor = Simplified(r.c.inputs[i].tensor, digits);
      Finding got;
      if (Shows(t, f, e, check, &got, &r.checks)) {
        r.c = t;
        r.finding = got;
      }
    }
  // A whole-model finding names the ops it comes down to.
  if (r.finding.op.empty()) {
    for (const Node& n : r.c.model->graph.nodes) r.finding.op += (r.finding.op.empty() ? "" : "+") + n.op;
    if (r.c.model->graph.nodes.size() == 1) r.finding.attrs = NodeAttrs(r.c.model->graph.nodes[0]);
  }
  return r;
}

}  // namespace tare::fuzz
