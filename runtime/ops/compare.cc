// PLACEHOLDER: Compare family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferCompare(InferContext& ctx) { return ctx.Error("Compare: placeholder"); }

}  // namespace tare
