// PLACEHOLDER: Range family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferRange(InferContext& ctx) { return ctx.Error("Range: placeholder"); }

}  // namespace tare
