// kernels/quant: TFLite's integer reference arithmetic, bit for bit, as pure functions on raw NHWC
// buffers (issue 6, item 4). Nothing here knows tare's IR: a quantized TFLite op maps to
//   1. a Prepare* function, called once with what the .tflite file stores (float32 scales, int32
//      zero points, the fused activation), which computes what TFLite's kernel Prepare() computes
//      (fixed-point multipliers and shifts, activation clamps, tables) and returns an error where
//      TFLite's Prepare() fails (or where TFLite would abort or hit undefined behaviour), and
//   2. a kernel, called per inference with those parameters and the raw buffers.
//
// Sources (public TFLite / LiteRT and gemmlowp sources; the arithmetic was read there, the code is
// tare's own): tflite/kernels/internal/common.{h,cc} and quantization_util.cc (primitives),
// kernel_util.cc (PopulateConvolutionQuantizationParams, GetQuantizedConvolutionMultipler,
// CalculateActivationRangeQuantized), reference/{conv,depthwiseconv_uint8,fully_connected,add,mul,
// pooling,softmax,logistic,requantize,quantize,dequantize}.h, reference/integer_ops/*.h, the kernel
// files conv.cc, depthwise_conv.cc, fully_connected.cc, add.cc, mul.cc, activations.cc, quantize.cc,
// and gemmlowp fixedpoint/fixedpoint.h (scalar int32 and int16 paths). The int16 softmax and
// logistic: activations.cc (SigmoidPrepare/Eval, SoftmaxPrepare/Eval, int16 branches),
// reference/softmax.h SoftmaxInt16, reference/integer_ops/logistic.h, common.h LUTPopulate /
// LUTLookup / sigmoid_table_uint16 (LiteRT tflite/kernels/ and TensorFlow tensorflow/lite/kernels/). TFLite is built without
// TFLITE_SINGLE_ROUNDING by default, so the "double rounding" variants are the ones reproduced.
//
// Conventions.
//  * A multiplier is (int32 m, int shift) meaning m * 2^(shift - 31); shift > 0 is a left shift.
//  * Layouts: activations NHWC; CONV_2D filter OHWI [O, KH, KW, I/groups]; DEPTHWISE_CONV_2D filter
//    [1, KH, KW, I*M] (output channel oc = ic * M + m); FULLY_CONNECTED input [B, D] (any leading
//    shape flattened), filter [O, D], output [B, O]; ADD/MUL any rank <= 6 with numpy broadcasting.
//  * Integer overflow that is undefined in TFLite's C++ (e.g. a 32-bit accumulator overflowing,
//    x * 2^shift overflowing) wraps modulo 2^32 here, which is what TFLite does in practice on
//    two's-complement targets (x86, ARM, WebAssembly); it never happens with sane models.
//  * Kernels check the shapes they are given (positive sizes, matching dimensions) and return a
//    Status; they trust that each buffer holds as many elements as its shape says.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "runtime/status.h"

namespace tare {
namespace quant {

/// Integer storage types of quantized activations.
enum class QType { kInt8, kUInt8, kInt16 };

/// TFLite fused activations (TfLiteFusedActivation): NONE, RELU, RELU6, RELU_N1_TO_1.
enum class Activation { kNone, kRelu, kRelu6, kReluN1To1 };

/// Fixed-point multiplier: real value multiplier * 2^(shift - 31). TFLite keeps multiplier in
/// [2^30, 2^31) (or 0) and shift in [-31, ...]; shift > 0 means a left shift.
struct QuantizedMultiplier {
  int32_t multiplier = 0;
  int shift = 0;
};

/// Per-tensor affine quantization as stored in a .tflite file: real = scale * (q - zero_point).
struct TensorQuant {
  float scale = 0;
  int32_t zero_point = 0;
};

/// Clamp bounds [min, max] applied to an op's quantized output.
struct ActivationRange {
  int32_t min = 0;
  int32_t max = 0;
};

// ---- 1. Primitives ----------------------------------------------------------------------------

/// TFLite quantization_util.cc QuantizeMultiplier (without TFLITE_SINGLE_ROUNDING): 0 -> (0, 0);
/// otherwise (q, e) = frexp(m), q_fixed = round-half-away(q * 2^31) (TfLiteRound = std::round);
/// q_fixed == 2^31 (q rounds up to 1.0) -> (2^30, e + 1); e < -31 -> (0, 0) (flush to zero).
/// Negative m gives a negative multiplier, as in TFLite. Error: m is NaN or infinite.
Result<QuantizedMultiplier> QuantizeMultiplier(double m);

/// TFLite QuantizeMultiplierSmallerThanOneExp: QuantizeMultiplier with 0 < m < 1 required, so the
/// shift is <= 0 (returned as the "left shift" <= 0 that add.cc stores). Error otherwise.
Result<QuantizedMultiplier> QuantizeMultiplierSmallerThanOneExp(double m);

/// TFLite QuantizeMultiplierGreaterThanOne: QuantizeMultiplier with m > 1 required (shift >= 0).
Result<QuantizedMultiplier> QuantizeMultiplierGreaterThanOne(double m);

/// gemmlowp SaturatingRoundingDoublingHighMul (int32; ARM VQRDMULH): a * b / 2^31 rounded to
/// nearest with ties towards +infinity (1.5 -> 2, -1.5 -> -1), computed as (a*b + (a*b >= 0 ?
/// 2^30 : 1 - 2^30)) / 2^31 with C++ truncating division; the only overflow, INT32_MIN *
/// INT32_MIN, saturates to INT32_MAX.
int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b);

/// gemmlowp RoundingDivideByPOT: x / 2^exponent rounded to nearest, ties away from zero
/// (-3 / 2 -> -2, 3 / 2 -> 2, -5 / 4 -> -1). exponent in [0, 31] (clamped to that range).
int32_t RoundingDivideByPOT(int32_t x, int exponent);

/// TFLite common.cc MultiplyByQuantizedMultiplier (int32 x, double rounding):
/// RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x * 2^max(shift, 0), m), max(-shift, 0)).
/// The left shift wraps modulo 2^32 (TFLite: undefined on overflow).
int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t m, int shift);

