#include "runtime/session.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>

#include "runtime/exec/eval_node.h"
#include "runtime/passes/float_truth.h"
#include "runtime/passes/inline_if.h"
#include "runtime/plan/arena.h"
#include "runtime/plan/plan.h"

namespace tare {

struct Session::Impl {
  std::shared_ptr<const Graph> graph;
  SessionOptions options;
  std::vector<std::shared_ptr<Backend>> backends;  // priority order; the last is the reference fallback
  DType storage = DType::kFloat32;
  // Prepared at creation for `graph`; Plan starts from these each time.
  std::vector<int> base_node_backend;
  std::vector<KernelFn> base_kernels;
  std::vector<Tensor> base_consts;
  // Runners of control-flow bodies; `fixed` holds, per body input, the outer weight it always
  // receives (nullptr for run-time values).
  std::function<Result<std::shared_ptr<BodyRunner>>(const std::shared_ptr<const Graph>& body,
                                                    const std::vector<const Tensor*>& fixed)> bodies;
  bool fast = false;   // a backend other than the reference one was asked for
  size_t n_choose = 0;  // backends[0, n_choose) is the priority list; the others up to the fallback run pinned nodes only
  std::map<std::string, int> pinned;  // node name -> backend index (SessionOptions::pins)

  // The graph the current plan runs: `graph` with each If whose condition is known at plan time
  // (from shapes or weights) replaced by its branch. Per exec node: the backend, the kernel, and
  // the node of `graph` it is a copy of or was inlined into; per exec value: weights in storage type.
  std::shared_ptr<const Graph> exec;
  std::vector<int> origin;
  std::vector<int> node_backend;
  std::vector<KernelFn> ref_kernels;
  std::vector<Tensor> consts;
  std::vector<std::string> inlined;  // per node of `graph`: the branch inlined in its place, if any
  // The body runners made for control-flow nodes, by node name (for Placement).
  std::shared_ptr<std::map<std::string, std::vector<std::shared_ptr<BodyRunner>>>> runners =
      std::make_shared<std::map<std::string, std::vector<std::shared_ptr<BodyRunner>>>>();

  // The current plan.
  bool planned = false;
  std::vector<Shape> planned_shapes;
  std::vector<DType> planned_dtypes;  // of the inputs: an input declared without a type takes the given one
  std::vector<Tensor> slots;  // per value id
  std::shared_ptr<void> arena;
  size_t arena_bytes = 0;
  std::vector<std::unique_ptr<Executable>> partitions;
  std::vector<std::string> placement;  // per node
  std::vector<std::string> notes;      // per node: Executable::Notes
  // Dynamic mode: some shape depends on run-time data, so every run infers shapes with the real
  // values and evaluates node by node with the reference kernels (no arena).
  bool dynamic = false;
  std::vector<char> live;               // per exec node: some graph output depends on it
  std::vector<char> traced;             // per value of `graph`: kept for Trace()
  bool ran = false;

