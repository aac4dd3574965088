// PLACEHOLDER: BitShift family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferBitShift(InferContext& ctx) { return ctx.Error("BitShift: placeholder"); }

}  // namespace tare
