// PLACEHOLDER: Norm family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferNorm(InferContext& ctx) { return ctx.Error("Norm: placeholder"); }

}  // namespace tare