/// TFLite common.cc MultiplyByQuantizedMultiplier (int64 x), used with 64-bit accumulators (the
/// int16 x int8 "16x8" conv, depthwise conv and fully connected): the multiplier is reduced to 16
/// bits, r = m < 0x7FFF0000 ? (m + 2^15) >> 16 : 0x7FFF, then (x * r + 2^(14 - shift)) >> (15 -
/// shift) (one rounding, ties towards +infinity), truncated to int32. TFLite requires m >= 0,
/// shift in [-31, 7] and |x| < 2^47; shift is clamped to [-31, 7] here and the product wraps.
int32_t MultiplyByQuantizedMultiplier(int64_t x, int32_t m, int shift);

/// TFLite common.h MultiplyByQuantizedMultiplierSmallerThanOneExp (used by add):
/// RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x, m), -left_shift), left_shift <= 0.
int32_t MultiplyByQuantizedMultiplierSmallerThanOneExp(int32_t x, int32_t m, int left_shift);

/// TFLite common.h MultiplyByQuantizedMultiplierGreaterThanOne (used by the fixed-point softmax
/// and logistic): SaturatingRoundingDoublingHighMul(x * 2^left_shift, m), the shift wrapping.
int32_t MultiplyByQuantizedMultiplierGreaterThanOne(int32_t x, int32_t m, int left_shift);

/// TFLite kernel_util.cc CalculateActivationRangeQuantized: [qmin, qmax] of the type, narrowed by
/// the activation, with q(f) = zero_point + (int32)roundf(f / scale) computed in float32:
/// RELU [max(qmin, q(0)), qmax]; RELU6 [max(qmin, q(0)), min(qmax, q(6))]; RELU_N1_TO_1
/// [max(qmin, q(-1)), min(qmax, q(1))]; NONE [qmin, qmax]. Errors: q(f) outside int32 (TFLite
/// Quantize() check), a non-positive or non-finite scale.
Result<ActivationRange> CalculateActivationRangeQuantized(Activation act, QType type,
                                                          TensorQuant output);

/// TFLite quantization_util.cc CalculateInputRadius: floor((2^iib - 1) * 2^(tsb - iib) /
/// 2^left_shift) computed in double (the largest |input - zero_point| before the fixed-point
/// softmax/logistic saturate).
int32_t CalculateInputRadius(int input_integer_bits, int input_left_shift,
                             int total_signed_bits = 31);

/// TFLite kernels/padding.h for one spatial dimension: the output size and the padding before
/// (TFLite's kernels only use the "before" padding; the rest of the window past the end of the
/// input is skipped). SAME: out = ceil(in / stride); VALID: out = (in - eff + stride) / stride,
/// eff = (filter - 1) * dilation + 1; total = max(0, (out - 1) * stride + eff - in), before =
/// total / 2 (the odd element goes after). Error: non-positive sizes, strides or dilations.
struct Padding1D {
  int64_t out = 0;
  int64_t before = 0;
  int64_t after = 0;
};
Result<Padding1D> ComputePadding(bool same, int64_t in, int64_t filter, int64_t stride,
                                 int64_t dilation = 1);

// ---- 2. Shapes and windows ---------------------------------------------------------------------

/// A 4-D NHWC shape (also used for OHWI filters: n = O, h = KH, w = KW, c = I/groups).
struct Nhwc {
  int64_t n = 1, h = 1, w = 1, c = 1;
};

/// Convolution window: strides, dilations and the top/left padding (as TFLite's ConvParams /
/// DepthwiseParams; the output size is the output shape given to the kernel).
struct ConvWindow {
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0;
};

/// Pooling window (TFLite PoolParams): filter size, strides, top/left padding.
struct PoolWindow {
  int64_t filter_h = 1, filter_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_left = 0;
};

// ---- 3. CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED ---------------------------------------------

