// Where (ONNX Where-16): y = condition ? X : Y elementwise, with multidirectional (numpy)
// broadcasting of all three inputs; y has the broadcast shape and X's dtype. condition is bool;
// X and Y have the same dtype, any storable type (elements are copied bit-exactly). No attributes.
#include "runtime/ops/elementwise.h"
#include "runtime/ops/specs.h"

namespace tare {

Status InferWhere(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(3, 3));
  const ValueInfo& c = ctx.in[0];
  const ValueInfo& x = ctx.in[1];
  const ValueInfo& y = ctx.in[2];
  if (c.dtype != DType::kBool) return ctx.Error("input condition must be bool, got " + DTypeName(c.dtype));
  if (DTypeSize(x.dtype) == 0) return ctx.Error("input X type " + DTypeName(x.dtype) + " is not supported");
  if (y.dtype != x.dtype)
    return ctx.Error("input Y type " + DTypeName(y.dtype) + " differs from X type " + DTypeName(x.dtype));
  Result<Shape> s = BroadcastShapes(c.shape, x.shape);
  if (s.ok()) s = BroadcastShapes(*s, y.shape);
  if (!s.ok())
    return ctx.Error("shapes " + ShapeStr(c.shape) + ", " + ShapeStr(x.shape) + ", " + ShapeStr(y.shape) +
                     " cannot be broadcast together");
  ctx.SetOut(0, x.dtype, *s);
  return Status::Ok();
}

}  // namespace tare
