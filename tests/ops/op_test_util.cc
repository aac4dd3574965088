#include "tests/ops/op_test_util.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

#include "runtime/session.h"

namespace tare::test {

namespace {
// Builders may run during static initialization (tables of cases), outside any doctest context,
// so a count mismatch aborts with a message instead of using doctest's assertions.
void CheckCount(size_t n, const Tensor& t) {
  if (n != static_cast<size_t>(t.numel())) {
    std::fprintf(stderr, "test bug: %zu values for shape %s\n", n, ShapeStr(t.shape).c_str());
    std::abort();
  }
}
}  // namespace

Tensor Make(DType dtype, const Shape& shape, std::vector<double> values) {
  Tensor t = Tensor::Alloc(dtype, shape).value();
  CheckCount(values.size(), t);
  for (size_t i = 0; i < values.size(); ++i) WriteDouble(t, static_cast<int64_t>(i), values[i]);
  return t;
}

Tensor F32(const Shape& shape, std::vector<double> values) { return Make(DType::kFloat32, shape, std::move(values)); }

Tensor RandF32(const Shape& shape, std::mt19937& g, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = static_cast<float>(u(g));
  return F32(shape, v);
}

Tensor I64(const Shape& shape, std::vector<int64_t> values) {
  Tensor t = Tensor::Alloc(DType::kInt64, shape).value();
  CheckCount(values.size(), t);
  std::copy(values.begin(), values.end(), t.as<int64_t>());
  return t;
}

Tensor Seq(const Shape& shape, int64_t mul, int64_t mod, int64_t off) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = double((i * mul + off) % mod - mod / 2);
  return F32(shape, v);
}

NodeOf::NodeOf(const std::string& op, int n_out) {
  node.op = op;
  node.name = "test_" + op;
  for (int i = 0; i < n_out; ++i) node.outputs.push_back(100 + i);
}

NodeOf& NodeOf::Attr(const std::string& name, int64_t v) {
  tare::Attr a; a.kind = tare::Attr::Kind::kInt; a.i = v; node.attrs[name] = a; return *this;
}
NodeOf& NodeOf::Attr(const std::string& name, double v) {
  tare::Attr a; a.kind = tare::Attr::Kind::kFloat; a.f = static_cast<float>(v); node.attrs[name] = a; return *this;
}
NodeOf& NodeOf::Attr(const std::string& name, const char* v) {
  tare::Attr a; a.kind = tare::Attr::Kind::kString; a.s = v; node.attrs[name] = a; return *this;
}
NodeOf& NodeOf::Attr(const std::string& name, std::vector<int64_t> v) {
  tare::Attr a; a.kind = tare::Attr::Kind::kInts; a.ints = std::move(v); node.attrs[name] = a; return *this;
}
NodeOf& NodeOf::Attr(const std::string& name, std::vector<float> v) {
  tare::Attr a; a.kind = tare::Attr::Kind::kFloats; a.floats = std::move(v); node.attrs[name] = a; return *this;
}
NodeOf& NodeOf::Attr(const std::string& name, std::vector<std::string> v) {
  tare::Attr a; a.kind = tare::Attr::Kind::kStrings; a.strings = std::move(v); node.attrs[name] = a; return *this;
}
NodeOf& NodeOf::Attr(const std::string& name, const Tensor& v) {
  tare::Attr a; a.kind = tare::Attr::Kind::kTensor; a.tensor = v; node.attrs[name] = a; return *this;
}

Result<std::vector<Tensor>> Run(const Node& node_in, const std::vector<Tensor>& inputs, DType compute) {
  Node node = node_in;
  node.inputs.clear();
  std::vector<Tensor> conv(inputs.size());
  std::vector<const Tensor*> ptrs(inputs.size(), nullptr);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const bool omitted = inputs[i].is_tensor() && !inputs[i].data;
    node.inputs.push_back(omitted ? -1 : static_cast<int>(i));
    if (omitted) continue;
    if (inputs[i].dtype == DType::kFloat32) {
      TARE_ASSIGN_OR_RETURN(conv[i], ConvertTensor(inputs[i], compute));
    } else {
      conv[i] = inputs[i];
    }
    ptrs[i] = &conv[i];
  }
  return EvalNode(node, ptrs, compute);
}

Result<std::vector<Tensor>> Eval(const Node& node, const std::vector<const Tensor*>& inputs, DType compute) {
  std::vector<Tensor> in;
  for (const Tensor* t : inputs) in.push_back(t ? *t : Tensor());
  return Run(node, in, compute);
}