/// What a .tflite file stores for a conv / depthwise conv / fully connected node. Types: int8
/// input, int8 filter, int8 output; uint8/uint8/uint8; int16/int8/int16 ("16x8"). filter_scales
/// has one entry (per tensor) or output_channels entries (per channel, int8 filters only).
struct ConvQuantInfo {
  QType input_type = QType::kInt8;
  TensorQuant input, output;
  std::vector<float> filter_scales;
  int32_t filter_zero_point = 0;
  int64_t output_channels = 0;
  Activation activation = Activation::kNone;
  /// Scale of the int32 bias tensor, 0 when there is no bias. Only the uint8 conv and per-tensor
  /// fully connected paths check it, as TFLite does: |in_s * f_s - bias_s| / out_s <= 0.02.
  float bias_scale = 0;
};

/// The parameters TFLite's Prepare leaves for the integer conv / fully connected kernels.
/// multiplier/shift hold one entry (per tensor) or one per output channel.
struct ConvParams {
  int32_t input_offset = 0;    // -input zero point (0 for int16)
  int32_t weights_offset = 0;  // -filter zero point (uint8 conv and per-tensor FC only)
  int32_t output_offset = 0;   // output zero point (0 for int16)
  std::vector<int32_t> multiplier;
  std::vector<int> shift;
  ActivationRange act;
};

/// TFLite conv.cc / depthwise_conv.cc Prepare (kernel_util.cc PopulateConvolutionQuantizationParams).
/// int8 and int16 inputs: per-channel multipliers from QuantizeMultiplier((double)in_s *
/// (double)f_s[c] / (double)out_s) (a single filter scale is broadcast to every channel); filter
/// zero points must be 0. uint8: one multiplier from the legacy GetQuantizedConvolutionMultipler,
/// whose product in_s * f_s is rounded to float32 before the division in double, and whose filter
/// zero point is used. int16: input and output zero points must be 0. Activation clamp from
/// CalculateActivationRangeQuantized. Errors: bad scales/zero points, per-channel uint8, wrong
/// number of filter scales, bias scale mismatch (uint8).
Result<ConvParams> PrepareConv(const ConvQuantInfo& q);

/// TFLite fully_connected.cc Prepare: per-tensor filter scale (any type) -> one multiplier from
/// GetQuantizedConvolutionMultipler (float32 product, bias scale check as above) and the filter
/// zero point used; per-channel (int8/int16 input) -> per-channel multipliers from the double
/// product and filter zero point 0 required. int16 input: zero points 0 required.
Result<ConvParams> PrepareFullyConnected(const ConvQuantInfo& q);

/// TFLite reference_integer_ops::ConvPerChannel (int8) / reference_ops::Conv (uint8) /
/// ConvPerChannel 16x8: for each output element, acc = sum over (ky, kx, ic) in that order of
/// (w + weights_offset) * (x + input_offset) over the taps inside the image (padding taps are
/// skipped, i.e. they count as the input zero point), plus bias[oc] (may be null); then
/// MultiplyByQuantizedMultiplier(acc, m[oc], shift[oc]) + output_offset, clamped to act.
/// int8/uint8 accumulate in int32; int16 accumulates in the bias type (int64 bias -> int64
/// accumulator and the int64 MultiplyByQuantizedMultiplier; int32 bias -> int32 throughout).
/// Groups = in.c / filter.c. Errors: shape mismatches (in.n != out.n, filter.n != out.c,
/// in.c % filter.c, out.c % groups), non-positive strides/dilations, wrong multiplier count.
Status Conv2D(const ConvParams& p, const ConvWindow& win, const Nhwc& in, const int8_t* x,
              const Nhwc& filter, const int8_t* w, const int32_t* bias, const Nhwc& out, int8_t* y);
Status Conv2D(const ConvParams& p, const ConvWindow& win, const Nhwc& in, const uint8_t* x,
              const Nhwc& filter, const uint8_t* w, const int32_t* bias, const Nhwc& out,
              uint8_t* y);
Status Conv2D(const ConvParams& p, const ConvWindow& win, const Nhwc& in, const int16_t* x,
              const Nhwc& filter, const int8_t* w, const int64_t* bias, const Nhwc& out,
              int16_t* y);
Status Conv2D(const ConvParams& p, const ConvWindow& win, const Nhwc& in, const int16_t* x,
              const Nhwc& filter, const int8_t* w, const int32_t* bias, const Nhwc& out,
              int16_t* y);

/// TFLite reference_integer_ops::DepthwiseConvPerChannel (int8, int16) / reference_ops::
/// DepthwiseConv (uint8): output channel oc = ic * depth_multiplier + m reads input channel ic and
/// filter [0, ky, kx, oc]; otherwise as Conv2D (taps in (ky, kx) order; int16 needs an int64 bias).
/// Errors: out.c != in.c * depth_multiplier, filter shape not [1, KH, KW, out.c], as Conv2D.
Status DepthwiseConv2D(const ConvParams& p, const ConvWindow& win, int64_t depth_multiplier,
                       const Nhwc& in, const int8_t* x, const Nhwc& filter, const int8_t* w,
                       const int32_t* bias, const Nhwc& out, int8_t* y);
