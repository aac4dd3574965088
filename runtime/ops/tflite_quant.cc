// Quantized TFLite ops (domain "tflite", family TfliteQuant; issue 6): TFLite's integer kernels
// as IR ops, so the TFLite converter can map quantized models. Semantics are exactly TFLite's
// (builtin ops CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, ADD, MUL, AVERAGE_POOL_2D, MAX_POOL_2D,
// SOFTMAX, LOGISTIC, QUANTIZE, DEQUANTIZE with their Prepare() checks); the arithmetic is
// kernels/quant/quant.h (its comments give each formula and its TFLite source). Layouts are
// TFLite's: activations NHWC, CONV_2D filters OHWI, DEPTHWISE_CONV_2D filters [1, KH, KW, C*M].
// The kernels compute the same integers whatever the compute type; a Session on ref64 does not run
// them but the float truth (runtime/passes/float_truth.h) of the ops they stand for. The
// float32 input of Quantize and output of Dequantize arrive/leave in the compute type T.
//
// Quantization attributes (TFLite stores them on tensors; the IR puts them on the node):
//   x_scale (float), x_zero_point (int, default 0)      input 0
//   x2_scale, x2_zero_point                               input 1 of QAdd / QMul
//   w_scales (floats: 1, or one per output channel), w_zero_points (ints, same count, default 0;
//     all equal: TFLite uses one filter zero point)
//   y_scale, y_zero_point                                 output
//   activation: "NONE" (default) | "RELU" | "RELU6" | "RELU_N1_TO_1" (fused activation)
//   bias_scale (float, optional, default 0 = not checked): the int32 bias tensor's scale, for the
//     check TFLite's uint8 conv / per-tensor fully connected Prepare makes.
//
// Ops (x int8, uint8 or int16 unless said; y has x's dtype):
//   QConv2D(x [N,H,W,C], w [O,KH,KW,I], bias [O]?): strides [sh,sw] (default 1,1), dilations
//     [dh,dw] (default 1,1), padding "SAME" | "VALID" (required). Groups = C / I (C % I == 0,
//     O % groups == 0; TFLite runs grouped convs on its reference kernel, reproduced here).
//     w int8 (x int8/int16) or uint8 (x uint8); bias int32 (x int8/uint8), int32 or int64 (x
//     int16: the bias type picks TFLite's accumulator; no bias = int32). y [N,OH,OW,O] with
//     SAME: OH = ceil(H / sh); VALID: OH = ceil((H - (KH-1)*dh) / sh) (same for W).
//   QDepthwiseConv2D(x, w [1,KH,KW,C*M], bias [C*M]?): depth_multiplier M (default
//     w.shape[3] / C; must satisfy w.shape[3] == C * M); bias int32, or int64 for int16 x.
//   QFullyConnected(x [..., K'], w [units, K], bias [units]?): x is flattened to [-1, K] (its
//     element count must be a multiple of K); keep_num_dims 0 (default; y [numel/K, units]) or 1
//     (x's last dim must be K; y = x.shape[:-1] + [units]).
//   QAdd / QMul(x1, x2): same dtype, numpy broadcasting, rank <= 6. QAdd: pot_scale_int16 (0/1,
//     default 1: TFLite's power-of-two int16 path when all three scales are powers of two).
//   QAveragePool2D / QMaxPool2D(x [N,H,W,C]): kernel_shape [fh,fw] (required), strides (default
//     1,1), padding, activation; input and output quantization must be equal (TFLite's pools do
//     not rescale). y [N,OH,OW,C].
//   QSoftmax(x, any rank >= 1; int16: rank 1..4, TFLite's limit): over the last axis; beta
//     (default 1); kernel "table" (default: the kernel TFLite's default op resolver runs; for
//     8 bits its float lookup table) | "fixed_point" (the reference resolver's: for 8 bits the
//     gemmlowp kernel). int16 has one kernel for both (reference_ops::SoftmaxInt16: exp and
//     1/(1+x) tables with interpolation). y int8 zero point -128 / uint8 zero point 0, scale
//     1/256; int16: x zero point 0, y zero point 0 and scale 1/32768 (within 0.001/32768).
//   QLogistic(x): kernel "table" (default: what TFLite's default resolver runs) | "fixed_point".
//     8 bits: the 256-entry table | the gemmlowp fixed-point kernel (TFLite Micro's); y scale
//     1/256. int16 (x zero point 0, y scale exactly 1/32768, zero point 0): the interpolated
//     sigmoid table kernel, except x scale 2^-12 with "table", where the default resolver runs
//     gemmlowp's int16 logistic ("fixed_point" keeps the table kernel there, as TFLite's
//     reference resolver does; kernels/quant/quant.h LogisticInt16).
//   Quantize(x): to (2 uint8, 3 int8, 5 int16), y_scale, y_zero_point. x float32: TFLite's
//     AffineQuantize (x / scale in float32, roundf, + zero point, clamp); x integer: requantize
//     (needs x_scale, x_zero_point; pairs int8/uint8 -> int8/uint8, int16 -> int16/int8).
//   Dequantize(x int8/uint8/int16): x_scales (1, or per channel along `axis` for int8),
//     x_zero_points (same count, default 0), axis (default 0). y float32, x's shape.
// Errors (ctx.Error, naming the node): wrong input counts, ranks, dtypes or bias shapes; bad
// attribute values or counts (w_scales count not 1 or O, unknown activation/padding/kernel);
// whatever quant.h's Prepare* refuses (non-positive scales, zero points outside the type, int16
// zero points != 0, per-channel uint8, softmax/logistic output quantization, unequal pool
// quantization, out-of-range multipliers), int16 softmax of rank > 4, so bad models fail at
// session creation.
#include <cmath>
#include <string>

