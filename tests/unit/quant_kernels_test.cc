// kernels/quant: TFLite integer reference arithmetic against values computed by hand or by an
// independent Python re-implementation of the formulas (never from these functions' own output).
//
// The script (Python ints, Fractions and numpy float32), in short:
//   rha(f)          = sign(f) * floor(|f| + 1/2)                 # round half away from zero
//   qm(m)           = (q, e) = frexp(m); qf = rha(q * 2^31); qf == 2^31 -> (2^30, e+1);
//                     e < -31 -> (0, 0)
//   srdhm(a, b)     = floor(a*b / 2^31 + 1/2), INT32_MIN^2 -> INT32_MAX   # ties towards +inf
//   rdbp(x, e)      = rha(x / 2^e)
//   mbqm(x, m, s)   = rdbp(srdhm(x * 2^max(s,0), m), max(-s, 0))
//   mbqm64(x, m, s) = (x * r + 2^(14 - s)) >> (15 - s), r = (m + 2^15) >> 16
//   small(x, (m,s)) = rdbp(srdhm(x, m), -s)                       # MBQMSmallerThanOneExp
// and each op loops over its definition (conv: sum over taps inside the image of
// (w - w_zp) * (x - x_zp), + bias, mbqm, + out_zp, clamp). Float checks use the real-valued op.
// The int16 LOGISTIC / SOFTMAX values come from the same kind of script: TFLite's
// sigmoid_table_uint16 pasted from common.h (the table the kernel's is checked against), the
// interpolation (x*m + round) >> shift, |v| >> 9, (t[u] << 9) + (|v| & 511) * (t[u+1] - t[u]);
// gemmlowp's int16 logistic with srdhm16(a, b) = floor(a*b / 2^15 + 1/2) (INT16_MIN^2 ->
// INT16_MAX), rdbp16 = round-half-away(x / 2^e), int16 wrap-around adds, constants
// rha(c32 / 2^16); LUTPopulate (513 entries, half the midpoint error subtracted) in float64 and
// the interpolating lookup; the softmax row loop (int32 sum, bit_length normalisation).
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/quant/fixed_point.h"
#include "kernels/quant/quant.h"

using namespace tare;
using namespace tare::quant;

namespace {

constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();

template <typename T>
std::vector<int> Ints(const std::vector<T>& v) {
  return std::vector<int>(v.begin(), v.end());
}

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

}  // namespace

// ---- primitives ------------------------------------------------------------------------------------

TEST_CASE("quant: QuantizeMultiplier edge cases") {
  struct Case {
    double m;
    int32_t multiplier;
    int shift;
  };
  // frexp(0.5) = (0.5, 0): 0.5 * 2^31 = 2^30. frexp(1 - 2^-32) = (1 - 2^-32, 0): (1 - 2^-32) * 2^31
  // = 2^31 - 0.5 rounds (half away) to 2^31 -> halved to 2^30, shift 1. 1e-10 = 0.859 * 2^-33:
  // shift -33 < -31 -> flushed to (0, 0). 3 = 0.75 * 2^2 -> 0.75 * 2^31 = 1610612736.
  // 1000.5 = 0.97705078125 * 2^10 -> 2098200576 exactly. 2^-31 = 0.5 * 2^-30 and 2^-32 = 0.5 * 2^-31
  // are kept; 2^-33 (shift -32) is flushed. 0.1 = 0.8 * 2^-3 -> round(1717986918.4) = 1717986918.
  const Case cases[] = {{0.5, 1073741824, 0},        {1 - std::ldexp(1.0, -32), 1073741824, 1},
                        {1e-10, 0, 0},               {0.0, 0, 0},
                        {3.0, 1610612736, 2},        {1000.5, 2098200576, 10},
                        {std::ldexp(1.0, -31), 1073741824, -30},
                        {std::ldexp(1.0, -32), 1073741824, -31},
                        {std::ldexp(1.0, -33), 0, 0}, {0.1, 1717986918, -3}};
  for (const Case& c : cases) {
    CAPTURE(c.m);
    auto r = QuantizeMultiplier(c.m);
    REQUIRE(r.ok());
    CHECK(r->multiplier == c.multiplier);
    CHECK(r->shift == c.shift);
  }
  CHECK_FALSE(QuantizeMultiplier(std::nan("")).ok());
  CHECK_FALSE(QuantizeMultiplier(INFINITY).ok());
  CHECK_FALSE(QuantizeMultiplierSmallerThanOneExp(1.0).ok());
  CHECK_FALSE(QuantizeMultiplierSmallerThanOneExp(0.0).ok());
  CHECK_FALSE(QuantizeMultiplierGreaterThanOne(1.0).ok());
  auto g = QuantizeMultiplierGreaterThanOne(3.0);
  REQUIRE(g.ok());
  CHECK(g->shift == 2);
  auto s = QuantizeMultiplierSmallerThanOneExp(0.1);
  REQUIRE(s.ok());
  CHECK(s->shift == -3);
}

TEST_CASE("quant: SaturatingRoundingDoublingHighMul saturates and rounds ties up") {
  // INT32_MIN * INT32_MIN = 2^62 -> 2^31 does not fit: saturates.
  CHECK(SaturatingRoundingDoublingHighMul(kI32Min, kI32Min) == kI32Max);
  // -2^31 * (2^31 - 1) / 2^31 = -(2^31 - 1) exactly.
  CHECK(SaturatingRoundingDoublingHighMul(kI32Min, kI32Max) == -2147483647);
  // 3 * 2^30 / 2^31 = 1.5 -> 2; -1.5 -> -1 (ties towards +infinity, like ARM VQRDMULH).
  CHECK(SaturatingRoundingDoublingHighMul(3, 1 << 30) == 2);
  CHECK(SaturatingRoundingDoublingHighMul(-3, 1 << 30) == -1);
  // 123456789 * 987654321 / 2^31 = 56779305.6... (script).
  CHECK(SaturatingRoundingDoublingHighMul(123456789, 987654321) == 56779306);
  CHECK(SaturatingRoundingDoublingHighMul(-123456789, 987654321) == -56779306);
}

TEST_CASE("quant: RoundingDivideByPOT rounds ties away from zero") {
  CHECK(RoundingDivideByPOT(-3, 1) == -2);  // -1.5
  CHECK(RoundingDivideByPOT(3, 1) == 2);    // 1.5
  CHECK(RoundingDivideByPOT(-5, 2) == -1);  // -1.25
  CHECK(RoundingDivideByPOT(5, 2) == 1);    // 1.25
  CHECK(RoundingDivideByPOT(-6, 2) == -2);  // -1.5
  CHECK(RoundingDivideByPOT(-1, 1) == -1);  // -0.5
  CHECK(RoundingDivideByPOT(1, 1) == 1);    // 0.5
  CHECK(RoundingDivideByPOT(kI32Min, 31) == -1);
  CHECK(RoundingDivideByPOT(kI32Max, 31) == 1);  // 0.99999... -> 1
  CHECK(RoundingDivideByPOT(-7, 0) == -7);
}