  /// The reference kernel of node n of graph g (control flow: with bodies on this session's backends).
  Result<KernelFn> MakeKernel(const Node& n, const Graph& g) const;
  /// The backend of node n: its pin, else the first of the priority list that supports it, else
  /// the fallback; -1 when none does.
  int ChooseBackend(const Node& n, const Graph& g) const;
  /// Fills `pinned` from options.pins (errors: SessionOptions::pins).
  Status ResolvePins(const Graph& g);
  Status Plan(const std::vector<Shape>& input_shapes, const std::vector<DType>& input_dtypes);
  /// One planning pass over `exec`. Stops early, setting *inline_node, at the first live If whose
  /// condition is known (*cond): the caller inlines it and plans again.
  Status PlanOnce(const std::vector<Shape>& input_shapes, const std::vector<DType>& input_dtypes, int* inline_node, bool* cond);
  Status Inline(int node, bool cond);
  Status RunDynamic(const std::vector<const Tensor*>& bound);
  /// Places every run-time value (`life`, not `known`) in one new arena and points its slot there.
  /// Errors: the arena is over options.max_arena_bytes, or cannot be allocated.
  Status PlaceInArena(const std::vector<Lifetime>& life, const std::vector<char>& known);
};

namespace {

/// "cpu+ref": the placements counted in `counts`, most nodes first (ties by name), "folded" and
/// "unused" left out; "folded" when nothing else is left.
std::string JoinByCount(const std::map<std::string, int>& counts) {
  std::vector<std::pair<int, std::string>> by;
  for (const auto& [where, c] : counts)
    if (where != "folded" && where != "unused") by.emplace_back(-c, where);
  std::sort(by.begin(), by.end());
  std::string s;
  for (const auto& [c, w] : by) s += (s.empty() ? "" : "+") + w;
  return s.empty() ? "folded" : s;
}

}  // namespace

Session::Session() : impl_(new Impl) {}
Session::~Session() = default;
const Graph& Session::graph() const { return *impl_->graph; }
size_t Session::arena_bytes() const { return impl_->arena_bytes; }

std::vector<std::pair<std::string, std::string>> Session::Placement() const {
  const Impl& im = *impl_;
  std::vector<std::pair<std::string, std::string>> out;
  const Graph& g = *im.graph;
  if (!im.planned) {
    for (size_t i = 0; i < g.nodes.size(); ++i) out.emplace_back(g.nodes[i].name, im.backends[im.base_node_backend[i]]->name());
    return out;
  }
  // An inlined If reports where its branch's run-time nodes run, most nodes first ("folded" when
  // none runs at run time).
  std::vector<std::string> place(g.nodes.size());
  std::vector<std::map<std::string, int>> counts(g.nodes.size());
  for (size_t e = 0; e < im.origin.size(); ++e) {
    const int o = im.origin[e];
    if (im.inlined[o].empty()) {
      place[o] = im.placement[e];
    } else {
      ++counts[o][im.placement[e]];
    }
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!im.inlined[i].empty()) {
      place[i] = JoinByCount(counts[i]) + " (" + im.inlined[i] + " inlined)";
    }
    // Control-flow nodes run at run time: where their bodies' nodes run.
    auto it = im.runners->find(g.nodes[i].name);
    if (it != im.runners->end() && !it->second.empty() && place[i].find("(dynamic)") != std::string::npos) {
      std::string bodies;
      for (const auto& r : it->second) bodies += (bodies.empty() ? "" : " | ") + r->Placement();
      place[i] += "; bodies: " + bodies;
    }
    out.emplace_back(g.nodes[i].name, place[i]);
  }
  return out;
}

std::vector<std::string> Session::Notes() const {
  const Impl& im = *impl_;
  const Graph& g = *im.graph;
  std::vector<std::string> out(g.nodes.size());
  if (!im.planned) return out;
  // Nodes of an inlined branch are not reported one by one (Placement counts them).
  for (size_t e = 0; e < im.origin.size() && e < im.notes.size(); ++e) {
    const int o = im.origin[e];
    if (!im.inlined[o].empty()) continue;
    out[o] = im.notes[e];
    // A node left to the reference fallback: why a backend before it that claims the op declined.
    if (out[o].empty() && im.placement[e] == im.backends.back()->name()) {
      const Node& n = im.exec->nodes[e];
      if (im.pinned.count(n.name)) {  // there by the user's --pin, not for want of a backend
        out[o] = "pinned";
        continue;
      }
      for (size_t b = 0; b + 1 < im.backends.size(); ++b) {
        const Backend& be = *im.backends[b];
        if (be.name() == im.backends.back()->name() || !be.ClaimsOp(n.domain, n.op)) continue;
        const std::string why = be.Declines(n, *im.exec);
        if (!why.empty()) out[o] += (out[o].empty() ? "" : "; ") + be.name() + " declines: " + why;
      }
    }
  }
  return out;
}

std::vector<std::pair<std::string, double>> Session::Phases() const {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& p : impl_->partitions)
    for (const std::pair<std::string, double>& ph : p->Phases()) {
      auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == ph.first; });
      if (it == out.end()) out.push_back(ph);
      else it->second += ph.second;
    }
  return out;
}

std::vector<TraceEntry> Session::Trace() const {
  const Impl& im = *impl_;
  std::vector<TraceEntry> out;
  if (!im.ran) return out;
  const Graph& g = *im.graph;
  const Graph& x = *im.exec;
  for (size_t ni = 0; ni < x.nodes.size(); ++ni) {
    if (!im.live[ni]) continue;
    // Values of `graph` written by an inlined branch are reported as the If's.
    const Node& n = g.nodes[im.origin[ni]];
    for (int v : x.nodes[ni].outputs) {
      if (v < 0 || static_cast<size_t>(v) >= im.traced.size() || !im.traced[v]) continue;
      Result<Tensor> copy = ConvertTensor(im.slots[v], im.slots[v].dtype);
      if (copy.ok()) out.push_back({g.values[v].name, n.name, n.op, std::move(copy).value()});
    }
  }
  return out;
}

