// PLACEHOLDER: CumSum family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferCumSum(InferContext& ctx) { return ctx.Error("CumSum: placeholder"); }

}  // namespace tare
