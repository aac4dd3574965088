// PLACEHOLDER: Layout family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferLayout(InferContext& ctx) { return ctx.Error("Layout: placeholder"); }

}  // namespace tare