Status DepthwiseConv2D(const ConvParams& p, const ConvWindow& win, int64_t depth_multiplier,
                       const Nhwc& in, const uint8_t* x, const Nhwc& filter, const uint8_t* w,
                       const int32_t* bias, const Nhwc& out, uint8_t* y);
Status DepthwiseConv2D(const ConvParams& p, const ConvWindow& win, int64_t depth_multiplier,
                       const Nhwc& in, const int16_t* x, const Nhwc& filter, const int8_t* w,
                       const int64_t* bias, const Nhwc& out, int16_t* y);

/// TFLite reference_integer_ops::FullyConnected / FullyConnectedPerChannel and reference_ops::
/// FullyConnected (uint8): y[b, o] = clamp(MBQM(sum_d (w[o, d] + weights_offset) * (x[b, d] +
/// input_offset) + bias[o]) + output_offset), d ascending; per-channel when p has output_depth
/// multipliers. int16 input: accumulator of the bias type as in Conv2D.
Status FullyConnected(const ConvParams& p, int64_t batches, int64_t accum_depth,
                      int64_t output_depth, const int8_t* x, const int8_t* w, const int32_t* bias,
                      int8_t* y);
Status FullyConnected(const ConvParams& p, int64_t batches, int64_t accum_depth,
                      int64_t output_depth, const uint8_t* x, const uint8_t* w,
                      const int32_t* bias, uint8_t* y);
Status FullyConnected(const ConvParams& p, int64_t batches, int64_t accum_depth,
                      int64_t output_depth, const int16_t* x, const int8_t* w,
                      const int64_t* bias, int16_t* y);
Status FullyConnected(const ConvParams& p, int64_t batches, int64_t accum_depth,
                      int64_t output_depth, const int16_t* x, const int8_t* w,
                      const int32_t* bias, int16_t* y);

// ---- 4. ADD, MUL (numpy broadcasting, rank <= 6) ------------------------------------------------

/// TFLite add.cc OpData for the general quantized path.
struct AddParams {
  bool pot_int16 = false;  // int16 power-of-two path (see PrepareAdd)
  int left_shift = 20;     // 20 for 8-bit, 15 for int16
  int32_t input1_offset = 0, input2_offset = 0, output_offset = 0;
  QuantizedMultiplier input1, input2, output;  // shifts <= 0 (SmallerThanOneExp)
  ActivationRange act;
};

/// TFLite add.cc Prepare. 8-bit, and int16 with general scales: left_shift = 20 (15 for int16),
/// twice_max = 2 * (double)max(s1, s2), in_k = QuantizeMultiplierSmallerThanOneExp((double)s_k /
/// twice_max), out = QuantizeMultiplierSmallerThanOneExp(twice_max / (2^left_shift * (double)
/// s_out)). int16 needs zero points 0; when pot_scale_int16 (the AddOptions field, true by default
/// in the schema) is set and all three scales are powers of two (CheckedLog2 in float, within
/// 1e-3), TFLite's power-of-two path is taken instead (pot_int16 = true; input shifts log2(s_k) -
/// log2(s_out), one of them 0, both <= 0, else error).
Result<AddParams> PrepareAdd(QType type, TensorQuant in1, TensorQuant in2, TensorQuant out,
                             Activation act, bool pot_scale_int16 = true);

/// TFLite reference_ops::AddElementwise / BroadcastAdd6DSlow (and reference_integer_ops for
/// int8), per output element: v_k = (x_k + offset_k) * 2^left_shift, s_k =
/// MultiplyByQuantizedMultiplierSmallerThanOneExp(v_k, in_k), out = MBQMSmallerThanOneExp(s_1 +
/// s_2, out) + output_offset, clamped to act. int16 power-of-two path: the input with a nonzero
/// shift is RoundingDivideByPOT'ed, the two are added with int16 saturation, then clamped.
/// shape1/shape2 are broadcast numpy-style (aligned at the right; each dim equal or 1); y has the
/// broadcast shape (row-major). Errors: incompatible shapes, rank > 6, negative dims.
Status Add(const AddParams& p, const std::vector<int64_t>& shape1, const int8_t* x1,
           const std::vector<int64_t>& shape2, const int8_t* x2, int8_t* y);
Status Add(const AddParams& p, const std::vector<int64_t>& shape1, const uint8_t* x1,
           const std::vector<int64_t>& shape2, const uint8_t* x2, uint8_t* y);
Status Add(const AddParams& p, const std::vector<int64_t>& shape1, const int16_t* x1,
           const std::vector<int64_t>& shape2, const int16_t* x2, int16_t* y);

/// TFLite mul.cc OpData for quantized MUL.
struct MulParams {
  int32_t input1_offset = 0, input2_offset = 0, output_offset = 0;
  QuantizedMultiplier output;
  ActivationRange act;
};