#include "kernels/quant/quant.h"
#include "runtime/ops/specs.h"
#include "runtime/ops/tflite_quant.h"

namespace tare {
namespace tflite_quant {
// Attribute readers (runtime/ops/tflite_quant.h), shared with the reference kernel.

Result<quant::QType> QTypeOf(const Node& n, DType t, const char* what) {
  switch (t) {
    case DType::kInt8: return quant::QType::kInt8;
    case DType::kUInt8: return quant::QType::kUInt8;
    case DType::kInt16: return quant::QType::kInt16;
    default:
      return Status::Error(n.Where() + ": " + what + " must be int8, uint8 or int16, got " + DTypeName(t));
  }
}

Result<quant::Activation> ReadActivation(const Node& n) {
  TARE_ASSIGN_OR_RETURN(std::string a, n.GetString("activation", "NONE"));
  if (a == "NONE") return quant::Activation::kNone;
  if (a == "RELU") return quant::Activation::kRelu;
  if (a == "RELU6") return quant::Activation::kRelu6;
  if (a == "RELU_N1_TO_1") return quant::Activation::kReluN1To1;
  return Status::Error(n.Where() + ": attribute 'activation' must be NONE, RELU, RELU6 or RELU_N1_TO_1, got '" + a +
                       "'");
}

Result<quant::TensorQuant> ReadQuant(const Node& n, const char* scale, const char* zero_point) {
  if (!n.has(scale)) return Status::Error(n.Where() + ": attribute '" + scale + "' is required");
  quant::TensorQuant q;
  TARE_ASSIGN_OR_RETURN(q.scale, n.GetFloat(scale, 0.f));
  TARE_ASSIGN_OR_RETURN(int64_t zp, n.GetInt(zero_point, 0));
  if (zp < -32768 || zp > 65535)
    return Status::Error(n.Where() + ": attribute '" + zero_point + "' = " + std::to_string(zp) +
                         " is outside every quantized type's range");
  q.zero_point = static_cast<int32_t>(zp);
  return q;
}

Result<bool> ReadSame(const Node& n) {
  TARE_ASSIGN_OR_RETURN(std::string p, n.GetString("padding", ""));
  if (p != "SAME" && p != "VALID")
    return Status::Error(n.Where() + ": attribute 'padding' must be SAME or VALID, got '" + p + "'");
  return p == "SAME";
}

/// Reads the quantization of a conv / depthwise conv / fully connected node. output_channels is
/// the op's O when known (shape inference), 0 to take it from the count of w_scales (kernel
/// preparation: one scale gives one multiplier, which the kernels broadcast).
Result<quant::ConvQuantInfo> ReadConvQuant(const Node& n, quant::QType type, int64_t output_channels) {
  quant::ConvQuantInfo q;
  q.input_type = type;
  TARE_ASSIGN_OR_RETURN(q.input, ReadQuant(n, "x_scale", "x_zero_point"));
  TARE_ASSIGN_OR_RETURN(q.output, ReadQuant(n, "y_scale", "y_zero_point"));
  if (!n.has("w_scales")) return Status::Error(n.Where() + ": attribute 'w_scales' is required");
  TARE_ASSIGN_OR_RETURN(q.filter_scales, n.GetFloats("w_scales"));
  const size_t ns = q.filter_scales.size();
  if (ns == 0) return Status::Error(n.Where() + ": attribute 'w_scales' is empty");
  if (output_channels > 0 && ns != 1 && static_cast<int64_t>(ns) != output_channels)
    return Status::Error(n.Where() + ": attribute 'w_scales' has " + std::to_string(ns) +
                         " values; expected 1 or one per output channel (" + std::to_string(output_channels) + ")");
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> zps, n.GetInts("w_zero_points", std::vector<int64_t>(ns, 0)));
  if (zps.size() != ns)
    return Status::Error(n.Where() + ": attribute 'w_zero_points' has " + std::to_string(zps.size()) +
                         " values; expected as many as w_scales (" + std::to_string(ns) + ")");
  for (int64_t z : zps)
    if (z != zps[0])
      return Status::Error(n.Where() + ": attribute 'w_zero_points' values must all be equal (TFLite uses one filter "
                           "zero point), got " + std::to_string(zps[0]) + " and " + std::to_string(z));
  if (zps[0] < -128 || zps[0] > 255)
    return Status::Error(n.Where() + ": filter zero point " + std::to_string(zps[0]) + " is outside the 8-bit range");
  q.filter_zero_point = static_cast<int32_t>(zps[0]);
  q.output_channels = output_channels > 0 ? output_channels : static_cast<int64_t>(ns);
  TARE_ASSIGN_OR_RETURN(q.activation, ReadActivation(n));
  TARE_ASSIGN_OR_RETURN(q.bias_scale, n.GetFloat("bias_scale", 0.f));
  return q;
}

}  // namespace tflite_quant

