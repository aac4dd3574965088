// Scatter family: y = a copy of `data` (any storable type, rank >= 1) with `updates` (data's dtype)
// written at the places that `indices` (int64 or int32) select. Attribute reduction="none"
// (write), "add", "mul" (ONNX-16), "max", "min" (ONNX-18): combine the old value with the update;
// reductions need a numeric (non-bool) dtype. Updates are applied in row-major order of `indices`,
// so with "none" the last of duplicate indices wins.
//   ScatterElements (ONNX ScatterElements-16; -11 has no reduction) and Scatter (ONNX Scatter-9/11,
//     deprecated alias without reduction): data, indices, updates of one rank r;
//     indices.shape == updates.shape; indices.shape[d] <= data.shape[d] for d != axis; attribute
//     axis=0 in [-r, r-1]; y[p with p[axis] = indices[p]] = updates[p].
//   ScatterND (ONNX ScatterND-16; -11 has no reduction): indices rank q >= 1, k = indices.shape[-1]
//     in [1, r]; updates.shape == indices.shape[:-1] + data.shape[k:]; each k-tuple of indices
//     selects the slice y[i0, ..., i(k-1), :] that receives the matching slice of updates.
// Every index must lie in [-s, s-1] for its axis of size s (negative counts from the end): checked
// here when indices are known at plan time, else by the kernel (the error names the value).
#include "runtime/ops/specs.h"

namespace tare {
namespace {

/// ScatterElements/Scatter shape checks (semantics above).
Status InferElements(InferContext& ctx) {
  const Shape& data = ctx.in[0].shape;
  const Shape& ind = ctx.in[1].shape;
  const int64_t r = static_cast<int64_t>(data.size());
  if (ind.size() != data.size())
    return ctx.Error("data and indices must have the same rank, got " + ShapeStr(data) + " and " + ShapeStr(ind));
  if (ctx.in[2].shape != ind)
    return ctx.Error("updates shape " + ShapeStr(ctx.in[2].shape) + " must equal indices shape " + ShapeStr(ind));
  TARE_ASSIGN_OR_RETURN(int64_t a, ctx.node.GetInt("axis", 0));
  TARE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(a, r, ctx, "attribute 'axis'"));
  for (int64_t d = 0; d < r; ++d)
    if (d != axis && ind[d] > data[d])
      return ctx.Error("indices dim " + std::to_string(d) + " (" + std::to_string(ind[d]) + ") exceeds data dim (" +
                       std::to_string(data[d]) + ")");
  if (ctx.in[1].value)
    for (int64_t p = 0; p < ctx.in[1].value->numel(); ++p)
      TARE_RETURN_IF_ERROR(ctx.CheckIndex(*ctx.in[1].value, p, data[axis]));
  return Status::Ok();
}

/// ScatterND shape checks (semantics above).
Status InferND(InferContext& ctx) {
  const Shape& data = ctx.in[0].shape;
  const Shape& ind = ctx.in[1].shape;
  const int64_t r = static_cast<int64_t>(data.size());
  if (ind.empty()) return ctx.Error("indices must have rank >= 1, got a scalar");
  const int64_t k = ind.back();
  if (k < 1 || k > r) return ctx.Error("indices.shape[-1] must be in [1, " + std::to_string(r) + "], got " + std::to_string(k));
  Shape want(ind.begin(), ind.end() - 1);
  want.insert(want.end(), data.begin() + k, data.end());
  if (ctx.in[2].shape != want)
    return ctx.Error("updates shape " + ShapeStr(ctx.in[2].shape) + " must be " + ShapeStr(want) +
                     " (indices.shape[:-1] + data.shape[k:])");
  if (ctx.in[1].value)
    for (int64_t p = 0; p < ctx.in[1].value->numel(); ++p)
      TARE_RETURN_IF_ERROR(ctx.CheckIndex(*ctx.in[1].value, p, data[p % k]));
  return Status::Ok();
}

}  // namespace

Status InferScatter(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(3, 3));
  const DType t = ctx.in[0].dtype;
  if (DTypeSize(t) == 0) return ctx.Error("data type " + DTypeName(t) + " is not supported");
  if (ctx.in[2].dtype != t)
    return ctx.Error("updates type " + DTypeName(ctx.in[2].dtype) + " must equal data type " + DTypeName(t));
  if (ctx.in[1].dtype != DType::kInt64 && ctx.in[1].dtype != DType::kInt32)
    return ctx.Error("indices must be int64 or int32, got " + DTypeName(ctx.in[1].dtype));
  if (ctx.in[0].shape.empty()) return ctx.Error("data must have rank >= 1, got a scalar");
  TARE_ASSIGN_OR_RETURN(std::string red, ctx.node.GetString("reduction", "none"));
  if (red != "none" && red != "add" && red != "mul" && red != "max" && red != "min")
    return ctx.Error("attribute 'reduction' must be none, add, mul, max or min, got '" + red + "'");
  if (red != "none" && t == DType::kBool) return ctx.Error("reduction '" + red + "' needs a numeric type, got bool");
  TARE_RETURN_IF_ERROR(ctx.node.op == "ScatterND" ? InferND(ctx) : InferElements(ctx));
  ctx.SetOut(0, t, ctx.in[0].shape);
  return Status::Ok();
}

}  // namespace tare
