// PLACEHOLDER: Scatter family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferScatter(InferContext& ctx) { return ctx.Error("Scatter: placeholder"); }

}  // namespace tare