namespace {

using tflite_quant::QTypeOf;
using tflite_quant::ReadActivation;
using tflite_quant::ReadQuant;

/// A quant.h Prepare* error, prefixed with the node.
template <class R>
Status Prep(const InferContext& ctx, const Result<R>& r) {
  if (r.ok()) return Status::Ok();
  return ctx.Error(r.status().message());
}

Status ExpectRank(const InferContext& ctx, size_t i, const char* what, size_t rank) {
  if (ctx.in[i].shape.size() != rank)
    return ctx.Error(std::string(what) + " must have rank " + std::to_string(rank) + ", got shape " +
                     ShapeStr(ctx.in[i].shape));
  return Status::Ok();
}

Status ExpectDType(const InferContext& ctx, size_t i, const char* what, DType want) {
  if (ctx.in[i].dtype != want)
    return ctx.Error(std::string(what) + " must be " + DTypeName(want) + " for " + DTypeName(ctx.in[0].dtype) +
                     " x, got " + DTypeName(ctx.in[i].dtype));
  return Status::Ok();
}

/// Bias input 2 (optional): shape [channels], dtype int32, or int64 too when allowed.
Status CheckBias(const InferContext& ctx, int64_t channels, bool int16_x, bool int32_ok) {
  if (!ctx.has(2)) return Status::Ok();
  const DType b = ctx.in[2].dtype;
  const bool ok = int16_x ? (b == DType::kInt64 || (int32_ok && b == DType::kInt32)) : b == DType::kInt32;
  if (!ok)
    return ctx.Error("bias must be " + std::string(int16_x ? (int32_ok ? "int64 or int32" : "int64") : "int32") +
                     " for " + DTypeName(ctx.in[0].dtype) + " x, got " + DTypeName(b));
  if (ctx.in[2].shape != Shape{channels})
    return ctx.Error("bias must have shape [" + std::to_string(channels) + "], got " + ShapeStr(ctx.in[2].shape));
  return Status::Ok();
}

/// Output size and padding of one spatial dim (kernels/quant ComputePadding), node-named errors.
Result<int64_t> SpatialOut(const InferContext& ctx, bool same, int64_t in, int64_t k, int64_t s, int64_t d,
                           const char* axis) {
  Result<quant::Padding1D> p = quant::ComputePadding(same, in, k, s, d);
  if (!p.ok()) return ctx.Error(std::string(axis) + ": " + p.status().message());
  return p->out;
}

/// Reads strides/dilations ([h, w], each in [1, 2^31)) and the padding; returns [OH, OW] for
/// input x [N,H,W,C] and a kh x kw window.
Result<Shape> WindowOut(const InferContext& ctx, int64_t kh, int64_t kw, bool dilated) {
  const int64_t kMax = (int64_t{1} << 31) - 1;
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> st, ctx.IntsAttr("strides", 2, 1, 1, kMax));
  std::vector<int64_t> dl = {1, 1};
  if (dilated) {
    TARE_ASSIGN_OR_RETURN(dl, ctx.IntsAttr("dilations", 2, 1, 1, kMax));
  }
  TARE_ASSIGN_OR_RETURN(bool same, tflite_quant::ReadSame(ctx.node));
  const Shape& x = ctx.in[0].shape;
  TARE_ASSIGN_OR_RETURN(int64_t oh, SpatialOut(ctx, same, x[1], kh, st[0], dl[0], "height"));
  TARE_ASSIGN_OR_RETURN(int64_t ow, SpatialOut(ctx, same, x[2], kw, st[1], dl[1], "width"));
  return Shape{oh, ow};
}

