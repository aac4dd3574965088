// Range family: Range (ONNX Range-11). y is the 1-D sequence start, start + delta,
// start + 2*delta, ... of n = max(ceil((limit - start) / delta), 0) elements (limit excluded).
// Inputs start, limit, delta: scalars (or 1-element tensors) of one dtype among float32, float64,
// int16, int32, int64, known at plan time (they give y's length); delta != 0. y has their dtype.
// n is computed exactly for integers and in double for floats (the same on every backend); values:
// see kernels/ref/range.cc.
#include <cmath>

#include "runtime/ops/specs.h"

namespace tare {

Status InferRange(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(3, 3));
  const DType t = ctx.in[0].dtype;
  if (t != DType::kFloat32 && t != DType::kFloat64 && t != DType::kInt16 && t != DType::kInt32 && t != DType::kInt64)
    return ctx.Error("input type " + DTypeName(t) + " is not supported (float32, float64, int16, int32, int64)");
  const char* names[3] = {"start", "limit", "delta"};
  const Tensor* v[3];
  for (size_t i = 0; i < 3; ++i) {
    if (ctx.in[i].dtype != t)
      return ctx.Error(std::string("input ") + names[i] + " has type " + DTypeName(ctx.in[i].dtype) + ", expected " +
                       DTypeName(t) + " like start");
    TARE_ASSIGN_OR_RETURN(v[i], ctx.Known(i, names[i]));
    if (v[i]->numel() != 1 || v[i]->shape.size() > 1)
      return ctx.Error(std::string("input ") + names[i] + " must be a scalar, got shape " + ShapeStr(v[i]->shape));
  }
  int64_t n = 0;
  if (DTypeIsFloat(t)) {
    const double start = ReadDouble(*v[0], 0), limit = ReadDouble(*v[1], 0), delta = ReadDouble(*v[2], 0);
    if (delta == 0 || !std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta))
      return ctx.Error("start, limit and delta must be finite and delta non-zero, got " + std::to_string(start) + ", " +
                       std::to_string(limit) + ", " + std::to_string(delta));
    const double c = std::ceil((limit - start) / delta);
    if (c > static_cast<double>(kMaxElements)) return ctx.Error("the range has too many elements (" + std::to_string(c) + ")");
    n = c > 0 ? static_cast<int64_t>(c) : 0;
  } else {
    const int64_t start = ReadInt(*v[0], 0), limit = ReadInt(*v[1], 0), delta = ReadInt(*v[2], 0);
    if (delta == 0) return ctx.Error("input delta must be non-zero");
    if ((delta > 0 && limit > start) || (delta < 0 && limit < start)) {
      // |limit - start| and |delta| as unsigned values (exact for every int64), then a ceil division.
      const uint64_t span = delta > 0 ? static_cast<uint64_t>(limit) - static_cast<uint64_t>(start)
                                      : static_cast<uint64_t>(start) - static_cast<uint64_t>(limit);
      const uint64_t step = delta > 0 ? static_cast<uint64_t>(delta) : static_cast<uint64_t>(-(delta + 1)) + 1;
      const uint64_t q = span / step + (span % step != 0);
      if (q > static_cast<uint64_t>(kMaxElements)) return ctx.Error("the range has too many elements");
      n = static_cast<int64_t>(q);
    }
  }
  ctx.SetOut(0, t, {n});
  return Status::Ok();
}

}  // namespace tare
