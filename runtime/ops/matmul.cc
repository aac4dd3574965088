// PLACEHOLDER: MatMul family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferMatMul(InferContext& ctx) { return ctx.Error("MatMul: placeholder"); }

}  // namespace tare