TEST_CASE("quant: MultiplyByQuantizedMultiplier, both TFLite variants") {
  // int32, double rounding: 5 * 0.25 = 1.25, but srdhm(5, 0.5) = 2.5 -> 3, rdbp(3, 1) = 1.5 -> 2.
  CHECK(MultiplyByQuantizedMultiplier(int32_t{5}, 1 << 30, -1) == 2);
  CHECK(MultiplyByQuantizedMultiplier(int32_t{7}, 1 << 30, -1) == 2);  // 1.75
  // 0.1 as (1717986918, -3): +-100 -> +-10 (srdhm -> +-80, rdbp 3).
  CHECK(MultiplyByQuantizedMultiplier(int32_t{100}, 1717986918, -3) == 10);
  CHECK(MultiplyByQuantizedMultiplier(int32_t{-100}, 1717986918, -3) == -10);
  // Left shift: 3 * 0.75 * 2^2 = 9.
  CHECK(MultiplyByQuantizedMultiplier(int32_t{3}, 1610612736, 2) == 9);
  // 0.6 (1288490189) * 2^-4 * -1000 = -37.5: srdhm -> -600, rdbp(-600, 4) = -37.5 -> -38.
  CHECK(MultiplyByQuantizedMultiplier(int32_t{-1000}, 1288490189, -4) == -38);
  // int64: r = (2^30 + 2^15) >> 16 = 16384; (1e6 * 16384 + 2^19) >> 20 = 15625.
  CHECK(MultiplyByQuantizedMultiplier(int64_t{1000000}, 1 << 30, -5) == 15625);
  CHECK(MultiplyByQuantizedMultiplier(int64_t{-1000000}, 1 << 30, -5) == -15625);
  // One rounding, ties towards +inf: +-96 * 2^-6 = +-1.5 -> 2 and -1.
  CHECK(MultiplyByQuantizedMultiplier(int64_t{96}, 1 << 30, -5) == 2);
  CHECK(MultiplyByQuantizedMultiplier(int64_t{-96}, 1 << 30, -5) == -1);
  // 123456789012 * (1431655765 / 2^31) * 2^-20 = 78491.71 -> 78491 (16-bit r = 21845 = 1/3 - 1.5e-5).
  CHECK(MultiplyByQuantizedMultiplier(int64_t{123456789012}, 1431655765, -20) == 78491);
  // Smaller-than-one and greater-than-one forms.
  CHECK(MultiplyByQuantizedMultiplierSmallerThanOneExp(-6, 1 << 30, -1) == -2);  // -1.5 (srdhm -3)
  CHECK(MultiplyByQuantizedMultiplierGreaterThanOne(3, 1610612736, 2) == 9);
}

TEST_CASE("quant: CalculateActivationRangeQuantized") {
  // int8, scale 0.05, zp -10: q(0) = -10, q(6) = -10 + 120, q(+-1) = -10 +- 20 (float32 quotients
  // 120.0000..., 20.0000... round to 120, 20).
  const TensorQuant q8{0.05f, -10};
  auto none = CalculateActivationRangeQuantized(Activation::kNone, QType::kInt8, q8);
  auto relu = CalculateActivationRangeQuantized(Activation::kRelu, QType::kInt8, q8);
  auto relu6 = CalculateActivationRangeQuantized(Activation::kRelu6, QType::kInt8, q8);
  auto n1 = CalculateActivationRangeQuantized(Activation::kReluN1To1, QType::kInt8, q8);
  REQUIRE((none.ok() && relu.ok() && relu6.ok() && n1.ok()));
  CHECK((none->min == -128 && none->max == 127));
  CHECK((relu->min == -10 && relu->max == 127));
  CHECK((relu6->min == -10 && relu6->max == 110));
  CHECK((n1->min == -30 && n1->max == 10));
  // uint8, scale 0.1, zp 200: q(6) = 260 -> clipped to 255; q(+-1) = 200 +- 10.
  const TensorQuant qu{0.1f, 200};
  auto u6 = CalculateActivationRangeQuantized(Activation::kRelu6, QType::kUInt8, qu);
  auto un1 = CalculateActivationRangeQuantized(Activation::kReluN1To1, QType::kUInt8, qu);
  REQUIRE((u6.ok() && un1.ok()));
  CHECK((u6->min == 200 && u6->max == 255));
  CHECK((un1->min == 190 && un1->max == 210));
  auto i16 = CalculateActivationRangeQuantized(Activation::kNone, QType::kInt16, {0.001f, 0});
  REQUIRE(i16.ok());
  CHECK((i16->min == -32768 && i16->max == 32767));
  // 6 / 1e-30 overflows int32: TFLite's Quantize() check fails.
  CHECK_FALSE(
      CalculateActivationRangeQuantized(Activation::kRelu6, QType::kInt8, {1e-30f, 0}).ok());
  CHECK_FALSE(CalculateActivationRangeQuantized(Activation::kNone, QType::kInt8, {0.0f, 0}).ok());
}

TEST_CASE("quant: padding and input radius helpers") {
  // SAME, in 3, filter 2, stride 1: out 3, total (3-1)*1 + 2 - 3 = 1 -> before 0, after 1.
  auto a = ComputePadding(true, 3, 2, 1);
  REQUIRE(a.ok());
  CHECK((a->out == 3 && a->before == 0 && a->after == 1));
  // SAME, in 5, filter 3, stride 2, dilation 2 (eff 5): out 3, total 2*2 + 5 - 5 = 4 -> 2 / 2.
  auto b = ComputePadding(true, 5, 3, 2, 2);
  REQUIRE(b.ok());
  CHECK((b->out == 3 && b->before == 2 && b->after == 2));
  // VALID, in 5, filter 3, stride 2: out (5 - 3 + 2) / 2 = 2, no padding.
  auto c = ComputePadding(false, 5, 3, 2);
  REQUIRE(c.ok());
  CHECK((c->out == 2 && c->before == 0 && c->after == 0));
  CHECK_FALSE(ComputePadding(false, 2, 3, 1).ok());
  CHECK_FALSE(ComputePadding(true, 2, 3, 0).ok());
  // floor(31 * 2^26 / 2^23) = 248; floor(15 * 2^27 / 2^24) = 120.
  CHECK(CalculateInputRadius(5, 23) == 248);
  CHECK(CalculateInputRadius(4, 24) == 120);
}

// A second script models gemmlowp in Python ints (mul = srdhm, rdbp, pot(x, e) = saturating x * 2^e
// or rdbp, w = wrap to int32):
//   exp_quarter(a): x = a + 2^28; x2, x3, x4 = x*x, x2*x, x2*x2;
//                   c + c * (x + pot(pot(x4, -2) + x3) * 715827883 + x2, -1)), c = 1895147668
//   exp_neg(a, ib): q = 2^(29-ib); r = exp_quarter(pot((a & (q-1)) - q, ib)); for each set bit
//                   (2^(29-ib+k)) of ((a & (q-1)) - q - a), k = -2..4 (k < ib), r *= exp(-2^k)
//                   constants; 0 below -32 (ib > 5); a == 0 -> 2^31 - 1
//   one_over(a):    d = (a + 2^31 - 1 + 1) / 2 (truncating); x = 1515870810 + d * -1010580540;
//                   3 times x += pot(x * (2^29 - d * x), 2); pot(x, 1)
//   logistic(a):    a > 0: one_over(exp_neg(-a)); a < 0: (2^31 - 1) - that of -a; 0 -> 2^30
//   softmax row:    m, s = qm(beta * scale * 2^26); d_min = -floor(31 * 2^26 / 2^s); over the row
//                   total += rdbp(exp_neg(mul(d * 2^s, m), 5), 12); h = clz(total); r =
//                   one_over((total << h) - 2^31); y = clamp(rdbp(r * e, 12 - h + 23) + type_min)
TEST_CASE("quant: gemmlowp fixed-point exp, reciprocal and logistic") {
  namespace fx = tare::quant::fixedpoint;
  // exp(0) is one (Q0 maximum). exp(-1), exp(-1/2) from Q5.26 (script: 790015308, 1302515042;
  // the real values are 790015084.4 and 1302514673.7 * 2^-31, the Taylor step's error shows).
  CHECK(fx::ExpOnNegativeValues(0, 5) == kI32Max);
  CHECK(fx::ExpOnNegativeValues(-(1 << 26), 5) == 790015308);
  CHECK(fx::ExpOnNegativeValues(-(1 << 25), 5) == 1302515042);
  CHECK(fx::ExpOnNegativeValues(-221459251, 5) == 79205998);  // -3.3 (floor(3.3 * 2^26))
  // Inputs below -32 give 0 in formats with more than 5 integer bits: Q6.25 -33 = -33 * 2^25.
  CHECK(fx::ExpOnNegativeValues(-33 * (1 << 25), 6) == 0);
  // 1 / (1 + 0) = one; 1 / (1 + 1/2) = 2/3 (1431655765.3) -> 1431655762 (script).
  CHECK(fx::OneOverOnePlusXForXIn01(0) == kI32Max);
  CHECK(fx::OneOverOnePlusXForXIn01(1 << 30) == 1431655762);
  // logistic(0) is exactly 1/2; logistic(+-1), logistic(2.5) in Q4.27 (script; real values
  // 1569936343.3, 577547304.7, 1984579446.8 * 2^-31).
  CHECK(fx::Logistic(0, 4) == (1 << 30));
  CHECK(fx::Logistic(1 << 27, 4) == 1569936226);
  CHECK(fx::Logistic(-(1 << 27), 4) == 577547421);
  CHECK(fx::Logistic(335544320, 4) == 1984579402);
}