Status QInferConvLike(InferContext& ctx, bool depthwise) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 3));
  TARE_ASSIGN_OR_RETURN(quant::QType t, QTypeOf(ctx.node, ctx.in[0].dtype, "x"));
  TARE_RETURN_IF_ERROR(ExpectRank(ctx, 0, "x (NHWC)", 4));
  TARE_RETURN_IF_ERROR(ExpectRank(ctx, 1, depthwise ? "w ([1, KH, KW, C*M])" : "w (OHWI)", 4));
  TARE_RETURN_IF_ERROR(ExpectDType(ctx, 1, "w", t == quant::QType::kUInt8 ? DType::kUInt8 : DType::kInt8));
  const Shape& x = ctx.in[0].shape;
  const Shape& w = ctx.in[1].shape;
  for (int64_t d : w)
    if (d < 1) return ctx.Error("w has an empty dim: shape " + ShapeStr(w));
  int64_t O;
  if (depthwise) {
    if (w[0] != 1) return ctx.Error("w must have shape [1, KH, KW, C*M], got " + ShapeStr(w));
    const int64_t C = x[3];
    if (C < 1) return ctx.Error("x has no channels: shape " + ShapeStr(x));
    TARE_ASSIGN_OR_RETURN(int64_t m, ctx.node.GetInt("depth_multiplier", w[3] / C));
    if (m < 1 || static_cast<__int128>(C) * m != w[3])
      return ctx.Error("w.shape[3] = " + std::to_string(w[3]) + " must equal channels " + std::to_string(C) +
                       " * depth_multiplier " + std::to_string(m));
    O = w[3];
  } else {
    O = w[0];
    const int64_t C = x[3], I = w[3];
    if (C < 1) return ctx.Error("x has no channels: shape " + ShapeStr(x));
    if (C % I != 0)
      return ctx.Error("x has " + std::to_string(C) + " channels, not a multiple of w.shape[3] = " +
                       std::to_string(I));
    const int64_t groups = C / I;
    if (O % groups != 0)
      return ctx.Error("w.shape[0] = " + std::to_string(O) + " is not divisible by the " + std::to_string(groups) +
                       " groups (x channels / w.shape[3])");
  }
  const bool int16_x = t == quant::QType::kInt16;
  TARE_RETURN_IF_ERROR(CheckBias(ctx, O, int16_x, /*int32_ok=*/!depthwise));
  TARE_ASSIGN_OR_RETURN(Shape sp, WindowOut(ctx, w[1], w[2], true));
  TARE_ASSIGN_OR_RETURN(quant::ConvQuantInfo q, tflite_quant::ReadConvQuant(ctx.node, t, O));
  TARE_RETURN_IF_ERROR(Prep(ctx, quant::PrepareConv(q)));
  ctx.SetOut(0, ctx.in[0].dtype, {x[0], sp[0], sp[1], O});
  return Status::Ok();
}

