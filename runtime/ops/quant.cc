// Linear quantization ops (ONNX QuantizeLinear-23, DequantizeLinear-23, DynamicQuantizeLinear-11,
// QLinearConv-10, QLinearMatMul-10, ConvInteger-10, MatMulInteger-10). 8-bit types are uint8
// (range [0, 255]) and int8 ([-128, 127]). rne(v) rounds to the nearest integer, ties to even;
// sat(v) clamps to the output type's range; a NaN passed to rne counts as 0. Every float step
// below is done in float32 (f32(...) = one IEEE rounding to float32) on BOTH backends, as the
// ONNX reference computes it with numpy float32, so ref and ref64 give identical results; float32
// inputs (scales, x) are rounded to float32 first (a no-op for float32 data).
//
// QuantizeLinear(x, y_scale, y_zero_point?; axis=1, block_size=0, output_dtype=0, saturate=1,
//   precision=0) (ONNX QuantizeLinear-13/19/21/23): x float32 (float16 / bfloat16 widened to
//   float32, runtime/exec/narrow_float.h) or int32 (converted to float32),
//   y[i] = sat(rne(f32(x[i] / y_scale[c])) + y_zero_point[c]) for integer outputs: int8
//   [-128, 127], uint8 [0, 255], int16, uint16, int4 [-8, 7], uint4 [0, 15]; for a float8 output
//   y[i] = float8(f32(f32(x[i] / y_scale[c]) + y_zero_point[c])), rounded to nearest even with
//   `saturate` as Cast-19 (runtime/ir/float8.h). y's type: output_dtype when given (it must then
//   equal y_zero_point's type), else y_zero_point's, else uint8 (zero point 0).
//   Granularity from y_scale's shape: one element (per tensor, c = 0); 1-D of length
//   x.shape[axis] (per axis: c = index along axis; axis in [-r, r)); with block_size B > 0
//   (blocked, opset 21): x's shape but ceil(D / B) along axis, c = the same coordinates with the
//   axis index divided by B. y_zero_point, when given, has y_scale's shape. precision (opset 23):
//   0 or 1 (float32); the division is always float32 here.
// DequantizeLinear(x, x_scale, x_zero_point?; axis=1, block_size=0, output_dtype=0) (ONNX
//   DequantizeLinear-13/19/21/23): x int8, uint8, int16, uint16, int32, int4, uint4 or a float8
//   type, zero point of x's type (default 0), scale/zero point per tensor, per axis or blocked as
//   above; y[i] = f32(f32(x[i] - x_zero_point[c]) * x_scale[c]) (an integer difference is exact in
//   int64; float8 values are exact in float32), float32, or output_dtype's float16 / bfloat16
//   (rounded once to nearest even).
// DynamicQuantizeLinear(x) -> (y uint8, y_scale float32 scalar, y_zero_point uint8 scalar), the
//   ONNX function body in float32: lo = min(0, min x), hi = max(0, max x) (NaN elements are
//   skipped), y_scale = f32(f32(hi - lo) / 255), y_zero_point = rne(clamp(f32(0 - f32(lo / y_scale)),
//   0, 255)), y = QuantizeLinear(x, y_scale, y_zero_point). All-zero (or empty) x gives scale 0,
//   zero point 0 (0/0 is NaN -> 0) and y = 0.
// ConvInteger(x, w, x_zero_point?, w_zero_point?): the Conv-11 geometry (attributes group=1,
//   kernel_shape, strides, dilations, pads, auto_pad as in runtime/ops/conv.cc, 1 to 3 spatial
//   dims) over integers: y[n,m,o] = sum (x - x_zero_point)(w[m] - w_zero_point[m]) over the
//   window, padding contributing nothing (it equals x_zero_point). x, w uint8/int8; x_zero_point
//   a scalar; w_zero_point a scalar or 1-D [M] (per output channel). y is int32: the sum is taken
//   modulo 2^32 (ONNX: "accumulation may overflow if and only if in 32 bits").
// QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B?): acc = ConvInteger's int32
//   sum + B[m] (int32, modulo 2^32); y = sat(rne(double(acc) * double(mult[m])) + y_zp) with
//   mult[m] = f32(f32(x_scale * w_scale[m]) / y_scale) (double product: exact rounding of the
//   int32 x float32 product, as numpy's float64 promotion). x_scale/x_zp/y_scale/y_zp are scalars;
//   w_scale and w_zp scalars or [M]; y has y_zp's type.
// MatMulInteger(A, B, a_zero_point?, b_zero_point?): numpy.matmul (batch broadcast, 1-D operands
//   promoted and the added dim removed) of (A - a_zp) and (B - b_zp), int32 modulo 2^32. a_zp is a
//   scalar, or per row: 1-D [M] or A's shape with the last dim 1; b_zp a scalar, or per column:
//   1-D [N] or B's shape with the second-to-last dim 1 (non-scalar forms need rank >= 2).
// QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp): acc as MatMulInteger;
//   y = sat(rne(double(acc) * double(f32(f32(a_scale[m] * b_scale[n]) / y_scale))) + y_zp); scales
//   and zero points of a and b per tensor/row/column as above (each pair the same shape); y_scale
//   and y_zp scalars; y has y_zp's type.
// "Scalar" means one element of any rank (ONNX models use [] and [1]).
#include "runtime/ir/float8.h"
#include "runtime/ops/specs.h"