// ---- conv, depthwise, fully connected ------------------------------------------------------------

TEST_CASE("quant: per-channel int8 conv with zero points (SAME padding, RELU)") {
  // input 1x3x3x2 scale 0.5 zp -3; filter OHWI 2x2x2x2 scales {0.02, 0.05}; bias {100, -50};
  // output scale 0.1 zp 4, RELU -> clamp [4, 127]. Multipliers (script): qm(0.5*0.02/0.1) =
  // (1717986854, -3), qm(0.5*0.05/0.1) = (1073741824, -1) (float32 scales widened to double).
  ConvQuantInfo q;
  q.input_type = QType::kInt8;
  q.input = {0.5f, -3};
  q.output = {0.1f, 4};
  q.filter_scales = {0.02f, 0.05f};
  q.output_channels = 2;
  q.activation = Activation::kRelu;
  auto p = PrepareConv(q);
  REQUIRE(p.ok());
  CHECK(p->multiplier == std::vector<int32_t>{1717986854, 1073741824});
  CHECK(p->shift == std::vector<int>{-3, -1});
  CHECK((p->act.min == 4 && p->act.max == 127));
  CHECK((p->input_offset == 3 && p->output_offset == 4));
  const std::vector<int8_t> x = {1, -2, 3, 4, -5, 6, 7, -8, 9, 10, -11, 12, 13, 14, -15, 16, 17, -18};
  const std::vector<int8_t> w = {1, -1, 2, 0, -3, 4, 5, -6, 7, 8, -9, 10, 11, -12, 13, 14};
  const std::vector<int32_t> bias = {100, -50};
  auto pad = ComputePadding(true, 3, 2, 1);
  REQUIRE(pad.ok());
  ConvWindow win;
  win.pad_top = pad->before;
  win.pad_left = pad->before;
  std::vector<int8_t> y(18);
  REQUIRE(Conv2D(*p, win, {1, 3, 3, 2}, x.data(), {2, 2, 2, 2}, w.data(), bias.data(),
                 {1, 3, 3, 2}, y.data())
              .ok());
  // Script (exact formula): the real-valued conv of the dequantized tensors is
  // [8.7, 127, 4, 63.5, 21.3, 4, 4, 25, 42.5, 16.5, 4, 107.5, 11.5, 127, 14.9, 4, 17.5, 4]
  // (clamped), every output within 0.5000015 of it.
  CHECK(Ints(y) ==
        std::vector<int>{9, 127, 4, 64, 21, 4, 4, 25, 43, 17, 4, 108, 12, 127, 15, 4, 18, 4});
}

TEST_CASE("quant: uint8 conv with filter zero point, stride 2, padding 1") {
  // input 1x4x4x1 (x = 13 i mod 256) scale 0.1 zp 120; filter 1x3x3x1 scale 0.03 zp 130; bias
  // 37 (scale 0.003); output scale 0.2 zp 60. Legacy multiplier: float32(0.1 * 0.03) / 0.2 ->
  // (2061584289, -6). Float results 65.34, 65.34, 59.91, 67.155.
  ConvQuantInfo q;
  q.input_type = QType::kUInt8;
  q.input = {0.1f, 120};
  q.output = {0.2f, 60};
  q.filter_scales = {0.03f};
  q.filter_zero_point = 130;
  q.output_channels = 1;
  q.bias_scale = 0.003f;
  auto p = PrepareConv(q);
  REQUIRE(p.ok());
  CHECK(p->multiplier == std::vector<int32_t>{2061584289});
  CHECK(p->shift == std::vector<int>{-6});
  std::vector<uint8_t> x(16);
  for (int i = 0; i < 16; ++i) x[static_cast<size_t>(i)] = static_cast<uint8_t>(i * 13 % 256);
  const std::vector<uint8_t> w = {125, 140, 128, 131, 100, 160, 129, 127, 135};
  const std::vector<int32_t> bias = {37};
  ConvWindow win;
  win.stride_h = win.stride_w = 2;
  win.pad_top = win.pad_left = 1;
  std::vector<uint8_t> y(4);
  REQUIRE(Conv2D(*p, win, {1, 4, 4, 1}, x.data(), {1, 3, 3, 1}, w.data(), bias.data(),
                 {1, 2, 2, 1}, y.data())
              .ok());
  CHECK(Ints(y) == std::vector<int>{65, 65, 60, 67});
  // A bias scale far from input * filter scale fails TFLite's check (|0.003 - 0.01| / 0.2 > 0.02).
  q.bias_scale = 0.01f;
  CHECK_FALSE(PrepareConv(q).ok());
}

TEST_CASE("quant: int8 depthwise conv with depth multiplier 2") {
  // input 1x2x2x2 scale 0.25 zp 2; filter 1x2x2x4 scales {0.01, 0.02, 0.03, 0.04}; bias
  // {5, -5, 10, 0}; output scale 0.05 zp -1; VALID -> 1x1x1x4, oc = ic * 2 + m. Script values.
  ConvQuantInfo q;
  q.input_type = QType::kInt8;
  q.input = {0.25f, 2};
  q.output = {0.05f, -1};
  q.filter_scales = {0.01f, 0.02f, 0.03f, 0.04f};
  q.output_channels = 4;
  auto p = PrepareConv(q);
  REQUIRE(p.ok());
  const std::vector<int8_t> x = {10, -20, 30, 40, -50, 60, 70, -80};
  const std::vector<int8_t> w = {1, 2, 3, 4, 5, -6, 7, 8, -9, 10, 11, 12, 13, 14, -15, 16};
  const std::vector<int32_t> bias = {5, -5, 10, 0};
  std::vector<int8_t> y(4);
  REQUIRE(DepthwiseConv2D(*p, ConvWindow{}, 2, {1, 2, 2, 2}, x.data(), {1, 2, 2, 4}, w.data(),
                          bias.data(), {1, 1, 1, 4}, y.data())
              .ok());
  CHECK(Ints(y) == std::vector<int>{74, 27, 127, -81});
  // Wrong output depth for the multiplier.
  CHECK_FALSE(DepthwiseConv2D(*p, ConvWindow{}, 3, {1, 2, 2, 2}, x.data(), {1, 2, 2, 4}, w.data(),
                              bias.data(), {1, 1, 1, 4}, y.data())
                  .ok());
}

TEST_CASE("quant: uint8 fully connected with zero points") {
  // input 2x4 scale 0.05 zp 128; filter 3x4 scale 0.01 zp 120; bias {1000, -2000, 0}; output
  // scale 0.15 zp 100. Multiplier: float32(0.05 * 0.01) / 0.15 -> (1832519394, -8). Script values.
  ConvQuantInfo q;
  q.input_type = QType::kUInt8;
  q.input = {0.05f, 128};
  q.output = {0.15f, 100};
  q.filter_scales = {0.01f};
  q.filter_zero_point = 120;
  q.output_channels = 3;
  auto p = PrepareFullyConnected(q);
  REQUIRE(p.ok());
  CHECK(p->multiplier == std::vector<int32_t>{1832519394});
  CHECK(p->shift == std::vector<int>{-8});
  const std::vector<uint8_t> x = {0, 255, 128, 64, 200, 10, 130, 128};
  const std::vector<uint8_t> w = {120, 130, 110, 255, 0, 240, 121, 119, 128, 128, 128, 128};
  const std::vector<int32_t> bias = {1000, -2000, 0};
  std::vector<uint8_t> y(6);
  REQUIRE(FullyConnected(*p, 2, 4, 3, x.data(), w.data(), bias.data(), y.data()).ok());
  CHECK(Ints(y) == std::vector<int>{79, 196, 98, 99, 17, 99});
}