Status QInferFullyConnected(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 3));
  TARE_ASSIGN_OR_RETURN(quant::QType t, QTypeOf(ctx.node, ctx.in[0].dtype, "x"));
  TARE_RETURN_IF_ERROR(ExpectRank(ctx, 1, "w ([units, K])", 2));
  TARE_RETURN_IF_ERROR(ExpectDType(ctx, 1, "w", t == quant::QType::kUInt8 ? DType::kUInt8 : DType::kInt8));
  const Shape& x = ctx.in[0].shape;
  const int64_t units = ctx.in[1].shape[0], K = ctx.in[1].shape[1];
  if (units < 1 || K < 1) return ctx.Error("w has an empty dim: shape " + ShapeStr(ctx.in[1].shape));
  if (x.empty()) return ctx.Error("x must have rank >= 1");
  TARE_ASSIGN_OR_RETURN(int64_t numel, NumElements(x));
  TARE_ASSIGN_OR_RETURN(int64_t keep, ctx.node.GetInt("keep_num_dims", 0));
  if (keep != 0 && keep != 1) return ctx.Error("attribute 'keep_num_dims' must be 0 or 1, got " + std::to_string(keep));
  Shape y;
  if (keep) {
    if (x.back() != K)
      return ctx.Error("with keep_num_dims, x's last dim must be K = " + std::to_string(K) + ", got shape " +
                       ShapeStr(x));
    y.assign(x.begin(), x.end() - 1);
    y.push_back(units);
  } else {
    if (numel % K != 0)
      return ctx.Error("x has " + std::to_string(numel) + " elements, not a multiple of K = " + std::to_string(K));
    y = {numel / K, units};
  }
  TARE_RETURN_IF_ERROR(CheckBias(ctx, units, t == quant::QType::kInt16, true));
  TARE_ASSIGN_OR_RETURN(quant::ConvQuantInfo q, tflite_quant::ReadConvQuant(ctx.node, t, units));
  TARE_RETURN_IF_ERROR(Prep(ctx, quant::PrepareFullyConnected(q)));
  ctx.SetOut(0, ctx.in[0].dtype, y);
  return Status::Ok();
}