namespace tare {
namespace {

bool Is8Bit(DType t) { return t == DType::kUInt8 || t == DType::kInt8; }

/// The element types QuantizeLinear-21 writes and DequantizeLinear-21 reads (besides int32).
bool IsQuantType(DType t) {
  return Is8Bit(t) || t == DType::kInt16 || t == DType::kUInt16 || t == DType::kInt4 || t == DType::kUInt4 ||
         DTypeIsFloat8(t);
}

int64_t Count(const Shape& s) {
  Result<int64_t> n = NumElements(s);
  return n.ok() ? *n : -1;
}

/// Checks input i (when present) has dtype `dt` (kUndefined: any 8-bit type) and one element.
Status ExpectParam(const InferContext& ctx, size_t i, const char* name, DType dt, bool scalar = true) {
  if (!ctx.has(i)) return Status::Ok();
  const ValueInfo& v = ctx.in[i];
  if (dt == DType::kUndefined ? !Is8Bit(v.dtype) : v.dtype != dt)
    return ctx.Error(std::string("input ") + name + " must be " +
                     (dt == DType::kUndefined ? std::string("uint8 or int8") : DTypeName(dt)) + ", got " +
                     DTypeName(v.dtype));
  if (scalar && Count(v.shape) != 1)
    return ctx.Error(std::string("input ") + name + " must have one element, got shape " + ShapeStr(v.shape));
  return Status::Ok();
}

/// Q/DQ: scale (input 1) and zero point (input 2) per-tensor or per-axis along `axis` of x.
Status CheckAxisParams(const InferContext& ctx) {
  const Shape& s = ctx.in[1].shape;
  if (ctx.has(2) && ctx.in[2].shape != s)
    return ctx.Error("scale " + ShapeStr(s) + " and zero point " + ShapeStr(ctx.in[2].shape) + " shapes differ");
  TARE_ASSIGN_OR_RETURN(int64_t block, ctx.node.GetInt("block_size", 0));
  if (block < 0) return ctx.Error("attribute 'block_size' must be >= 0, got " + std::to_string(block));
  if (Count(s) == 1 && block == 0) return Status::Ok();
  TARE_ASSIGN_OR_RETURN(int64_t axis, ctx.node.GetInt("axis", 1));
  const Shape& x = ctx.in[0].shape;
  TARE_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(axis, static_cast<int64_t>(x.size()), ctx, "attribute 'axis'"));
  if (block > 0) {  // blocked (opset 21): s = x's shape but ceil(D / block) along axis
    Shape want = x;
    want[static_cast<size_t>(ax)] = (x[static_cast<size_t>(ax)] + block - 1) / block;
    if (s != want)
      return ctx.Error("with block_size " + std::to_string(block) + " along axis " + std::to_string(axis) + " of x" +
                       ShapeStr(x) + ", scale must have shape " + ShapeStr(want) + ", got " + ShapeStr(s));
    return Status::Ok();
  }
  if (s.size() != 1 || x.empty() || s[0] != x[static_cast<size_t>(ax)])
    return ctx.Error("scale must have one element or shape [" + (x.empty() ? std::string("?") : std::to_string(x[ax])) +
                     "] (x" + ShapeStr(x) + " along axis " + std::to_string(axis) + "), got " + ShapeStr(s));
  return Status::Ok();
}

/// Checks a per-tensor / per-row (is_a) / per-column zero point or scale of a matmul operand.
Status CheckMatParam(const InferContext& ctx, size_t i, const char* name, const Shape& op, bool is_a) {
  if (!ctx.has(i)) return Status::Ok();
  const Shape& s = ctx.in[i].shape;
  if (Count(s) == 1) return Status::Ok();
  if (op.size() >= 2) {
    const int64_t len = is_a ? op[op.size() - 2] : op.back();
    Shape full = op;
    full[is_a ? op.size() - 1 : op.size() - 2] = 1;
    if ((s.size() == 1 && s[0] == len) || s == full) return Status::Ok();
  }
  return ctx.Error(std::string("input ") + name + " must have one element, or be per " + (is_a ? "row" : "column") +
                   " of " + ShapeStr(op) + ", got shape " + ShapeStr(s));
}

/// numpy.matmul output shape of inputs ai and bi.
Result<Shape> MatMulShape(const InferContext& ctx, size_t ai, size_t bi) {
  const Shape& a = ctx.in[ai].shape;
  const Shape& b = ctx.in[bi].shape;
  if (a.empty() || b.empty())
    return ctx.Error("operands must have rank >= 1, got " + ShapeStr(a) + " and " + ShapeStr(b));
  if (a.back() != (b.size() == 1 ? b[0] : b[b.size() - 2]))
    return ctx.Error("inner dims differ: " + ShapeStr(a) + " and " + ShapeStr(b));
  Result<Shape> y = BroadcastShapes(Shape(a.begin(), a.end() - std::min<size_t>(a.size(), 2)),
                                    Shape(b.begin(), b.end() - std::min<size_t>(b.size(), 2)));
  if (!y.ok()) return ctx.Error("batch dims: " + y.status().message());
  if (a.size() >= 2) y->push_back(a[a.size() - 2]);
  if (b.size() >= 2) y->push_back(b.back());
  return *y;
}

}  // namespace

