// kernels/quant primitives and Prepare functions (semantics and sources: kernels/quant/quant.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "kernels/quant/fixed_point.h"
#include "kernels/quant/quant.h"

namespace tare {
namespace quant {

namespace fp = fixedpoint;

namespace {

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

const char* TypeName(QType t) {
  switch (t) {
    case QType::kInt8: return "int8";
    case QType::kUInt8: return "uint8";
    case QType::kInt16: return "int16";
  }
  return "?";
}

void TypeRange(QType t, int32_t* lo, int32_t* hi) {
  switch (t) {
    case QType::kInt8: *lo = -128; *hi = 127; return;
    case QType::kUInt8: *lo = 0; *hi = 255; return;
    case QType::kInt16: *lo = -32768; *hi = 32767; return;
  }
}

/// A usable per-tensor quantization: finite positive scale, zero point inside the type.
Status CheckQuant(const char* what, QType t, TensorQuant q) {
  if (!(std::isfinite(q.scale) && q.scale > 0))
    return Status::Error(std::string(what) + " scale must be finite and > 0, got " + Num(q.scale));
  int32_t lo = 0, hi = 0;
  TypeRange(t, &lo, &hi);
  if (q.zero_point < lo || q.zero_point > hi)
    return Status::Error(std::string(what) + " zero point " + std::to_string(q.zero_point) +
                         " is outside the " + TypeName(t) + " range");
  return Status::Ok();
}

Status CheckZeroPointZero(const char* what, int32_t zp) {
  if (zp != 0)
    return Status::Error(std::string(what) + " zero point must be 0 for int16 (TFLite), got " +
                         std::to_string(zp));
  return Status::Ok();
}

/// TFLite kernel_util.cc Quantize(): zero_point + (int32)roundf(f / scale), all in float32.
Result<int32_t> QuantizeForRange(float scale, int32_t zero_point, float f) {
  const float tmp = std::round(f / scale);
  if (!(tmp >= static_cast<float>(std::numeric_limits<int32_t>::min()) &&
        tmp <= static_cast<float>(std::numeric_limits<int32_t>::max())))
    return Status::Error("activation bound " + Num(f) + " / scale " + Num(scale) +
                         " overflows int32");
  return static_cast<int32_t>(static_cast<int64_t>(zero_point) + static_cast<int64_t>(tmp));
}

/// TFLite quantization_util.cc CheckedLog2 (float32): log(x) * (1 / log(2)), rounded; true when
/// within 1e-3 of an integer.
bool CheckedLog2(float x, int* log2_result) {
  const float x_log2 = std::log(x) * (1.0f / std::log(2.0f));
  const float x_log2_rounded = std::round(x_log2);
  const float x_log2_fracpart = x_log2 - x_log2_rounded;
  *log2_result = static_cast<int>(x_log2_rounded);
  return std::fabs(x_log2_fracpart) < 1e-3f;
}

/// kernel_util.cc GetQuantizedConvolutionMultipler with the bias check of the LiteRT version:
/// (double)(in_s * f_s) [float32 product] / (double)out_s; bias: |(double)in_s * (double)f_s -
/// (double)bias_s| / (double)out_s <= 0.02.
Result<double> LegacyConvMultiplier(float in_s, float f_s, float out_s, float bias_s) {
  if (bias_s != 0) {
    const double product = static_cast<double>(in_s) * static_cast<double>(f_s);
    const double diff = std::fabs(product - static_cast<double>(bias_s));
    if (!(diff / static_cast<double>(out_s) <= 0.02))
      return Status::Error("bias scale " + Num(bias_s) + " differs from input scale * filter scale " +
                           Num(product) + " by more than 0.02 output scales (TFLite check)");
  }
  const double input_product_scale = static_cast<double>(in_s * f_s);
  return input_product_scale / static_cast<double>(out_s);
}

Status CheckFilterScales(const ConvQuantInfo& q) {
  if (q.output_channels < 1)
    return Status::Error("output_channels must be >= 1, got " + std::to_string(q.output_channels));
  if (q.filter_scales.empty()) return Status::Error("filter has no scale");
  for (float s : q.filter_scales)
    if (!(std::isfinite(s) && s > 0))
      return Status::Error("filter scale must be finite and > 0, got " + Num(s));
  if (q.filter_scales.size() > 1 &&
      static_cast<int64_t>(q.filter_scales.size()) != q.output_channels)
    return Status::Error("filter has " + std::to_string(q.filter_scales.size()) +
                         " scales; expected 1 or one per output channel (" +
                         std::to_string(q.output_channels) + ")");
  if (!(std::isfinite(q.bias_scale) && q.bias_scale >= 0))
    return Status::Error("bias scale must be finite and >= 0, got " + Num(q.bias_scale));
  return Status::Ok();
}

/// Per-channel multipliers from the double product (PopulateConvolutionQuantizationParams).
Status PerChannelMultipliers(const ConvQuantInfo& q, ConvParams* p) {
  const int64_t n = q.output_channels;
  p->multiplier.resize(static_cast<size_t>(n));
  p->shift.resize(static_cast<size_t>(n));
  for (int64_t c = 0; c < n; ++c) {
    const float scale = q.filter_scales.size() > 1 ? q.filter_scales[static_cast<size_t>(c)]
                                                   : q.filter_scales[0];
    const double effective = static_cast<double>(q.input.scale) * static_cast<double>(scale) /
                             static_cast<double>(q.output.scale);
    TARE_ASSIGN_OR_RETURN(QuantizedMultiplier m, QuantizeMultiplier(effective));
    p->multiplier[static_cast<size_t>(c)] = m.multiplier;
    p->shift[static_cast<size_t>(c)] = m.shift;
  }
  return Status::Ok();
}

/// The int16 x int8 kernels feed 64-bit accumulators to the int64 MultiplyByQuantizedMultiplier,
/// which TFLite defines for shifts in [-31, 7] only.
Status CheckInt16Shifts(const ConvParams& p) {
  for (int s : p.shift)
    if (s > 7)
      return Status::Error("effective output scale >= 2^7 (shift " + std::to_string(s) +
                           ") is outside what TFLite's 16x8 kernels support");
  return Status::Ok();
}

Status CheckConvTypes(const ConvQuantInfo& q) {
  TARE_RETURN_IF_ERROR(CheckQuant("input", q.input_type, q.input));
  TARE_RETURN_IF_ERROR(CheckQuant("output", q.input_type, q.output));
  TARE_RETURN_IF_ERROR(CheckFilterScales(q));
  const QType filter_type = q.input_type == QType::kUInt8 ? QType::kUInt8 : QType::kInt8;
  TARE_RETURN_IF_ERROR(CheckQuant("filter", filter_type, TensorQuant{1.0f, q.filter_zero_point}));
  if (q.input_type == QType::kInt16) {
    TARE_RETURN_IF_ERROR(CheckZeroPointZero("input", q.input.zero_point));
    TARE_RETURN_IF_ERROR(CheckZeroPointZero("output", q.output.zero_point));
  }
  return Status::Ok();
}

}  // namespace

// ---- primitives ----------------------------------------------------------------------------------

Result<QuantizedMultiplier> QuantizeMultiplier(double m) {
  if (!std::isfinite(m)) return Status::Error("multiplier " + Num(m) + " is not finite");
  QuantizedMultiplier r;
  if (m == 0.) return r;
  int shift = 0;
  const double q = std::frexp(m, &shift);
  int64_t q_fixed = static_cast<int64_t>(std::round(q * static_cast<double>(int64_t{1} << 31)));
  if (q_fixed == (int64_t{1} << 31)) {
    q_fixed /= 2;
    ++shift;
  }
  if (shift < -31) {
    shift = 0;
    q_fixed = 0;
  }
  r.multiplier = static_cast<int32_t>(q_fixed);
  r.shift = shift;
  return r;
}

Result<QuantizedMultiplier> QuantizeMultiplierSmallerThanOneExp(double m) {
  if (!(m > 0. && m < 1.))
    return Status::Error("multiplier " + Num(m) + " must be in (0, 1) (TFLite check)");
  return QuantizeMultiplier(m);  // shift <= 0 follows from m < 1
}

Result<QuantizedMultiplier> QuantizeMultiplierGreaterThanOne(double m) {
  if (!(m > 1.) || !std::isfinite(m))
    return Status::Error("multiplier " + Num(m) + " must be finite and > 1 (TFLite check)");
  return QuantizeMultiplier(m);  // shift >= 1 follows from m > 1
}

int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b) { return fp::Srdhm(a, b); }

int32_t RoundingDivideByPOT(int32_t x, int exponent) {
  return fp::Rdbp(x, std::min(std::max(exponent, 0), 31));
}

int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t m, int shift) {
  const int left_shift = shift > 0 ? shift : 0;
  const int right_shift = shift > 0 ? 0 : -shift;
  return fp::Rdbp(fp::Srdhm(fp::WrapShl(x, left_shift), m), std::min(right_shift, 31));
}

