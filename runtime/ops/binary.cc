// Elementwise binary ops (ONNX Add-14, Sub-14, Mul-14, Div-14, Pow-15, PRelu-16).
// Inputs A and B; no attributes.
//   Add/Sub/Mul/Div: multidirectional (numpy) broadcasting; A and B have the same dtype; y has the
//     broadcast shape and that dtype. Supported dtypes: float32, float64, int32, int64.
//     Integer Add/Sub/Mul wrap around (two's complement, as numpy). Integer Div truncates toward
//     zero (C++ semantics); INT_MIN / -1 wraps to INT_MIN; a zero divisor makes the kernel fail
//     with an error naming Div (never a crash). Float ops are one IEEE operation (rounded once).
//   Pow: y = x ^ exponent, multidirectional broadcasting; x (T) is float32/float64/int32/int64,
//     exponent (T1) is float32/float64/int32/int64 and may differ from T; y has x's dtype.
//     Float x: pow evaluated in double and rounded once to x's type. Integer x with integer
//     exponent: exact (wrapping) repeated multiplication; a negative exponent gives trunc(1/x^|e|)
//     (1, +-1 for x = -1, else 0) and 0 ^ negative is a kernel error. Integer x with float
//     exponent: pow in double truncated toward zero; a result that is NaN or out of the integer
//     range is a kernel error.
//   PRelu: y = x < 0 ? slope * x : x; slope is unidirectionally broadcast to X (the broadcast of
//     their shapes must be X's shape); same dtype; y has X's shape.
#include "runtime/ops/specs.h"

namespace tare {
namespace {

bool BinaryTypeOk(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat64 || t == DType::kInt32 || t == DType::kInt64;
}

}  // namespace

Status InferBinary(InferContext& ctx) {
  const std::string& op = ctx.node.op;
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
  const ValueInfo& a = ctx.in[0];
  const ValueInfo& b = ctx.in[1];
  const char* a_name = op == "Pow" || op == "PRelu" ? "X" : "A";
  const char* b_name = op == "Pow" ? "Y (exponent)" : op == "PRelu" ? "slope" : "B";
  if (!BinaryTypeOk(a.dtype))
    return ctx.Error(std::string("input ") + a_name + " type " + DTypeName(a.dtype) +
                     " is not supported (float32, float64, int32, int64)");
  if (op == "Pow") {
    if (!BinaryTypeOk(b.dtype))
      return ctx.Error(std::string("input ") + b_name + " type " + DTypeName(b.dtype) +
                       " is not supported (float32, float64, int32, int64)");
  } else if (b.dtype != a.dtype) {
    return ctx.Error(std::string("input ") + b_name + " type " + DTypeName(b.dtype) + " differs from " + a_name +
                     " type " + DTypeName(a.dtype));
  }
  Result<Shape> shape = BroadcastShapes(a.shape, b.shape);
  if (!shape.ok()) return ctx.Error(shape.status().message());
  if (op == "PRelu" && *shape != a.shape)
    return ctx.Error("slope shape " + ShapeStr(b.shape) + " is not unidirectionally broadcastable to X shape " +
                     ShapeStr(a.shape));
  ctx.SetOut(0, a.dtype, *shape);
  return Status::Ok();
}

}  // namespace tare
