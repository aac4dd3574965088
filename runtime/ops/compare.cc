// Elementwise comparisons (ONNX Equal-13, Greater-13, Less-13, GreaterOrEqual-16, LessOrEqual-16;
// the opset 1-6 forms of Equal, Greater, Less through the legacy attributes below).
//   y = A op B elementwise with multidirectional (numpy) broadcasting; y is bool with the broadcast
//   shape. A and B have the same dtype: float16, float32, float64, int8..int64, uint8..uint64,
//   and also bool for Equal. Float comparisons are IEEE: any comparison with NaN is false.
//   Attributes (opsets 1-6 only): broadcast (0/1), axis — see LegacyBroadcast in
//   runtime/ops/elementwise.h; absent = multidirectional broadcasting.
#include "runtime/ops/elementwise.h"
#include "runtime/ops/specs.h"

namespace tare {

Status InferCompare(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
  const DType a = ctx.in[0].dtype, b = ctx.in[1].dtype;
  const bool bool_ok = ctx.node.op == "Equal";
  if (!(DTypeIsFloat(a) || DTypeIsInteger(a) || (bool_ok && a == DType::kBool)))
    return ctx.Error("input A type " + DTypeName(a) + " is not supported (a float or integer type" +
                     (bool_ok ? ", or bool)" : ")"));
  if (b != a) return ctx.Error("input B type " + DTypeName(b) + " differs from A type " + DTypeName(a));
  TARE_ASSIGN_OR_RETURN(Shape shape, InferBroadcastAB(ctx));
  ctx.SetOut(0, DType::kBool, shape);
  return Status::Ok();
}

}  // namespace tare
