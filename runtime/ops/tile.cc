// Tile family: Tile (ONNX Tile-13; Tile-6 is the same op). y repeats x along every axis:
// y.shape[d] = x.shape[d] * repeats[d] and y[i0, ..., in] = x[i0 % x.shape[0], ..., in % x.shape[n]]
// (numpy.tile without broadcasting). Inputs: input (any storable type); repeats (int64 1-D tensor
// of length rank(x), every value >= 0, known at plan time). No attributes.
#include "runtime/ops/specs.h"

namespace tare {

Status InferTile(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
  const ValueInfo& x = ctx.in[0];
  if (DTypeSize(x.dtype) == 0) return ctx.Error("input type " + DTypeName(x.dtype) + " is not supported");
  if (ctx.in[1].shape.size() != 1)
    return ctx.Error("input repeats must be 1-D, got shape " + ShapeStr(ctx.in[1].shape));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> rep, ctx.KnownInts(1, "repeats"));
  if (rep.size() != x.shape.size())
    return ctx.Error("input repeats must have " + std::to_string(x.shape.size()) + " values (the rank of input), got " +
                     std::to_string(rep.size()));
  Shape y(x.shape.size());
  for (size_t d = 0; d < rep.size(); ++d) {
    if (rep[d] < 0) return ctx.Error("repeats[" + std::to_string(d) + "] must be >= 0, got " + std::to_string(rep[d]));
    if (x.shape[d] != 0 && rep[d] > kMaxElements / x.shape[d])
      return ctx.Error("repeats[" + std::to_string(d) + "] = " + std::to_string(rep[d]) + " makes dim " +
                       std::to_string(d) + " too large");
    y[d] = x.shape[d] * rep[d];
  }
  if (!NumElements(y).ok()) return ctx.Error("output shape " + ShapeStr(y) + " has too many elements");
  ctx.SetOut(0, x.dtype, y);
  return Status::Ok();
}

}  // namespace tare