int32_t MultiplyByQuantizedMultiplier(int64_t x, int32_t m, int shift) {
  shift = std::min(std::max(shift, -31), 7);
  const int32_t reduced = m < 0x7FFF0000 ? ((m + (1 << 15)) >> 16) : 0x7FFF;
  const int total_shift = 15 - shift;  // in [8, 46]
  const uint64_t product = static_cast<uint64_t>(x) * static_cast<uint64_t>(
                                                          static_cast<int64_t>(reduced));
  const int64_t rounded =
      static_cast<int64_t>(product + (uint64_t{1} << (total_shift - 1)));
  return static_cast<int32_t>(rounded >> total_shift);
}

int32_t MultiplyByQuantizedMultiplierSmallerThanOneExp(int32_t x, int32_t m, int left_shift) {
  return fp::Rdbp(fp::Srdhm(x, m), std::min(std::max(-left_shift, 0), 31));
}

int32_t MultiplyByQuantizedMultiplierGreaterThanOne(int32_t x, int32_t m, int left_shift) {
  return fp::Srdhm(fp::WrapShl(x, std::max(left_shift, 0)), m);
}

Result<ActivationRange> CalculateActivationRangeQuantized(Activation act, QType type,
                                                          TensorQuant output) {
  if (!(std::isfinite(output.scale) && output.scale > 0))
    return Status::Error("output scale must be finite and > 0, got " + Num(output.scale));
  ActivationRange r;
  TypeRange(type, &r.min, &r.max);
  const float s = output.scale;
  const int32_t zp = output.zero_point;
  switch (act) {
    case Activation::kNone:
      break;
    case Activation::kRelu: {
      TARE_ASSIGN_OR_RETURN(int32_t q0, QuantizeForRange(s, zp, 0.0f));
      r.min = std::max(r.min, q0);
      break;
    }
    case Activation::kRelu6: {
      TARE_ASSIGN_OR_RETURN(int32_t q0, QuantizeForRange(s, zp, 0.0f));
      TARE_ASSIGN_OR_RETURN(int32_t q6, QuantizeForRange(s, zp, 6.0f));
      r.min = std::max(r.min, q0);
      r.max = std::min(r.max, q6);
      break;
    }
    case Activation::kReluN1To1: {
      TARE_ASSIGN_OR_RETURN(int32_t qm1, QuantizeForRange(s, zp, -1.0f));
      TARE_ASSIGN_OR_RETURN(int32_t q1, QuantizeForRange(s, zp, 1.0f));
      r.min = std::max(r.min, qm1);
      r.max = std::min(r.max, q1);
      break;
    }
  }
  return r;
}

