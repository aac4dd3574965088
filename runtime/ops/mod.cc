// PLACEHOLDER: Mod family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferMod(InferContext& ctx) { return ctx.Error("Mod: placeholder"); }

}  // namespace tare