TEST_CASE("quant: FC per-tensor multiplier uses the float32 scale product, conv the double one") {
  // in 0.1f, filter 0.3f, out 0.2f: (double)(0.1f * 0.3f) / 0.2f -> qm = (1288490221, -2) (script),
  // (double)0.1f * (double)0.3f / (double)0.2f -> (1288490240, -2).
  ConvQuantInfo q;
  q.input_type = QType::kInt8;
  q.input = {0.1f, 0};
  q.output = {0.2f, 0};
  q.filter_scales = {0.3f};
  q.output_channels = 2;
  auto fc = PrepareFullyConnected(q);
  auto conv = PrepareConv(q);
  REQUIRE((fc.ok() && conv.ok()));
  CHECK(fc->multiplier == std::vector<int32_t>{1288490221});
  CHECK(conv->multiplier == std::vector<int32_t>{1288490240, 1288490240});
  CHECK((fc->shift[0] == -2 && conv->shift[0] == -2));
  // Per-channel FC uses the double product.
  q.filter_scales = {0.3f, 0.3f};
  auto fcc = PrepareFullyConnected(q);
  REQUIRE(fcc.ok());
  CHECK(fcc->multiplier == std::vector<int32_t>{1288490240, 1288490240});
}

TEST_CASE("quant: int16 x int8 conv with int64 bias (16x8)") {
  // input 1x2x2x1 scale 0.001; filter 2x2x2x1 scales {0.01, 0.002}; bias int64
  // {123456, -7654321}; output scale 0.0005. acc = {-3088080, -7841697}; multipliers
  // (1374389504, -5), (1099511680, -7); mbqm64 -> -61762 (clamped to -32768) and -31366 (the real
  // value is -31366.79: the 16-bit reduced multiplier loses precision, as in TFLite).
  ConvQuantInfo q;
  q.input_type = QType::kInt16;
  q.input = {0.001f, 0};
  q.output = {0.0005f, 0};
  q.filter_scales = {0.01f, 0.002f};
  q.output_channels = 2;
  auto p = PrepareConv(q);
  REQUIRE(p.ok());
  CHECK(p->multiplier == std::vector<int32_t>{1374389504, 1099511680});
  CHECK(p->shift == std::vector<int>{-5, -7});
  const std::vector<int16_t> x = {1000, -2000, 30000, -32768};
  const std::vector<int8_t> w = {10, -20, 30, 127, -128, 5, 6, 7};
  const std::vector<int64_t> bias = {123456, -7654321};
  std::vector<int16_t> y(2);
  REQUIRE(Conv2D(*p, ConvWindow{}, {1, 2, 2, 1}, x.data(), {2, 2, 2, 1}, w.data(), bias.data(),
                 {1, 1, 1, 2}, y.data())
              .ok());
  CHECK(Ints(y) == std::vector<int>{-32768, -31366});
  q.input.zero_point = 1;  // int16 must be symmetric
  CHECK_FALSE(PrepareConv(q).ok());
}

TEST_CASE("quant: conv Prepare and kernel errors") {
  ConvQuantInfo q;
  q.input_type = QType::kUInt8;
  q.input = {0.1f, 0};
  q.output = {0.1f, 0};
  q.filter_scales = {0.1f, 0.2f};
  q.output_channels = 2;
  CHECK_FALSE(PrepareConv(q).ok());  // per-channel uint8
  q.input_type = QType::kInt8;
  q.filter_scales = {0.1f, 0.2f, 0.3f};
  CHECK_FALSE(PrepareConv(q).ok());  // 3 scales for 2 channels
  q.filter_scales = {0.1f};
  q.filter_zero_point = 3;
  CHECK_FALSE(PrepareConv(q).ok());  // int8 filter zero point must be 0
  q.filter_zero_point = 0;
  q.input.scale = 0;
  CHECK_FALSE(PrepareConv(q).ok());
  q.input.scale = 0.1f;
  q.input.zero_point = 300;
  CHECK_FALSE(PrepareConv(q).ok());
  q.input.zero_point = 0;
  auto p = PrepareConv(q);
  REQUIRE(p.ok());
  std::vector<int8_t> x(12), w(12), y(12);
  // input channels 3 not divisible by the filter's 2.
  CHECK_FALSE(Conv2D(*p, ConvWindow{}, {1, 2, 2, 3}, x.data(), {2, 1, 1, 2}, w.data(), nullptr,
                     {1, 2, 2, 2}, y.data())
                  .ok());
  ConvWindow bad;
  bad.stride_h = 0;
  CHECK_FALSE(Conv2D(*p, bad, {1, 2, 2, 2}, x.data(), {2, 1, 1, 2}, w.data(), nullptr,
                     {1, 2, 2, 2}, y.data())
                  .ok());
  CHECK_FALSE(Conv2D(*p, ConvWindow{}, {1, -2, 2, 2}, x.data(), {2, 1, 1, 2}, w.data(), nullptr,
                     {1, 2, 2, 2}, y.data())
                  .ok());
}

// ---- add, mul ---------------------------------------------------------------------------------------

TEST_CASE("quant: uint8 add with different scales") {
  // s1 0.02 zp 128, s2 0.05 zp 100, out 0.07 zp 90. twice_max = 0.1: in1 qm(0.2) = (1717986854,
  // -2), in2 qm(0.5) = (2^30, 0), out qm(0.1 / (2^20 * 0.07)) = (1533916908, -19). Script values;
  // the real sums (0.02 (a-128) + 0.05 (b-100)) / 0.07 + 90 are 53.43, 18.57, 237, 165.43, 41.29,
  // 82.43.
  auto p = PrepareAdd(QType::kUInt8, {0.02f, 128}, {0.05f, 100}, {0.07f, 90}, Activation::kNone);
  REQUIRE(p.ok());
  CHECK((p->input1.multiplier == 1717986854 && p->input1.shift == -2));
  CHECK((p->input2.multiplier == 1073741824 && p->input2.shift == 0));
  CHECK((p->output.multiplier == 1533916908 && p->output.shift == -19));
  const std::vector<uint8_t> a = {0, 128, 255, 17, 200, 99};
  const std::vector<uint8_t> b = {100, 0, 255, 250, 3, 101};
  std::vector<uint8_t> y(6);
  REQUIRE(Add(*p, {6}, a.data(), {6}, b.data(), y.data()).ok());
  CHECK(Ints(y) == std::vector<int>{53, 19, 237, 165, 41, 82});
}

TEST_CASE("quant: int8 add broadcasting a per-channel operand, RELU") {
  // [1,2,2,3] + [3]; s1 = s2 = 0.1 (zps -5, 3), out 0.2 zp -10, RELU -> [-10, 127]. Script values.
  auto p = PrepareAdd(QType::kInt8, {0.1f, -5}, {0.1f, 3}, {0.2f, -10}, Activation::kRelu);
  REQUIRE(p.ok());
  std::vector<int8_t> a;
  for (int v = -60; v < 60; v += 10) a.push_back(static_cast<int8_t>(v));
  const std::vector<int8_t> b = {-100, 0, 100};
  std::vector<int8_t> y(12);
  REQUIRE(Add(*p, {1, 2, 2, 3}, a.data(), {3}, b.data(), y.data()).ok());
  CHECK(Ints(y) == std::vector<int>{-10, -10, 21, -10, -10, 36, -10, -4, 51, -10, 11, 66});
  // The operands swapped give the same sums (the scales are equal).
  std::vector<int8_t> y2(12);
  auto p2 = PrepareAdd(QType::kInt8, {0.1f, 3}, {0.1f, -5}, {0.2f, -10}, Activation::kRelu);
  REQUIRE(p2.ok());
  REQUIRE(Add(*p2, {3}, b.data(), {1, 2, 2, 3}, a.data(), y2.data()).ok());
  CHECK(Ints(y2) == Ints(y));
  CHECK_FALSE(Add(*p, {1, 2, 2, 3}, a.data(), {2}, b.data(), y.data()).ok());
  CHECK_FALSE(BroadcastShape({1, 1, 1, 1, 1, 1, 2}, {2}).ok());
}

