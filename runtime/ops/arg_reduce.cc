// ArgReduce family: ArgMax and ArgMin (ONNX ArgMax-13 / ArgMin-13; ArgMax-1/11 are the same op
// without select_last_index). y holds, for every position of the other axes, the int64 index along
// `axis` of the largest (ArgMax) or smallest (ArgMin) element of x.
// Attributes and defaults:
//   axis=0 in [-r, r-1]; keepdims=1 (1: the reduced axis stays with size 1; 0: it is removed);
//   select_last_index=0 (0: the first occurrence of the extreme wins a tie; 1: the last one).
// NaN counts as larger than every number for ArgMax and smaller than every number for ArgMin
// (numpy's argmax/argmin pick the first NaN). x: any numeric type (not bool), rank >= 1, and the
// reduced axis must not be empty (the index of the extreme of nothing is undefined).
#include "runtime/ops/specs.h"

namespace tare {

Status InferArgReduce(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  const ValueInfo& x = ctx.in[0];
  if (DTypeSize(x.dtype) == 0 || x.dtype == DType::kBool)
    return ctx.Error("input type " + DTypeName(x.dtype) + " is not supported (numeric types only)");
  const int64_t r = static_cast<int64_t>(x.shape.size());
  if (r == 0) return ctx.Error("input must have rank >= 1, got a scalar");
  TARE_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.node.GetInt("axis", 0));
  TARE_ASSIGN_OR_RETURN(int64_t keepdims, ctx.node.GetInt("keepdims", 1));
  TARE_ASSIGN_OR_RETURN(int64_t last, ctx.node.GetInt("select_last_index", 0));
  if (keepdims != 0 && keepdims != 1) return ctx.Error("attribute 'keepdims' must be 0 or 1, got " + std::to_string(keepdims));
  if (last != 0 && last != 1)
    return ctx.Error("attribute 'select_last_index' must be 0 or 1, got " + std::to_string(last));
  TARE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, r, ctx, "attribute 'axis'"));
  if (x.shape[axis] == 0) {
    // Output positions exist only if some other dim is non-zero: then their index is undefined.
    Shape others = x.shape;
    others[axis] = 1;
    TARE_ASSIGN_OR_RETURN(int64_t m, NumElements(others));
    if (m > 0) return ctx.Error("cannot reduce axis " + std::to_string(axis) + " of size 0 (input shape " + ShapeStr(x.shape) + ")");
  }
  Shape y = x.shape;
  if (keepdims) y[axis] = 1;
  else y.erase(y.begin() + axis);
  ctx.SetOut(0, DType::kInt64, y);
  return Status::Ok();
}

}  // namespace tare
