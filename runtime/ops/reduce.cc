// Reductions (ONNX ReduceMean-13, ReduceMax-13, ReduceSum-13) of data (rank r >= 0) over `axes`.
//   ReduceMean: float32; y = (sum of the reduced elements in index order) / count.
//   ReduceMax: float32, int32, int64; y = max (NaN propagates; an empty extent gives the type's
//     lowest value, -inf for floats, as ReduceMax-18 defines).
//   ReduceSum: float32, int32, int64; y = sum in index order (integers wrap around).
// Axes: ReduceMean/ReduceMax read attribute `axes`; ReduceSum reads the optional int64 input 1
// (`axes`, known at plan time; an `axes` attribute is rejected). Each axis is in [-r, r), no
// duplicates. Empty or absent axes reduce every axis, except ReduceSum with
// noop_with_empty_axes=1, which then returns the input unchanged.
// Attributes: keepdims=1 (reduced dims kept as 1; 0 drops them), noop_with_empty_axes=0 (ReduceSum).
#include <algorithm>

#include "runtime/ops/specs.h"

namespace tare {

Status InferReduce(InferContext& ctx) {
  const std::string& op = ctx.node.op;
  const bool sum = op == "ReduceSum";
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, sum ? 2 : 1));
  const ValueInfo& x = ctx.in[0];
  const bool int_ok = op != "ReduceMean" && (x.dtype == DType::kInt32 || x.dtype == DType::kInt64);
  if (x.dtype != DType::kFloat32 && !int_ok)
    return ctx.Error("input data must be float32" + std::string(op != "ReduceMean" ? ", int32 or int64" : "") +
                     ", got " + DTypeName(x.dtype));
  std::vector<int64_t> axes;
  if (sum) {
    if (ctx.node.has("axes")) return ctx.Error("ReduceSum-13 takes axes as input 1, not as an attribute");
    if (ctx.has(1)) {
      if (ctx.in[1].dtype != DType::kInt64)
        return ctx.Error("input axes must be int64, got " + DTypeName(ctx.in[1].dtype));
      TARE_ASSIGN_OR_RETURN(axes, ctx.KnownInts(1, "axes"));
    }
  } else {
    TARE_ASSIGN_OR_RETURN(axes, ctx.node.GetInts("axes"));
  }
  TARE_ASSIGN_OR_RETURN(int64_t keepdims, ctx.node.GetInt("keepdims", 1));
  TARE_ASSIGN_OR_RETURN(int64_t noop, ctx.node.GetInt("noop_with_empty_axes", 0));
  if (keepdims != 0 && keepdims != 1)
    return ctx.Error("attribute 'keepdims' must be 0 or 1, got " + std::to_string(keepdims));
  if (noop != 0 && noop != 1)
    return ctx.Error("attribute 'noop_with_empty_axes' must be 0 or 1, got " + std::to_string(noop));
  if (noop && !sum) return ctx.Error("attribute 'noop_with_empty_axes' is only defined for ReduceSum");
  const int64_t r = static_cast<int64_t>(x.shape.size());
  if (axes.empty() && noop) {
    ctx.SetOut(0, x.dtype, x.shape);
    return Status::Ok();
  }
  std::vector<bool> reduced(static_cast<size_t>(r), axes.empty());
  for (int64_t a : axes) {
    if (r == 0) return ctx.Error("axes must be empty for a scalar input, got " + std::to_string(a));
    TARE_ASSIGN_OR_RETURN(int64_t n, NormalizeAxis(a, r, ctx, "axis"));
    if (reduced[static_cast<size_t>(n)]) return ctx.Error("axis " + std::to_string(a) + " is repeated in axes");
    reduced[static_cast<size_t>(n)] = true;
  }
  Shape y;
  for (int64_t i = 0; i < r; ++i) {
    if (!reduced[static_cast<size_t>(i)]) y.push_back(x.shape[static_cast<size_t>(i)]);
    else if (keepdims) y.push_back(1);
  }
  ctx.SetOut(0, x.dtype, y);
  return Status::Ok();
}

}  // namespace tare
