// PLACEHOLDER: ConvTranspose family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferConvTranspose(InferContext& ctx) { return ctx.Error("ConvTranspose: placeholder"); }

}  // namespace tare
