// Softmax, LogSoftmax, Hardmax (ONNX Softmax-13 / LogSoftmax-13 / Hardmax-13), input of rank
// r >= 1, output of the same shape and dtype. For each slice along `axis` (K elements):
//   Softmax:    y_k = exp(x_k - max) / sum_j exp(x_j - max)
//   LogSoftmax: y_k = (x_k - max) - log(sum_j exp(x_j - max))
//   Hardmax:    y_k = 1 for the first k holding the slice's maximum, 0 elsewhere (numpy.argmax:
//               a NaN counts as the maximum, so the first NaN gets the 1).
// Dtypes: Softmax and LogSoftmax float32; Hardmax float32, float64, float16.
// Attributes: axis=-1 (in [-r, r)); legacy_2d=0. legacy_2d=1 (set by the converter for
// Softmax-1/11, LogSoftmax-1/11 and Hardmax-1/11, which always writes their axis explicitly)
// coerces the input to 2-D [prod(dims before axis), prod(dims from axis)] and normalizes over each
// row of that 2-D view, i.e. over the whole flattened trailing block instead of the single `axis` dim.
#include "runtime/ops/specs.h"

namespace tare {

Status InferSoftmax(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  const ValueInfo& x = ctx.in[0];
  const bool hard = ctx.node.op == "Hardmax";
  if (hard && x.dtype != DType::kFloat32 && x.dtype != DType::kFloat64 && x.dtype != DType::kFloat16)
    return ctx.Error("input must be float32, float64 or float16, got " + DTypeName(x.dtype));
  if (!hard && x.dtype != DType::kFloat32) return ctx.Error("input must be float32, got " + DTypeName(x.dtype));
  if (x.shape.empty()) return ctx.Error("input must have rank >= 1, got a scalar");
  TARE_ASSIGN_OR_RETURN(int64_t axis, ctx.node.GetInt("axis", -1));
  TARE_RETURN_IF_ERROR(NormalizeAxis(axis, static_cast<int64_t>(x.shape.size()), ctx, "attribute 'axis'").status());
  TARE_ASSIGN_OR_RETURN(int64_t legacy, ctx.node.GetInt("legacy_2d", 0));
  if (legacy != 0 && legacy != 1)
    return ctx.Error("attribute 'legacy_2d' must be 0 or 1, got " + std::to_string(legacy));
  ctx.SetOut(0, x.dtype, x.shape);
  return Status::Ok();
}

}  // namespace tare