Status QInferAddMul(InferContext& ctx, bool add) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
  TARE_ASSIGN_OR_RETURN(quant::QType t, QTypeOf(ctx.node, ctx.in[0].dtype, "x1"));
  if (ctx.in[1].dtype != ctx.in[0].dtype)
    return ctx.Error("x2 must have x1's dtype " + DTypeName(ctx.in[0].dtype) + ", got " + DTypeName(ctx.in[1].dtype));
  if (ctx.in[0].shape.size() > 6 || ctx.in[1].shape.size() > 6)
    return ctx.Error("inputs must have rank <= 6, got " + ShapeStr(ctx.in[0].shape) + " and " +
                     ShapeStr(ctx.in[1].shape));
  Result<Shape> y = BroadcastShapes(ctx.in[0].shape, ctx.in[1].shape);
  if (!y.ok()) return ctx.Error(y.status().message());
  TARE_ASSIGN_OR_RETURN(quant::TensorQuant q1, ReadQuant(ctx.node, "x_scale", "x_zero_point"));
  TARE_ASSIGN_OR_RETURN(quant::TensorQuant q2, ReadQuant(ctx.node, "x2_scale", "x2_zero_point"));
  TARE_ASSIGN_OR_RETURN(quant::TensorQuant qo, ReadQuant(ctx.node, "y_scale", "y_zero_point"));
  TARE_ASSIGN_OR_RETURN(quant::Activation act, ReadActivation(ctx.node));
  if (add) {
    TARE_ASSIGN_OR_RETURN(int64_t pot, ctx.node.GetInt("pot_scale_int16", 1));
    if (pot != 0 && pot != 1)
      return ctx.Error("attribute 'pot_scale_int16' must be 0 or 1, got " + std::to_string(pot));
    TARE_RETURN_IF_ERROR(Prep(ctx, quant::PrepareAdd(t, q1, q2, qo, act, pot == 1)));
  } else {
    TARE_RETURN_IF_ERROR(Prep(ctx, quant::PrepareMul(t, q1, q2, qo, act)));
  }
  ctx.SetOut(0, ctx.in[0].dtype, *y);
  return Status::Ok();
}

Status QInferPool(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  TARE_ASSIGN_OR_RETURN(quant::QType t, QTypeOf(ctx.node, ctx.in[0].dtype, "x"));
  TARE_RETURN_IF_ERROR(ExpectRank(ctx, 0, "x (NHWC)", 4));
  if (!ctx.node.has("kernel_shape")) return ctx.Error("attribute 'kernel_shape' is required");
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> k, ctx.IntsAttr("kernel_shape", 2, 1, 1, (int64_t{1} << 31) - 1));
  TARE_ASSIGN_OR_RETURN(Shape sp, WindowOut(ctx, k[0], k[1], false));
  TARE_ASSIGN_OR_RETURN(quant::TensorQuant qi, ReadQuant(ctx.node, "x_scale", "x_zero_point"));
  TARE_ASSIGN_OR_RETURN(quant::TensorQuant qo, ReadQuant(ctx.node, "y_scale", "y_zero_point"));
  TARE_ASSIGN_OR_RETURN(quant::Activation act, ReadActivation(ctx.node));
  TARE_RETURN_IF_ERROR(Prep(ctx, quant::PreparePool(t, qi, qo, act)));
  const Shape& x = ctx.in[0].shape;
  ctx.SetOut(0, ctx.in[0].dtype, {x[0], sp[0], sp[1], x[3]});
  return Status::Ok();
}

Result<bool> ReadTableKernel(const InferContext& ctx) {
  TARE_ASSIGN_OR_RETURN(std::string k, ctx.node.GetString("kernel", "table"));
  if (k != "table" && k != "fixed_point")
    return ctx.Error("attribute 'kernel' must be table or fixed_point, got '" + k + "'");
  return k == "table";
}

