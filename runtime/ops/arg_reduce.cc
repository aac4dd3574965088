// PLACEHOLDER: ArgReduce family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferArgReduce(InferContext& ctx) { return ctx.Error("ArgReduce: placeholder"); }

}  // namespace tare