namespace {

/// Most If nodes one plan inlines (nested ones included): a bound on the work of planning.
constexpr int kMaxInlinedIfs = 4096;

/// Extends `consts` (weights in storage type, by value id) to every value of `g`.
Status AppendConsts(const Graph& g, DType storage, std::vector<Tensor>* consts) {
  for (size_t v = consts->size(); v < g.values.size(); ++v) {
    const Value& val = g.values[v];
    consts->emplace_back();
    if (!val.is_constant) continue;
    if (val.constant.dtype == DType::kFloat32 && storage != DType::kFloat32) {
      TARE_ASSIGN_OR_RETURN(consts->back(), ConvertTensor(val.constant, storage));
    } else {
      consts->back() = val.constant;
    }
  }
  return Status::Ok();
}

/// Whether a backend other than the reference fallback (the last of `backends`) claims a node of
/// `g` or of the bodies of its control-flow nodes.
bool FastBackendClaims(const Graph& g, const std::vector<std::shared_ptr<Backend>>& backends) {
  for (const Node& n : g.nodes) {
    for (size_t b = 0; b + 1 < backends.size(); ++b)
      if (backends[b]->name() != backends.back()->name() && backends[b]->Supports(n, g)) return true;
    for (const auto& [name, a] : n.attrs)
      if (a.kind == Attr::Kind::kGraph && a.graph && FastBackendClaims(*a.graph, backends)) return true;
  }
  return false;
}

}  // namespace

/// A control-flow body run as a nested session: planned once per input shapes, on the enclosing
/// session's backends, so the bodies' convolutions and LSTMs run on the fast backend too.
class NestedSessionRunner : public BodyRunner {
 public:
  /// `pass`: per input of the body as the node gives them, whether it is a graph input of the
  /// session's body (false: an outer weight made a constant of the body).
  NestedSessionRunner(std::unique_ptr<Session> s, std::vector<char> pass) : s_(std::move(s)), pass_(std::move(pass)) {}
  Result<std::vector<Tensor>> Run(const std::vector<Tensor>& inputs) override {
    const Graph& g = s_->graph();
    if (inputs.size() != pass_.size())
      return Status::Error("subgraph takes " + std::to_string(pass_.size()) + " inputs, got " + std::to_string(inputs.size()));
    named_.resize(g.inputs.size());
    for (size_t i = 0, k = 0; i < inputs.size(); ++i)
      if (pass_[i]) named_[k] = {g.values[g.inputs[k]].name, inputs[i]}, ++k;
    TARE_RETURN_IF_ERROR(s_->Run(named_, &outputs_));
    ran_ = true;
    std::vector<Tensor> out;
    out.reserve(outputs_.size());
    for (NamedTensor& o : outputs_) out.push_back(std::move(o.tensor));
    return out;
  }

  std::string Placement() const override {
    if (!ran_) return "not run yet";
    std::map<std::string, int> counts;
    for (const auto& [node, where] : s_->Placement())
      if (where != "folded" && where != "unused") {
        // "cpu", "ref (dynamic)", "cpu+ref (then_branch inlined)": count each backend named.
        const std::string head = where.substr(0, where.find(' '));
        for (size_t p = 0; p <= head.size();) {
          const size_t q = std::min(head.find('+', p), head.size());
          ++counts[head.substr(p, q - p)];
          p = q + 1;
        }
      }
    return JoinByCount(counts);
  }

 private:
  bool ran_ = false;
  std::unique_ptr<Session> s_;
  std::vector<char> pass_;
  std::vector<NamedTensor> named_, outputs_;
};