int32_t CalculateInputRadius(int input_integer_bits, int input_left_shift, int total_signed_bits) {
  const double max_input_rescaled = 1.0 * ((1 << input_integer_bits) - 1) *
                                    static_cast<double>(int64_t{1} << (total_signed_bits -
                                                                      input_integer_bits)) /
                                    static_cast<double>(int64_t{1} << input_left_shift);
  return static_cast<int32_t>(std::floor(max_input_rescaled));
}

Result<Padding1D> ComputePadding(bool same, int64_t in, int64_t filter, int64_t stride,
                                 int64_t dilation) {
  if (in < 1 || filter < 1 || stride < 1 || dilation < 1)
    return Status::Error("padding: size " + std::to_string(in) + ", filter " +
                         std::to_string(filter) + ", stride " + std::to_string(stride) +
                         ", dilation " + std::to_string(dilation) + " must all be >= 1");
  const int64_t eff = (filter - 1) * dilation + 1;
  Padding1D p;
  p.out = same ? (in + stride - 1) / stride : (in + stride - eff) / stride;
  if (p.out < 1)
    return Status::Error("padding: VALID window " + std::to_string(eff) +
                         " is larger than the input " + std::to_string(in));
  const int64_t total = std::max<int64_t>(0, (p.out - 1) * stride + eff - in);
  p.before = total / 2;
  p.after = total - p.before;
  return p;
}

