#include "runtime/session.h"

#include <cstdlib>
#include <cstring>

#include "backends/ref/eval_node.h"
#include "runtime/planner.h"

namespace tare {

struct Session::Impl {
  std::shared_ptr<const Graph> graph;
  SessionOptions options;
  std::vector<std::unique_ptr<Backend>> backends;  // priority order; the last is the reference fallback
  DType storage = DType::kFloat32;
  std::vector<int> node_backend;  // index into backends per node
  std::vector<Tensor> consts;     // weights in storage type, per value id

  // The current plan.
  bool planned = false;
  std::vector<Shape> planned_shapes;
  std::vector<Tensor> slots;  // per value id
  std::shared_ptr<void> arena;
  size_t arena_bytes = 0;
  std::vector<std::unique_ptr<Executable>> partitions;
  std::vector<std::string> placement;  // per node
  // Dynamic mode: some shape depends on run-time data, so every run infers shapes with the real
  // values and evaluates node by node with the reference kernels (no arena).
  bool dynamic = false;
  std::vector<char> live;               // per node: some graph output depends on it
  std::vector<KernelFn> ref_kernels;    // per node, prepared at creation
  std::vector<char> traced;             // per value: kept for Trace()
  bool ran = false;

  Status Plan(const std::vector<Shape>& input_shapes);
  Status RunDynamic(const std::vector<const Tensor*>& bound);
  Status CheckBytes(const Node& node, const ValueInfo& v) const;
};

Session::Session() : impl_(new Impl) {}
Session::~Session() = default;
const Graph& Session::graph() const { return *impl_->graph; }
size_t Session::arena_bytes() const { return impl_->arena_bytes; }

std::vector<std::pair<std::string, std::string>> Session::Placement() const {
  std::vector<std::pair<std::string, std::string>> out;
  const Graph& g = *impl_->graph;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    out.emplace_back(g.nodes[i].name, impl_->planned ? impl_->placement[i] : impl_->backends[impl_->node_backend[i]]->name());
  return out;
}

std::vector<TraceEntry> Session::Trace() const {
  const Impl& im = *impl_;
  std::vector<TraceEntry> out;
  if (!im.ran) return out;
  const Graph& g = *im.graph;
  for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
    const Node& n = g.nodes[ni];
    if (!im.live[ni]) continue;
    for (int v : n.outputs) {
      if (v < 0 || !im.traced[v]) continue;
      Result<Tensor> copy = ConvertTensor(im.slots[v], im.slots[v].dtype);
      if (copy.ok()) out.push_back({g.values[v].name, n.name, n.op, std::move(copy).value()});
    }
  }
  return out;
}

