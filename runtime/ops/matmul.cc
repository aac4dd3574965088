// MatMul (ONNX MatMul-13): numpy.matmul semantics. A (..., M, K) times B (..., K, N) gives
// Y (..., M, N) with the leading (batch) dims broadcast multidirectionally. A 1-D A (K) is treated
// as (1, K) and a 1-D B (K) as (K, 1); the added dim is removed from Y (1-D x 1-D gives a scalar).
// No attributes. A and B have the same dtype: float32, int32 or int64 (integer products and sums
// wrap around modulo 2^bits).
#include "runtime/ops/specs.h"

namespace tare {

/// Validates a MatMul node and infers Y's shape.
Status InferMatMul(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
  const DType dt = ctx.in[0].dtype;
  if (dt != DType::kFloat32 && dt != DType::kInt32 && dt != DType::kInt64)
    return ctx.Error("input A must be float32, int32 or int64, got " + DTypeName(dt));
  if (ctx.in[1].dtype != dt)
    return ctx.Error("inputs A and B must have the same dtype, got " + DTypeName(dt) + " and " +
                     DTypeName(ctx.in[1].dtype));
  const Shape& a = ctx.in[0].shape;
  const Shape& b = ctx.in[1].shape;
  if (a.empty() || b.empty())
    return ctx.Error("inputs must have rank >= 1, got shapes " + ShapeStr(a) + " and " + ShapeStr(b));
  const int64_t K = a.back();
  const int64_t Kb = b.size() == 1 ? b[0] : b[b.size() - 2];
  if (K != Kb)
    return ctx.Error("inner dims differ: A " + ShapeStr(a) + " has K = " + std::to_string(K) + ", B " + ShapeStr(b) +
                     " has K = " + std::to_string(Kb));
  const Shape a_batch(a.begin(), a.end() - std::min<size_t>(a.size(), 2));
  const Shape b_batch(b.begin(), b.end() - std::min<size_t>(b.size(), 2));
  Result<Shape> batch = BroadcastShapes(a_batch, b_batch);
  if (!batch.ok()) return ctx.Error("batch dims: " + batch.status().message());
  Shape y = *batch;
  if (a.size() >= 2) y.push_back(a[a.size() - 2]);
  if (b.size() >= 2) y.push_back(b.back());
  ctx.SetOut(0, dt, y);
  return Status::Ok();
}

}  // namespace tare
