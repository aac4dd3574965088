// PLACEHOLDER: Resize family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferResize(InferContext& ctx) { return ctx.Error("Resize: placeholder"); }

}  // namespace tare
