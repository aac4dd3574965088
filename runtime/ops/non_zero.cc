// PLACEHOLDER: NonZero family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferNonZero(InferContext& ctx) { return ctx.Error("NonZero: placeholder"); }

}  // namespace tare
