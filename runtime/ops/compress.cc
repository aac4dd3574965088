// PLACEHOLDER: Compress family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferCompress(InferContext& ctx) { return ctx.Error("Compress: placeholder"); }

}  // namespace tare
