// PLACEHOLDER: Reduce family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferReduce(InferContext& ctx) { return ctx.Error("Reduce: placeholder"); }

}  // namespace tare
