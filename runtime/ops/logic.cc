// Elementwise logical ops (ONNX And-7, Or-7, Xor-7, Not-1; the opset 1-6 forms of And, Or, Xor
// through the legacy attributes below).
//   And/Or/Xor: y = A op B on bool tensors with multidirectional (numpy) broadcasting; y is bool
//     with the broadcast shape. Attributes (opsets 1-6 only): broadcast (0/1), axis — see
//     LegacyBroadcast in runtime/ops/elementwise.h; absent = multidirectional broadcasting.
//   Not: y = !X on a bool tensor; y has X's shape. No attributes.
#include "runtime/ops/elementwise.h"
#include "runtime/ops/specs.h"

namespace tare {

Status InferLogic(InferContext& ctx) {
  const bool is_not = ctx.node.op == "Not";
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(is_not ? 1 : 2, is_not ? 1 : 2));
  for (size_t i = 0; i < ctx.in.size(); ++i)
    if (ctx.in[i].dtype != DType::kBool)
      return ctx.Error(std::string("input ") + (is_not ? "X" : i == 0 ? "A" : "B") + " must be bool, got " +
                       DTypeName(ctx.in[i].dtype));
  if (is_not) {
    ctx.SetOut(0, DType::kBool, ctx.in[0].shape);
    return Status::Ok();
  }
  TARE_ASSIGN_OR_RETURN(Shape shape, InferBroadcastAB(ctx));
  ctx.SetOut(0, DType::kBool, shape);
  return Status::Ok();
}

}  // namespace tare
