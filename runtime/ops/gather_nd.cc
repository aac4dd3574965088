// PLACEHOLDER: GatherNd family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferGatherNd(InferContext& ctx) { return ctx.Error("GatherNd: placeholder"); }

}  // namespace tare
