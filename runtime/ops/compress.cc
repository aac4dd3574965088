// Compress family: Compress (ONNX Compress-11; Compress-9 is the same without negative axis).
// Like numpy.compress: keeps the slices of `input` along `axis` whose entry in `condition` is true,
// in order. Without `axis`, the input is flattened first and y is 1-D. The condition may be shorter
// than the axis (missing entries count as false) or longer when its extra entries are all false.
// Inputs: input (any storable type); condition (1-D bool, known at plan time: it gives y's shape).
// Attribute: axis (optional) in [-r, r-1].
#include "runtime/ops/specs.h"

namespace tare {

Status InferCompress(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
  const ValueInfo& x = ctx.in[0];
  if (DTypeSize(x.dtype) == 0) return ctx.Error("input type " + DTypeName(x.dtype) + " is not supported");
  if (ctx.in[1].dtype != DType::kBool) return ctx.Error("input condition must be bool, got " + DTypeName(ctx.in[1].dtype));
  if (ctx.in[1].shape.size() != 1) return ctx.Error("input condition must be 1-D, got shape " + ShapeStr(ctx.in[1].shape));
  const int64_t r = static_cast<int64_t>(x.shape.size());
  int64_t axis = -1;
  int64_t dim = 0;
  if (ctx.node.has("axis")) {
    if (r == 0) return ctx.Error("attribute 'axis' is given but the input is a scalar");
    TARE_ASSIGN_OR_RETURN(int64_t a, ctx.node.GetInt("axis", 0));
    TARE_ASSIGN_OR_RETURN(axis, NormalizeAxis(a, r, ctx, "attribute 'axis'"));
    dim = x.shape[axis];
  } else {
    TARE_ASSIGN_OR_RETURN(dim, NumElements(x.shape));
  }
  TARE_ASSIGN_OR_RETURN(const Tensor* cond, ctx.Known(1, "condition"));
  const bool* c = cond->as<bool>();
  int64_t count = 0;
  for (int64_t j = 0; j < cond->numel(); ++j) {
    if (!c[j]) continue;
    if (j >= dim)
      return ctx.Error("condition[" + std::to_string(j) + "] is true but the selected axis has only " + std::to_string(dim) +
                       " entries");
    ++count;
  }
  Shape y = {count};
  if (axis >= 0) {
    y = x.shape;
    y[axis] = count;
  }
  ctx.SetOut(0, x.dtype, y);
  return Status::Ok();
}

}  // namespace tare