// ---- Prepare ---------------------------------------------------------------------------------------

Result<ConvParams> PrepareConv(const ConvQuantInfo& q) {
  TARE_RETURN_IF_ERROR(CheckConvTypes(q));
  ConvParams p;
  TARE_ASSIGN_OR_RETURN(p.act, CalculateActivationRangeQuantized(q.activation, q.input_type,
                                                                 q.output));
  if (q.input_type == QType::kUInt8) {
    if (q.filter_scales.size() > 1)
      return Status::Error("per-channel filter scales need int8 or int16 inputs (TFLite)");
    TARE_ASSIGN_OR_RETURN(double real, LegacyConvMultiplier(q.input.scale, q.filter_scales[0],
                                                            q.output.scale, q.bias_scale));
    TARE_ASSIGN_OR_RETURN(QuantizedMultiplier m, QuantizeMultiplier(real));
    p.multiplier = {m.multiplier};
    p.shift = {m.shift};
    p.input_offset = -q.input.zero_point;
    p.weights_offset = -q.filter_zero_point;
    p.output_offset = q.output.zero_point;
    return p;
  }
  if (q.filter_zero_point != 0)
    return Status::Error("int8 filter zero point must be 0 for conv (TFLite ignores it), got " +
                         std::to_string(q.filter_zero_point));
  TARE_RETURN_IF_ERROR(PerChannelMultipliers(q, &p));
  if (q.input_type == QType::kInt16) {
    TARE_RETURN_IF_ERROR(CheckInt16Shifts(p));
  } else {
    p.input_offset = -q.input.zero_point;
    p.output_offset = q.output.zero_point;
  }
  return p;
}

Result<ConvParams> PrepareFullyConnected(const ConvQuantInfo& q) {
  TARE_RETURN_IF_ERROR(CheckConvTypes(q));
  ConvParams p;
  TARE_ASSIGN_OR_RETURN(p.act, CalculateActivationRangeQuantized(q.activation, q.input_type,
                                                                 q.output));
  if (q.filter_scales.size() > 1) {
    if (q.input_type == QType::kUInt8)
      return Status::Error("per-channel filter scales need int8 or int16 inputs (TFLite)");
    if (q.filter_zero_point != 0)
      return Status::Error("per-channel filter zero point must be 0, got " +
                           std::to_string(q.filter_zero_point));
    TARE_RETURN_IF_ERROR(PerChannelMultipliers(q, &p));
  } else {
    TARE_ASSIGN_OR_RETURN(double real, LegacyConvMultiplier(q.input.scale, q.filter_scales[0],
                                                            q.output.scale, q.bias_scale));
    TARE_ASSIGN_OR_RETURN(QuantizedMultiplier m, QuantizeMultiplier(real));
    p.multiplier = {m.multiplier};
    p.shift = {m.shift};
    p.weights_offset = -q.filter_zero_point;
  }
  if (q.input_type == QType::kInt16) {
    TARE_RETURN_IF_ERROR(CheckInt16Shifts(p));
  } else {
    p.input_offset = -q.input.zero_point;
    p.output_offset = q.output.zero_point;
  }
  return p;
}

