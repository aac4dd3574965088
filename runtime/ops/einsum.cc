// PLACEHOLDER: Einsum family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferEinsum(InferContext& ctx) { return ctx.Error("Einsum: placeholder"); }

}  // namespace tare
