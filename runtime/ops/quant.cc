// PLACEHOLDER: Quant family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferQuant(InferContext& ctx) { return ctx.Error("Quant: placeholder"); }

}  // namespace tare