/// TFLite mul.cc Prepare: real multiplier s1 * s2 / s_out computed entirely in float32, widened
/// to double, then QuantizeMultiplier. int16 needs zero points 0.
Result<MulParams> PrepareMul(QType type, TensorQuant in1, TensorQuant in2, TensorQuant out,
                             Activation act);

/// TFLite reference_integer_ops::MulElementwise / BroadcastMul6DSlow and reference_ops::Mul
/// (uint8): out = MultiplyByQuantizedMultiplier((x1 + offset1) * (x2 + offset2), out) +
/// output_offset, clamped. Broadcasting and errors as Add.
Status Mul(const MulParams& p, const std::vector<int64_t>& shape1, const int8_t* x1,
           const std::vector<int64_t>& shape2, const int8_t* x2, int8_t* y);
Status Mul(const MulParams& p, const std::vector<int64_t>& shape1, const uint8_t* x1,
           const std::vector<int64_t>& shape2, const uint8_t* x2, uint8_t* y);
Status Mul(const MulParams& p, const std::vector<int64_t>& shape1, const int16_t* x1,
           const std::vector<int64_t>& shape2, const int16_t* x2, int16_t* y);

/// The numpy broadcast of two shapes (aligned at the right). Error: incompatible, rank > 6.
Result<std::vector<int64_t>> BroadcastShape(const std::vector<int64_t>& a,
                                            const std::vector<int64_t>& b);

// ---- 5. AVERAGE_POOL_2D, MAX_POOL_2D -------------------------------------------------------------

/// TFLite pooling.cc Prepare for quantized pools: the pools do not rescale, so the input and
/// output quantization must be equal (tare's check; TFLite converters always emit them equal);
/// returns the activation clamp of the output.
Result<ActivationRange> PreparePool(QType type, TensorQuant in, TensorQuant out, Activation act);

/// TFLite reference_integer_ops::AveragePool (int8, int16) / reference_ops::AveragePool (uint8):
/// the window is clipped to the image (padding never counts), acc = sum of the n taps (int64),
/// rounded to nearest with ties away from zero: acc > 0 ? (acc + n/2) / n : (acc - n/2) / n
/// (uint8: (acc + n/2) / n), then clamped to act. Errors: shape mismatches, a window with no tap
/// inside the image (TFLite returns an error there too).
Status AveragePool(ActivationRange act, const PoolWindow& win, const Nhwc& in, const int8_t* x,
                   const Nhwc& out, int8_t* y);
Status AveragePool(ActivationRange act, const PoolWindow& win, const Nhwc& in, const uint8_t* x,
                   const Nhwc& out, uint8_t* y);
Status AveragePool(ActivationRange act, const PoolWindow& win, const Nhwc& in, const int16_t* x,
                   const Nhwc& out, int16_t* y);

/// TFLite reference MaxPool: max over the taps inside the image (starting from the type's lowest
/// value; uint8 from 0), clamped to act. Errors: shape mismatches.
Status MaxPool(ActivationRange act, const PoolWindow& win, const Nhwc& in, const int8_t* x,
               const Nhwc& out, int8_t* y);
Status MaxPool(ActivationRange act, const PoolWindow& win, const Nhwc& in, const uint8_t* x,
               const Nhwc& out, uint8_t* y);
Status MaxPool(ActivationRange act, const PoolWindow& win, const Nhwc& in, const int16_t* x,
               const Nhwc& out, int16_t* y);

// ---- 6. SOFTMAX ----------------------------------------------------------------------------------

/// Parameters of TFLite's fixed-point (gemmlowp) 8-bit softmax.
struct SoftmaxFixedPointParams {
  int32_t input_multiplier = 0;
  int input_left_shift = 0;
  int32_t diff_min = 0;
};

/// TFLite activations.cc SoftmaxPrepare, kReference branch (also TFLite Micro):
/// PreprocessSoftmaxScaling(beta, s_in, 5): m = min((double)beta * (double)s_in * 2^26, 2^31 - 1),
/// QuantizeMultiplierGreaterThanOne(m); diff_min = -CalculateInputRadius(5, shift). Output must be
/// int8 with zero point -128 and scale within 0.001/256 of 1/256 (TFLite's check), or uint8 with
/// zero point 0 and the same scale (tare's check: TFLite's uint8 kernels assume it).
/// Errors: m <= 1 (TFLite CHECK), other output quantization, bad scales.
Result<SoftmaxFixedPointParams> PrepareSoftmaxFixedPoint(QType type, float beta, TensorQuant in,
                                                         TensorQuant out);

