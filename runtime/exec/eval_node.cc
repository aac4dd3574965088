#include "runtime/exec/eval_node.h"

#include <algorithm>
#include <cstring>

#include "runtime/exec/narrow_float.h"

namespace tare {
namespace {

// Families whose ops take sequences and optionals (or pass any value through).
bool TakesAnyKind(const OpSpec& spec) {
  const std::string f = spec.family;
  return f == "Sequence" || f == "Optional" || f == "ControlFlow" || std::strcmp(spec.name, "Identity") == 0;
}

bool TakesStrings(const OpSpec& spec) {
  const std::string n = spec.name;
  return TakesAnyKind(spec) || n == "Cast" || n == "CastLike" || n == "StringNormalizer";
}

}  // namespace

Result<std::vector<ValueInfo>> InferNode(const Node& node, const std::vector<ValueInfo>& in) {
  const OpSpec* spec = FindOp(node);
  if (!spec) return Status::Error(node.Where() + ": unsupported op (domain '" + node.domain + "')");
  for (size_t i = 0; i < in.size(); ++i) {
    if (!in[i].present) continue;
    if (in[i].kind != ValueKind::kTensor && !TakesAnyKind(*spec))
      return Status::Error(node.Where() + ": input " + std::to_string(i) + " is of kind " + ValueKindName(in[i].kind) +
                           "; " + node.op + " takes tensors");
    if (in[i].dtype == DType::kString && !TakesStrings(*spec))
      return Status::Error(node.Where() + ": input " + std::to_string(i) + " is a string tensor; " + node.op +
                           " does not take strings");
  }
  InferContext ctx{node, in, std::vector<ValueInfo>(node.outputs.size())};
  const Status native = spec->infer(ctx);
  if (!native.ok() && !native.needs_value()) {
    // float16 / bfloat16 inputs of an op that does not take them: computed in float (narrow_float.h).
    TARE_ASSIGN_OR_RETURN(ctx.out, InferInFloat(*spec, node, in, native));
  } else if (!native.ok()) {
    return native;
  }
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    if (node.outputs[i] >= 0 && !ctx.out[i].present)
      return Status::Error(node.Where() + ": output " + std::to_string(i) + " is not produced by this op");
    if (ctx.out[i].present && !ctx.out[i].kernel_allocates) {
      Result<int64_t> n = NumElements(ctx.out[i].shape);
      if (!n.ok()) return Status::Error(node.Where() + ": output " + std::to_string(i) + ": " + n.status().message());
    }
  }
  return ctx.out;
}

namespace {

// Bytes a value holds (strings and nested items counted by element).
size_t ValueBytes(const Tensor& t) {
  if (!t.is_tensor()) {
    size_t b = 0;
    if (t.items)
      for (const Tensor& x : *t.items) b += ValueBytes(x);
    return b;
  }
  const size_t n = static_cast<size_t>(t.numel());
  if (t.dtype == DType::kString) {
    size_t b = 0;
    for (size_t i = 0; i < n; ++i) b += t.as<std::string>()[i].size() + 1;
    return b;
  }
  return n * DTypeSize(t.dtype);
}

}  // namespace

namespace {
thread_local int64_t t_body_runs_left = -1;  // -1: no budget open on this thread
thread_local size_t t_max_tensor_bytes = SIZE_MAX;
thread_local int64_t t_max_body_runs = ControlFlowBudget::kMaxBodyRuns;  // BodyRunLimitScope
}  // namespace

BodyRunLimitScope::BodyRunLimitScope(int64_t max_runs) : previous_(t_max_body_runs) {
  t_max_body_runs = std::max<int64_t>(0, std::min(max_runs, ControlFlowBudget::kMaxBodyRuns));
}
BodyRunLimitScope::~BodyRunLimitScope() { t_max_body_runs = previous_; }

ControlFlowBudget::ControlFlowBudget() {
  if (t_body_runs_left < 0) {
    owner_ = true;
    t_body_runs_left = t_max_body_runs;
  }
}

ControlFlowBudget::~ControlFlowBudget() {
  if (owner_) t_body_runs_left = -1;
}

Status ControlFlowBudget::CountRun(const std::string& where) {
  if (t_body_runs_left <= 0)
    return Status::Error(where + ": control flow ran " + std::to_string(t_max_body_runs) +
                         " body runs (all nested loops together) without finishing (limit)");
  --t_body_runs_left;
  return Status::Ok();
}

Status ControlFlowBudget::Collect(size_t bytes, size_t* held, const std::string& where) {
  *held += bytes;
  if (*held > MaxTensorBytes())
    return Status::Error(where + ": the collected scan outputs need more than " + std::to_string(MaxTensorBytes()) +
                         " bytes, over the session limit");
  return Status::Ok();
}

size_t ControlFlowBudget::MaxTensorBytes() { return t_max_tensor_bytes; }

MaxTensorBytesScope::MaxTensorBytesScope(size_t max_bytes) : previous_(t_max_tensor_bytes) {
  t_max_tensor_bytes = std::min(max_bytes, previous_);
}

MaxTensorBytesScope::~MaxTensorBytesScope() { t_max_tensor_bytes = previous_; }

