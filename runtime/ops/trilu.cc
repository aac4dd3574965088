// PLACEHOLDER: Trilu family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferTrilu(InferContext& ctx) { return ctx.Error("Trilu: placeholder"); }

}  // namespace tare
