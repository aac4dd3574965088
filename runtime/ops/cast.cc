// PLACEHOLDER: Cast family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferCast(InferContext& ctx) { return ctx.Error("Cast: placeholder"); }

}  // namespace tare
