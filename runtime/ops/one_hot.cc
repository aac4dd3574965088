// PLACEHOLDER: OneHot family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferOneHot(InferContext& ctx) { return ctx.Error("OneHot: placeholder"); }

}  // namespace tare
