// PLACEHOLDER: Loss family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferLoss(InferContext& ctx) { return ctx.Error("Loss: placeholder"); }

}  // namespace tare
