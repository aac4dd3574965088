// PLACEHOLDER: Binary family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferBinary(InferContext& ctx) { return ctx.Error("Binary: placeholder"); }

}  // namespace tare