Result<std::unique_ptr<Session>> Session::Create(std::shared_ptr<const Graph> graph, const SessionOptions& options) {
  if (!graph) return Status::Error("no graph");
  TARE_RETURN_IF_ERROR(graph->Validate());
  std::unique_ptr<Session> s(new Session);
  Impl& im = *s->impl_;
  im.graph = graph;
  im.options = options;
  if (options.backends.empty()) return Status::Error("no backend given");
  for (const std::string& name : options.backends) {
    TARE_ASSIGN_OR_RETURN(std::unique_ptr<Backend> b, CreateBackend(name));
    im.backends.push_back(std::move(b));
  }
  im.storage = im.backends[0]->float_storage();
  for (const auto& b : im.backends)
    if (b->float_storage() != im.storage)
      return Status::Error("backend '" + b->name() + "' cannot be mixed with '" + im.backends[0]->name() + "' (different precision)");
  const std::string fallback = im.storage == DType::kFloat64 ? "ref64" : "ref";
  TARE_ASSIGN_OR_RETURN(std::unique_ptr<Backend> fb, CreateBackend(fallback));
  im.backends.push_back(std::move(fb));

  std::string unsupported;
  int n_unsupported = 0;
  for (const Node& n : graph->nodes) {
    int chosen = -1;
    for (size_t b = 0; b < im.backends.size() && chosen < 0; ++b)
      if (im.backends[b]->Supports(n, *graph)) chosen = static_cast<int>(b);
    if (chosen < 0) {
      ++n_unsupported;
      unsupported += (unsupported.empty() ? "" : "; ") + n.Where() + (n.domain.empty() ? "" : " domain '" + n.domain + "'");
    }
    im.node_backend.push_back(chosen);
  }
  if (n_unsupported)
    return Status::Error(std::to_string(n_unsupported) + " unsupported node(s): " + unsupported);

  im.consts.resize(graph->values.size());
  for (size_t v = 0; v < graph->values.size(); ++v) {
    const Value& val = graph->values[v];
    if (!val.is_constant) continue;
    if (val.constant.dtype == DType::kFloat32 && im.storage != DType::kFloat32) {
      TARE_ASSIGN_OR_RETURN(im.consts[v], ConvertTensor(val.constant, im.storage));
    } else {
      im.consts[v] = val.constant;
    }
  }
  im.traced.assign(graph->values.size(), 0);
  if (options.trace_all) {
    for (const Node& n : graph->nodes)
      for (int v : n.outputs)
        if (v >= 0) im.traced[v] = 1;
  }
  for (const std::string& name : options.trace) {
    int v = graph->FindValue(name);
    if (v < 0) return Status::Error("cannot trace '" + name + "': the model has no tensor of that name");
    im.traced[v] = 1;
  }
  // Validate every node's attributes now (kernel preparation parses them), not at the first run.
  for (const Node& n : graph->nodes) {
    Result<KernelFn> k = MakeRefKernel(n, im.storage);
    if (!k.ok()) return k.status();
    im.ref_kernels.push_back(std::move(k).value());
  }
  return s;
}

Status Session::Impl::CheckBytes(const Node& node, const ValueInfo& v) const {
  Result<int64_t> n = NumElements(v.shape);
  if (!n.ok()) return Status::Error(node.Where() + ": " + n.status().message());
  size_t bytes = static_cast<size_t>(*n) * DTypeSize(StorageType(v.dtype, storage));
  if (bytes > options.max_tensor_bytes)
    return Status::Error(node.Where() + ": output of shape " + ShapeStr(v.shape) + " needs " + std::to_string(bytes) +
                         " bytes, over the session limit of " + std::to_string(options.max_tensor_bytes));
  return Status::Ok();
}

