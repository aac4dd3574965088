// PLACEHOLDER: Tile family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferTile(InferContext& ctx) { return ctx.Error("Tile: placeholder"); }

}  // namespace tare