Result<AddParams> PrepareAdd(QType type, TensorQuant in1, TensorQuant in2, TensorQuant out,
                             Activation act, bool pot_scale_int16) {
  TARE_RETURN_IF_ERROR(CheckQuant("input 1", type, in1));
  TARE_RETURN_IF_ERROR(CheckQuant("input 2", type, in2));
  TARE_RETURN_IF_ERROR(CheckQuant("output", type, out));
  AddParams p;
  TARE_ASSIGN_OR_RETURN(p.act, CalculateActivationRangeQuantized(act, type, out));
  bool general = true;
  int log2_1 = 0, log2_2 = 0, log2_out = 0;
  if (type == QType::kInt16) {
    TARE_RETURN_IF_ERROR(CheckZeroPointZero("input 1", in1.zero_point));
    TARE_RETURN_IF_ERROR(CheckZeroPointZero("input 2", in2.zero_point));
    TARE_RETURN_IF_ERROR(CheckZeroPointZero("output", out.zero_point));
    if (pot_scale_int16) {
      const bool pot1 = CheckedLog2(in1.scale, &log2_1);
      const bool pot2 = CheckedLog2(in2.scale, &log2_2);
      const bool pot_out = CheckedLog2(out.scale, &log2_out);
      general = !(pot1 && pot2 && pot_out);
    }
  }
  if (!general) {
    p.pot_int16 = true;
    p.input1.shift = log2_1 - log2_out;
    p.input2.shift = log2_2 - log2_out;
    if (!(p.input1.shift == 0 || p.input2.shift == 0) || p.input1.shift > 0 ||
        p.input2.shift > 0)
      return Status::Error("int16 power-of-two add: input shifts " +
                           std::to_string(p.input1.shift) + ", " + std::to_string(p.input2.shift) +
                           " must be <= 0 and one of them 0 (TFLite check)");
    return p;
  }
  p.left_shift = type == QType::kInt16 ? 15 : 20;
  p.input1_offset = -in1.zero_point;
  p.input2_offset = -in2.zero_point;
  p.output_offset = out.zero_point;
  const double twice_max = 2 * static_cast<double>(std::max(in1.scale, in2.scale));
  const double real1 = static_cast<double>(in1.scale) / twice_max;
  const double real2 = static_cast<double>(in2.scale) / twice_max;
  const double real_out = twice_max / (static_cast<double>(1 << p.left_shift) *
                                       static_cast<double>(out.scale));
  TARE_ASSIGN_OR_RETURN(p.input1, QuantizeMultiplierSmallerThanOneExp(real1));
  TARE_ASSIGN_OR_RETURN(p.input2, QuantizeMultiplierSmallerThanOneExp(real2));
  auto o = QuantizeMultiplierSmallerThanOneExp(real_out);
  if (!o.ok())
    return Status::Error("add: output rescale " + Num(real_out) +
                         " must be < 1 (output scale too small for the inputs' scales; TFLite "
                         "check)");
  p.output = *o;
  return p;
}

Result<MulParams> PrepareMul(QType type, TensorQuant in1, TensorQuant in2, TensorQuant out,
                             Activation act) {
  TARE_RETURN_IF_ERROR(CheckQuant("input 1", type, in1));
  TARE_RETURN_IF_ERROR(CheckQuant("input 2", type, in2));
  TARE_RETURN_IF_ERROR(CheckQuant("output", type, out));
  if (type == QType::kInt16) {
    TARE_RETURN_IF_ERROR(CheckZeroPointZero("input 1", in1.zero_point));
    TARE_RETURN_IF_ERROR(CheckZeroPointZero("input 2", in2.zero_point));
    TARE_RETURN_IF_ERROR(CheckZeroPointZero("output", out.zero_point));
  }
  MulParams p;
  TARE_ASSIGN_OR_RETURN(p.act, CalculateActivationRangeQuantized(act, type, out));
  const float real_f = in1.scale * in2.scale / out.scale;  // float32, as mul.cc
  TARE_ASSIGN_OR_RETURN(p.output, QuantizeMultiplier(static_cast<double>(real_f)));
  p.input1_offset = -in1.zero_point;
  p.input2_offset = -in2.zero_point;
  p.output_offset = out.zero_point;
  return p;
}