Status QInferSoftmaxLogistic(InferContext& ctx, bool softmax) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  TARE_ASSIGN_OR_RETURN(quant::QType t, QTypeOf(ctx.node, ctx.in[0].dtype, "x"));
  const bool int16 = t == quant::QType::kInt16;
  TARE_ASSIGN_OR_RETURN(bool table, ReadTableKernel(ctx));
  TARE_ASSIGN_OR_RETURN(quant::TensorQuant qi, ReadQuant(ctx.node, "x_scale", "x_zero_point"));
  TARE_ASSIGN_OR_RETURN(quant::TensorQuant qo, ReadQuant(ctx.node, "y_scale", "y_zero_point"));
  if (softmax) {
    const size_t rank = ctx.in[0].shape.size();
    if (rank == 0) return ctx.Error("x must have rank >= 1 (softmax over the last axis)");
    if (int16 && rank > 4)
      return ctx.Error("int16 x must have rank 1 to 4 (TFLite's int16 softmax), got shape " + ShapeStr(ctx.in[0].shape));
    TARE_ASSIGN_OR_RETURN(float beta, ctx.node.GetFloat("beta", 1.f));
    if (int16) TARE_RETURN_IF_ERROR(Prep(ctx, quant::PrepareSoftmaxInt16(beta, qi, qo)));
    else if (table) TARE_RETURN_IF_ERROR(Prep(ctx, quant::PrepareSoftmaxLut(t, beta, qi, qo)));
    else TARE_RETURN_IF_ERROR(Prep(ctx, quant::PrepareSoftmaxFixedPoint(t, beta, qi, qo)));
  } else {
    if (int16) TARE_RETURN_IF_ERROR(Prep(ctx, quant::PrepareLogisticInt16(qi, qo, table)));
    else if (table) TARE_RETURN_IF_ERROR(Prep(ctx, quant::PrepareLogisticLut(t, qi, qo)));
    else TARE_RETURN_IF_ERROR(Prep(ctx, quant::PrepareLogisticFixedPoint(t, qi, qo)));
  }
  ctx.SetOut(0, ctx.in[0].dtype, ctx.in[0].shape);
  return Status::Ok();
}

/// Checks scale > 0 and finite and the zero point within the type (quant.h's Quantize checks it at
/// run time too; here it fails at session creation).
Status CheckTensorQuant(const InferContext& ctx, const char* what, quant::TensorQuant q, DType t) {
  if (!(std::isfinite(q.scale) && q.scale > 0))
    return ctx.Error(std::string(what) + " scale must be finite and > 0, got " + std::to_string(q.scale));
  const int32_t lo = t == DType::kInt8 ? -128 : t == DType::kUInt8 ? 0 : -32768;
  const int32_t hi = t == DType::kInt8 ? 127 : t == DType::kUInt8 ? 255 : 32767;
  if (q.zero_point < lo || q.zero_point > hi)
    return ctx.Error(std::string(what) + " zero point " + std::to_string(q.zero_point) + " is outside the " +
                     DTypeName(t) + " range");
  return Status::Ok();
}

Status QInferQuantize(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  if (!ctx.node.has("to")) return ctx.Error("attribute 'to' is required (2 uint8, 3 int8, 5 int16)");
  TARE_ASSIGN_OR_RETURN(int64_t to, ctx.node.GetInt("to", 0));
  if (to != 2 && to != 3 && to != 5)
    return ctx.Error("attribute 'to' must be 2 (uint8), 3 (int8) or 5 (int16), got " + std::to_string(to));
  const DType yt = static_cast<DType>(to);
  const DType xt = ctx.in[0].dtype;
  TARE_ASSIGN_OR_RETURN(quant::TensorQuant qo, ReadQuant(ctx.node, "y_scale", "y_zero_point"));
  TARE_RETURN_IF_ERROR(CheckTensorQuant(ctx, "output", qo, yt));
  if (xt != DType::kFloat32) {
    TARE_RETURN_IF_ERROR(QTypeOf(ctx.node, xt, "x (float32 or an integer type)").status());
    const bool ok = (xt == DType::kInt16) ? (yt == DType::kInt16 || yt == DType::kInt8) : yt != DType::kInt16;
    if (!ok)
      return ctx.Error("requantizing " + DTypeName(xt) + " to " + DTypeName(yt) +
                       " is not supported (TFLite: int8/uint8 -> int8/uint8, int16 -> int16/int8)");
    TARE_ASSIGN_OR_RETURN(quant::TensorQuant qi, ReadQuant(ctx.node, "x_scale", "x_zero_point"));
    TARE_RETURN_IF_ERROR(CheckTensorQuant(ctx, "input", qi, xt));
    TARE_RETURN_IF_ERROR(Prep(ctx, quant::PrepareRequantize(qi, qo)));
  }
  ctx.SetOut(0, yt, ctx.in[0].shape);
  return Status::Ok();
}

