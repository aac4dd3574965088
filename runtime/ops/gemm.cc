// PLACEHOLDER: Gemm family shape inference (to be written).
#include "runtime/ops/specs.h"

namespace tare {

Status InferGemm(InferContext& ctx) { return ctx.Error("Gemm: placeholder"); }

}  // namespace tare
