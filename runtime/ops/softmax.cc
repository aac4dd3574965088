// PLACEHOLDER: Softmax family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferSoftmax(InferContext& ctx) { return ctx.Error("Softmax: placeholder"); }

}  // namespace tare