Result<std::unique_ptr<Session>> Session::Create(std::shared_ptr<const Graph> graph, const SessionOptions& options) {
  if (options.backends.empty()) return Status::Error("no backend given");
  std::vector<std::shared_ptr<Backend>> backends;
  for (const std::string& name : options.backends) {
    TARE_ASSIGN_OR_RETURN(std::unique_ptr<Backend> b, CreateBackend(name));
    backends.push_back(std::move(b));
  }
  const DType storage = backends[0]->float_storage();
  for (const auto& b : backends)
    if (b->float_storage() != storage)
      return Status::Error("backend '" + b->name() + "' cannot be mixed with '" + backends[0]->name() + "' (different precision)");
  const std::string fallback = storage == DType::kFloat64 ? "ref64" : "ref";
  // Backends named only by pins run their pinned nodes alone (CreateWith: after the priority
  // list, before the fallback).
  for (const auto& [node, name] : options.pins) {
    bool have = name == fallback;
    for (const auto& b : backends) have = have || b->name() == name;
    if (have) continue;
    Result<std::unique_ptr<Backend>> b = CreateBackend(name);
    if (!b.ok()) return b.status().With("--pin " + node + "=" + name);
    if ((*b)->float_storage() != storage)
      return Status::Error(StatusCode::kInvalidArgument, "--pin " + node + "=" + name + ": backend '" + name + "' cannot be mixed with '" +
                                                             backends[0]->name() + "' (different precision)");
    backends.push_back(std::move(b).value());
  }
  TARE_ASSIGN_OR_RETURN(std::unique_ptr<Backend> fb, CreateBackend(fallback));
  backends.push_back(std::move(fb));
  // ref64 runs TFLite's quantized ops as the real-valued function they approximate. The model is
  // first prepared as ref would run it, so invalid quantization (scales, zero points, multipliers)
  // is refused on ref64 with the same errors.
  if (graph && storage == DType::kFloat64 && HasTfliteQuantOps(*graph)) {
    SessionOptions as_ref = options;
    as_ref.backends = {"ref"};
    as_ref.trace_all = false;
    as_ref.trace.clear();
    as_ref.pins.clear();
    TARE_RETURN_IF_ERROR(Create(graph, as_ref).status());
    TARE_ASSIGN_OR_RETURN(Graph truth, FloatTruth(*graph));
    graph = std::make_shared<const Graph>(std::move(truth));
  }
  return CreateWith(std::move(graph), options, std::move(backends));
}

