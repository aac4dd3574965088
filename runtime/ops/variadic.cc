// PLACEHOLDER: Variadic family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferVariadic(InferContext& ctx) { return ctx.Error("Variadic: placeholder"); }

}  // namespace tare
