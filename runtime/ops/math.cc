// PLACEHOLDER: Math family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferMath(InferContext& ctx) { return ctx.Error("Math: placeholder"); }

}  // namespace tare