Result<std::unique_ptr<Session>> Session::CreateWith(std::shared_ptr<const Graph> graph, const SessionOptions& options,
                                                     std::vector<std::shared_ptr<Backend>> backends) {
  if (!graph) return Status::Error("no graph");
  TARE_RETURN_IF_ERROR(graph->Validate());
  std::unique_ptr<Session> s(new Session);
  Impl& im = *s->impl_;
  im.graph = graph;
  im.options = options;
  im.backends = std::move(backends);
  im.storage = im.backends[0]->float_storage();

  im.n_choose = std::min(options.backends.size(), im.backends.size() - 1);
  TARE_RETURN_IF_ERROR(im.ResolvePins(*graph));
  std::string unsupported;
  int n_unsupported = 0;
  for (const Node& n : graph->nodes) {
    const int chosen = im.ChooseBackend(n, *graph);
    if (chosen < 0) {
      ++n_unsupported;
      unsupported += (unsupported.empty() ? "" : "; ") + n.Where() + (n.domain.empty() ? "" : " domain '" + n.domain + "'");
    }
    im.base_node_backend.push_back(chosen);
  }
  if (n_unsupported)
    return Status::Error(StatusCode::kUnsupported, std::to_string(n_unsupported) + " unsupported node(s): " + unsupported);

  TARE_RETURN_IF_ERROR(AppendConsts(*graph, im.storage, &im.base_consts));
  im.traced.assign(graph->values.size(), 0);
  if (options.trace_all) {
    for (const Node& n : graph->nodes)
      for (int v : n.outputs)
        if (v >= 0) im.traced[v] = 1;
  }
  for (const std::string& name : options.trace) {
    int v = graph->FindValue(name);
    if (v < 0) return Status::Error(StatusCode::kInvalidArgument, "cannot trace '" + name + "': the model has no tensor of that name");
    im.traced[v] = 1;
  }
  // Validate every node's attributes now (kernel preparation parses them), not at the first run.
  // Control-flow bodies with work for a fast backend run as nested sessions on this session's
  // backends (no tracing inside); others on the reference interpreter.
  SessionOptions nested = options;
  nested.trace_all = false;
  nested.trace.clear();
  nested.pins.clear();
  const std::vector<std::shared_ptr<Backend>> shared = im.backends;
  const DType storage = im.storage;
  im.bodies = [nested, shared, storage](const std::shared_ptr<const Graph>& body,
                                        const std::vector<const Tensor*>& fixed) -> Result<std::shared_ptr<BodyRunner>> {
    // Bodies that take sequences or optionals (a Loop may turn an optional into what it holds
    // between iterations) stay on the reference interpreter.
    bool tensors = true;
    for (int v : body->inputs) tensors = tensors && body->values[v].kind == ValueKind::kTensor;
    if (!tensors) return ReferenceBodyFactory(storage)(body);
    // Outer weights the body reads (captured inputs) become constants of the body, so its
    // convolutions see known weights as at top level.
    auto spec = std::make_shared<Graph>(*body);
    std::vector<char> pass(body->inputs.size(), 1);
    std::vector<int> inputs;
    for (size_t i = 0; i < body->inputs.size(); ++i) {
      const Tensor* w = i < fixed.size() ? fixed[i] : nullptr;
      Value& v = spec->values[body->inputs[i]];
      if (!w || (v.dtype != DType::kUndefined && v.dtype != w->dtype)) {
        inputs.push_back(body->inputs[i]);
        continue;
      }
      v.is_constant = true;
      v.constant = *w;
      v.dtype = w->dtype;
      v.shape = w->shape;
      v.has_shape = true;
      pass[i] = 0;
    }
    spec->inputs = inputs;
    if (!FastBackendClaims(*spec, shared)) return ReferenceBodyFactory(storage)(body);
    TARE_ASSIGN_OR_RETURN(std::unique_ptr<Session> sub, CreateWith(spec, nested, shared));
    return std::shared_ptr<BodyRunner>(std::make_shared<NestedSessionRunner>(std::move(sub), std::move(pass)));
  };
  for (const auto& b : im.backends) im.fast = im.fast || b->name() != im.backends.back()->name();
  for (const Node& n : graph->nodes) {
    TARE_ASSIGN_OR_RETURN(KernelFn k, im.MakeKernel(n, *graph));
    im.base_kernels.push_back(std::move(k));
  }
  return s;
}

Result<KernelFn> Session::Impl::MakeKernel(const Node& n, const Graph& g) const {
  if (!fast || !IsControlFlow(n)) return MakeRefKernel(n, storage);
  // The trailing "tare.captured" inputs of the node are the trailing inputs of each body.
  TARE_ASSIGN_OR_RETURN(int64_t cap, n.GetInt("tare.captured", 0));
  std::vector<Tensor> weights;
  for (size_t k = 0; k < static_cast<size_t>(std::max<int64_t>(cap, 0)) && k < n.inputs.size(); ++k) {
    const int v = n.inputs[n.inputs.size() - 1 - k];
    weights.push_back(v >= 0 && g.values[v].is_constant ? g.values[v].constant : Tensor());
  }
  auto f = bodies;
  auto record = runners;
  (*record)[n.name].clear();
  const std::string name = n.name;
  return MakeControlFlowKernel(n, [f, weights, record, name](const std::shared_ptr<const Graph>& body) {
    std::vector<const Tensor*> fixed(body->inputs.size(), nullptr);
    for (size_t k = 0; k < weights.size() && k < fixed.size(); ++k)
      if (weights[k].data) fixed[fixed.size() - 1 - k] = &weights[k];
    Result<std::shared_ptr<BodyRunner>> r = f(body, fixed);
    if (r.ok()) (*record)[name].push_back(*r);
    return r;
  });
}

int Session::Impl::ChooseBackend(const Node& n, const Graph& g) const {
  if (auto it = pinned.find(n.name); it != pinned.end()) return it->second;
  for (size_t b = 0; b < n_choose; ++b)
    if (backends[b]->Supports(n, g)) return static_cast<int>(b);
  return backends.back()->Supports(n, g) ? static_cast<int>(backends.size() - 1) : -1;
}

