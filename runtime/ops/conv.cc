// PLACEHOLDER: Conv family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferConv(InferContext& ctx) { return ctx.Error("Conv: placeholder"); }

}  // namespace tare