/// Validates a quantization node and infers its outputs.
Status InferQuant(InferContext& ctx) {
  const std::string& op = ctx.node.op;
  const DType f32 = DType::kFloat32, any8 = DType::kUndefined;
  if (op == "QuantizeLinear" || op == "DequantizeLinear") {
    TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 3));
    const DType xt = ctx.in[0].dtype;
    const bool q = op == "QuantizeLinear";
    if (q ? xt != f32 && xt != DType::kInt32 : !IsQuantType(xt) && xt != DType::kInt32)
      return ctx.Error("input x must be " +
                       std::string(q ? "float32 (float16, bfloat16) or int32"
                                     : "int8, uint8, int16, uint16, int32, int4, uint4 or a float8 type") +
                       ", got " + DTypeName(xt));
    TARE_RETURN_IF_ERROR(ExpectParam(ctx, 1, "scale", f32, false));
    TARE_ASSIGN_OR_RETURN(int64_t output_dtype, ctx.node.GetInt("output_dtype", 0));
    TARE_ASSIGN_OR_RETURN(int64_t saturate, ctx.node.GetInt("saturate", 1));
    TARE_ASSIGN_OR_RETURN(int64_t precision, ctx.node.GetInt("precision", 0));
    if (saturate != 0 && saturate != 1) return ctx.Error("attribute 'saturate' must be 0 or 1, got " + std::to_string(saturate));
    if (precision != 0 && precision != static_cast<int64_t>(DType::kFloat32))
      return ctx.Error("attribute 'precision' = " + std::to_string(precision) +
                       " is not supported; the division is done in float32 (precision 0 or 1)");
    DType yt = f32;
    if (q) {
      yt = ctx.has(2) ? ctx.in[2].dtype : DType::kUInt8;
      if (output_dtype != 0) {
        if (!DTypeIsValid(static_cast<int32_t>(output_dtype)) || !IsQuantType(static_cast<DType>(output_dtype)))
          return ctx.Error("attribute 'output_dtype' = " + std::to_string(output_dtype) + " is not a quantized type");
        if (ctx.has(2) && static_cast<DType>(output_dtype) != yt)
          return ctx.Error("attribute 'output_dtype' (" + DTypeName(static_cast<DType>(output_dtype)) +
                           ") differs from y_zero_point's type " + DTypeName(yt));
        yt = static_cast<DType>(output_dtype);
      }
      if (!IsQuantType(yt)) return ctx.Error("input y_zero_point must be a quantized type, got " + DTypeName(yt));
    } else {
      if (ctx.has(2) && ctx.in[2].dtype != xt)
        return ctx.Error("input x_zero_point must be " + DTypeName(xt) + ", got " + DTypeName(ctx.in[2].dtype));
      if (output_dtype != 0) {
        const DType o = static_cast<DType>(output_dtype);
        if (o != DType::kFloat32 && o != DType::kFloat16 && o != DType::kBFloat16)
          return ctx.Error("attribute 'output_dtype' = " + std::to_string(output_dtype) +
                           " must be float32, float16 or bfloat16");
        yt = o;
      }
    }
    TARE_RETURN_IF_ERROR(CheckAxisParams(ctx));
    ctx.SetOut(0, yt, ctx.in[0].shape);
    return Status::Ok();
  }
  if (op == "DynamicQuantizeLinear") {
    TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    TARE_RETURN_IF_ERROR(ctx.ExpectFloat32({"x"}));
    ctx.SetOut(0, DType::kUInt8, ctx.in[0].shape);
    ctx.SetOut(1, f32, {});
    ctx.SetOut(2, DType::kUInt8, {});
    return Status::Ok();
  }
  const bool qconv = op == "QLinearConv", qmm = op == "QLinearMatMul";
  if (qconv || qmm) {
    TARE_RETURN_IF_ERROR(ctx.ExpectInputs(8, qconv ? 9 : 8));
    const char* names[] = {"x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale", "y_zero_point"};
    for (size_t i : {0, 3}) TARE_RETURN_IF_ERROR(ExpectParam(ctx, i, names[i], any8, false));
    for (size_t i : {1, 4, 6}) TARE_RETURN_IF_ERROR(ExpectParam(ctx, i, names[i], f32, false));
    for (size_t i : {2, 5}) TARE_RETURN_IF_ERROR(ExpectParam(ctx, i, names[i], ctx.in[i - 2].dtype, false));
    TARE_RETURN_IF_ERROR(ExpectParam(ctx, 6, "y_scale", f32));
    TARE_RETURN_IF_ERROR(ExpectParam(ctx, 7, "y_zero_point", any8));
    Shape y;
    if (qconv) {
      TARE_RETURN_IF_ERROR(ExpectParam(ctx, 1, "x_scale", f32));
      TARE_RETURN_IF_ERROR(ExpectParam(ctx, 2, "x_zero_point", ctx.in[0].dtype));
      TARE_ASSIGN_OR_RETURN(y, InferConvGeometry(ctx, 0, 3));
      for (size_t i : {4, 5})
        if (Count(ctx.in[i].shape) != 1 && ctx.in[i].shape != Shape{y[1]})
          return ctx.Error(std::string(names[i]) + " must have one element or shape [" + std::to_string(y[1]) +
                           "], got " + ShapeStr(ctx.in[i].shape));
      if (ctx.has(8) && (ctx.in[8].dtype != DType::kInt32 || ctx.in[8].shape != Shape{y[1]}))
        return ctx.Error("B must be int32 of shape [" + std::to_string(y[1]) + "], got " +
                         DTypeName(ctx.in[8].dtype) + ShapeStr(ctx.in[8].shape));
    } else {
      TARE_ASSIGN_OR_RETURN(y, MatMulShape(ctx, 0, 3));
      for (size_t i : {1, 2, 4, 5})
        TARE_RETURN_IF_ERROR(CheckMatParam(ctx, i, names[i], ctx.in[i < 3 ? 0 : 3].shape, i < 3));
      for (size_t i : {1, 4})
        if (ctx.in[i].shape != ctx.in[i + 1].shape)
          return ctx.Error(std::string(names[i]) + " and " + names[i + 1] + " must have the same shape");
    }
    ctx.SetOut(0, ctx.in[7].dtype, y);
    return Status::Ok();
  }
  if (op == "ConvInteger" || op == "MatMulInteger") {
    TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 4));
    const bool conv = op == "ConvInteger";
    TARE_RETURN_IF_ERROR(ExpectParam(ctx, 0, conv ? "x" : "A", any8, false));
    TARE_RETURN_IF_ERROR(ExpectParam(ctx, 1, conv ? "w" : "B", any8, false));
    TARE_RETURN_IF_ERROR(ExpectParam(ctx, 2, conv ? "x_zero_point" : "a_zero_point", ctx.in[0].dtype, false));
    TARE_RETURN_IF_ERROR(ExpectParam(ctx, 3, conv ? "w_zero_point" : "b_zero_point", ctx.in[1].dtype, false));
    Shape y;
    if (conv) {
      TARE_RETURN_IF_ERROR(ExpectParam(ctx, 2, "x_zero_point", ctx.in[0].dtype));
      TARE_ASSIGN_OR_RETURN(y, InferConvGeometry(ctx, 0, 1));
      if (ctx.has(3) && Count(ctx.in[3].shape) != 1 && ctx.in[3].shape != Shape{y[1]})
        return ctx.Error("w_zero_point must have one element or shape [" + std::to_string(y[1]) + "], got " +
                         ShapeStr(ctx.in[3].shape));
    } else {
      TARE_ASSIGN_OR_RETURN(y, MatMulShape(ctx, 0, 1));
      TARE_RETURN_IF_ERROR(CheckMatParam(ctx, 2, "a_zero_point", ctx.in[0].shape, true));
      TARE_RETURN_IF_ERROR(CheckMatParam(ctx, 3, "b_zero_point", ctx.in[1].shape, false));
    }
    ctx.SetOut(0, DType::kInt32, y);
    return Status::Ok();
  }
  return ctx.Error("not a quantization op");
}

}  // namespace tare
