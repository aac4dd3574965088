// PLACEHOLDER: Rnn family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferRnn(InferContext& ctx) { return ctx.Error("Rnn: placeholder"); }

}  // namespace tare
