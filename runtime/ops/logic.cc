// PLACEHOLDER: Logic family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferLogic(InferContext& ctx) { return ctx.Error("Logic: placeholder"); }

}  // namespace tare