/// TFLite reference_ops::Softmax (int8/uint8 in and out) on rows of `depth` contiguous elements
/// (the last axis): d = x - max(row); taps with d < diff_min give the type's minimum; else
/// e = gemmlowp exp_on_negative_values(Q5.26 of MBQMGreaterThanOne(d)), the sum of e's rescaled
/// to Q12.19 (RoundingDivideByPOT by 12) is inverted by GetReciprocal (gemmlowp Newton-Raphson
/// one_over_one_plus_x_for_x_in_0_1), and y = RoundingDivideByPOT(recip * e, bits_over_unit + 23)
/// + type minimum, clamped. Error: the shift leaves [0, 31] (TFLite's TFLITE_CHECK aborts there;
/// it happens when a row has >= 512 elements near the maximum), bad sizes.
Status SoftmaxFixedPoint(const SoftmaxFixedPointParams& p, int64_t outer, int64_t depth,
                         const int8_t* x, int8_t* y);
Status SoftmaxFixedPoint(const SoftmaxFixedPointParams& p, int64_t outer, int64_t depth,
                         const uint8_t* x, uint8_t* y);

/// Parameters of TFLite's float-table 8-bit softmax (the kernel TFLite's default op resolver
/// runs: activations.cc kGenericOptimized, optimized_ops::PopulateSoftmaxLookupTable/Softmax).
struct SoftmaxLutParams {
  std::array<float, 256> table{};  // table[255 - k] = expf(-s_in * beta * k), k = 0..255
  float output_scale = 0;
  int32_t output_zero_point = 0;
};

/// PopulateSoftmaxLookupTable: scale = -s_in * beta (float32), table[255 - k] = expf(scale * k).
/// Output constraints as PrepareSoftmaxFixedPoint.
Result<SoftmaxLutParams> PrepareSoftmaxLut(QType type, float beta, TensorQuant in,
                                           TensorQuant out);

/// optimized_ops::Softmax<In, Out> (x86/WebAssembly build): per row, with t(x) = table[255 -
/// max + x]: sum = float32 sum of t over the row in order, inv = 1.0f / (sum * out_scale),
/// p = t(x) * inv; int8: (int32)roundf(p) + zero point; uint8: (int32)(p + 0.5f) (TFLite's
/// non-aarch64 QuantizeSoftmaxOutput<uint8_t>); clamped to the type.
Status SoftmaxLut(const SoftmaxLutParams& p, int64_t outer, int64_t depth, const int8_t* x,
                  int8_t* y);
Status SoftmaxLut(const SoftmaxLutParams& p, int64_t outer, int64_t depth, const uint8_t* x,
                  uint8_t* y);

/// Parameters of TFLite's int16 softmax (activations.cc SoftmaxPrepare, int16 branch: the same for
/// the reference and the default op resolver; reference_ops::SoftmaxInt16 runs for both).
struct SoftmaxInt16Params {
  int32_t input_multiplier = 0;  // QuantizeMultiplier(float32(s_in * beta) / (10 / 65535))
  int input_shift = 0;
  std::array<int16_t, 513> exp_lut{};                  // exp on [-10, 0]
  std::array<int16_t, 513> one_over_one_plus_x_lut{};  // 1 / (1 + x) on [0, 1]
};

/// TFLite's int16 SoftmaxPrepare: input and output zero points 0, output scale within
/// 0.001/32768 of 1/32768 (float32 arithmetic, TF_LITE_ENSURE_NEAR), beta finite and > 0 (tare's
/// check). exp_lut = PopulateLutInt16(10/65535, 32767, 2/65535, 0, exp) (inputs [-10, 0]),
/// one_over_one_plus_x_lut = PopulateLutInt16(1/65535, -32768, 2/65535, 0, 1/(1+x)) (inputs
/// [0, 1]); the multiplier maps input differences onto [-65535, 0] = [-10, 0]: QuantizeMultiplier(
/// (double)(s_in * beta computed in float32) / (10.0 / 65535.0)).
Result<SoftmaxInt16Params> PrepareSoftmaxInt16(float beta, TensorQuant in, TensorQuant out);

/// TFLite reference_ops::SoftmaxInt16 on rows of `depth` contiguous elements: per row, max = the
/// largest x; per element e = LutLookupInt16(clamp16(MultiplyByQuantizedMultiplier(x - max) +
/// 32767), exp_lut) (Q0.15); sum = int32 sum of the e's (row order); h = clz(sum), r =
/// LutLookupInt16(clamp16((((int64)sum << (h - 1)) + 2^13) >> 14) - 3 * 2^15), 1/(1+x) lut) (the
/// sum normalized to [1, 2) in Q1.15, minus one, recentred); y = clamp((e * r + 2^(30 - h)) >>
/// (31 - h), 0, 32767). Errors: the row's int32 sum overflows (rows of more than 65548 elements
/// at the maximum; undefined in TFLite), bad sizes. (TFLite also refuses ranks above 4: shape
/// inference checks that.)
Status SoftmaxInt16(const SoftmaxInt16Params& p, int64_t outer, int64_t depth, const int16_t* x,
                    int16_t* y);

