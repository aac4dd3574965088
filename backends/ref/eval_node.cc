#include "backends/ref/eval_node.h"

namespace tare {

Result<std::vector<ValueInfo>> InferNode(const Node& node, const std::vector<ValueInfo>& in) {
  const OpSpec* spec = node.domain.empty() || node.domain == "ai.onnx" ? FindOp(node.op) : nullptr;
  if (!spec) return Status::Error(node.Where() + ": unsupported op (domain '" + node.domain + "')");
  InferContext ctx{node, in, std::vector<ValueInfo>(node.outputs.size())};
  TARE_RETURN_IF_ERROR(spec->infer(ctx));
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    if (node.outputs[i] >= 0 && !ctx.out[i].present)
      return Status::Error(node.Where() + ": output " + std::to_string(i) + " is not produced by this op");
    if (ctx.out[i].present) {
      Result<int64_t> n = NumElements(ctx.out[i].shape);
      if (!n.ok()) return Status::Error(node.Where() + ": output " + std::to_string(i) + ": " + n.status().message());
    }
  }
  return ctx.out;
}

Result<std::vector<Tensor>> EvalNode(const Node& node, const std::vector<const Tensor*>& in, DType compute,
                                     const KernelFn* kernel, size_t max_bytes) {
  std::vector<ValueInfo> infos(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (!in[i]) continue;
    infos[i].present = true;
    infos[i].dtype = in[i]->dtype == compute && DTypeIsFloat(compute) ? DType::kFloat32 : in[i]->dtype;
    infos[i].shape = in[i]->shape;
    infos[i].value = in[i];
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
    const DType dt = StorageType(outs[i].dtype, compute);
    const size_t bytes = static_cast<size_t>(NumElements(outs[i].shape).value()) * DTypeSize(dt);
    if (bytes > max_bytes)
      return Status::Error(node.Where() + ": output " + std::to_string(i) + " of shape " + ShapeStr(outs[i].shape) +
                           " needs " + std::to_string(bytes) + " bytes, over the session limit of " +
                           std::to_string(max_bytes));
    TARE_ASSIGN_OR_RETURN(result[i], Tensor::Alloc(dt, outs[i].shape));
    out_ptrs[i] = &result[i];
  }
  TARE_RETURN_IF_ERROR((*kernel)(in, out_ptrs).With(node.Where()));
  return result;
}

}  // namespace tare