Result<ActivationRange> PreparePool(QType type, TensorQuant in, TensorQuant out, Activation act) {
  TARE_RETURN_IF_ERROR(CheckQuant("input", type, in));
  TARE_RETURN_IF_ERROR(CheckQuant("output", type, out));
  if (in.scale != out.scale || in.zero_point != out.zero_point)
    return Status::Error("quantized pooling needs equal input and output quantization (scale " +
                         Num(in.scale) + " vs " + Num(out.scale) + ", zero point " +
                         std::to_string(in.zero_point) + " vs " + std::to_string(out.zero_point) +
                         ")");
  return CalculateActivationRangeQuantized(act, type, out);
}

namespace {

Status CheckSoftmaxOutput(QType type, float beta, TensorQuant in, TensorQuant out) {
  if (type == QType::kInt16)
    return Status::Error("int16 softmax has its own kernel (PrepareSoftmaxInt16)");
  TARE_RETURN_IF_ERROR(CheckQuant("input", type, in));
  TARE_RETURN_IF_ERROR(CheckQuant("output", type, out));
  if (!(std::isfinite(beta) && beta > 0))
    return Status::Error("softmax beta must be finite and > 0, got " + Num(beta));
  const int32_t want_zp = type == QType::kInt8 ? -128 : 0;
  const float target = 1.f / 256;
  const float delta = out.scale > target ? out.scale - target : target - out.scale;
  if (out.zero_point != want_zp || delta > 0.001f * 1.f / 256)
    return Status::Error(std::string("softmax ") + TypeName(type) +
                         " output must have zero point " + std::to_string(want_zp) +
                         " and scale 1/256, got " + std::to_string(out.zero_point) +
                         " and " + Num(out.scale));
  return Status::Ok();
}

}  // namespace

Result<SoftmaxFixedPointParams> PrepareSoftmaxFixedPoint(QType type, float beta, TensorQuant in,
                                                         TensorQuant out) {
  TARE_RETURN_IF_ERROR(CheckSoftmaxOutput(type, beta, in, out));
  const double max_real = static_cast<double>((int64_t{1} << 31) - 1);
  const double real = std::min(static_cast<double>(beta) * static_cast<double>(in.scale) *
                                   static_cast<double>(int64_t{1} << 26),
                               max_real);
  SoftmaxFixedPointParams p;
  TARE_ASSIGN_OR_RETURN(QuantizedMultiplier m, QuantizeMultiplierGreaterThanOne(real));
  if (m.shift > 30)
    return Status::Error("softmax input scale * beta too large (shift " + std::to_string(m.shift) +
                         ")");
  p.input_multiplier = m.multiplier;
  p.input_left_shift = m.shift;
  p.diff_min = static_cast<int32_t>(-1.0 * CalculateInputRadius(5, m.shift));
  return p;
}

Result<SoftmaxLutParams> PrepareSoftmaxLut(QType type, float beta, TensorQuant in,
                                           TensorQuant out) {
  TARE_RETURN_IF_ERROR(CheckSoftmaxOutput(type, beta, in, out));
  SoftmaxLutParams p;
  const float scale = -in.scale * beta;
  for (int32_t val = 0; val <= 255; ++val)
    p.table[static_cast<size_t>(255 - val)] = std::exp(scale * static_cast<float>(val));
  p.output_scale = out.scale;
  p.output_zero_point = out.zero_point;
  return p;
}

Result<Lut8> PrepareLogisticLut(QType type, TensorQuant in, TensorQuant out) {
  if (type == QType::kInt16)
    return Status::Error("int16 logistic has its own kernel (PrepareLogisticInt16)");
  TARE_RETURN_IF_ERROR(CheckQuant("input", type, in));
  TARE_RETURN_IF_ERROR(CheckQuant("output", type, out));
  if (static_cast<double>(out.scale) != 1. / 256)
    return Status::Error("logistic output scale must be exactly 1/256 (TFLite), got " +
                         Num(out.scale));
  int32_t lo = 0, hi = 0;
  TypeRange(type, &lo, &hi);
  Lut8 lut;
  const float inverse_scale = 1 / out.scale;
  for (int32_t val = lo; val <= hi; ++val) {
    const float dequantized = in.scale * static_cast<float>(val - in.zero_point);
    const float transformed = 1.0f / (1.0f + std::exp(-dequantized));
    const float rescaled = std::round(transformed * inverse_scale);
    const int32_t quantized =
        static_cast<int32_t>(rescaled + static_cast<float>(out.zero_point));
    lut.table[static_cast<uint8_t>(val & 0xFF)] =
        static_cast<uint8_t>(std::max(std::min(hi, quantized), lo) & 0xFF);
  }
  return lut;
}