Status QInferDequantize(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  TARE_ASSIGN_OR_RETURN(quant::QType t, QTypeOf(ctx.node, ctx.in[0].dtype, "x"));
  (void)t;
  if (!ctx.node.has("x_scales")) return ctx.Error("attribute 'x_scales' is required");
  TARE_ASSIGN_OR_RETURN(std::vector<float> s, ctx.node.GetFloats("x_scales"));
  if (s.empty()) return ctx.Error("attribute 'x_scales' is empty");
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> z, ctx.node.GetInts("x_zero_points", std::vector<int64_t>(s.size(), 0)));
  if (z.size() != s.size())
    return ctx.Error("attribute 'x_zero_points' has " + std::to_string(z.size()) + " values; expected " +
                     std::to_string(s.size()) + " (as x_scales)");
  for (size_t i = 0; i < s.size(); ++i) {
    if (z[i] < -32768 || z[i] > 65535)
      return ctx.Error("zero point " + std::to_string(z[i]) + " is outside the " + DTypeName(ctx.in[0].dtype) + " range");
    TARE_RETURN_IF_ERROR(CheckTensorQuant(ctx, "input", {s[i], static_cast<int32_t>(z[i])}, ctx.in[0].dtype));
  }
  const Shape& x = ctx.in[0].shape;
  if (s.size() > 1) {
    if (ctx.in[0].dtype != DType::kInt8)
      return ctx.Error("per-channel dequantization needs int8 x (TFLite), got " + DTypeName(ctx.in[0].dtype));
    TARE_ASSIGN_OR_RETURN(int64_t axis, ctx.node.GetInt("axis", 0));
    TARE_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(axis, static_cast<int64_t>(x.size()), ctx, "attribute 'axis'"));
    if (x.empty() || x[static_cast<size_t>(ax)] != static_cast<int64_t>(s.size()))
      return ctx.Error("x_scales has " + std::to_string(s.size()) + " values but x has shape " + ShapeStr(x) +
                       " (axis " + std::to_string(axis) + ")");
  }
  ctx.SetOut(0, DType::kFloat32, x);
  return Status::Ok();
}

}  // namespace

/// Validates a quantized TFLite node (runs quant.h's Prepare for its dtypes) and infers y.
Status InferTfliteQuant(InferContext& ctx) {
  const std::string& op = ctx.node.op;
  if (op == "QConv2D") return QInferConvLike(ctx, false);
  if (op == "QDepthwiseConv2D") return QInferConvLike(ctx, true);
  if (op == "QFullyConnected") return QInferFullyConnected(ctx);
  if (op == "QAdd") return QInferAddMul(ctx, true);
  if (op == "QMul") return QInferAddMul(ctx, false);
  if (op == "QAveragePool2D" || op == "QMaxPool2D") return QInferPool(ctx);
  if (op == "QSoftmax") return QInferSoftmaxLogistic(ctx, true);
  if (op == "QLogistic") return QInferSoftmaxLogistic(ctx, false);
  if (op == "Quantize") return QInferQuantize(ctx);
  if (op == "Dequantize") return QInferDequantize(ctx);
  return ctx.Error("not a TfliteQuant op");
}

}  // namespace tare
