// PLACEHOLDER: EyeLike family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferEyeLike(InferContext& ctx) { return ctx.Error("EyeLike: placeholder"); }

}  // namespace tare