TEST_CASE("quant: int16 add, power-of-two path") {
  // Scales 2^-10, 2^-12, out 2^-10: input 2 is divided by 4 (rdbp, ties away from zero) and
  // added with int16 saturation: 1000 + 1000, 0 + 1.5 -> 2, 30000 + 4000 -> 32767, 0 - 1.5 -> -2.
  auto p = PrepareAdd(QType::kInt16, {1.f / 1024, 0}, {1.f / 4096, 0}, {1.f / 1024, 0},
                      Activation::kNone);
  REQUIRE(p.ok());
  CHECK(p->pot_int16);
  const std::vector<int16_t> a = {1000, 0, 30000, 0};
  const std::vector<int16_t> b = {4000, 6, 16000, -6};
  std::vector<int16_t> y(4);
  REQUIRE(Add(*p, {4}, a.data(), {4}, b.data(), y.data()).ok());
  CHECK(Ints(y) == std::vector<int>{2000, 2, 32767, -2});
  CHECK_FALSE(PrepareAdd(QType::kInt16, {0.1f, 1}, {0.1f, 0}, {0.1f, 0}, Activation::kNone).ok());
}

TEST_CASE("quant: int8 mul with a scalar operand") {
  // s1 0.1 zp 2, s2 0.05 zp -4 (scalar 36 -> 2.0), out 0.3 zp 1. Multiplier in float32:
  // 0.1f * 0.05f / 0.3f -> qm = (1145324672, -5). Real values -85.67, -33.67, -0.33, 1, 33, 84.33.
  auto p = PrepareMul(QType::kInt8, {0.1f, 2}, {0.05f, -4}, {0.3f, 1}, Activation::kNone);
  REQUIRE(p.ok());
  CHECK((p->output.multiplier == 1145324672 && p->output.shift == -5));
  const std::vector<int8_t> a = {-128, -50, 0, 2, 50, 127};
  const std::vector<int8_t> b = {36};
  std::vector<int8_t> y(6);
  REQUIRE(Mul(*p, {6}, a.data(), {1}, b.data(), y.data()).ok());
  CHECK(Ints(y) == std::vector<int>{-86, -34, 0, 1, 33, 84});
}

// ---- pools -------------------------------------------------------------------------------------------

TEST_CASE("quant: int8 average and max pool with padding") {
  // x = [[-3, -4, 10], [5, 6, -7], [1, -4, 3]].
  const std::vector<int8_t> x = {-3, -4, 10, 5, 6, -7, 1, -4, 3};
  auto act = PreparePool(QType::kInt8, {0.5f, 2}, {0.5f, 2}, Activation::kNone);
  REQUIRE(act.ok());
  // 2x2 stride 2 SAME: total pad 1 -> after; windows clipped to the image:
  // (0,0) (-3-4+5+6)/4 = 1; (0,1) (10-7)/2 = 1.5 -> 2; (1,0) (1-4)/2 = -1.5 -> -2; (1,1) 3.
  PoolWindow w2;
  w2.filter_h = w2.filter_w = 2;
  w2.stride_h = w2.stride_w = 2;
  std::vector<int8_t> y(4);
  REQUIRE(AveragePool(*act, w2, {1, 3, 3, 1}, x.data(), {1, 2, 2, 1}, y.data()).ok());
  CHECK(Ints(y) == std::vector<int>{1, 2, -2, 3});
  // 3x3 stride 1 SAME: pad 1 on each side; sums/counts: 4/4, 7/6, 5/4, 1/6, 7/9, 4/6, 8/4, 4/6,
  // -2/4 -> 1, 1, 1, 0, 1, 1, 2, 1, -1 (-0.5 rounds away from zero).
  PoolWindow w3;
  w3.filter_h = w3.filter_w = 3;
  w3.pad_top = w3.pad_left = 1;
  std::vector<int8_t> y3(9);
  REQUIRE(AveragePool(*act, w3, {1, 3, 3, 1}, x.data(), {1, 3, 3, 1}, y3.data()).ok());
  CHECK(Ints(y3) == std::vector<int>{1, 1, 1, 0, 1, 1, 2, 1, -1});
  // Max pool 2x2 stride 2 SAME with RELU (scale 0.5, zp 2 -> min 2): 6, 10, max(1, -4) -> 2, 3.
  auto relu = PreparePool(QType::kInt8, {0.5f, 2}, {0.5f, 2}, Activation::kRelu);
  REQUIRE(relu.ok());
  REQUIRE(MaxPool(*relu, w2, {1, 3, 3, 1}, x.data(), {1, 2, 2, 1}, y.data()).ok());
  CHECK(Ints(y) == std::vector<int>{6, 10, 2, 3});
  // A window entirely in the padding: TFLite returns an error.
  PoolWindow wp;
  wp.pad_top = 1;
  std::vector<int8_t> one = {5}, out(2);
  CHECK_FALSE(AveragePool(*act, wp, {1, 1, 1, 1}, one.data(), {1, 2, 1, 1}, out.data()).ok());
  CHECK_FALSE(PreparePool(QType::kInt8, {0.5f, 2}, {0.25f, 2}, Activation::kNone).ok());
}

TEST_CASE("quant: uint8 average pool rounds half up") {
  // (250 + 253 + 0 + 3) / 4 = 126.5 -> (506 + 2) / 4 = 127.
  const std::vector<uint8_t> x = {250, 253, 0, 3};
  PoolWindow w;
  w.filter_h = w.filter_w = 2;
  std::vector<uint8_t> y(1);
  REQUIRE(AveragePool({0, 255}, w, {1, 2, 2, 1}, x.data(), {1, 1, 1, 1}, y.data()).ok());
  CHECK(y[0] == 127);
}

// ---- softmax, logistic ------------------------------------------------------------------------------

