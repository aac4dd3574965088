// PLACEHOLDER: ReverseSequence family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferReverseSequence(InferContext& ctx) { return ctx.Error("ReverseSequence: placeholder"); }

}  // namespace tare