/// TFLite common.h LUTPopulate<int16_t> with double arithmetic (detail::LUTPopulateInt16<double>,
/// what the int16 softmax uses): the 513-entry table of f over the int16 input range dequantized,
/// [in_min, in_max] = in_scale * ([-32768, 32767] - in_zp), output scaled by 65536 / (out_max -
/// out_min) with [out_min, out_max] = out_scale * ([-32768, 32767] - out_zp); for i < 512, with
/// step = (in_max - in_min) / 512, v(t) = f(t) * scaling: lut[i] = round(v(in_min + i*step)) -
/// round((round((v(in_min + (i+1)*step) + round(v(in_min + i*step))) / 2) - round(v(in_min +
/// i*step + step/2))) / 2) (half the linear interpolation's midpoint error taken off), clamped to
/// int16; lut[512] = clamp(round(v(in_max))). round = std::round (half away from zero).
void PopulateLutInt16(double in_scale, int32_t in_zero_point, double out_scale, int32_t out_zero_point,
                      double (*f)(double), int16_t* lut);

/// TFLite common.h LUTLookup(int16_t, lut): index 256 + (v >> 7) (the top 9 bits), offset v & 0x7F;
/// lut[index] + ((lut[index + 1] - lut[index]) * offset + 64) >> 7, as int16.
int16_t LutLookupInt16(int16_t v, const int16_t* lut);

// ---- 7. LOGISTIC ---------------------------------------------------------------------------------

/// A 256-entry table indexed by the raw input byte (int8 value v at index (uint8_t)v).
struct Lut8 {
  std::array<uint8_t, 256> table{};
};

/// TFLite activations.cc SigmoidPrepare for kReference and kGenericOptimized (what the
/// interpreter runs for int8/uint8 LOGISTIC): output scale must equal 1/256 exactly; LUTPopulate
/// (common.h LUTPopulateInt8) in float32: for each v, f = s_in * (v - zp_in), s = 1.0f / (1.0f +
/// expf(-f)), q = (int32)(roundf(s * (1 / s_out)) + zp_out), clamped to the type.
Result<Lut8> PrepareLogisticLut(QType type, TensorQuant in, TensorQuant out);

/// reference_integer_ops::LookupTable: y[i] = table[(uint8_t)x[i]].
void LookupTable(const Lut8& lut, int64_t n, const int8_t* x, int8_t* y);
void LookupTable(const Lut8& lut, int64_t n, const uint8_t* x, uint8_t* y);

/// Parameters of the fixed-point (gemmlowp) 8-bit logistic.
struct LogisticFixedPointParams {
  int32_t input_zero_point = 0;
  int32_t input_range_radius = 0;
  int32_t input_multiplier = 0;
  int input_left_shift = 0;
};

/// int8: TFLite Micro logistic_common.cc (output zero point -128 required): (q, e) = frexp(s_in *
/// 2^27), multiplier = round-half-away(q * 2^31) (if that is 2^31, tare takes (2^30, e + 1) as
/// QuantizeMultiplier does; TFLite Micro would overflow), left shift e, radius =
/// CalculateInputRadius(4, e). uint8: TFLite's legacy SigmoidPrepare: QuantizeMultiplier
/// GreaterThanOne(s_in * 2^27) (error if <= 1), radius CalculateInputRadius(4, shift); output
/// zero point 0 and scale 1/256 required.
Result<LogisticFixedPointParams> PrepareLogisticFixedPoint(QType type, TensorQuant in,
                                                           TensorQuant out);

/// int8: reference_integer_ops::Logistic; uint8: legacy reference_ops::Logistic. d = x - zp;
/// d <= -radius -> type minimum, d >= radius -> maximum; else r = MBQM(d) (int8) or
/// MBQMGreaterThanOne(d) (uint8) as Q4.27, l = gemmlowp logistic(r) in Q0.31, y =
/// RoundingDivideByPOT(l, 23) (uint8: 256 -> 255; int8: - 128, clamped).
void LogisticFixedPoint(const LogisticFixedPointParams& p, int64_t n, const int8_t* x, int8_t* y);
void LogisticFixedPoint(const LogisticFixedPointParams& p, int64_t n, const uint8_t* x,
                        uint8_t* y);

/// Parameters of TFLite's int16 LOGISTIC.
struct LogisticInt16Params {
  /// The default op resolver with input scale 2^-12 (power of two, CheckedLog2 within 1e-3):
  /// optimized_ops::Logistic on int16, gemmlowp::logistic of the raw input as Q3.12 -> Q0.15.
  bool gemmlowp = false;
  /// Otherwise reference_integer_ops::Logistic (the table kernel): the input is rescaled to
  /// 1/(3 * 4096) units with (x * input_multiplier + round) >> input_left_shift.
  int32_t input_multiplier = 0;
  int input_left_shift = 0;
};

/// TFLite activations.cc SigmoidPrepare for int16 (both resolvers): output scale exactly 1/32768
/// and zero point 0, input zero point 0. Power-of-two input scale 2^-12: the default resolver
/// (`default_resolver`) takes the gemmlowp kernel; the reference resolver runs the table kernel
/// with multiplier 3, shift 0. Any other scale: m = (double)s_in * 4096 * 3, doubled (shift + 1)
/// while m <= 32767 / 2 and shift <= 30; multiplier = (int32)m. Errors: the quantization checks
/// above, m >= 2^31 (input scale >= 2^31 / 12288: TFLite's int32 conversion overflows).
Result<LogisticInt16Params> PrepareLogisticInt16(TensorQuant in, TensorQuant out, bool default_resolver);

