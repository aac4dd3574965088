// PLACEHOLDER: TopK family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferTopK(InferContext& ctx) { return ctx.Error("TopK: placeholder"); }

}  // namespace tare