Status Session::Impl::ResolvePins(const Graph& g) {
  for (const auto& [node, name] : options.pins) {
    const std::string pin = "--pin " + node + "=" + name;
    const Node* n = nullptr;
    for (const Node& x : g.nodes)
      if (x.name == node) n = &x;
    if (!n) return Status::Error(StatusCode::kInvalidArgument, pin + ": the model has no node named '" + node + "'");
    int b = -1;
    for (size_t i = 0; i < backends.size() && b < 0; ++i)
      if (backends[i]->name() == name) b = static_cast<int>(i);
    if (b < 0) return Status::Error(StatusCode::kInvalidArgument, pin + ": no backend '" + name + "' in this session");
    if (!backends[static_cast<size_t>(b)]->Supports(*n, g)) {
      const std::string why = backends[static_cast<size_t>(b)]->Declines(*n, g);
      return Status::Error(StatusCode::kUnsupported, pin + ": backend '" + name + "' does not run " + n->Where() +
                                                         (why.empty() ? std::string() : ": " + why));
    }
    if (auto it = pinned.find(node); it != pinned.end() && it->second != b)
      return Status::Error(StatusCode::kInvalidArgument, pin + ": node '" + node + "' is already pinned to '" + backends[it->second]->name() + "'");
    pinned[node] = b;
  }
  return Status::Ok();
}

Status Session::Impl::Inline(int node, bool cond) {
  TARE_ASSIGN_OR_RETURN(InlinedGraph ig, InlineIf(*exec, static_cast<size_t>(node), cond));
  auto next = std::make_shared<const Graph>(std::move(ig.graph));
  const Graph& x = *next;
  std::vector<int> next_origin, next_backend;
  std::vector<KernelFn> next_kernels;
  for (size_t e = 0; e < x.nodes.size(); ++e) {
    const int from = ig.origin[e];
    if (from >= 0) {
      next_origin.push_back(origin[from]);
      next_backend.push_back(node_backend[from]);
      next_kernels.push_back(std::move(ref_kernels[from]));
      continue;
    }
    const Node& n = x.nodes[e];
    next_origin.push_back(origin[node]);
    const int b = ChooseBackend(n, x);
    if (b < 0) return Status::Error(StatusCode::kUnsupported, n.Where() + ": unsupported op (domain '" + n.domain + "')");
    next_backend.push_back(b);
    TARE_ASSIGN_OR_RETURN(KernelFn k, MakeKernel(n, x));
    next_kernels.push_back(std::move(k));
  }
  inlined[origin[node]] = cond ? "then_branch" : "else_branch";
  TARE_RETURN_IF_ERROR(AppendConsts(x, storage, &consts));
  exec = std::move(next);
  origin = std::move(next_origin);
  node_backend = std::move(next_backend);
  ref_kernels = std::move(next_kernels);
  return Status::Ok();
}

Status Session::Impl::Plan(const std::vector<Shape>& input_shapes, const std::vector<DType>& input_dtypes) {
  exec = graph;
  origin.resize(graph->nodes.size());
  for (size_t i = 0; i < origin.size(); ++i) origin[i] = static_cast<int>(i);
  node_backend = base_node_backend;
  ref_kernels = base_kernels;
  consts = base_consts;
  inlined.assign(graph->nodes.size(), "");
  for (int round = 0;; ++round) {
    int node = -1;
    bool cond = false;
    TARE_RETURN_IF_ERROR(PlanOnce(input_shapes, input_dtypes, &node, &cond));
    if (node < 0) return Status::Ok();
    if (round == kMaxInlinedIfs)
      return Status::Error("the model has more than " + std::to_string(kMaxInlinedIfs) + " If nodes to inline (limit)");
    TARE_RETURN_IF_ERROR(Inline(node, cond));
  }
}