Result<LogisticFixedPointParams> PrepareLogisticFixedPoint(QType type, TensorQuant in,
                                                           TensorQuant out) {
  if (type == QType::kInt16)
    return Status::Error("int16 logistic has its own kernel (PrepareLogisticInt16)");
  TARE_RETURN_IF_ERROR(CheckQuant("input", type, in));
  TARE_RETURN_IF_ERROR(CheckQuant("output", type, out));
  LogisticFixedPointParams p;
  p.input_zero_point = in.zero_point;
  const double real = static_cast<double>(in.scale) * static_cast<double>(1 << 27);
  if (type == QType::kInt8) {
    if (out.zero_point != -128)
      return Status::Error("int8 logistic output zero point must be -128 (TFLite), got " +
                           std::to_string(out.zero_point));
    int shift = 0;
    const double q = std::frexp(real, &shift);
    int64_t q_fixed = static_cast<int64_t>(std::round(q * static_cast<double>(int64_t{1} << 31)));
    if (q_fixed == (int64_t{1} << 31)) {
      q_fixed /= 2;
      ++shift;
    }
    p.input_multiplier = static_cast<int32_t>(q_fixed);
    p.input_left_shift = shift;
  } else {
    if (out.zero_point != 0 || static_cast<double>(out.scale) != 1. / 256)
      return Status::Error("uint8 logistic output must have zero point 0 and scale 1/256 (TFLite)");
    TARE_ASSIGN_OR_RETURN(QuantizedMultiplier m, QuantizeMultiplierGreaterThanOne(real));
    p.input_multiplier = m.multiplier;
    p.input_left_shift = m.shift;
  }
  if (p.input_left_shift < 0 || p.input_left_shift > 30)
    return Status::Error("logistic input scale " + Num(in.scale) +
                         " is outside what the fixed-point kernel supports (shift " +
                         std::to_string(p.input_left_shift) + ", needs 0..30)");
  p.input_range_radius = CalculateInputRadius(4, p.input_left_shift, 31);
  return p;
}

Result<SoftmaxInt16Params> PrepareSoftmaxInt16(float beta, TensorQuant in, TensorQuant out) {
  TARE_RETURN_IF_ERROR(CheckQuant("input", QType::kInt16, in));
  TARE_RETURN_IF_ERROR(CheckQuant("output", QType::kInt16, out));
  if (!(std::isfinite(beta) && beta > 0))
    return Status::Error("softmax beta must be finite and > 0, got " + Num(beta));
  const float target = 1.f / 32768;
  const float delta = out.scale > target ? out.scale - target : target - out.scale;
  if (out.zero_point != 0 || delta > 0.001f * 1.f / 32768)
    return Status::Error("softmax int16 output must have zero point 0 and scale 1/32768 (TFLite), got " +
                         std::to_string(out.zero_point) + " and " + Num(out.scale));
  TARE_RETURN_IF_ERROR(CheckZeroPointZero("input", in.zero_point));
  SoftmaxInt16Params p;
  const int32_t range = 32767 - (-32768);
  PopulateLutInt16(10.0 / range, 32767, 2.0 / range, 0, [](double v) { return std::exp(v); },
                   p.exp_lut.data());
  PopulateLutInt16(1.0 / range, -32768, 2.0 / range, 0, [](double v) { return 1.0 / (1.0 + v); },
                   p.one_over_one_plus_x_lut.data());
  const float scale_beta = in.scale * beta;  // float32 product, as activations.cc
  if (!std::isfinite(scale_beta))
    return Status::Error("softmax input scale * beta overflows float32");
  const double rescale = static_cast<double>(scale_beta) / (10.0 / 65535.0);
  TARE_ASSIGN_OR_RETURN(QuantizedMultiplier m, QuantizeMultiplier(rescale));
  p.input_multiplier = m.multiplier;
  p.input_shift = m.shift;
  return p;
}