TEST_CASE("quant: 8-bit softmax, fixed-point and table kernels") {
  const float beta = 1.0f;
  // Prepare: beta * 0.1 * 2^26 = 0.8 * 2^23 -> shift 23, diff_min = -floor(31 * 2^26 / 2^23) = -248.
  auto fpu = PrepareSoftmaxFixedPoint(QType::kUInt8, beta, {0.1f, 0}, {1.f / 256, 0});
  auto lutu = PrepareSoftmaxLut(QType::kUInt8, beta, {0.1f, 0}, {1.f / 256, 0});
  REQUIRE((fpu.ok() && lutu.ok()));
  CHECK(fpu->input_left_shift == 23);
  CHECK(fpu->diff_min == -248);
  // Exact: four equal inputs -> 1/4 * 256 = 64 (fixed point: the sum 4 * 2^19 = 2^21 has reciprocal
  // ~1.0 with 2 bits over unit, 2^31 / 2^25 = 64; table: p = 1 / (4 / 256) = 64).
  // Exact: [255, 0, 0, 0] -> the diffs -255 < diff_min give 0, the maximum 256 clamps to 255.
  const std::vector<uint8_t> x = {7, 7, 7, 7, 255, 0, 0, 0, 100, 110, 120, 130, 140, 90, 10, 11};
  std::vector<uint8_t> yf(16), yl(16);
  REQUIRE(SoftmaxFixedPoint(*fpu, 4, 4, x.data(), yf.data()).ok());
  REQUIRE(SoftmaxLut(*lutu, 4, 4, x.data(), yl.data()).ok());
  for (int k = 0; k < 8; ++k) {
    const int want = k < 4 ? 64 : (k == 4 ? 255 : 0);
    CHECK(yf[static_cast<size_t>(k)] == want);
    CHECK(yl[static_cast<size_t>(k)] == want);
  }
  // Fixed point, exact (script): [8, 22, 61, 165] and [254, 2, 0, 0].
  CHECK(Ints(std::vector<uint8_t>(yf.begin() + 8, yf.end())) ==
        std::vector<int>{8, 22, 61, 165, 254, 2, 0, 0});
  // Both within 1 LSB of 256 * softmax(0.1 x) (clamped to 255) on these rows.
  for (int row = 2; row < 4; ++row) {
    double sum = 0;
    for (int c = 0; c < 4; ++c) sum += std::exp(0.1 * x[static_cast<size_t>(row * 4 + c)]);
    for (int c = 0; c < 4; ++c) {
      const size_t k = static_cast<size_t>(row * 4 + c);
      const double want = std::min(255.0, 256.0 * std::exp(0.1 * x[k]) / sum);
      CAPTURE(k);
      CHECK(std::fabs(yf[k] - want) <= 1.0);
      CHECK(std::fabs(yl[k] - want) <= 1.0);
    }
  }
  // int8: output zero point -128.
  auto fpi = PrepareSoftmaxFixedPoint(QType::kInt8, beta, {0.05f, 3}, {1.f / 256, -128});
  auto luti = PrepareSoftmaxLut(QType::kInt8, beta, {0.05f, 3}, {1.f / 256, -128});
  REQUIRE((fpi.ok() && luti.ok()));
  const std::vector<int8_t> xi = {-20, 0, 20, 40, -128, 127, -5, -5, -5, -5};
  std::vector<int8_t> yfi(10), yli(10);
  REQUIRE(SoftmaxFixedPoint(*fpi, 1, 6, xi.data(), yfi.data()).ok());
  REQUIRE(SoftmaxFixedPoint(*fpi, 1, 4, xi.data() + 6, yfi.data() + 6).ok());
  REQUIRE(SoftmaxLut(*luti, 1, 6, xi.data(), yli.data()).ok());
  REQUIRE(SoftmaxLut(*luti, 1, 4, xi.data() + 6, yli.data() + 6).ok());
  double sum = 0;
  for (int c = 0; c < 6; ++c) sum += std::exp(0.05 * xi[static_cast<size_t>(c)]);
  for (int c = 0; c < 6; ++c) {
    const double want =
        std::min(127.0, 256.0 * std::exp(0.05 * xi[static_cast<size_t>(c)]) / sum - 128);
    CAPTURE(c);
    CHECK(std::fabs(yfi[static_cast<size_t>(c)] - want) <= 1.0);
    CHECK(std::fabs(yli[static_cast<size_t>(c)] - want) <= 1.0);
  }
  // Fixed point, exact (script).
  CHECK(Ints(std::vector<int8_t>(yfi.begin(), yfi.begin() + 6)) ==
        std::vector<int>{-128, -128, -127, -125, -128, 123});
  for (int c = 6; c < 10; ++c) {
    CHECK(yfi[static_cast<size_t>(c)] == -64);  // 64 - 128
    CHECK(yli[static_cast<size_t>(c)] == -64);
  }
  // TFLite's reference aborts when the row sum needs a shift > 31 (600 equal elements).
  std::vector<uint8_t> many(600, 9), out(600);
  CHECK_FALSE(SoftmaxFixedPoint(*fpu, 1, 600, many.data(), out.data()).ok());
  CHECK(SoftmaxLut(*lutu, 1, 600, many.data(), out.data()).ok());
  // Output quantization TFLite requires.
  CHECK_FALSE(PrepareSoftmaxFixedPoint(QType::kInt8, beta, {0.05f, 0}, {1.f / 256, 0}).ok());
  CHECK_FALSE(PrepareSoftmaxLut(QType::kUInt8, beta, {0.05f, 0}, {1.f / 128, 0}).ok());
}

TEST_CASE("quant: 8-bit logistic, table and fixed-point kernels") {
  // int8 input scale 0.1 zp 0, output 1/256 zp -128; uint8 input scale 0.1 zp 128, output 1/256.
  auto li = PrepareLogisticLut(QType::kInt8, {0.1f, 0}, {1.f / 256, -128});
  auto fi = PrepareLogisticFixedPoint(QType::kInt8, {0.1f, 0}, {1.f / 256, -128});
  auto lu = PrepareLogisticLut(QType::kUInt8, {0.1f, 128}, {1.f / 256, 0});
  auto fu = PrepareLogisticFixedPoint(QType::kUInt8, {0.1f, 128}, {1.f / 256, 0});
  REQUIRE((li.ok() && fi.ok() && lu.ok() && fu.ok()));
  // 0.1 * 2^27 = 0.8 * 2^24: shift 24, radius floor(15 * 2^27 / 2^24) = 120.
  CHECK(fi->input_left_shift == 24);
  CHECK(fi->input_range_radius == 120);
  std::vector<int8_t> xi(256), yli(256), yfi(256);
  std::vector<uint8_t> xu(256), ylu(256), yfu(256);
  for (int v = 0; v < 256; ++v) {
    xi[static_cast<size_t>(v)] = static_cast<int8_t>(v - 128);
    xu[static_cast<size_t>(v)] = static_cast<uint8_t>(v);
  }
  LookupTable(*li, 256, xi.data(), yli.data());
  LogisticFixedPoint(*fi, 256, xi.data(), yfi.data());
  LookupTable(*lu, 256, xu.data(), ylu.data());
  LogisticFixedPoint(*fu, 256, xu.data(), yfu.data());
  for (int v = 0; v < 256; ++v) {
    const size_t k = static_cast<size_t>(v);
    CAPTURE(v);
    // Exact at the zero point: sigmoid(0) = 1/2 -> 128 (int8: 0).
    // Elsewhere within 1 LSB of 256 * sigmoid(0.1 (x - zp)) (clamped to the type).
    const double wi = std::min(127.0, 256.0 * Sigmoid(0.1 * (v - 128)) - 128);
    const double wu = std::min(255.0, 256.0 * Sigmoid(0.1 * (v - 128)));
    CHECK(std::fabs(yli[k] - wi) <= 1.0);
    CHECK(std::fabs(yfi[k] - wi) <= 1.0);
    CHECK(std::fabs(ylu[k] - wu) <= 1.0);
    CHECK(std::fabs(yfu[k] - wu) <= 1.0);
  }
  // Fixed point, exact (script) on x - zp = -119, -60, -25, -7, -1, 1, 7, 25, 60, 119. The
  // script's int8 multiplier: frexp(0.1f * 2^27) = (0.8, 24) -> rha(0.8 * 2^31); uint8:
  // qm(0.1f * 2^27); y = rdbp(logistic(mbqm(x - zp)), 23) (- 128 for int8).
  const int sel[] = {-119, -60, -25, -7, -1, 1, 7, 25, 60, 119};
  const int want_i8[] = {-128, -127, -109, -43, -6, 6, 43, 109, 127, 127};
  const int want_u8[] = {0, 1, 19, 85, 122, 134, 171, 237, 255, 255};
  for (int k = 0; k < 10; ++k) {
    CAPTURE(sel[k]);
    CHECK(yfi[static_cast<size_t>(sel[k] + 128)] == want_i8[k]);
    CHECK(yfu[static_cast<size_t>(sel[k] + 128)] == want_u8[k]);
  }
  CHECK(yli[128] == 0);
  CHECK(yfi[128] == 0);
  CHECK(ylu[128] == 128);
  CHECK(yfu[128] == 128);
  // At and beyond the radius 120 the fixed-point kernel saturates: x - zp = -120 -> -128,
  // x - zp = 127 -> 127 (uint8: -128 -> 0, 127 -> 255).
  CHECK(yfi[8] == -128);
  CHECK(yfi[255] == 127);
  CHECK(yfu[0] == 0);
  CHECK(yfu[255] == 255);
  CHECK_FALSE(PrepareLogisticLut(QType::kInt8, {0.1f, 0}, {1.f / 255, -128}).ok());
  CHECK_FALSE(PrepareLogisticFixedPoint(QType::kInt8, {0.1f, 0}, {1.f / 256, 0}).ok());
}

// ---- int16 logistic and softmax ----------------------------------------------------------------------