/// The 256-entry table TFLite's int16 logistic interpolates (common.h sigmoid_table_uint16,
/// "sigmoid(i/24) at 0.16 format"), from its defining formula: with S(t) = 65536 / (1 + exp(-t/24))
/// in double, table[i] = round(S(i) + (S(i + 1/2) - (S(i) + S(i + 1)) / 2) / 2) for i < 255 (the
/// value plus half the linear interpolation's error at the midpoint, so the interpolated curve
/// straddles the true one) and table[255] = 65535 (the saturation value). Every entry equals
/// TFLite's (tests/unit/quant_kernels_test.cc checks a few and LiteRT.js checks all through the
/// tests/models/tflite_quant sweeps).
const std::array<uint16_t, 256>& SigmoidTableUint16();

/// int16 LOGISTIC. gemmlowp: y = Logistic16(x, 3) (fixed_point.h). Table (reference_integer_ops::
/// Logistic): v = (x * m + round) >> shift (int32, round = 2^(shift - 1) or 0, arithmetic
/// shift; the product wraps modulo 2^32 as TFLite's does in practice), a = |v| (uint32);
/// u = a >> 9; u >= 255: r = 0x7FFF << 10; else r = (t[u] << 9) + (a & 0x1FF) * (t[u + 1] - t[u])
/// (t = SigmoidTableUint16()); then r = v >= 0 ? r + 2^9 : 2^25 - r + 2^9 - 1 (uint32), y = r >> 10
/// (so y in [1, 32767]).
void LogisticInt16(const LogisticInt16Params& p, int64_t n, const int16_t* x, int16_t* y);

// ---- 8. QUANTIZE, requantize, DEQUANTIZE ---------------------------------------------------------

/// TFLite reference_ops::AffineQuantize (QUANTIZE from float32): q = (double)roundf(v / s)
/// + zp, the division in float32 and roundf rounding half away from zero (2.5 -> 3, -2.5 -> -3,
/// unlike numpy), clamped in double to the type. NaN gives the zero point (TFLite: undefined).
/// Error: bad scale or zero point.
Status Quantize(TensorQuant out, int64_t n, const float* x, int8_t* y);
Status Quantize(TensorQuant out, int64_t n, const float* x, uint8_t* y);
Status Quantize(TensorQuant out, int64_t n, const float* x, int16_t* y);

/// TFLite quantize.cc Prepare for requantization (QUANTIZE from an integer tensor):
/// QuantizeMultiplier((double)s_in / (double)s_out).
Result<QuantizedMultiplier> PrepareRequantize(TensorQuant in, TensorQuant out);

/// TFLite reference_ops::Requantize: y = clamp(MultiplyByQuantizedMultiplier(x - zp_in, m) +
/// zp_out) (the int8<->uint8 same-scale "xor 0x80" fast path gives the same values).
void Requantize(QuantizedMultiplier m, int32_t zp_in, int32_t zp_out, int64_t n, const int8_t* x,
                int8_t* y);
void Requantize(QuantizedMultiplier m, int32_t zp_in, int32_t zp_out, int64_t n, const int8_t* x,
                uint8_t* y);
void Requantize(QuantizedMultiplier m, int32_t zp_in, int32_t zp_out, int64_t n,
                const uint8_t* x, int8_t* y);
void Requantize(QuantizedMultiplier m, int32_t zp_in, int32_t zp_out, int64_t n,
                const uint8_t* x, uint8_t* y);
void Requantize(QuantizedMultiplier m, int32_t zp_in, int32_t zp_out, int64_t n,
                const int16_t* x, int16_t* y);
void Requantize(QuantizedMultiplier m, int32_t zp_in, int32_t zp_out, int64_t n,
                const int16_t* x, int8_t* y);

/// TFLite reference_ops::Dequantize: y = (float)((double)s * (x - zp)) (one rounding to float32).
void Dequantize(TensorQuant in, int64_t n, const int8_t* x, float* y);
void Dequantize(TensorQuant in, int64_t n, const uint8_t* x, float* y);
void Dequantize(TensorQuant in, int64_t n, const int16_t* x, float* y);

/// TFLite reference_ops::PerChannelDequantize for a tensor seen as [outer, channels, inner]
/// (channels = the quantized dimension): y = (float)(scale[c] * (x - zp[c])), computed in float32
/// (exact product then one rounding, as TFLite). Error: scales/zero points not `channels` long.
Status DequantizePerChannel(const std::vector<float>& scales, const std::vector<int32_t>& zps,
                            int64_t outer, int64_t channels, int64_t inner, const int8_t* x,
                            float* y);

}  // namespace quant
}  // namespace tare