std::shared_ptr<Graph> OneNodeGraph(const Node& node, const std::vector<Tensor>& inputs, const std::vector<size_t>& runtime,
                                    const std::vector<DType>& out_dtypes, std::vector<NamedTensor>* feeds) {
  if (inputs.empty() || !inputs[0].is_tensor() || !inputs[0].data) return nullptr;
  auto g = std::make_shared<Graph>();
  Node n = node;
  n.inputs.clear();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    if (!t.is_tensor()) return nullptr;
    if (!t.data) {  // omitted optional input (as Run)
      n.inputs.push_back(-1);
      continue;
    }
    Value v;
    v.name = "in" + std::to_string(i);
    v.dtype = t.dtype;
    v.shape = t.shape;
    v.has_shape = true;
    const bool graph_input = i == 0 || std::find(runtime.begin(), runtime.end(), i) != runtime.end();
    if (!graph_input) {
      v.is_constant = true;
      v.constant = t;
    }
    n.inputs.push_back(g->AddValue(v));
    if (graph_input) {
      g->inputs.push_back(n.inputs.back());
      feeds->push_back({v.name, t});
    }
  }
  for (size_t o = 0; o < n.outputs.size(); ++o) {
    if (n.outputs[o] < 0) continue;
    if (o >= out_dtypes.size()) return nullptr;
    Value v;
    v.name = "out" + std::to_string(o);
    v.dtype = out_dtypes[o];
    n.outputs[o] = g->AddValue(v);
    g->outputs.push_back(n.outputs[o]);
  }
  g->nodes.push_back(n);
  return g;
}

bool BackendUsable(const std::string& name) {
  static std::map<std::string, bool> cache;
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, CreateBackend(name).ok()).first;
  return it->second;
}

void SkipUnlessAvailable(const std::string& name) {
  Result<std::unique_ptr<Backend>> b = CreateBackend(name);
  if (b.ok()) return;
  std::printf("SKIP: %s\n", b.status().message().c_str());
  std::fflush(stdout);
  std::_Exit(77);
}

std::string PlacementOf(const Session& s, const std::string& node) {
  for (const auto& [name, backend] : s.Placement())
    if (name == node) return backend;
  return "?";
}

bool RunOneNodeSession(const Node& node, const std::vector<Tensor>& inputs, const std::vector<Tensor>& ref_outputs,
                       const std::string& backend, int threads, std::string* ran_on,
                       Result<std::vector<NamedTensor>>* result) {
  std::vector<DType> out_dtypes;
  for (const Tensor& t : ref_outputs) out_dtypes.push_back(t.dtype);
  std::vector<NamedTensor> feeds;
  std::shared_ptr<Graph> g = OneNodeGraph(node, inputs, {}, out_dtypes, &feeds);
  if (!g) return false;
  SessionOptions opts;
  opts.backends = {backend};
  opts.threads = threads;
  Result<std::unique_ptr<Session>> s = Session::Create(g, opts);
  if (!s.ok()) {
    *result = s.status();
    return true;
  }
  std::vector<NamedTensor> outs;
  Status st = (*s)->Run(feeds, &outs);
  *ran_on = (*s)->Placement()[0].second;
  if (!st.ok()) {
    *result = st;
  } else {
    *result = std::move(outs);
  }
  return true;
}

namespace {

/// Checks a fast backend (one built into this binary) against ref64's outputs within the op's
/// budget (the rule Check applies to `ref`), when it claims the node.
void CheckFastBackend(const std::string& backend, const Node& node, const std::vector<Tensor>& inputs,
                      const std::vector<Tensor>& r64, const std::vector<Tensor>& r32, size_t n_expected, double k,
                      double scale) {
  const OpSpec* spec = FindOp(node);
  const double eps32 = 1.0 / (1 << 24);
  for (int threads : {1, 2}) {
    std::string ran_on;
    Result<std::vector<NamedTensor>> r = Status::Error("not run");
    if (!RunOneNodeSession(node, inputs, r32, backend, threads, &ran_on, &r)) return;
    if (r.ok() && ran_on != backend) return;  // not claimed: ref ran it
    CAPTURE(backend);
    CAPTURE(threads);
    if (!r.ok()) FAIL_CHECK(backend << ": " << r.status().message());
    REQUIRE(r.ok());
    for (size_t o = 0; o < n_expected && o < r->size(); ++o) {
      CAPTURE(o);
      const Tensor& y = (*r)[o].tensor;
      const Tensor& y64 = r64[o];
      CHECK(y.shape == y64.shape);
      CHECK(y.dtype == r32[o].dtype);
      if (y.shape != y64.shape) continue;
      for (int64_t i = 0; i < y.numel(); ++i) {
        CAPTURE(i);
        const double g = ReadDouble(y, i), w = ReadDouble(y64, i);
        if (!DTypeIsFloat(y.dtype) || std::isinf(w)) {
          CHECK(g == w);
          continue;
        }
        if (std::isnan(w)) {
          CHECK(std::isnan(g));
          continue;
        }
        const double s = scale > 0 ? scale : std::max(std::fabs(w), 1e-30);
        const double units = std::max(spec->budget.c0 + spec->budget.cK * k, 0.5);
        const double tol = units * eps32 * s + 1e-38;
        CHECK_MESSAGE(std::fabs(g - w) <= tol,
                      backend << " got " << g << " ref64 " << w << " budget " << spec->budget.text << " tol " << tol);
      }
    }
  }
}

}  // namespace