TEST_CASE("quant: int16 sigmoid table equals TFLite's sigmoid_table_uint16") {
  // Entries of the literal table in TFLite's common.h. 4 and 28 are where plain rounding of
  // 65536 * sigmoid(i / 24) is one lower (35492.36 -> 35492, 49973.95 -> 49974).
  const std::array<uint16_t, 256>& t = SigmoidTableUint16();
  const int idx[] = {0, 1, 4, 28, 100, 174, 254, 255};
  const int want[] = {32768, 33451, 35493, 49975, 64536, 65489, 65534, 65535};
  for (int k = 0; k < 8; ++k) {
    CAPTURE(idx[k]);
    CHECK(t[static_cast<size_t>(idx[k])] == want[k]);
  }
  for (size_t i = 1; i < 256; ++i) CHECK(t[i] >= t[i - 1]);  // monotone
}

TEST_CASE("quant: int16 gemmlowp logistic (Q3.12 -> Q0.15)") {
  namespace fx = tare::quant::fixedpoint;
  CHECK(fx::Const16(1895147668) == 28918);  // exp(-1/8): 1895147668 / 65536 = 28917.6
  CHECK(fx::Const16(-1010580540) == -15420);
  CHECK(fx::Srdhm16(-32768, -32768) == 32767);
  CHECK(fx::Srdhm16(3, 16384) == 2);    // 1.5 -> 2 (ties towards +infinity, as the int32 one)
  CHECK(fx::Srdhm16(-3, 16384) == -1);  // -1.5 -> -1
  CHECK(fx::Rdbp16(-6, 2) == -2);       // -1.5 -> -2
  // Script values; logistic(0) = 1/2 exactly; real 32768 * sigmoid(x / 4096) for comparison:
  // -8: 11.0, -0.3: 7461.1... (the int16 format's error is a few LSB).
  const int16_t x[] = {-32768, -20000, -5000, -1234, -1, 0, 1, 7, 999, 1000, 4321, 10700, 32767};
  const int want[] = {11, 243, 7461, 13935, 16383, 16384, 16384, 16398, 18374, 18376, 24302, 30524, 32756};
  for (int k = 0; k < 13; ++k) {
    CAPTURE(x[k]);
    CHECK(fx::Logistic16(x[k], 3) == want[k]);
  }
}

TEST_CASE("quant: int16 logistic, table and gemmlowp kernels") {
  const TensorQuant out{1.0f / 32768, 0};
  // 0.001 * 12288 = 12.288, doubled 11 times to 25165.8 > 16383.5 -> (25165, 11).
  auto p = PrepareLogisticInt16({0.001f, 0}, out, true);
  REQUIRE(p.ok());
  CHECK_FALSE(p->gemmlowp);
  CHECK(p->input_multiplier == 25165);
  CHECK(p->input_left_shift == 11);
  // 2^-10 is a power of two but not 2^-12: the table kernel, 12 * 2^11 = 24576.
  auto p10 = PrepareLogisticInt16({1.0f / 1024, 0}, out, true);
  REQUIRE(p10.ok());
  CHECK_FALSE(p10->gemmlowp);
  CHECK(p10->input_multiplier == 24576);
  CHECK(p10->input_left_shift == 11);
  // 2^-12: the default resolver runs gemmlowp's kernel, the reference resolver the table with
  // multiplier 3 and no shift. 0.25: 3072 -> 24576 after 3 doublings.
  auto g = PrepareLogisticInt16({1.0f / 4096, 0}, out, true);
  auto r = PrepareLogisticInt16({1.0f / 4096, 0}, out, false);
  auto q = PrepareLogisticInt16({0.25f, 0}, out, true);
  REQUIRE((g.ok() && r.ok() && q.ok()));
  CHECK(g->gemmlowp);
  CHECK_FALSE(r->gemmlowp);
  CHECK(r->input_multiplier == 3);
  CHECK(r->input_left_shift == 0);
  CHECK(q->input_multiplier == 24576);
  CHECK(q->input_left_shift == 3);
  const std::vector<int16_t> x = {-32768, -20000, -5000, -1234, -1, 0, 1, 7, 999, 1000, 4321, 10700, 32767};
  std::vector<int16_t> y(x.size()), yr(x.size()), yg(x.size());
  LogisticInt16(*p, static_cast<int64_t>(x.size()), x.data(), y.data());
  LogisticInt16(*r, static_cast<int64_t>(x.size()), x.data(), yr.data());
  LogisticInt16(*g, static_cast<int64_t>(x.size()), x.data(), yg.data());
  // Script values. Saturation gives 1 and 32767 (the kernel's (2^25 - r + 511) >> 10 floor).
  CHECK(Ints(y) == std::vector<int>{1, 1, 220, 7389, 16376, 16384, 16392, 16441, 23949, 23956, 32338, 32767, 32767});
  CHECK(Ints(yr) ==
        std::vector<int>{11, 247, 7465, 13935, 16382, 16384, 16386, 16398, 18372, 18374, 24304, 30528, 32757});
  CHECK(Ints(yg) ==
        std::vector<int>{11, 243, 7461, 13935, 16383, 16384, 16384, 16398, 18374, 18376, 24302, 30524, 32756});
  // Every code within 1.4 LSB of 32768 * sigmoid(0.001 x) (script: max 1.34).
  std::vector<int16_t> all(65536), ya(65536);
  for (int i = 0; i < 65536; ++i) all[static_cast<size_t>(i)] = static_cast<int16_t>(i - 32768);
  LogisticInt16(*p, 65536, all.data(), ya.data());
  double worst = 0;
  for (int i = 0; i < 65536; ++i)
    worst = std::max(worst, std::fabs(ya[static_cast<size_t>(i)] - 32768 * Sigmoid(static_cast<double>(0.001f) * (i - 32768))));
  CHECK(worst < 1.4);
  // TFLite's Prepare errors: output scale not exactly 1/32768, zero points, and a scale whose
  // multiplier overflows int32 (>= 2^31 / 12288).
  CHECK_FALSE(PrepareLogisticInt16({0.001f, 0}, {1.0f / 32767, 0}, true).ok());
  CHECK_FALSE(PrepareLogisticInt16({0.001f, 0}, {1.0f / 32768, 5}, true).ok());
  CHECK_FALSE(PrepareLogisticInt16({0.001f, 3}, out, true).ok());
  CHECK_FALSE(PrepareLogisticInt16({200000.0f, 0}, out, true).ok());
  CHECK(PrepareLogisticInt16({170000.0f, 0}, out, true).ok());
  // The 8-bit entry points refuse int16.
  CHECK_FALSE(PrepareLogisticLut(QType::kInt16, {0.001f, 0}, out).ok());
}