Status Session::Impl::Plan(const std::vector<Shape>& input_shapes) {
  const Graph& g = *graph;
  const size_t nv = g.values.size();
  planned = false;
  dynamic = false;
  partitions.clear();
  arena.reset();
  slots.assign(nv, Tensor());
  placement.assign(g.nodes.size(), "");
  std::vector<ValueInfo> vi(nv);
  std::vector<char> known(nv, 0);
  for (size_t v = 0; v < nv; ++v) {
    if (!g.values[v].is_constant) continue;
    slots[v] = consts[v];
    vi[v] = {true, g.values[v].dtype, g.values[v].shape, &slots[v]};
    known[v] = 1;
  }
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    int v = g.inputs[i];
    vi[v] = {true, g.values[v].dtype, input_shapes[i], nullptr};
    vi[v].kind = g.values[v].kind;
    slots[v] = Tensor::View(StorageType(g.values[v].dtype, storage), input_shapes[i], nullptr);
  }
  auto go_dynamic = [&](size_t from) {
    // A shape depends on run-time data, or values are not plain tensors (sequences, optionals,
    // strings, results of control flow): evaluate node by node at every run.
    dynamic = true;
    planned_shapes = input_shapes;
    planned = true;
    for (size_t k = from; k < g.nodes.size(); ++k)
      if (live[k]) placement[k] = backends.back()->name() + " (dynamic)";
    return Status::Ok();
  };
  // Sequences, optionals and strings never live in the arena.
  auto plain = [](const ValueInfo& i) { return i.kind == ValueKind::kTensor && !i.kernel_allocates && i.dtype != DType::kString; };
  // Dead nodes (no path to a graph output) are neither folded nor run.
  std::vector<char> needed(nv, 0);
  for (int v : g.outputs) needed[v] = 1;
  for (size_t v = 0; v < nv; ++v)
    if (traced[v]) needed[v] = 1;
  live.assign(g.nodes.size(), 0);
  for (size_t ni = g.nodes.size(); ni-- > 0;) {
    const Node& n = g.nodes[ni];
    for (int v : n.outputs) live[ni] = live[ni] || (v >= 0 && needed[v]);
    if (live[ni])
      for (int v : n.inputs)
        if (v >= 0) needed[v] = 1;
  }
  std::vector<int> steps;  // node indices run at run time
  for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
    const Node& n = g.nodes[ni];
    if (!live[ni]) {
      placement[ni] = "unused";
      continue;
    }
    std::vector<ValueInfo> ins(n.inputs.size());
    bool all_known = true;
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      int v = n.inputs[k];
      if (v < 0) continue;
      ins[k] = vi[v];
      ins[k].value = known[v] ? &slots[v] : nullptr;
      all_known = all_known && known[v];
    }
    for (size_t k = 0; k < n.inputs.size(); ++k)
      if (n.inputs[k] >= 0 && !known[n.inputs[k]] && !plain(ins[k])) return go_dynamic(ni);
    Result<std::vector<ValueInfo>> inferred = InferNode(n, ins);
    if (!inferred.ok() && inferred.status().needs_value()) return go_dynamic(ni);
    if (!inferred.ok()) return inferred.status();
    std::vector<ValueInfo> outs = std::move(inferred).value();
    if (!all_known)
      for (const ValueInfo& o : outs)
        if (o.present && !plain(o)) return go_dynamic(ni);
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      if (n.outputs[k] < 0) continue;
      if (!outs[k].kernel_allocates) TARE_RETURN_IF_ERROR(CheckBytes(n, outs[k]));
      vi[n.outputs[k]] = outs[k];
    }
    // Shape and Size only read their input's shape, which is known here: fold them too.
    bool shape_only = (n.op == "Shape" || n.op == "Size") && n.domain.empty();
    if (all_known || shape_only) {
      std::vector<Tensor> dummies(n.inputs.size());
      std::vector<const Tensor*> ptrs(n.inputs.size(), nullptr);
      for (size_t k = 0; k < n.inputs.size(); ++k) {
        int v = n.inputs[k];
        if (v < 0) continue;
        if (known[v]) {
          ptrs[k] = &slots[v];
        } else {
          dummies[k] = Tensor::View(StorageType(vi[v].dtype, storage), vi[v].shape, nullptr);
          ptrs[k] = &dummies[k];
        }
      }
      TARE_ASSIGN_OR_RETURN(std::vector<Tensor> res, EvalNode(n, ptrs, storage));
      for (size_t k = 0; k < n.outputs.size(); ++k) {
        int v = n.outputs[k];
        if (v < 0) continue;
        slots[v] = res[k];
        known[v] = 1;
      }
      placement[ni] = "folded";
      continue;
    }
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      int v = n.outputs[k];
      if (v >= 0) slots[v] = Tensor::View(StorageType(outs[k].dtype, storage), outs[k].shape, nullptr);
    }
    placement[ni] = backends[node_backend[ni]]->name();
    steps.push_back(static_cast<int>(ni));
  }

  // Lifetimes of run-time values: graph inputs from step -1, graph outputs to the end.
  std::vector<int> first(nv, -2), last(nv, -2);
  for (int v : g.inputs) first[v] = last[v] = -1;
  for (size_t s = 0; s < steps.size(); ++s) {
    const Node& n = g.nodes[steps[s]];
    for (int v : n.inputs)
      if (v >= 0 && !known[v]) last[v] = static_cast<int>(s);
    for (int v : n.outputs)
      if (v >= 0) first[v] = last[v] = static_cast<int>(s);
  }
  for (int v : g.outputs)
    if (!known[v]) last[v] = static_cast<int>(steps.size());
  for (size_t v = 0; v < nv; ++v)  // traced values keep their buffers to the end of the run
    if (traced[v] && first[v] != -2 && !known[v]) last[v] = static_cast<int>(steps.size());
  std::vector<BufferUse> uses;
  std::vector<int> use_value;
  for (size_t v = 0; v < nv; ++v) {
    if (first[v] == -2 || known[v]) continue;
    uses.push_back({slots[v].nbytes(), first[v], last[v]});
    use_value.push_back(static_cast<int>(v));
  }
  ArenaPlan ap = PlanArena(uses);
  if (ap.arena_bytes > options.max_arena_bytes)
    return Status::Error("the plan needs an arena of " + std::to_string(ap.arena_bytes) +
                         " bytes, over the session limit of " + std::to_string(options.max_arena_bytes));
  // 16 bytes of slack past the end: vectorized kernels may read (never use) a little beyond.
  size_t cap = (ap.arena_bytes + 64 + 63) / 64 * 64;
  void* mem = std::aligned_alloc(64, cap);
  if (!mem) return Status::Error("out of memory allocating an arena of " + std::to_string(cap) + " bytes");
  std::memset(mem, 0, cap);
  arena.reset(mem, std::free);
  arena_bytes = ap.arena_bytes;
  for (size_t u = 0; u < uses.size(); ++u) slots[use_value[u]].data = static_cast<uint8_t*>(mem) + ap.offsets[u];

  // Partitions: maximal runs of consecutive steps on the same backend.
  for (size_t s = 0; s < steps.size();) {
    Partition part;
    int b = node_backend[steps[s]];
    while (s < steps.size() && node_backend[steps[s]] == b) part.nodes.push_back(steps[s++]);
    for (int ni : part.nodes)
      for (int v : g.nodes[ni].outputs)
        if (v >= 0 && last[v] >= static_cast<int>(s)) part.live_out.push_back(v);
    TARE_ASSIGN_OR_RETURN(std::unique_ptr<Executable> ex, backends[b]->Compile(g, part, slots, options));
    partitions.push_back(std::move(ex));
  }
  planned_shapes = input_shapes;
  planned = true;
  return Status::Ok();
}

