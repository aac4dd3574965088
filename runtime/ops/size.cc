// Size family: Size (ONNX Size-13; Size-1 is the same op). y is an int64 scalar: the number of
// elements of the input (the product of its dims, 1 for a scalar). Like Shape it reads only the
// input's shape, never its data. Input: any type with a known shape. No attributes.
#include "runtime/ops/specs.h"

namespace tare {

Status InferSize(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  if (!NumElements(ctx.in[0].shape).ok()) return ctx.Error("input shape " + ShapeStr(ctx.in[0].shape) + " is not valid");
  ctx.SetOut(0, DType::kInt64, {});
  return Status::Ok();
}

}  // namespace tare
