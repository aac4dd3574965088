// BitShift (ONNX BitShift-11): y = X << Y (direction "LEFT") or X >> Y ("RIGHT") elementwise with
// multidirectional (numpy) broadcasting; X and Y have the same unsigned dtype (uint8, uint16,
// uint32, uint64); y has the broadcast shape and that dtype. Bits shifted out are lost; a shift
// by the type's bit width or more gives 0.
//   Attribute direction (string, required): "LEFT" or "RIGHT".
// BitwiseAnd, BitwiseOr, BitwiseXor (ONNX -18): A & B, A | B, A ^ B elementwise with the same
// broadcasting; A and B have the same integer dtype (int8..int64, uint8..uint64). BitwiseNot
// (ONNX BitwiseNot-18): ~X of one integer tensor (two's complement). Exact.
#include "runtime/ops/elementwise.h"
#include "runtime/ops/specs.h"

namespace tare {

Status InferBitShift(InferContext& ctx) {
  const std::string& op = ctx.node.op;
  if (op != "BitShift") {
    const bool unary = op == "BitwiseNot";
    TARE_RETURN_IF_ERROR(ctx.ExpectInputs(unary ? 1 : 2, unary ? 1 : 2));
    const DType a = ctx.in[0].dtype;
    if (!DTypeIsInteger(a))
      return ctx.Error("input type " + DTypeName(a) + " is not supported (int8..int64, uint8..uint64)");
    if (unary) {
      ctx.SetOut(0, a, ctx.in[0].shape);
      return Status::Ok();
    }
    if (ctx.in[1].dtype != a) return ctx.Error("input B type " + DTypeName(ctx.in[1].dtype) + " differs from A type " + DTypeName(a));
    TARE_ASSIGN_OR_RETURN(Shape shape, InferBroadcastAB(ctx));
    ctx.SetOut(0, a, shape);
    return Status::Ok();
  }
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
  const DType a = ctx.in[0].dtype, b = ctx.in[1].dtype;
  if (!DTypeIsUnsigned(a))
    return ctx.Error("input X type " + DTypeName(a) + " is not supported (uint8, uint16, uint32, uint64)");
  if (b != a) return ctx.Error("input Y type " + DTypeName(b) + " differs from X type " + DTypeName(a));
  if (!ctx.node.has("direction")) return ctx.Error("attribute direction is required (\"LEFT\" or \"RIGHT\")");
  TARE_ASSIGN_OR_RETURN(std::string dir, ctx.node.GetString("direction", ""));
  if (dir != "LEFT" && dir != "RIGHT")
    return ctx.Error("attribute direction must be \"LEFT\" or \"RIGHT\", got \"" + dir + "\"");
  TARE_ASSIGN_OR_RETURN(Shape shape, InferBroadcastAB(ctx));
  ctx.SetOut(0, a, shape);
  return Status::Ok();
}

}  // namespace tare
