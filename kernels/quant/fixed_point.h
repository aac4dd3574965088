// gemmlowp's fixed-point arithmetic (fixedpoint/fixedpoint.h, scalar int32 path) as plain
// functions on raw int32 values, for TFLite's fixed-point softmax and logistic (kernels/quant).
//
// A value "Qm" has m integer bits and 31 - m fractional bits: real = raw / 2^(31 - m). gemmlowp
// carries m in a template type (FixedPoint<int32_t, m>); here it is tracked in the names and
// comments. FixedPoint operations map to: a + b, a - b, -a -> wrapping 32-bit add/sub/negate
// (gemmlowp's Add/Sub/Neg, undefined on overflow in C++, wrapping in practice); a * b ->
// SaturatingRoundingDoublingHighMul (integer bits add up); Rescale<dst>(Qsrc) ->
// SaturatingRoundingMultiplyByPOT<src - dst>; ExactMulByPot only relabels. Constants are
// gemmlowp's raw int32 values (GEMMLOWP_CHECKED_FIXEDPOINT_CONSTANT), given with their meaning.
#pragma once
#include <cstdint>
#include <limits>

namespace tare {
namespace quant {
namespace fixedpoint {

constexpr int32_t kRawMax = std::numeric_limits<int32_t>::max();
constexpr int32_t kRawMin = std::numeric_limits<int32_t>::min();

inline int32_t WrapAdd(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
inline int32_t WrapSub(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}
inline int32_t WrapNeg(int32_t a) { return static_cast<int32_t>(0u - static_cast<uint32_t>(a)); }
/// a * 2^s modulo 2^32 (s >= 32 gives 0).
inline int32_t WrapShl(int32_t a, int s) {
  return s >= 32 ? 0 : static_cast<int32_t>(static_cast<uint32_t>(a) << s);
}

/// gemmlowp SaturatingRoundingDoublingHighMul<int32_t>.
inline int32_t Srdhm(int32_t a, int32_t b) {
  if (a == b && a == kRawMin) return kRawMax;
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));  // C++ division truncates
}

/// gemmlowp RoundingDivideByPOT<int32_t>: mask = 2^e - 1, remainder = x & mask, threshold =
/// (mask >> 1) + (x < 0), result = (x >> e) + (remainder > threshold). e in [0, 31].
inline int32_t Rdbp(int32_t x, int e) {
  if (e <= 0) return x;
  if (e > 31) e = 31;
  const int32_t mask = static_cast<int32_t>((int64_t{1} << e) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> e) + (remainder > threshold ? 1 : 0);  // >> of a negative int is arithmetic (gcc)
}

/// gemmlowp SaturatingRoundingMultiplyByPOT<e> / TFLite SaturatingRoundingMultiplyByPOTParam:
/// e > 0: x * 2^e saturated (|x| > 2^(31-e) - 1 -> min/max); e < 0: Rdbp(x, -e); e == 0: x.
inline int32_t SatRoundMulPot(int32_t x, int e) {
  if (e == 0) return x;
  if (e < 0) return Rdbp(x, -e);
  if (e >= 31) return x > 0 ? kRawMax : (x < 0 ? kRawMin : 0);
  const int32_t threshold = static_cast<int32_t>((int64_t{1} << (31 - e)) - 1);
  if (x > threshold) return kRawMax;
  if (x < -threshold) return kRawMin;
  return static_cast<int32_t>(static_cast<int64_t>(x) * (int64_t{1} << e));
}

/// gemmlowp RoundingHalfSum<int32_t>: (a + b + sign) / 2 in 64 bits, sign = sum >= 0 ? 1 : -1.
inline int32_t RoundingHalfSum(int32_t a, int32_t b) {
  const int64_t sum = static_cast<int64_t>(a) + static_cast<int64_t>(b);
  const int64_t sign = sum >= 0 ? 1 : -1;
  return static_cast<int32_t>((sum + sign) / 2);
}

/// gemmlowp exp_on_interval_between_negative_one_quarter_and_0_excl: Q0 a in [-1/4, 0) -> Q0
/// exp(a), a Taylor expansion around -1/8: x = a + 1/8, exp(-1/8) * (1 + x + x^2/2 + x^3/6 +
/// x^4/24) with x^4/24 + x^3/6 + x^2/2 = ((x^4/4 + x^3) / 3 + x^2) / 2.
inline int32_t ExpOnIntervalBetweenNegativeOneQuarterAnd0Excl(int32_t a) {
  const int32_t kExpMinusOneEighth = 1895147668;  // exp(-1/8) in Q0
  const int32_t kOneThird = 715827883;            // 1/3 in Q0
  const int32_t x = WrapAdd(a, int32_t{1} << 28);  // + 1/8 (ConstantPOT<-3>)
  const int32_t x2 = Srdhm(x, x);
  const int32_t x3 = Srdhm(x2, x);
  const int32_t x4 = Srdhm(x2, x2);
  const int32_t x4_over_4 = Rdbp(x4, 2);
  const int32_t poly = Rdbp(WrapAdd(Srdhm(WrapAdd(x4_over_4, x3), kOneThird), x2), 1);
  return WrapAdd(kExpMinusOneEighth, Srdhm(kExpMinusOneEighth, WrapAdd(x, poly)));
}

/// gemmlowp exp_on_negative_values<int32_t, integer_bits>: Q(integer_bits) a <= 0 -> Q0 exp(a).
/// a is split into (a mod 1/4) - 1/4, whose exp comes from the Taylor expansion above, and a
/// remainder whose bits select factors exp(-1/4), exp(-1/2), exp(-1), ..., exp(-16) (a barrel
/// shifter, only the bits the format has); inputs below -32 give 0 (formats with more than 5
/// integer bits), a == 0 gives the Q0 maximum (one).
inline int32_t ExpOnNegativeValues(int32_t a, int integer_bits) {
  const int frac_bits = 31 - integer_bits;
  const int32_t one_quarter = int32_t{1} << (frac_bits - 2);
  const int32_t mask = one_quarter - 1;
  const int32_t a_mod_quarter_minus_one_quarter = WrapSub(a & mask, one_quarter);
  int32_t result = ExpOnIntervalBetweenNegativeOneQuarterAnd0Excl(
      SatRoundMulPot(a_mod_quarter_minus_one_quarter, integer_bits));  // Rescale<0>
  const int32_t remainder = WrapSub(a_mod_quarter_minus_one_quarter, a);
  struct Factor {
    int exponent;
    int32_t multiplier;  // exp(-2^exponent) in Q0
  };
  static constexpr Factor kFactors[] = {{-2, 1672461947}, {-1, 1302514674}, {0, 790015084},
                                        {1, 290630308},   {2, 39332535},    {3, 720401},
                                        {4, 242}};
  for (const Factor& f : kFactors) {
    if (integer_bits > f.exponent) {
      const int shift = frac_bits + f.exponent;
      if (remainder & (int32_t{1} << shift)) result = Srdhm(result, f.multiplier);
    }
  }
  if (integer_bits > 5) {
    const int32_t clamp = -(int32_t{1} << (36 - integer_bits));  // -32 in Q(integer_bits)
    if (a < clamp) result = 0;
  }
  if (a == 0) result = kRawMax;
  return result;
}

/// gemmlowp one_over_one_plus_x_for_x_in_0_1: Q0 a in [0, 1) -> Q0 1 / (1 + a), three
/// Newton-Raphson steps in Q2 from 48/17 - 32/17 * d, d = (1 + a) / 2 (RoundingHalfSum with one).
inline int32_t OneOverOnePlusXForXIn01(int32_t a) {
  const int32_t half_denominator = RoundingHalfSum(a, kRawMax);  // Q0
  const int32_t k48Over17 = 1515870810;                          // 48/17 in Q2
  const int32_t kMinus32Over17 = -1010580540;                    // -32/17 in Q2
  const int32_t kOneQ2 = int32_t{1} << 29;                       // 1 in Q2
  int32_t x = WrapAdd(k48Over17, Srdhm(half_denominator, kMinus32Over17));  // Q2
  for (int i = 0; i < 3; ++i) {
    const int32_t half_denominator_times_x = Srdhm(half_denominator, x);  // Q0 * Q2 = Q2
    const int32_t one_minus = WrapSub(kOneQ2, half_denominator_times_x);  // Q2
    x = WrapAdd(x, SatRoundMulPot(Srdhm(x, one_minus), 2));  // Q2 * Q2 = Q4, Rescale<2>
  }
  return SatRoundMulPot(x, 1);  // ExactMulByPot<-1>: Q2 -> Q1 (same raw), Rescale<0>
}

/// gemmlowp logistic<int32_t, integer_bits>: Q(integer_bits) a -> Q0 1 / (1 + exp(-a)): for
/// a > 0 one_over_one_plus_x(exp(-a)); for a < 0 one - that of |a|; a == 0 gives 1/2 (2^30).
inline int32_t Logistic(int32_t a, int integer_bits) {
  const bool positive = a > 0;
  const int32_t abs_input = positive ? a : WrapNeg(a);
  const int32_t result_if_positive =
      OneOverOnePlusXForXIn01(ExpOnNegativeValues(WrapNeg(abs_input), integer_bits));
  const int32_t result_if_negative = WrapSub(kRawMax, result_if_positive);
  if (a == 0) return int32_t{1} << 30;
  return positive ? result_if_positive : result_if_negative;
}

/// TFLite common.h GetReciprocal: x > 0 in Q(x_integer_digits) -> Q0 1 / (x normalized to [1, 2))
/// and the number of bits x has above one (num_bits_over_unit = x_integer_digits - clz(x)).
inline int32_t GetReciprocal(int32_t x, int x_integer_digits, int* num_bits_over_unit) {
  const uint32_t ux = static_cast<uint32_t>(x);
  const int headroom_plus_one = ux == 0 ? 32 : __builtin_clz(ux);
  *num_bits_over_unit = x_integer_digits - headroom_plus_one;
  const uint32_t shifted = headroom_plus_one >= 32 ? 0u : (ux << headroom_plus_one);
  const int32_t shifted_sum_minus_one = static_cast<int32_t>(shifted - (uint32_t{1} << 31));
  return OneOverOnePlusXForXIn01(shifted_sum_minus_one);
}

// ---- int16 ("FixedPoint<int16_t, m>": 15 - m fractional bits) --------------------------------
// gemmlowp's scalar int16 specializations, used by TFLite's int16 LOGISTIC when the input scale
// is 2^-12 (optimized_ops::Logistic on int16: gemmlowp::logistic of FixedPoint<int16_t, 3>, raw
// output in Q0.15). Add/Sub/Neg wrap modulo 2^16 (gemmlowp computes in int and stores to int16);
// the constants are the int32 ones above, RoundingDivideByPOT'ed by 16 bits
// (RescaleConstantInitializer), e.g. exp(-1/8) 1895147668 -> 28918.

constexpr int16_t kRaw16Max = std::numeric_limits<int16_t>::max();
constexpr int16_t kRaw16Min = std::numeric_limits<int16_t>::min();

inline int16_t Wrap16(int32_t v) { return static_cast<int16_t>(static_cast<uint16_t>(static_cast<uint32_t>(v))); }

/// gemmlowp RescaleConstantInitializer<int16>: an int32 raw constant rounded to 16 bits.
constexpr int16_t Const16(int32_t v) {
  const int32_t remainder = v & 0xFFFF;
  const int32_t threshold = 0x7FFF + (v < 0 ? 1 : 0);
  return static_cast<int16_t>((v >> 16) + (remainder > threshold ? 1 : 0));
}

/// gemmlowp SaturatingRoundingDoublingHighMul<int16_t>: (a*b + (a*b >= 0 ? 2^14 : 1 - 2^14)) / 2^15
/// with C++ truncating division; INT16_MIN * INT16_MIN saturates to INT16_MAX.
inline int16_t Srdhm16(int16_t a, int16_t b) {
  if (a == b && a == kRaw16Min) return kRaw16Max;
  const int32_t ab = static_cast<int32_t>(a) * static_cast<int32_t>(b);
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return static_cast<int16_t>((ab + nudge) / (1 << 15));
}

/// gemmlowp RoundingDivideByPOT<int16_t> (as Rdbp), e in [0, 15].
inline int16_t Rdbp16(int16_t x, int e) {
  if (e <= 0) return x;
  const int32_t mask = (1 << e) - 1;
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return static_cast<int16_t>((x >> e) + (remainder > threshold ? 1 : 0));
}

/// gemmlowp SaturatingRoundingMultiplyByPOT<e> on int16, e in [1, 14]: x * 2^e saturated
/// (|x| > 2^(15-e) - 1 -> min/max); e < 0: Rdbp16(x, -e).
inline int16_t SatRoundMulPot16(int16_t x, int e) {
  if (e == 0) return x;
  if (e < 0) return Rdbp16(x, -e);
  const int32_t threshold = (1 << (15 - e)) - 1;
  if (x > threshold) return kRaw16Max;
  if (x < -threshold) return kRaw16Min;
  return static_cast<int16_t>(x * (1 << e));
}

/// gemmlowp RoundingHalfSum<int16_t>: (a + b + sign) / 2 in int32, sign = sum >= 0 ? 1 : -1.
inline int16_t RoundingHalfSum16(int16_t a, int16_t b) {
  const int32_t sum = static_cast<int32_t>(a) + static_cast<int32_t>(b);
  return static_cast<int16_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
}

/// gemmlowp SaturatingAdd<int16_t> (AddSaturatingIf16Bit): a + b clamped to int16.
inline int16_t SaturatingAdd16(int16_t a, int16_t b) {
  const int32_t sum = static_cast<int32_t>(a) + static_cast<int32_t>(b);
  return static_cast<int16_t>(sum > kRaw16Max ? kRaw16Max : (sum < kRaw16Min ? kRaw16Min : sum));
}

/// exp on [-1/4, 0) in Q0.15, as ExpOnIntervalBetweenNegativeOneQuarterAnd0Excl, the final sum
/// saturating (AddSaturatingIf16Bit).
inline int16_t ExpOnIntervalBetweenNegativeOneQuarterAnd0Excl16(int16_t a) {
  constexpr int16_t kExpMinusOneEighth = Const16(1895147668);  // 28918
  constexpr int16_t kOneThird = Const16(715827883);            // 10923
  const int16_t x = Wrap16(a + (1 << 12));                      // + 1/8
  const int16_t x2 = Srdhm16(x, x);
  const int16_t x3 = Srdhm16(x2, x);
  const int16_t x4 = Srdhm16(x2, x2);
  const int16_t x4_over_4 = Rdbp16(x4, 2);
  const int16_t poly = Rdbp16(Wrap16(Srdhm16(Wrap16(x4_over_4 + x3), kOneThird) + x2), 1);
  return SaturatingAdd16(kExpMinusOneEighth, Srdhm16(kExpMinusOneEighth, Wrap16(x + poly)));
}

/// exp_on_negative_values<int16_t, integer_bits> (integer_bits <= 5: no clamp below -32).
inline int16_t ExpOnNegativeValues16(int16_t a, int integer_bits) {
  const int frac_bits = 15 - integer_bits;
  const int32_t one_quarter = 1 << (frac_bits - 2);
  const int16_t a_mod_quarter_minus_one_quarter = Wrap16((a & (one_quarter - 1)) - one_quarter);
  int16_t result = ExpOnIntervalBetweenNegativeOneQuarterAnd0Excl16(
      SatRoundMulPot16(a_mod_quarter_minus_one_quarter, integer_bits));  // Rescale<0>
  const int16_t remainder = Wrap16(a_mod_quarter_minus_one_quarter - a);
  struct Factor {
    int exponent;
    int16_t multiplier;  // exp(-2^exponent) in Q0.15
  };
  static constexpr Factor kFactors[] = {{-2, Const16(1672461947)}, {-1, Const16(1302514674)},
                                        {0, Const16(790015084)},   {1, Const16(290630308)},
                                        {2, Const16(39332535)},    {3, Const16(720401)},
                                        {4, Const16(242)}};
  for (const Factor& f : kFactors) {
    if (integer_bits > f.exponent) {
      const int shift = frac_bits + f.exponent;
      if (remainder & (1 << shift)) result = Srdhm16(result, f.multiplier);
    }
  }
  if (a == 0) result = kRaw16Max;
  return result;
}

/// one_over_one_plus_x_for_x_in_0_1<int16_t>: as OneOverOnePlusXForXIn01 in Q0.15 / Q2.13.
inline int16_t OneOverOnePlusXForXIn0116(int16_t a) {
  const int16_t half_denominator = RoundingHalfSum16(a, kRaw16Max);
  constexpr int16_t k48Over17 = Const16(1515870810);       // 23130
  constexpr int16_t kMinus32Over17 = Const16(-1010580540);  // -15420
  constexpr int16_t kOneQ2 = 1 << 13;
  int16_t x = Wrap16(k48Over17 + Srdhm16(half_denominator, kMinus32Over17));
  for (int i = 0; i < 3; ++i) {
    const int16_t half_denominator_times_x = Srdhm16(half_denominator, x);
    const int16_t one_minus = Wrap16(kOneQ2 - half_denominator_times_x);
    x = Wrap16(x + SatRoundMulPot16(Srdhm16(x, one_minus), 2));
  }
  return SatRoundMulPot16(x, 1);
}

/// gemmlowp logistic<int16_t, integer_bits>: Q(integer_bits) a -> Q0.15 1 / (1 + exp(-a)); a == 0
/// gives 1/2 (16384); negative a: one (32767) minus the result for |a| (|INT16_MIN| wraps to itself).
inline int16_t Logistic16(int16_t a, int integer_bits) {
  const bool positive = a > 0;
  const int16_t abs_input = positive ? a : Wrap16(-a);
  const int16_t result_if_positive =
      OneOverOnePlusXForXIn0116(ExpOnNegativeValues16(Wrap16(-abs_input), integer_bits));
  const int16_t result_if_negative = Wrap16(kRaw16Max - result_if_positive);
  if (a == 0) return Const16(1 << 30);
  return positive ? result_if_positive : result_if_negative;
}

}  // namespace fixedpoint
}  // namespace quant
}  // namespace tare
