// Reductions (ONNX Reduce*-13) of data (rank r >= 0) over `axes`; y has data's dtype.
//   ReduceSum        y = sum x                  ReduceMean      y = (sum x) / count
//   ReduceSumSquare  y = sum x*x                ReduceL1        y = sum |x|
//   ReduceL2         y = sqrt(sum x*x)          ReduceProd      y = product of x
//   ReduceLogSum     y = log(sum x)             ReduceLogSumExp y = log(sum exp x), evaluated as
//     m + log(sum exp(x - m)) with m the extent's max (m replaced by 0 when it is not finite)
//   ReduceMax / ReduceMin: the max / min; NaN propagates.
// Empty extents give the identity: 0 for sums (so log sums give -inf, Mean 0/0 = NaN), 1 for
// Prod, the type's lowest (Max) / highest (Min) value, -inf / +inf for floats (as Reduce*-18).
// Dtypes: float32 and float64 for every op; int32, int64, uint32, uint64 also for Sum, SumSquare,
// L1, Prod, Max, Min (integer arithmetic wraps around, two's complement); int8 and uint8 also for
// Max and Min; bool also for Max (any) and Min (all), as Reduce{Max,Min}-20 (an empty extent gives
// false and true). Mean, L2, LogSum and LogSumExp are float only.
// Axes: the optional int64 input 1 (`axes`, known at plan time; Reduce*-18, ReduceSum-13) or the
// attribute `axes` (Reduce*-13 and TFLite's reductions), not both. Each axis is in [-r, r), no
// duplicates. Empty or absent axes reduce every axis, unless noop_with_empty_axes=1 (Reduce*-18,
// ReduceSum-13), which then returns the input unchanged.
// Attributes: keepdims=1 (reduced dims kept as 1; 0 drops them), noop_with_empty_axes=0.
#include <algorithm>

#include "runtime/ops/specs.h"

namespace tare {
namespace {

/// Checks that `op` supports dtype `t` (see the file comment).
bool DTypeOk(const std::string& op, DType t) {
  if (t == DType::kFloat32 || t == DType::kFloat64) return true;
  const bool minmax = op == "ReduceMax" || op == "ReduceMin";
  const bool wide_int = t == DType::kInt32 || t == DType::kInt64 || t == DType::kUInt32 || t == DType::kUInt64;
  if (wide_int)
    return minmax || op == "ReduceSum" || op == "ReduceSumSquare" || op == "ReduceL1" || op == "ReduceProd";
  return minmax && (t == DType::kInt8 || t == DType::kUInt8 || t == DType::kBool);
}

}  // namespace

Status InferReduce(InferContext& ctx) {
  const std::string& op = ctx.node.op;
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 2));
  const ValueInfo& x = ctx.in[0];
  if (!DTypeOk(op, x.dtype))
    return ctx.Error("input data of type " + DTypeName(x.dtype) + " is not supported by " + op +
                     (op == "ReduceMean" || op == "ReduceL2" || op == "ReduceLogSum" || op == "ReduceLogSumExp"
                          ? " (float32 or float64 only)"
                          : ""));
  std::vector<int64_t> axes;
  if (ctx.has(1)) {
    if (ctx.node.has("axes")) return ctx.Error("axes given both as input 1 and as an attribute");
    if (ctx.in[1].dtype != DType::kInt64)
      return ctx.Error("input axes must be int64, got " + DTypeName(ctx.in[1].dtype));
    TARE_ASSIGN_OR_RETURN(axes, ctx.KnownInts(1, "axes"));
  } else {
    TARE_ASSIGN_OR_RETURN(axes, ctx.node.GetInts("axes"));
  }
  TARE_ASSIGN_OR_RETURN(int64_t keepdims, ctx.node.GetInt("keepdims", 1));
  TARE_ASSIGN_OR_RETURN(int64_t noop, ctx.node.GetInt("noop_with_empty_axes", 0));
  if (keepdims != 0 && keepdims != 1)
    return ctx.Error("attribute 'keepdims' must be 0 or 1, got " + std::to_string(keepdims));
  if (noop != 0 && noop != 1)
    return ctx.Error("attribute 'noop_with_empty_axes' must be 0 or 1, got " + std::to_string(noop));
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
