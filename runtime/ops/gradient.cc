// Gradient family: Gradient-1 of domain ai.onnx.preview.training. Attributes xs (names of the
// differentiated tensors), y (a tensor computed from them), zs (other fed tensors, optional). The
// inputs are the values of xs then zs; output i is d sum(y) / d xs[i], of xs[i]'s shape (the
// gradient of y's elements summed, i.e. a seed of ones). The converter copies the part of the graph
// that computes y from xs into the graph attribute "tare.forward" (inputs: xs, zs, then the other
// values it reads, which are also trailing node inputs counted by "tare.captured"). Reverse-mode
// rules exist for Add, Sub, Mul, Div (numpy broadcasting), Neg, Identity and Relu; any other op on
// the path is an error naming it. float32 only.
#include "runtime/ops/specs.h"

namespace tare {

Status InferGradient(InferContext& ctx) {
  auto it = ctx.node.attrs.find("tare.forward");
  if (it == ctx.node.attrs.end() || it->second.kind != Attr::Kind::kGraph || !it->second.graph)
    return ctx.Error("the forward graph (attribute 'tare.forward') is missing");
  TARE_ASSIGN_OR_RETURN(int64_t cap, ctx.node.GetInt("tare.captured", 0));
  if (cap < 0 || static_cast<size_t>(cap) > ctx.node.inputs.size()) return ctx.Error("attribute 'tare.captured' is out of range");
  if (it->second.graph->inputs.size() != ctx.node.inputs.size() || it->second.graph->outputs.size() != 1)
    return ctx.Error("the forward graph does not match the node's inputs");
  for (size_t i = 0; i < ctx.in.size(); ++i)
    if (!ctx.has(i) || ctx.in[i].kind != ValueKind::kTensor) return ctx.Error("inputs must be tensors");
  if (ctx.node.outputs.size() + static_cast<size_t>(cap) > ctx.node.inputs.size())
    return ctx.Error("more outputs than xs inputs");
  for (size_t i = 0; i < ctx.node.outputs.size(); ++i) {
    if (ctx.in[i].dtype != DType::kFloat32) return ctx.Error("xs must be float32, got " + DTypeName(ctx.in[i].dtype));
    ctx.SetOut(i, DType::kFloat32, ctx.in[i].shape);
  }
  return Status::Ok();
}

}  // namespace tare