void PopulateLutInt16(double in_scale, int32_t in_zero_point, double out_scale, int32_t out_zero_point,
                      double (*f)(double), int16_t* lut) {
  const double in_min = in_scale * static_cast<double>(-32768 - in_zero_point);
  const double in_max = in_scale * static_cast<double>(32767 - in_zero_point);
  const double out_min = out_scale * static_cast<double>(-32768 - out_zero_point);
  const double out_max = out_scale * static_cast<double>(32767 - out_zero_point);
  const int steps = 512;
  const double step = (in_max - in_min) / steps;
  const double half_step = step / 2;
  const double scaling = 65536.0 / (out_max - out_min);
  auto clamp16 = [](double v) { return static_cast<int16_t>(std::min(std::max(v, -32768.0), 32767.0)); };
  for (int i = 0; i < steps; ++i) {
    const double val = f(in_min + i * step);
    const double val_mid = f(in_min + i * step + half_step);
    const double val_next = f(in_min + (i + 1) * step);
    const double sample = std::round(val * scaling);
    const double mid_interp = std::round((val_next * scaling + std::round(val * scaling)) / 2);
    const double mid = std::round(val_mid * scaling);
    const double bias = std::round((mid_interp - mid) / 2);
    lut[i] = clamp16(sample - bias);
  }
  lut[steps] = clamp16(std::round(f(in_max) * scaling));
}

Result<LogisticInt16Params> PrepareLogisticInt16(TensorQuant in, TensorQuant out, bool default_resolver) {
  TARE_RETURN_IF_ERROR(CheckQuant("input", QType::kInt16, in));
  TARE_RETURN_IF_ERROR(CheckQuant("output", QType::kInt16, out));
  if (static_cast<double>(out.scale) != 1. / 32768 || out.zero_point != 0)
    return Status::Error("logistic int16 output must have scale exactly 1/32768 and zero point 0 (TFLite), got " +
                         Num(out.scale) + " and " + std::to_string(out.zero_point));
  TARE_RETURN_IF_ERROR(CheckZeroPointZero("input", in.zero_point));
  LogisticInt16Params p;
  int log2_in = 0;
  const bool pot = CheckedLog2(in.scale, &log2_in) && (15 - 3) + log2_in == 0;
  if (pot) {
    if (default_resolver) {
      p.gemmlowp = true;
    } else {
      p.input_multiplier = 3;  // reference_integer_ops::Logistic: 3 << input_left_shift (0)
    }
    return p;
  }
  double m = static_cast<double>(in.scale) * 4096.0 * 3.0;
  int shift = 0;
  while (m <= 32767.0 / 2.0 && shift <= 30) {
    ++shift;
    m *= 2.0;
  }
  if (!(m < 2147483648.0))
    return Status::Error("logistic int16 input scale " + Num(in.scale) +
                         " is too large (its multiplier overflows TFLite's int32)");
  p.input_multiplier = static_cast<int32_t>(m);
  p.input_left_shift = shift;
  return p;
}

const std::array<uint16_t, 256>& SigmoidTableUint16() {
  static const std::array<uint16_t, 256> table = [] {
    std::array<uint16_t, 256> t{};
    auto s = [](double i) { return 65536.0 / (1.0 + std::exp(-i / 24.0)); };
    for (int i = 0; i < 255; ++i) {
      const double v = s(i) + (s(i + 0.5) - (s(i) + s(i + 1)) / 2) / 2;
      t[static_cast<size_t>(i)] = static_cast<uint16_t>(std::min(std::round(v), 65535.0));
    }
    t[255] = 65535;
    return t;
  }();
  return table;
}

Result<QuantizedMultiplier> PrepareRequantize(TensorQuant in, TensorQuant out) {
  if (!(std::isfinite(in.scale) && in.scale > 0 && std::isfinite(out.scale) && out.scale > 0))
    return Status::Error("requantize scales must be finite and > 0, got " + Num(in.scale) +
                         " and " + Num(out.scale));
  return QuantizeMultiplier(static_cast<double>(in.scale) / static_cast<double>(out.scale));
}

}  // namespace quant
}  // namespace tare
