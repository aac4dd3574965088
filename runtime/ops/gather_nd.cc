// GatherNd family: GatherND and GatherElements. Pure data movement, any storable data type.
//   GatherND (ONNX GatherND-13; GatherND-11 has no batch_dims): data rank r >= 1, indices rank
//     q >= 1 (int64 or int32), attribute batch_dims=b in [0, min(q, r) - 1]; the first b dims of
//     data and indices must match; m = indices.shape[-1] in [1, r - b]. Each m-tuple of indices
//     (batch position first) selects data[batch..., i0, ..., i(m-1), :] (a negative index counts
//     from the end of its axis); y.shape = indices.shape[:-1] + data.shape[b + m:].
//   GatherElements (ONNX GatherElements-13; -11 is the same): data and indices (int32/int64) of one
//     rank r >= 1, attribute axis=0 in [-r, r-1]; indices.shape[d] <= data.shape[d] for d != axis;
//     y has indices' shape: y[p] = data[p with p[axis] replaced by indices[p]].
// Every index must lie in [-s, s-1] for its axis of size s: checked here when the indices are
// known at plan time, else by the kernel (the error names the value and its position).
#include <algorithm>

#include "runtime/ops/specs.h"

namespace tare {
namespace {

/// GatherND shape inference (semantics above).
Status InferGatherND(InferContext& ctx) {
  const Shape& data = ctx.in[0].shape;
  const Shape& ind = ctx.in[1].shape;
  const int64_t r = static_cast<int64_t>(data.size()), q = static_cast<int64_t>(ind.size());
  if (r < 1 || q < 1) return ctx.Error("data and indices must have rank >= 1, got " + ShapeStr(data) + " and " + ShapeStr(ind));
  TARE_ASSIGN_OR_RETURN(int64_t b, ctx.node.GetInt("batch_dims", 0));
  if (b < 0 || b >= std::min(q, r))
    return ctx.Error("attribute 'batch_dims' must be in [0, " + std::to_string(std::min(q, r) - 1) + "], got " + std::to_string(b));
  for (int64_t d = 0; d < b; ++d)
    if (data[d] != ind[d])
      return ctx.Error("batch dim " + std::to_string(d) + " differs: data " + ShapeStr(data) + ", indices " + ShapeStr(ind));
  const int64_t m = ind[q - 1];
  if (m < 1 || m > r - b)
    return ctx.Error("indices.shape[-1] must be in [1, " + std::to_string(r - b) + "], got " + std::to_string(m));
  if (ctx.in[1].value) {
    const Tensor& t = *ctx.in[1].value;
    for (int64_t p = 0; p < t.numel(); ++p) TARE_RETURN_IF_ERROR(ctx.CheckIndex(t, p, data[b + p % m]));
  }
  Shape y(ind.begin(), ind.end() - 1);
  y.insert(y.end(), data.begin() + b + m, data.end());
  ctx.SetOut(0, ctx.in[0].dtype, y);
  return Status::Ok();
}

/// GatherElements shape inference (semantics above).
Status InferGatherElements(InferContext& ctx) {
  const Shape& data = ctx.in[0].shape;
  const Shape& ind = ctx.in[1].shape;
  const int64_t r = static_cast<int64_t>(data.size());
  if (r < 1 || ind.size() != data.size())
    return ctx.Error("data and indices must have the same rank >= 1, got " + ShapeStr(data) + " and " + ShapeStr(ind));
  TARE_ASSIGN_OR_RETURN(int64_t a, ctx.node.GetInt("axis", 0));
  TARE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(a, r, ctx, "attribute 'axis'"));
  for (int64_t d = 0; d < r; ++d)
    if (d != axis && ind[d] > data[d])
      return ctx.Error("indices dim " + std::to_string(d) + " (" + std::to_string(ind[d]) + ") exceeds data dim (" +
                       std::to_string(data[d]) + ")");
  if (ctx.in[1].value) {
    const Tensor& t = *ctx.in[1].value;
    for (int64_t p = 0; p < t.numel(); ++p) TARE_RETURN_IF_ERROR(ctx.CheckIndex(t, p, data[axis]));
  }
  ctx.SetOut(0, ctx.in[0].dtype, ind);
  return Status::Ok();
}

}  // namespace

Status InferGatherNd(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
  if (DTypeSize(ctx.in[0].dtype) == 0) return ctx.Error("data type " + DTypeName(ctx.in[0].dtype) + " is not supported");
  if (ctx.in[1].dtype != DType::kInt64 && ctx.in[1].dtype != DType::kInt32)
    return ctx.Error("indices must be int64 or int32, got " + DTypeName(ctx.in[1].dtype));
  return ctx.node.op == "GatherND" ? InferGatherND(ctx) : InferGatherElements(ctx);
}

}  // namespace tare
