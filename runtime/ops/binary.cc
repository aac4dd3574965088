// Elementwise binary ops (ONNX Add-14, Sub-14, Mul-14, Div-14, Pow-15, PRelu-16; their opset 1-6
// forms through the legacy attributes below). Inputs A and B.
//   Attributes (opsets 1-6 only; absent in later forms): broadcast (int, 0/1, default: absent =
//     multidirectional broadcasting), axis (int, default suffix matching); see LegacyBroadcast in
//     runtime/ops/elementwise.h. PRelu has no attributes.
//   Add/Sub/Mul/Div: multidirectional (numpy) broadcasting; A and B have the same dtype; y has the
//     broadcast shape and that dtype. Dtypes: float16, float32, float64, int8..int64, uint8..uint64.
//     Integer Add/Sub/Mul wrap around (two's complement, as numpy). Integer Div truncates toward
//     zero (C++ semantics); INT_MIN / -1 wraps to INT_MIN; a zero divisor makes the kernel fail
//     with an error naming Div (never a crash). Float ops are one IEEE operation rounded once to
//     the storage type (float16: computed in float, then rounded to half; float's 24 >= 2*11+2
//     bits make that double rounding equal to one correct rounding).
//   Pow: y = x ^ exponent, multidirectional broadcasting; x (T) is float16/float32/float64/int32/
//     int64, exponent (T1) is any of those or int8/int16/uint8..uint64 and may differ from T; y
//     has x's dtype. Float x: pow evaluated in double and rounded once to x's type. Integer x with
//     integer exponent: exact (wrapping) repeated multiplication; a negative exponent gives
//     trunc(1/x^|e|) (1, +-1 for x = -1, else 0) and 0 ^ negative is a kernel error. Integer x with
//     float exponent: pow in double truncated toward zero; a result that is NaN or out of the
//     integer range is a kernel error.
//   PRelu: y = x < 0 ? slope * x : x; slope is unidirectionally broadcast to X (the broadcast of
//     their shapes must be X's shape); same dtype (float16/32/64, any integer); y has X's shape.
#include "runtime/ops/elementwise.h"
#include "runtime/ops/specs.h"

namespace tare {

bool DTypeIsInteger(DType t) {
  switch (t) {
    case DType::kInt8: case DType::kInt16: case DType::kInt32: case DType::kInt64:
    case DType::kUInt8: case DType::kUInt16: case DType::kUInt32: case DType::kUInt64: return true;
    default: return false;
  }
}

bool DTypeIsUnsigned(DType t) {
  return t == DType::kUInt8 || t == DType::kUInt16 || t == DType::kUInt32 || t == DType::kUInt64;
}

Result<LegacyBroadcast> LegacyBroadcast::FromNode(const Node& node) {
  LegacyBroadcast lb;
  lb.present = node.has("broadcast");
  TARE_ASSIGN_OR_RETURN(lb.broadcast, node.GetInt("broadcast", 0));
  if (lb.broadcast != 0 && lb.broadcast != 1)
    return Status::Error("attribute broadcast must be 0 or 1, got " + std::to_string(lb.broadcast));
  lb.has_axis = node.has("axis");
  TARE_ASSIGN_OR_RETURN(lb.axis, node.GetInt("axis", 0));
  return lb;
}

Result<Shape> LegacyBroadcast::OperandShape(const Shape& a, const Shape& b) const {
  if (!present) return b;
  if (broadcast == 0) {
    if (a != b)
      return Status::Error("with broadcast=0, B's shape " + ShapeStr(b) + " must equal A's shape " + ShapeStr(a));
    return b;
  }
  int64_t nb = 1;
  for (int64_t d : b) nb *= d < 0 ? 0 : d;  // shapes here are concrete and within kMaxElements
  if (nb == 1) return Shape{};               // a one-element B acts as a scalar
  const int64_t ra = static_cast<int64_t>(a.size()), rb = static_cast<int64_t>(b.size());
  int64_t ax = has_axis ? axis : ra - rb;
  if (has_axis && ax < 0) ax += ra;
  if (ax < 0 || ax + rb > ra)
    return Status::Error("with broadcast=1, B's shape " + ShapeStr(b) + " does not fit A's shape " + ShapeStr(a) +
                         " at axis " + std::to_string(has_axis ? axis : ra - rb));
  Shape out(static_cast<size_t>(ra), 1);
  for (int64_t k = 0; k < rb; ++k) {
    if (b[k] != 1 && b[k] != a[ax + k])
      return Status::Error("with broadcast=1, B's dim " + std::to_string(k) + " (" + std::to_string(b[k]) +
                           ") differs from A's dim " + std::to_string(ax + k) + " (" + std::to_string(a[ax + k]) + ")");
    out[ax + k] = b[k];
  }
  return out;
}

Result<Shape> InferBroadcastAB(const InferContext& ctx) {
  Result<LegacyBroadcast> lb = LegacyBroadcast::FromNode(ctx.node);
  if (!lb.ok()) return ctx.Error(lb.status().message());
  Result<Shape> b = lb->OperandShape(ctx.in[0].shape, ctx.in[1].shape);
  if (!b.ok()) return ctx.Error(b.status().message());
  Result<Shape> shape = BroadcastShapes(ctx.in[0].shape, *b);
  if (!shape.ok()) return ctx.Error(shape.status().message());
  return shape;
}

namespace {

bool ArithTypeOk(DType t) { return DTypeIsFloat(t) || DTypeIsInteger(t); }
bool PowBaseOk(DType t) { return DTypeIsFloat(t) || t == DType::kInt32 || t == DType::kInt64; }

}  // namespace

Status InferBinary(InferContext& ctx) {
  const std::string& op = ctx.node.op;
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
  const ValueInfo& a = ctx.in[0];
  const ValueInfo& b = ctx.in[1];
  const char* a_name = op == "Pow" || op == "PRelu" ? "X" : "A";
  const char* b_name = op == "Pow" ? "Y (exponent)" : op == "PRelu" ? "slope" : "B";
  if (op == "Pow") {
    if (!PowBaseOk(a.dtype))
      return ctx.Error(std::string("input X type ") + DTypeName(a.dtype) +
                       " is not supported (float16, float32, float64, int32, int64)");
    if (!ArithTypeOk(b.dtype))
      return ctx.Error(std::string("input ") + b_name + " type " + DTypeName(b.dtype) +
                       " is not supported (a float or integer type)");
  } else {
    if (!ArithTypeOk(a.dtype))
      return ctx.Error(std::string("input ") + a_name + " type " + DTypeName(a.dtype) +
                       " is not supported (a float or integer type)");
    if (b.dtype != a.dtype)
      return ctx.Error(std::string("input ") + b_name + " type " + DTypeName(b.dtype) + " differs from " + a_name +
                       " type " + DTypeName(a.dtype));
  }
  if (op == "PRelu") {
    Result<Shape> shape = BroadcastShapes(a.shape, b.shape);
    if (!shape.ok()) return ctx.Error(shape.status().message());
    if (*shape != a.shape)
      return ctx.Error("slope shape " + ShapeStr(b.shape) + " is not unidirectionally broadcastable to X shape " +
                       ShapeStr(a.shape));
    ctx.SetOut(0, a.dtype, a.shape);
    return Status::Ok();
  }
  TARE_ASSIGN_OR_RETURN(Shape shape, InferBroadcastAB(ctx));
  ctx.SetOut(0, a.dtype, shape);
  return Status::Ok();
}

}  // namespace tare
