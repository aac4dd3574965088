// Losses (ONNX NegativeLogLikelihoodLoss-13, SoftmaxCrossEntropyLoss-13).
// Inputs: scores (N, C, D1..Dk), k >= 0, float32 or float64; target (N, D1..Dk), int32 or int64;
// optional weight (C), the dtype of scores. Per sample (n, d1..dk) with class c = target[n, d..]:
//   NegativeLogLikelihoodLoss: scores holds log-probabilities; l = -scores[n, c, d..] * w[c].
//   SoftmaxCrossEntropyLoss: lp = LogSoftmax(scores) over the class axis 1 (lp_c = (x_c - max) -
//     log(sum_j exp(x_j - max))); l = -lp[n, c, d..] * w[c].
//   w[c] = weight[c], or 1 without weight. A sample whose target equals `ignore_index` has l = 0
//   and w = 0; any other target must be in [0, C) (checked at run time: an error otherwise).
// Attributes: reduction="mean" ("none": the loss tensor, shape of target; "sum": sum of l;
// "mean": sum of l / sum of w over the samples, i.e. the plain mean without weight and
// ignore_index, NaN when every sample is ignored); ignore_index (optional int, no default).
// Outputs: loss (float type of scores: shape of target for "none", a scalar otherwise);
// SoftmaxCrossEntropyLoss only: optional log_prob (shape and dtype of scores).
#include "runtime/ops/specs.h"

namespace tare {

Status InferLoss(InferContext& ctx) {
  const bool sce = ctx.node.op == "SoftmaxCrossEntropyLoss";
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 3));
  if (!ctx.has(0) || !ctx.has(1)) return ctx.Error("inputs scores and target are required");
  const ValueInfo& x = ctx.in[0];
  const ValueInfo& t = ctx.in[1];
  if (x.dtype != DType::kFloat32 && x.dtype != DType::kFloat64)
    return ctx.Error("input scores must be float32 or float64, got " + DTypeName(x.dtype));
  if (t.dtype != DType::kInt32 && t.dtype != DType::kInt64)
    return ctx.Error("input target must be int32 or int64, got " + DTypeName(t.dtype));
  if (x.shape.size() < 2) return ctx.Error("input scores must have rank >= 2 (N, C, ...), got shape " + ShapeStr(x.shape));
  Shape want = x.shape;
  want.erase(want.begin() + 1);
  if (t.shape != want)
    return ctx.Error("input target must have shape " + ShapeStr(want) + " (scores without the class dim), got " +
                     ShapeStr(t.shape));
  if (ctx.has(2)) {
    if (ctx.in[2].dtype != x.dtype)
      return ctx.Error("input weight must have the dtype of scores (" + DTypeName(x.dtype) + "), got " +
                       DTypeName(ctx.in[2].dtype));
    if (ctx.in[2].shape != Shape{x.shape[1]})
      return ctx.Error("input weight must have shape [" + std::to_string(x.shape[1]) + "] (C), got " +
                       ShapeStr(ctx.in[2].shape));
  }
  TARE_ASSIGN_OR_RETURN(std::string red, ctx.node.GetString("reduction", "mean"));
  if (red != "none" && red != "sum" && red != "mean")
    return ctx.Error("attribute 'reduction' must be none, sum or mean, got '" + red + "'");
  TARE_RETURN_IF_ERROR(ctx.node.GetInt("ignore_index", 0).status());
  if (!sce && ctx.node.outputs.size() > 1)
    return ctx.Error("NegativeLogLikelihoodLoss has one output, got " + std::to_string(ctx.node.outputs.size()));
  if (ctx.node.outputs.size() > 2)
    return ctx.Error("SoftmaxCrossEntropyLoss has at most 2 outputs, got " + std::to_string(ctx.node.outputs.size()));
  ctx.SetOut(0, x.dtype, red == "none" ? t.shape : Shape{});
  if (sce) ctx.SetOut(1, x.dtype, x.shape);
  return Status::Ok();
}

}  // namespace tare
