// Gemm (ONNX Gemm-13): Y = alpha * A' * B' + beta * C, with A' = transpose(A) if transA else A
// (A' is (M, K)), B' = transpose(B) if transB else B (B' is (K, N)); Y is (M, N).
// C is optional and unidirectionally broadcast to (M, N): rank <= 2, each of its trailing dims
// 1 or equal to Y's (a scalar, a row (N) or (1, N), a column (M, 1), or the full (M, N)).
// Attributes and defaults: alpha=1.0, beta=1.0, transA=0, transB=0 (non-zero = transpose).
// A, B and C are float32 (2-D A and B).
#include "runtime/ops/specs.h"

namespace tare {

/// Validates a Gemm node and infers Y's shape (M, N).
Status InferGemm(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 3));
  TARE_RETURN_IF_ERROR(ctx.ExpectFloat32({"A", "B", "C"}));
  const Shape& a = ctx.in[0].shape;
  const Shape& b = ctx.in[1].shape;
  if (a.size() != 2) return ctx.Error("A must be 2-D, got shape " + ShapeStr(a));
  if (b.size() != 2) return ctx.Error("B must be 2-D, got shape " + ShapeStr(b));
  TARE_ASSIGN_OR_RETURN(int64_t trans_a, ctx.node.GetInt("transA", 0));
  TARE_ASSIGN_OR_RETURN(int64_t trans_b, ctx.node.GetInt("transB", 0));
  TARE_RETURN_IF_ERROR(ctx.node.GetFloat("alpha", 1.0f).status());
  TARE_RETURN_IF_ERROR(ctx.node.GetFloat("beta", 1.0f).status());
  const int64_t M = trans_a ? a[1] : a[0], K = trans_a ? a[0] : a[1];
  const int64_t Kb = trans_b ? b[1] : b[0], N = trans_b ? b[0] : b[1];
  if (K != Kb)
    return ctx.Error("inner dims differ: A' is (" + std::to_string(M) + ", " + std::to_string(K) + "), B' is (" +
                     std::to_string(Kb) + ", " + std::to_string(N) + ") (transA=" + std::to_string(trans_a) +
                     ", transB=" + std::to_string(trans_b) + ")");
  if (ctx.has(2)) {
    const Shape& c = ctx.in[2].shape;
    const Shape y = {M, N};
    bool ok = c.size() <= 2;
    for (size_t i = 0; ok && i < c.size(); ++i) {
      const int64_t dy = y[2 - c.size() + i];
      ok = c[i] == 1 || c[i] == dy;
    }
    if (!ok)
      return ctx.Error("C of shape " + ShapeStr(c) + " cannot be broadcast to the output shape " + ShapeStr(y));
  }
  ctx.SetOut(0, DType::kFloat32, {M, N});
  return Status::Ok();
}

}  // namespace tare
