// Det family: Det (ONNX Det-11).
// y[b] = det(X[b]) for every square matrix X[b] formed by the two innermost axes of X.
// Input: X (float32, shape [*, M, M], rank >= 2, * = zero or more batch axes, M >= 0).
// Output: Y (float32, shape [*]; a 2-D X gives a scalar). det of a 0x0 matrix is 1.
// Computed by LU factorization with partial pivoting (kernels/ref/det.cc).
// Errors: rank < 2, non-square inner axes, dtype other than float32.
#include "runtime/ops/specs.h"

namespace tare {

Status InferDet(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  TARE_RETURN_IF_ERROR(ctx.ExpectFloat32({"X"}));
  const Shape& x = ctx.in[0].shape;
  if (x.size() < 2) return ctx.Error("input X must have rank >= 2 ([*, M, M]), got shape " + ShapeStr(x));
  const size_t r = x.size();
  if (x[r - 1] != x[r - 2])
    return ctx.Error("the two innermost axes of X must be equal (square matrices), got shape " + ShapeStr(x));
  ctx.SetOut(0, DType::kFloat32, Shape(x.begin(), x.end() - 2));
  return Status::Ok();
}

}  // namespace tare
