// Trilu family: Trilu (ONNX Trilu-14). y has x's shape and dtype; each matrix of the last two dims
// [N, M] keeps its upper (upper=1, the default) or lower (upper=0) triangle relative to diagonal
// k and is zero elsewhere: upper keeps element (i, j) when j - i >= k, lower when j - i <= k.
// Inputs: input (any storable type, rank >= 2); optional k (integer tensor with one element,
// default 0; it does not change the output shape, so it may be known only at run time).
// Attribute: upper=1 (0 or 1).
#include "runtime/ops/specs.h"

namespace tare {

Status InferTrilu(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 2));
  const ValueInfo& x = ctx.in[0];
  if (DTypeSize(x.dtype) == 0) return ctx.Error("input type " + DTypeName(x.dtype) + " is not supported");
  if (x.shape.size() < 2) return ctx.Error("input must have rank >= 2, got shape " + ShapeStr(x.shape));
  if (ctx.has(1)) {
    const ValueInfo& k = ctx.in[1];
    if (DTypeIsFloat(k.dtype) || k.dtype == DType::kBool || DTypeSize(k.dtype) == 0)
      return ctx.Error("input k must be an integer tensor, got " + DTypeName(k.dtype));
    TARE_ASSIGN_OR_RETURN(int64_t count, NumElements(k.shape));
    if (count != 1 || k.shape.size() > 1) return ctx.Error("input k must be a scalar, got shape " + ShapeStr(k.shape));
  }
  TARE_ASSIGN_OR_RETURN(int64_t upper, ctx.node.GetInt("upper", 1));
  if (upper != 0 && upper != 1) return ctx.Error("attribute 'upper' must be 0 or 1, got " + std::to_string(upper));
  ctx.SetOut(0, x.dtype, x.shape);
  return Status::Ok();
}

}  // namespace tare
