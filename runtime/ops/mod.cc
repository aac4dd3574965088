// Mod (ONNX Mod-13): y = A mod B elementwise with multidirectional (numpy) broadcasting; A and B
// have the same dtype (float16, float32, float64, int8..int64, uint8..uint64); y has the
// broadcast shape and that dtype.
//   Attribute fmod (int, default 0):
//     fmod=0: integer modulo whose result takes the divisor's sign (Python's %: -4 mod 3 = 2,
//       4 mod -3 = -2). Integer types only: floats require fmod=1.
//     fmod=1: C fmod, the result takes the dividend's sign (-4 fmod 3 = -1); floats use IEEE
//       fmod (exact; x fmod 0 = NaN).
//   An integer divisor of 0 makes the kernel fail with an error (never a crash); x mod -1 = 0.
#include "runtime/ops/elementwise.h"
#include "runtime/ops/specs.h"

namespace tare {

Status InferMod(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
  const DType a = ctx.in[0].dtype, b = ctx.in[1].dtype;
  if (!(DTypeIsFloat(a) || DTypeIsInteger(a)))
    return ctx.Error("input A type " + DTypeName(a) + " is not supported (a float or integer type)");
  if (b != a) return ctx.Error("input B type " + DTypeName(b) + " differs from A type " + DTypeName(a));
  TARE_ASSIGN_OR_RETURN(int64_t fmod, ctx.node.GetInt("fmod", 0));
  if (fmod != 0 && fmod != 1) return ctx.Error("attribute fmod must be 0 or 1, got " + std::to_string(fmod));
  if (fmod == 0 && DTypeIsFloat(a))
    return ctx.Error("attribute fmod must be 1 for floating-point inputs (got 0, type " + DTypeName(a) + ")");
  TARE_ASSIGN_OR_RETURN(Shape shape, InferBroadcastAB(ctx));
  ctx.SetOut(0, a, shape);
  return Status::Ok();
}

}  // namespace tare
