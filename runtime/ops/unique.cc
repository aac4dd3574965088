// Unique family: Unique (ONNX Unique-11; numpy.unique semantics).
// Without `axis`, the unique elements of the flattened X; with `axis`, the unique slices of X
// along `axis` (compared lexicographically, element by element in row-major order of the other
// axes, as numpy.unique(axis=...)). Outputs (all but Y optional):
//   Y: the unique elements [U] (no axis) or X's shape with dim `axis` replaced by U; X's dtype;
//   indices [U] (int64): the position (flat, or along axis) of each unique value's first occurrence;
//   inverse_indices [numel(X)] or [X.shape[axis]] (int64): each element's/slice's position in Y;
//   counts [U] (int64): the number of occurrences of each unique value.
// sorted=1 (default) lists the unique values in ascending (lexicographic) order; sorted=0 in the
// order of their first occurrence. Values compare numerically: -0 equals +0 (Y keeps the first
// occurrence's bits), NaN sorts above every number and all NaNs count as one value (numpy >= 1.24).
// Input: X (numeric, any rank; with axis, rank >= 1). Attributes: sorted in {0, 1}; axis
// (optional) in [-r, r-1]. U depends on X's data, so X must be known when shape inference runs
// (at plan time, or at run time in the session's dynamic mode).
#include <vector>

#include "runtime/ops/data_dependent.h"
#include "runtime/ops/specs.h"

namespace tare {

Status InferUnique(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  const ValueInfo& x = ctx.in[0];
  if (DTypeSize(x.dtype) == 0 || x.dtype == DType::kBool)
    return ctx.Error("input type " + DTypeName(x.dtype) + " is not supported (numeric types only)");
  TARE_ASSIGN_OR_RETURN(int64_t sorted, ctx.node.GetInt("sorted", 1));
  if (sorted != 0 && sorted != 1) return ctx.Error("attribute 'sorted' must be 0 or 1, got " + std::to_string(sorted));
  const int64_t r = static_cast<int64_t>(x.shape.size());
  int64_t axis = -1;
  if (ctx.node.has("axis")) {
    if (r == 0) return ctx.Error("attribute 'axis' is given but X is a scalar");
    TARE_ASSIGN_OR_RETURN(int64_t a, ctx.node.GetInt("axis", 0));
    TARE_ASSIGN_OR_RETURN(axis, NormalizeAxis(a, r, ctx, "attribute 'axis'"));
  }
  TARE_ASSIGN_OR_RETURN(const Tensor* xv, ctx.Known(0, "X"));
  std::vector<int64_t> first, counts, inverse;
  if (!UniqueGroupSlices(*xv, axis, sorted != 0, &first, &counts, &inverse))
    return ctx.Error("input type " + DTypeName(xv->dtype) + " is not supported");
  const int64_t u = static_cast<int64_t>(first.size());
  Shape y = {u};
  if (axis >= 0) {
    y = x.shape;
    y[axis] = u;
  }
  ctx.SetOut(0, x.dtype, y);
  ctx.SetOut(1, DType::kInt64, {u});
  ctx.SetOut(2, DType::kInt64, {static_cast<int64_t>(inverse.size())});
  ctx.SetOut(3, DType::kInt64, {u});
  return Status::Ok();
}

}  // namespace tare