Result<std::vector<Tensor>> EvalNode(const Node& node, const std::vector<const Tensor*>& in, DType compute,
                                     const KernelFn* kernel, size_t max_bytes) {
  std::vector<ValueInfo> infos(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (!in[i]) continue;
    infos[i].present = true;
    infos[i].dtype = in[i]->dtype == compute && DTypeIsFloat(compute) ? DType::kFloat32 : in[i]->dtype;
    infos[i].shape = in[i]->shape;
    infos[i].value = in[i];
    infos[i].kind = in[i]->kind;
  }
  TARE_ASSIGN_OR_RETURN(std::vector<ValueInfo> outs, InferNode(node, infos));
  KernelFn own;
  if (!kernel) {
    TARE_ASSIGN_OR_RETURN(own, MakeRefKernel(node, compute));
    kernel = &own;
  }
  std::vector<Tensor> result(outs.size());
  std::vector<Tensor*> out_ptrs(outs.size(), nullptr);
  for (size_t i = 0; i < outs.size(); ++i) {
    if (!outs[i].present) continue;
    out_ptrs[i] = &result[i];
    const DType dt = StorageType(outs[i].dtype, compute);
    if (outs[i].kernel_allocates) {
      result[i].kind = outs[i].kind;
      result[i].dtype = dt;
      continue;
    }
    const size_t bytes = static_cast<size_t>(NumElements(outs[i].shape).value()) * DTypeSize(dt);
    if (bytes > max_bytes)
      return Status::Error(node.Where() + ": output " + std::to_string(i) + " of shape " + ShapeStr(outs[i].shape) +
                           " needs " + std::to_string(bytes) + " bytes, over the session limit of " +
                           std::to_string(max_bytes));
    TARE_ASSIGN_OR_RETURN(result[i], Tensor::Alloc(dt, outs[i].shape));
  }
  {
    const MaxTensorBytesScope limit(max_bytes);
    TARE_RETURN_IF_ERROR((*kernel)(in, out_ptrs).With(node.Where()));
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    if (!outs[i].present || !outs[i].kernel_allocates) continue;
    const Tensor& r = result[i];
    const bool missing = r.is_tensor() ? (!NumElements(r.shape).ok() || (!r.data && r.numel() != 0)) : !r.items;
    if (missing)
      return Status::Error(node.Where() + ": output " + std::to_string(i) + " was not produced (internal error)");
    if (ValueBytes(r) > max_bytes)
      return Status::Error(node.Where() + ": output " + std::to_string(i) + " (" + TypeStr(r) + ") needs " +
                           std::to_string(ValueBytes(r)) + " bytes, over the session limit of " + std::to_string(max_bytes));
  }
  return result;
}

Result<std::unique_ptr<GraphEvaluator>> GraphEvaluator::Create(std::shared_ptr<const Graph> graph, DType compute,
                                                               size_t max_bytes) {
  TARE_RETURN_IF_ERROR(graph->Validate());
  std::unique_ptr<GraphEvaluator> e(new GraphEvaluator);
  e->graph_ = graph;
  e->compute_ = compute;
  e->max_bytes_ = max_bytes;
  const Graph& g = *graph;
  e->consts_.resize(g.values.size());
  for (size_t v = 0; v < g.values.size(); ++v) {
    if (!g.values[v].is_constant) continue;
    TARE_ASSIGN_OR_RETURN(e->consts_[v], ConvertTensor(g.values[v].constant, StorageType(g.values[v].constant.dtype, compute)));
  }
  e->live_ = LiveNodes(g);
  for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
    const Node& n = g.nodes[ni];
    if (!FindOp(n)) return Status::Error(n.Where() + ": unsupported op (domain '" + n.domain + "')");
    if (!e->live_[ni]) {
      e->kernels_.emplace_back();
      continue;
    }
    TARE_ASSIGN_OR_RETURN(KernelFn k, MakeRefKernel(n, compute));
    e->kernels_.push_back(std::move(k));
  }
  return e;
}

Result<std::vector<Tensor>> GraphEvaluator::Run(const std::vector<Tensor>& inputs, std::vector<Tensor>* all_values) {
  const Graph& g = *graph_;
  if (inputs.size() != g.inputs.size())
    return Status::Error("subgraph takes " + std::to_string(g.inputs.size()) + " inputs, got " +
                         std::to_string(inputs.size()));
  std::vector<Tensor> slots = consts_;
  for (size_t i = 0; i < inputs.size(); ++i) slots[g.inputs[i]] = inputs[i];
  std::vector<const Tensor*> ptrs;
  for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
    if (!live_[ni]) continue;
    const Node& n = g.nodes[ni];
    ptrs.assign(n.inputs.size(), nullptr);
    for (size_t k = 0; k < n.inputs.size(); ++k)
      if (n.inputs[k] >= 0) ptrs[k] = &slots[n.inputs[k]];
    TARE_ASSIGN_OR_RETURN(std::vector<Tensor> res, EvalNode(n, ptrs, compute_, &kernels_[ni], max_bytes_));
    for (size_t k = 0; k < n.outputs.size(); ++k)
      if (n.outputs[k] >= 0) slots[n.outputs[k]] = std::move(res[k]);
  }
  std::vector<Tensor> out;
  for (int v : g.outputs) out.push_back(slots[v]);
  if (all_values) *all_values = std::move(slots);
  return out;
}

}  // namespace tare