Status Session::Impl::PlanOnce(const std::vector<Shape>& input_shapes, const std::vector<DType>& input_dtypes,
                               int* inline_node, bool* cond) {
  const Graph& g = *exec;
  planned = false;
  dynamic = false;
  partitions.clear();
  arena.reset();
  placement.assign(g.nodes.size(), "");
  notes.assign(g.nodes.size(), "");
  // The plan's steps (runtime/plan/plan.h): dead nodes, shape inference and folding, lifetimes,
  // arena, partitions.
  live = LiveNodes(g, traced);
  TARE_ASSIGN_OR_RETURN(FoldResult fr, InferAndFold(g, live, consts, input_shapes, input_dtypes, storage,
                                                    options.max_tensor_bytes, &slots));
  // Nodes past a stop are not placed here (an inlined If plans again; dynamic mode names them below).
  const size_t placed = fr.stop == FoldResult::Stop::kNone ? g.nodes.size() : fr.at;
  for (size_t ni = 0; ni < placed; ++ni)
    placement[ni] = !live[ni] ? "unused" : fr.folded[ni] ? "folded" : backends[node_backend[ni]]->name();
  planned_shapes = input_shapes;
  planned_dtypes = input_dtypes;
  if (fr.stop == FoldResult::Stop::kInlineIf) {
    *inline_node = static_cast<int>(fr.at);
    *cond = fr.cond;
    return Status::Ok();
  }
  if (fr.stop == FoldResult::Stop::kDynamic) {
    // Some shape depends on run-time data, or values are not plain tensors (sequences, optionals,
    // strings, results of control flow): evaluate node by node at every run.
    for (size_t k = fr.at; k < g.nodes.size(); ++k)
      if (live[k]) placement[k] = backends.back()->name() + " (dynamic)";
    dynamic = true;
    planned = true;
    return Status::Ok();
  }
  const std::vector<Lifetime> life = ValueLifetimes(g, fr.steps, fr.known, traced);
  TARE_RETURN_IF_ERROR(PlaceInArena(life, fr.known));
  for (Partition& part : SplitPartitions(g, fr.steps, node_backend, life)) {
    TARE_ASSIGN_OR_RETURN(std::unique_ptr<Executable> ex, backends[node_backend[part.nodes[0]]]->Compile(g, part, slots, options));
    const std::vector<std::string> part_notes = ex->Notes();
    for (size_t k = 0; k < part_notes.size() && k < part.nodes.size(); ++k) notes[part.nodes[k]] = part_notes[k];
    partitions.push_back(std::move(ex));
  }
  planned = true;
  return Status::Ok();
}

Status Session::Impl::PlaceInArena(const std::vector<Lifetime>& life, const std::vector<char>& known) {
  std::vector<BufferUse> uses;
  std::vector<int> use_value;
  for (size_t v = 0; v < life.size(); ++v) {
    if (life[v].first == -2 || known[v]) continue;
    uses.push_back({slots[v].nbytes(), life[v].first, life[v].last});
    use_value.push_back(static_cast<int>(v));
  }
  const ArenaPlan ap = PlanArena(uses);
  if (ap.arena_bytes > options.max_arena_bytes)
    return Status::Error(StatusCode::kLimit, "the plan needs an arena of " + std::to_string(ap.arena_bytes) +
                         " bytes, over the session limit of " + std::to_string(options.max_arena_bytes));
  // 16 bytes of slack past the end: vectorized kernels may read (never use) a little beyond.
  const size_t cap = (ap.arena_bytes + 64 + 63) / 64 * 64;
  void* mem = std::aligned_alloc(64, cap);
  if (!mem) return Status::Error(StatusCode::kLimit, "out of memory allocating an arena of " + std::to_string(cap) + " bytes");
  std::memset(mem, 0, cap);
  arena.reset(mem, std::free);
  arena_bytes = ap.arena_bytes;
  for (size_t u = 0; u < uses.size(); ++u) slots[use_value[u]].data = static_cast<uint8_t*>(mem) + ap.offsets[u];
  return Status::Ok();
}

Status Session::Impl::RunDynamic(const std::vector<const Tensor*>& bound) {
  const Graph& g = *exec;
  // Values folded by the last plan stay; everything after the first dynamic node is recomputed.
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    TARE_ASSIGN_OR_RETURN(slots[g.inputs[i]], ConvertTensor(*bound[i], StorageType(bound[i]->dtype, storage)));
  }
  for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
    const Node& n = g.nodes[ni];
    if (!live[ni] || placement[ni] == "folded") continue;
    std::vector<const Tensor*> ptrs(n.inputs.size(), nullptr);
    for (size_t k = 0; k < n.inputs.size(); ++k)
      if (n.inputs[k] >= 0) ptrs[k] = &slots[n.inputs[k]];
    TARE_ASSIGN_OR_RETURN(std::vector<Tensor> res, EvalNode(n, ptrs, storage, &ref_kernels[ni], options.max_tensor_bytes));
    for (size_t k = 0; k < n.outputs.size(); ++k)
      if (n.outputs[k] >= 0) slots[n.outputs[k]] = std::move(res[k]);
  }
  return Status::Ok();
}