TEST_CASE("quant: int16 softmax tables, lookup and kernel") {
  // 0.001 * 1 / (10 / 65535) = 6.5535 = 0.8191875 * 2^3 -> rha(0.8191875 * 2^31) = 1759191844.
  auto p = PrepareSoftmaxInt16(1.0f, {0.001f, 0}, {1.0f / 32768, 0});
  REQUIRE(p.ok());
  CHECK(p->input_multiplier == 1759191844);
  CHECK(p->input_shift == 3);
  // exp table over [-10, 0]: 32768 e^-10 = 1.49 (2 after the bias), the last entry exp(0) * 32768
  // clamps to 32767; 1/(1+x) over [0, 1]: 32768 -> 32767, 1/2 -> 16384, 1/(1 + 1/2) -> 21845.
  CHECK(p->exp_lut[0] == 2);
  CHECK(p->exp_lut[256] == 221);  // 32768 e^-5 = 220.8
  CHECK(p->exp_lut[511] == 32133);
  CHECK(p->exp_lut[512] == 32767);
  CHECK(p->one_over_one_plus_x_lut[0] == 32767);
  CHECK(p->one_over_one_plus_x_lut[256] == 21845);
  CHECK(p->one_over_one_plus_x_lut[512] == 16384);
  // Lookup: 0 -> index 256, offset 0; 32767 -> index 511 + 127/128 of the last slope; 100 ->
  // index 256 + 100/128 between 21845 and 21803 (script: 21823).
  CHECK(LutLookupInt16(0, p->exp_lut.data()) == 221);
  CHECK(LutLookupInt16(-32768, p->exp_lut.data()) == 2);
  CHECK(LutLookupInt16(32767, p->exp_lut.data()) == 32762);
  CHECK(LutLookupInt16(100, p->one_over_one_plus_x_lut.data()) == 21823);
  // Rows (script): softmax of 0.001 * [100, -300, 0, 2000, -32768] is [0.1080, 0.0724, 0.0977,
  // 0.7219, 0] (x 32768: 3539, 2372, 3201, 23655, 0); four equal values give exactly 1/4.
  const std::vector<int16_t> x = {100, -300, 0, 2000, -32768, 5, 5, 5, 5};
  std::vector<int16_t> y(9);
  REQUIRE(SoftmaxInt16(*p, 1, 5, x.data(), y.data()).ok());
  auto p2 = PrepareSoftmaxInt16(1.0f, {0.01f, 0}, {1.0f / 32768, 0});
  REQUIRE(p2.ok());
  REQUIRE(SoftmaxInt16(*p2, 1, 4, x.data() + 5, y.data() + 5).ok());
  CHECK(Ints(y) == std::vector<int>{3538, 2372, 3202, 23656, 1, 8192, 8192, 8192, 8192});
  // beta 2.5, scale 2^-11: float32 product 0.001220703125 / (10 / 65535) = 7.99987... -> (2147450880, 3).
  auto p3 = PrepareSoftmaxInt16(2.5f, {1.0f / 2048, 0}, {1.0f / 32768, 0});
  REQUIRE(p3.ok());
  CHECK(p3->input_multiplier == 2147450880);
  CHECK(p3->input_shift == 3);
  const std::vector<int16_t> x3 = {0, -100, -200, -300, 1000, -1000};
  std::vector<int16_t> y3(6);
  REQUIRE(SoftmaxInt16(*p3, 1, 6, x3.data(), y3.data()).ok());
  CHECK(Ints(y3) == std::vector<int>{4651, 4116, 3643, 3224, 15763, 1372});
  // Two rows of the whole range at scale 1e-4 (differences within [-6.6, 0]).
  auto p4 = PrepareSoftmaxInt16(1.0f, {1e-4f, 0}, {1.0f / 32768, 0});
  REQUIRE(p4.ok());
  const std::vector<int16_t> x4 = {32767, -32768, 0, 0, 32767, -32768};
  std::vector<int16_t> y4(6);
  REQUIRE(SoftmaxInt16(*p4, 2, 3, x4.data(), y4.data()).ok());
  CHECK(Ints(y4) == std::vector<int>{31534, 44, 1191, 1191, 31534, 44});
  // The row's int32 sum of exps (32762 per element at the maximum) overflows past 65548 equal
  // elements: an error, not UB.
  std::vector<int16_t> big(65549, 7), out(65549);
  CHECK_FALSE(SoftmaxInt16(*p, 1, 65549, big.data(), out.data()).ok());
  CHECK(SoftmaxInt16(*p, 1, 65548, big.data(), out.data()).ok());
  CHECK(SoftmaxInt16(*p, 1, 65536, big.data(), out.data()).ok());
  // Prepare errors: output scale off by more than 0.001/32768, zero points; beta.
  CHECK_FALSE(PrepareSoftmaxInt16(1.0f, {0.001f, 0}, {1.0f / 32000, 0}).ok());
  CHECK(PrepareSoftmaxInt16(1.0f, {0.001f, 0}, {1.0005f / 32768, 0}).ok());
  CHECK_FALSE(PrepareSoftmaxInt16(1.0f, {0.001f, 0}, {1.0f / 32768, 1}).ok());
  CHECK_FALSE(PrepareSoftmaxInt16(1.0f, {0.001f, 2}, {1.0f / 32768, 0}).ok());
  CHECK_FALSE(PrepareSoftmaxInt16(0.0f, {0.001f, 0}, {1.0f / 32768, 0}).ok());
  CHECK_FALSE(PrepareSoftmaxLut(QType::kInt16, 1.0f, {0.001f, 0}, {1.0f / 32768, 0}).ok());
}

// ---- quantize, requantize, dequantize ---------------------------------------------------------------

TEST_CASE("quant: QUANTIZE from float rounds half away from zero") {
  // scale 0.5: 1.25 / 0.5 = 2.5 -> 3 (numpy: 2), -2.5 -> -3, 2, 1.48 -> 1, -1, clamps.
  const std::vector<float> x = {1.25f, -1.25f, 1.0f, 0.74f, -0.74f, 100.0f, -1000.0f, NAN};
  std::vector<int8_t> y(8);
  REQUIRE(Quantize({0.5f, 0}, 8, x.data(), y.data()).ok());
  CHECK(Ints(y) == std::vector<int>{3, -3, 2, 1, -1, 127, -128, 0});
  // uint8 scale 0.1 zp 128: float32 quotients 0.5, -0.5, 1.5, -2.5 (exact halves) -> 129, 127,
  // 130, 125; 127, 128, -128, -129 -> 255, 255, 0, 0.
  const std::vector<float> xu = {0.05f, -0.05f, 0.15f, -0.25f, 12.7f, 12.8f, -12.8f, -12.9f};
  std::vector<uint8_t> yu(8);
  REQUIRE(Quantize({0.1f, 128}, 8, xu.data(), yu.data()).ok());
  CHECK(Ints(yu) == std::vector<int>{129, 127, 130, 125, 255, 255, 0, 0});
  CHECK_FALSE(Quantize({0.0f, 0}, 8, x.data(), y.data()).ok());
  CHECK_FALSE(Quantize({0.1f, 300}, 8, xu.data(), yu.data()).ok());
}

TEST_CASE("quant: requantize int8 -> uint8 and int8 -> int8 with a new scale") {
  // Same scale, zp -128 -> 0: multiplier qm(1) = (2^30, 1) is exact, y = x + 128 (TFLite's xor
  // 0x80 fast path).
  auto same = PrepareRequantize({0.1f, -128}, {0.1f, 0});
  REQUIRE(same.ok());
  CHECK((same->multiplier == (1 << 30) && same->shift == 1));
  const std::vector<int8_t> x = {-128, -20, 0, 5, 6, 7, 8, 20, 127};
  std::vector<uint8_t> yu(9);
  Requantize(*same, -128, 0, 9, x.data(), yu.data());
  CHECK(Ints(yu) == std::vector<int>{0, 108, 128, 133, 134, 135, 136, 148, 255});
  // 0.1 zp 5 -> 0.3 zp -7: qm(0.1f / 0.3f) = (1431655730, -1). x - 5 = 1 gives srdhm 0.67 -> 1,
  // rdbp(1, 1) = 0.5 -> 1: -6 (double rounding; 1/3 alone would round to 0). Script values.
  auto m = PrepareRequantize({0.1f, 5}, {0.3f, -7});
  REQUIRE(m.ok());
  CHECK((m->multiplier == 1431655730 && m->shift == -1));
  std::vector<int8_t> y(9);
  Requantize(*m, 5, -7, 9, x.data(), y.data());
  CHECK(Ints(y) == std::vector<int>{-52, -16, -9, -7, -6, -6, -6, -2, 34});
}

TEST_CASE("quant: DEQUANTIZE") {
  // (double)0.1f * (x + 3), rounded once to float32: -12.5, 0, 0.3 (float32 0.30000001), 13.
  const std::vector<int8_t> x = {-128, -3, 0, 127};
  std::vector<float> y(4);
  Dequantize({0.1f, -3}, 4, x.data(), y.data());
  CHECK(y[0] == -12.5f);
  CHECK(y[1] == 0.0f);
  CHECK(y[2] == 0.30000001192092896f);
  CHECK(y[3] == 13.0f);
  // Per channel over [outer 1, channels 2, inner 2]: scales {0.5, 0.25}, zps {0, 1}.
  const std::vector<int8_t> xc = {4, -4, 5, 1};
  std::vector<float> yc(4);
  REQUIRE(DequantizePerChannel({0.5f, 0.25f}, {0, 1}, 1, 2, 2, xc.data(), yc.data()).ok());
  CHECK(yc == std::vector<float>{2.0f, -2.0f, 1.0f, 0.0f});
  CHECK_FALSE(DequantizePerChannel({0.5f}, {0, 1}, 1, 2, 2, xc.data(), yc.data()).ok());
}
