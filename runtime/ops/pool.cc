// PLACEHOLDER: Pool family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferPool(InferContext& ctx) { return ctx.Error("Pool: placeholder"); }

}  // namespace tare
