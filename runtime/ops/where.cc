// PLACEHOLDER: Where family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferWhere(InferContext& ctx) { return ctx.Error("Where: placeholder"); }

}  // namespace tare
