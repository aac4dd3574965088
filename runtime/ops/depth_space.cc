// PLACEHOLDER: DepthSpace family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferDepthSpace(InferContext& ctx) { return ctx.Error("DepthSpace: placeholder"); }

}  // namespace tare
