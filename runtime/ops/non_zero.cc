// NonZero family: NonZero (ONNX NonZero-13; NonZero-9 is the same op).
// y (int64, shape [rank(X), count]) lists the indices of the non-zero elements of X in row-major
// order: column c holds the coordinates of the c-th non-zero element. A scalar X gives shape
// [0, count] (ONNX, unlike numpy). Non-zero means != 0 (NaN is non-zero, -0.0 is zero; bool: true).
// Input: X (any storable type). The output shape depends on X's data, so X must be known when
// shape inference runs (at plan time, or at run time in the session's dynamic mode).
#include "runtime/ops/specs.h"

namespace tare {

Status InferNonZero(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  if (DTypeSize(ctx.in[0].dtype) == 0)
    return ctx.Error("input type " + DTypeName(ctx.in[0].dtype) + " is not supported");
  TARE_ASSIGN_OR_RETURN(const Tensor* x, ctx.Known(0, "X"));
  const int64_t n = x->numel();
  const bool is_float = DTypeIsFloat(x->dtype);
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += is_float ? ReadDouble(*x, i) != 0.0 : ReadInt(*x, i) != 0;
  ctx.SetOut(0, DType::kInt64, {static_cast<int64_t>(x->shape.size()), count});
  return Status::Ok();
}

}  // namespace tare
