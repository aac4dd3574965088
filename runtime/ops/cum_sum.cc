// CumSum family: CumSum (ONNX CumSum-14; CumSum-11 is the same op on fewer types).
// y has x's shape and dtype; along `axis`, y[t] = x[0] + ... + x[t] (inclusive), or the sum of the
// elements before t (exclusive=1, y[0] = 0); reverse=1 sums from the end of the axis instead.
// Inputs: x (numeric, not bool; rank >= 1); axis (int32/int64 tensor with one element, in
// [-r, r-1]). The axis does not change the output shape: it is checked here when known at plan
// time, else by the kernel. Attributes: exclusive=0, reverse=0 (each 0 or 1).
// Integer sums wrap around (two's complement); see kernels/ref/cum_sum.cc for the float order.
#include "runtime/ops/specs.h"

namespace tare {

Status InferCumSum(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
  const ValueInfo& x = ctx.in[0];
  const ValueInfo& ax = ctx.in[1];
  if (DTypeSize(x.dtype) == 0 || x.dtype == DType::kBool)
    return ctx.Error("input x type " + DTypeName(x.dtype) + " is not supported (numeric types only)");
  const int64_t r = static_cast<int64_t>(x.shape.size());
  if (r == 0) return ctx.Error("input x must have rank >= 1, got a scalar");
  if (ax.dtype != DType::kInt32 && ax.dtype != DType::kInt64)
    return ctx.Error("input axis must be int32 or int64, got " + DTypeName(ax.dtype));
  TARE_ASSIGN_OR_RETURN(int64_t count, NumElements(ax.shape));
  if (count != 1 || ax.shape.size() > 1)
    return ctx.Error("input axis must be a scalar (or 1-element 1-D tensor), got shape " + ShapeStr(ax.shape));
  if (ax.value) TARE_RETURN_IF_ERROR(NormalizeAxis(ReadInt(*ax.value, 0), r, ctx, "input axis").status());
  for (const char* a : {"exclusive", "reverse"}) {
    TARE_ASSIGN_OR_RETURN(int64_t v, ctx.node.GetInt(a, 0));
    if (v != 0 && v != 1) return ctx.Error(std::string("attribute '") + a + "' must be 0 or 1, got " + std::to_string(v));
  }
  ctx.SetOut(0, x.dtype, x.shape);
  return Status::Ok();
}

}  // namespace tare