Status Session::Run(const std::vector<NamedTensor>& inputs, std::vector<NamedTensor>* outputs) {
  Impl& im = *impl_;
  const Graph& g = *im.graph;
  std::vector<const Tensor*> bound(g.inputs.size(), nullptr);
  for (const NamedTensor& nt : inputs) {
    size_t i = 0;
    while (i < g.inputs.size() && g.values[g.inputs[i]].name != nt.name) ++i;
    if (i == g.inputs.size()) {
      std::string names;
      for (int v : g.inputs) names += (names.empty() ? "" : ", ") + g.values[v].name;
      return Status::Error(StatusCode::kInvalidArgument, "the model has no input named '" + nt.name + "' (inputs: " + names + ")");
    }
    if (bound[i]) return Status::Error(StatusCode::kInvalidArgument, "input '" + nt.name + "' is given twice");
    bound[i] = &nt.tensor;
  }
  std::vector<Shape> shapes(g.inputs.size());
  std::vector<DType> dtypes(g.inputs.size());
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const Value& val = g.values[g.inputs[i]];
    if (!bound[i]) return Status::Error(StatusCode::kInvalidArgument, "missing input '" + val.name + "'");
    const Tensor& t = *bound[i];
    dtypes[i] = t.dtype;
    if (t.kind != val.kind)
      return Status::Error(StatusCode::kInvalidArgument, "input '" + val.name + "' must be a " + ValueKindName(val.kind) + ", got " + TypeStr(t));
    if (val.dtype != DType::kUndefined && t.dtype != val.dtype && !(t.kind != ValueKind::kTensor && t.dtype == DType::kUndefined))
      return Status::Error(StatusCode::kInvalidArgument, "input '" + val.name + "' must be " + DTypeName(val.dtype) + ", got " + DTypeName(t.dtype));
    if (t.kind != ValueKind::kTensor) {
      if (!t.items) return Status::Error(StatusCode::kInvalidArgument, "input '" + val.name + "' has no items");
      for (const Tensor& item : *t.items) {
        if (val.dtype != DType::kUndefined && item.dtype != val.dtype && item.kind == ValueKind::kTensor)
          return Status::Error(StatusCode::kInvalidArgument, "input '" + val.name + "' must hold " + DTypeName(val.dtype) + " tensors, got " + TypeStr(item));
      }
      continue;
    }
    Result<int64_t> n = NumElements(t.shape);
    if (!n.ok()) return Status::Error(StatusCode::kShape, "input '" + val.name + "': " + n.status().message());
    if (val.has_shape) {
      bool match = val.shape.size() == t.shape.size();
      for (size_t d = 0; match && d < t.shape.size(); ++d) match = val.shape[d] < 0 || val.shape[d] == t.shape[d];
      if (!match)
        return Status::Error(StatusCode::kShape, "input '" + val.name + "' must have shape " + ShapeStr(val.shape) + ", got " + ShapeStr(t.shape));
    }
    shapes[i] = t.shape;
  }
  // A plan that fails on these input shapes is a shape error unless it knows better (a limit).
  if (!im.planned || shapes != im.planned_shapes || dtypes != im.planned_dtypes)
    TARE_RETURN_IF_ERROR(im.Plan(shapes, dtypes).OrCode(StatusCode::kShape));
  if (im.dynamic) {
    TARE_RETURN_IF_ERROR(im.RunDynamic(bound));
  } else {
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      Tensor& slot = im.slots[g.inputs[i]];
      const Tensor& t = *bound[i];
      if (slot.dtype == t.dtype) {
        if (t.nbytes()) std::memcpy(slot.data, t.data, t.nbytes());
      } else {
        for (int64_t k = 0; k < t.numel(); ++k) WriteDouble(slot, k, ReadDouble(t, k));
      }
    }
    for (auto& p : im.partitions) TARE_RETURN_IF_ERROR(p->Run(im.slots));
  }
  im.ran = true;
  outputs->clear();
  for (int v : g.outputs) {
    const Tensor& s = im.slots[v];
    TARE_ASSIGN_OR_RETURN(Tensor copy, ConvertTensor(s, s.dtype));
    outputs->push_back({g.values[v].name, std::move(copy)});
  }
  return Status::Ok();
}

}  // namespace tare
