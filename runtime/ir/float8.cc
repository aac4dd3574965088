#include "runtime/ir/float8.h"

#include <cmath>
#include <limits>

namespace tare {
namespace {

/// Layout of one float8 type.
struct F8 {
  int mant, bias;
  double max;
  bool fnuz, has_inf;
};

F8 Format(DType t) {
  switch (t) {
    case DType::kFloat8E4M3FN: return {3, 7, 448.0, false, false};
    case DType::kFloat8E4M3FNUZ: return {3, 8, 240.0, true, false};
    case DType::kFloat8E5M2: return {2, 15, 57344.0, false, true};
    default: return {2, 16, 57344.0, true, false};  // kFloat8E5M2FNUZ
  }
}

/// The NaN code of a format (with the sign bit s where the format has signed NaNs).
uint8_t NanCode(const F8& f, uint8_t s) { return f.fnuz ? 0x80 : static_cast<uint8_t>(s | 0x7f); }

}  // namespace

double Float8ToDouble(DType t, uint8_t c) {
  const F8 f = Format(t);
  const int ebits = 7 - f.mant;
  if (f.fnuz && c == 0x80) return std::numeric_limits<double>::quiet_NaN();
  const bool neg = (c & 0x80) != 0;
  const int e = (c >> f.mant) & ((1 << ebits) - 1);
  const int m = c & ((1 << f.mant) - 1);
  double v;
  if (!f.fnuz && e == (1 << ebits) - 1 && (f.has_inf || m == (1 << f.mant) - 1)) {
    // E5M2: exponent all ones is inf (m = 0) or NaN; E4M3FN: only S.1111.111 is NaN.
    v = f.has_inf && m == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else if (e == 0) {
    v = std::ldexp(static_cast<double>(m), 1 - f.bias - f.mant);
  } else {
    v = std::ldexp(static_cast<double>(m + (1 << f.mant)), e - f.bias - f.mant);
  }
  return neg ? -v : v;
}

uint8_t DoubleToFloat8(DType t, double v, bool saturate) {
  const F8 f = Format(t);
  const uint8_t s = std::signbit(v) ? 0x80 : 0;
  if (std::isnan(v)) return NanCode(f, s);
  const uint8_t sz = f.fnuz ? 0 : s;  // the sign a zero result keeps
  const double a = std::fabs(v);
  const uint8_t max_code = static_cast<uint8_t>(f.fnuz ? 0x7f : f.has_inf ? 0x7b : 0x7e);
  auto overflow = [&]() -> uint8_t {
    if (saturate) return static_cast<uint8_t>(s | max_code);
    if (f.has_inf) return static_cast<uint8_t>(s | 0x7c);  // E5M2: +-inf
    return NanCode(f, s);
  };
  if (std::isinf(a)) return overflow();
  const double min_normal = std::ldexp(1.0, 1 - f.bias);
  uint32_t code;
  if (a < min_normal) {
    // Subnormal (or zero): a multiple of the smallest subnormal, rounded to nearest even (the
    // default rounding mode); reaching 2^mant gives the smallest normal's code, as it should.
    code = static_cast<uint32_t>(std::nearbyint(std::ldexp(a, f.bias - 1 + f.mant)));
  } else {
    int ex;
    std::frexp(a, &ex);  // a = m * 2^ex, m in [0.5, 1)
    int e = ex - 1;      // a in [2^e, 2^(e+1))
    double q = std::nearbyint(std::ldexp(a, f.mant - e));  // in [2^mant, 2^(mant+1)]
    if (q == std::ldexp(1.0, f.mant + 1)) {
      q = std::ldexp(1.0, f.mant);
      ++e;
    }
    if (std::ldexp(q, e - f.mant) > f.max) return overflow();
    code = static_cast<uint32_t>((e + f.bias) << f.mant) | (static_cast<uint32_t>(q) - (1u << f.mant));
  }
  if (code == 0) return sz;
  return static_cast<uint8_t>(s | code);
}

}  // namespace tare
