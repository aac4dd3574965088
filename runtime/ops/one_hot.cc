// OneHot family: OneHot (ONNX OneHot-11; OneHot-9 is the same without negative indices/axis).
// y has rank(indices) + 1 dims: a new axis of size `depth` is inserted at `axis`, and
// y[..., j, ...] = values[1] (on) where j == indices[...] (a negative index counts from the end,
// j == index + depth), values[0] (off) elsewhere. An index outside [-depth, depth-1] gives a line of
// off values (ONNX). Float indices are truncated toward zero (NaN is out of range).
// Inputs: indices (numeric); depth (numeric, one element, known at plan time, a positive integer
// value); values (1-D, exactly 2 elements [off, on], any storable type; y has its dtype).
// Attribute: axis=-1 in [-(r+1), r] where r = rank(indices).
#include <cmath>

#include "runtime/ops/specs.h"

namespace tare {

Status InferOneHot(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(3, 3));
  const ValueInfo& ind = ctx.in[0];
  const ValueInfo& vals = ctx.in[2];
  if (DTypeSize(ind.dtype) == 0 || ind.dtype == DType::kBool)
    return ctx.Error("input indices type " + DTypeName(ind.dtype) + " is not supported (numeric types only)");
  if (DTypeSize(vals.dtype) == 0) return ctx.Error("input values type " + DTypeName(vals.dtype) + " is not supported");
  if (vals.shape.size() != 1 || vals.shape[0] != 2)
    return ctx.Error("input values must be 1-D with 2 elements [off, on], got shape " + ShapeStr(vals.shape));
  TARE_ASSIGN_OR_RETURN(const Tensor* dt, ctx.Known(1, "depth"));
  if (DTypeSize(dt->dtype) == 0 || dt->dtype == DType::kBool)
    return ctx.Error("input depth type " + DTypeName(dt->dtype) + " is not supported (numeric types only)");
  if (dt->numel() != 1) return ctx.Error("input depth must hold one value, got shape " + ShapeStr(dt->shape));
  const double depth = DTypeIsFloat(dt->dtype) ? ReadDouble(*dt, 0) : static_cast<double>(ReadInt(*dt, 0));
  if (!(depth >= 1 && depth <= static_cast<double>(kMaxElements)) || depth != std::floor(depth))
    return ctx.Error("input depth must be a positive integer, got " + std::to_string(depth));
  const int64_t r = static_cast<int64_t>(ind.shape.size());
  TARE_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.node.GetInt("axis", -1));
  TARE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, r + 1, ctx, "attribute 'axis'"));
  Shape y = ind.shape;
  y.insert(y.begin() + axis, static_cast<int64_t>(depth));
  if (!NumElements(y).ok()) return ctx.Error("output shape " + ShapeStr(y) + " has too many elements");
  ctx.SetOut(0, vals.dtype, y);
  return Status::Ok();
}

}  // namespace tare