void Check(const Node& node, const std::vector<Tensor>& inputs, const std::vector<Expect>& expected,
           double k, double scale) {
  const OpSpec* spec = FindOp(node);
  REQUIRE(spec != nullptr);
  const double eps32 = 1.0 / (1 << 24);
  Result<std::vector<Tensor>> r64 = Run(node, inputs, DType::kFloat64);
  Result<std::vector<Tensor>> r32 = Run(node, inputs, DType::kFloat32);
  if (!r64.ok()) FAIL_CHECK("ref64: " << r64.status().message());
  if (!r32.ok()) FAIL_CHECK("ref: " << r32.status().message());
  REQUIRE(r64.ok());
  REQUIRE(r32.ok());
  REQUIRE(r64->size() >= expected.size());
  for (size_t o = 0; o < expected.size(); ++o) {
    CAPTURE(o);
    const Expect& e = expected[o];
    const Tensor& y64 = (*r64)[o];
    const Tensor& y32 = (*r32)[o];
    CHECK(y64.shape == e.shape);
    CHECK(y32.shape == e.shape);
    CHECK(y64.dtype == StorageType(e.dtype, DType::kFloat64));
    CHECK(y32.dtype == StorageType(e.dtype, DType::kFloat32));
    if (y64.shape != e.shape || y32.shape != e.shape) continue;
    REQUIRE(static_cast<size_t>(y64.numel()) == e.values.size());
    for (size_t i = 0; i < e.values.size(); ++i) {
      CAPTURE(i);
      const double want = e.values[i];
      const double g64 = ReadDouble(y64, static_cast<int64_t>(i)), g32 = ReadDouble(y32, static_cast<int64_t>(i));
      if (!DTypeIsFloat(e.dtype)) {  // exact: integers, bool, and the float8 codes' values (NaN is NaN)
        CHECK((g64 == want || (std::isnan(want) && std::isnan(g64))));
        CHECK((g32 == want || (std::isnan(want) && std::isnan(g32))));
        continue;
      }
      if (std::isnan(want)) {
        CHECK(std::isnan(g64));
        CHECK(std::isnan(g32));
        continue;
      }
      if (std::isinf(want)) {
        CHECK(g64 == want);
        CHECK(g32 == want);
        continue;
      }
      // ref64 against the hand value: only the rounding of the inputs to float32 (hand values
      // are usually written for the decimal inputs) separates them.
      const double s = scale > 0 ? scale : std::max(std::fabs(want), 1e-30);
      const double tol64 = (k + 2) * eps32 * s + 1e-300;
      CHECK_MESSAGE(std::fabs(g64 - want) <= tol64, "ref64 got " << g64 << " want " << want << " tol " << tol64);
      // ref against ref64: the op's error budget (at least the final rounding to float32).
      const double s32 = scale > 0 ? scale : std::max(std::fabs(g64), 1e-30);
      const double units = std::max(spec->budget.c0 + spec->budget.cK * k, 0.5);
      const double tol32 = units * eps32 * s32 + 1e-38;
      CHECK_MESSAGE(std::fabs(g32 - g64) <= tol32,
                    "ref got " << g32 << " ref64 " << g64 << " budget " << spec->budget.text << " tol " << tol32);
    }
  }
  // Every fast backend built into this binary (the registry's list, so a new backend is checked
  // without a change here) that claims the node: against ref64, same budget.
  for (const std::string& backend : AvailableBackends())
    if (backend != "ref" && backend != "ref64" && BackendUsable(backend))
      CheckFastBackend(backend, node, inputs, *r64, *r32, expected.size(), k, scale);
}

void CheckFails(const Node& node, const std::vector<Tensor>& inputs, const std::string& needle) {
  for (DType compute : {DType::kFloat64, DType::kFloat32}) {
    Result<std::vector<Tensor>> r = Run(node, inputs, compute);
    CHECK_FALSE(r.ok());
    if (!r.ok()) CHECK_MESSAGE(r.status().message().find(needle) != std::string::npos, r.status().message());
  }
}

}  // namespace tare::test