Status Session::Impl::RunDynamic(const std::vector<const Tensor*>& bound) {
  const Graph& g = *graph;
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
      return Status::Error("the model has no input named '" + nt.name + "' (inputs: " + names + ")");
    }
    if (bound[i]) return Status::Error("input '" + nt.name + "' is given twice");
    bound[i] = &nt.tensor;
  }
  std::vector<Shape> shapes(g.inputs.size());
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const Value& val = g.values[g.inputs[i]];
    if (!bound[i]) return Status::Error("missing input '" + val.name + "'");
    const Tensor& t = *bound[i];
    if (t.kind != val.kind)
      return Status::Error("input '" + val.name + "' must be a " + ValueKindName(val.kind) + ", got " + TypeStr(t));
    if (val.dtype != DType::kUndefined && t.dtype != val.dtype && !(t.kind != ValueKind::kTensor && t.dtype == DType::kUndefined))
      return Status::Error("input '" + val.name + "' must be " + DTypeName(val.dtype) + ", got " + DTypeName(t.dtype));
    if (t.kind != ValueKind::kTensor) {
      if (!t.items) return Status::Error("input '" + val.name + "' has no items");
      for (const Tensor& item : *t.items) {
        if (val.dtype != DType::kUndefined && item.dtype != val.dtype && item.kind == ValueKind::kTensor)
          return Status::Error("input '" + val.name + "' must hold " + DTypeName(val.dtype) + " tensors, got " + TypeStr(item));
      }
      continue;
    }
    Result<int64_t> n = NumElements(t.shape);
    if (!n.ok()) return Status::Error("input '" + val.name + "': " + n.status().message());
    if (val.has_shape) {
      bool match = val.shape.size() == t.shape.size();
      for (size_t d = 0; match && d < t.shape.size(); ++d) match = val.shape[d] < 0 || val.shape[d] == t.shape[d];
      if (!match)
        return Status::Error("input '" + val.name + "' must have shape " + ShapeStr(val.shape) + ", got " + ShapeStr(t.shape));
    }
    shapes[i] = t.shape;
  }
  if (!im.planned || shapes != im.planned_shapes) TARE_RETURN_IF_ERROR(im.Plan(shapes));
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
