// PLACEHOLDER: Size family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferSize(InferContext& ctx) { return ctx.Error("Size: placeholder"); }

}  // namespace tare
