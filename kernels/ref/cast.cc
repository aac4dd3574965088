// Reference kernel of Cast and CastLike (semantics: runtime/ops/cast.cc). Dispatches on the storage types of
// the input and the (preallocated) output: a float32 value arrives and leaves in the compute type
// T, so on ref64 float32 <-> float64 casts are plain copies. Every conversion is defined for every
// input (no C++ undefined behaviour): float -> integer saturates and maps NaN to 0; integer ->
// integer wraps (two's complement); float16 results are rounded once, directly from double.
// Strings: numbers are printed in numpy's str() form (shortest round-trip digits of the source
// type) and parsed locale-independently (std::from_chars); see runtime/ops/cast.cc.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <string>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/ref/ref_kernels.h"
#include "runtime/ir/float8.h"

namespace tare {
namespace {

// Out-of-range double -> float conversions rely on IEEE 754 semantics (they give +-inf).
static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559,
              "Cast assumes IEEE 754 floating point");

/// Storage type of each dtype; float16 is raw bits, bool is read and written as a byte.
template <DType D> struct Stor;
#define TARE_STOR(code, U) template <> struct Stor<DType::code> { using type = U; };
TARE_STOR(kFloat32, float) TARE_STOR(kFloat64, double) TARE_STOR(kFloat16, uint16_t)
TARE_STOR(kInt8, int8_t) TARE_STOR(kInt16, int16_t) TARE_STOR(kInt32, int32_t) TARE_STOR(kInt64, int64_t)
TARE_STOR(kUInt8, uint8_t) TARE_STOR(kUInt16, uint16_t) TARE_STOR(kUInt32, uint32_t) TARE_STOR(kUInt64, uint64_t)
TARE_STOR(kBool, uint8_t) TARE_STOR(kBFloat16, uint16_t)
#undef TARE_STOR

constexpr bool IsFloat(DType d) {
  return d == DType::kFloat32 || d == DType::kFloat64 || d == DType::kFloat16 || d == DType::kBFloat16;
}

/// Rounds v to the nearest float16 (ties to even), returning its bits; overflow gives +-inf.
/// One rounding, straight from the double's bits (no double rounding through float).
uint16_t DoubleToHalf(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  const uint16_t sign = static_cast<uint16_t>((bits >> 48) & 0x8000);
  const uint64_t ax = bits & 0x7fffffffffffffffull;
  const double a = std::fabs(v);
  if (ax > 0x7ff0000000000000ull) return sign | 0x7e00;  // NaN
  if (a >= 65520.0) return sign | 0x7c00;                  // >= midpoint of 65504 (max half) and 2^16
  if (a < 0x1p-14)  // subnormal half: a * 2^24 is exact; round it to an integer (nearest even)
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(a * 0x1p24)));
  const uint64_t mant = ax & 0xfffffffffffffull;            // 52 bits; keep the top 10
  const int64_t exp = static_cast<int64_t>(ax >> 52) - 1023;  // in [-14, 15]
  uint32_t h = static_cast<uint32_t>(((exp + 15) << 10) | static_cast<int64_t>(mant >> 42));
  const uint64_t rest = mant & 0x3ffffffffffull, half = 0x20000000000ull;
  if (rest > half || (rest == half && (h & 1))) ++h;  // a carry moves into the exponent correctly
  return static_cast<uint16_t>(sign | h);
}

/// 2^n as a double (exact), usable in constant expressions.
constexpr double Pow2(int n) { return n == 0 ? 1.0 : 2.0 * Pow2(n - 1); }

/// Float -> integer: NaN -> 0, else truncation toward zero, saturated to I's range.
template <class I>
I FloatToInt(double v) {
  constexpr double hi = Pow2(std::numeric_limits<I>::digits);                // max + 1, exact
  constexpr double lo = static_cast<double>(std::numeric_limits<I>::min());  // 0 or -2^digits, exact
  if (std::isnan(v)) return 0;
  if (v >= hi) return std::numeric_limits<I>::max();
  // lo - 1 is exact except for int64 (it rounds to lo = -2^63, still a correct bound): anything
  // above it truncates to a value >= lo, so the cast below is in range (and truncates toward 0).
  if (v <= lo - 1.0) return std::numeric_limits<I>::min();
  return static_cast<I>(v);
}

/// Integer -> integer of another width/signedness: keeps the low bits (two's complement).
template <class D, class S>
D WrapInt(S v) {
  using UD = std::make_unsigned_t<D>;
  const UD u = static_cast<UD>(static_cast<uint64_t>(v));  // both steps are modular in C++
  D d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}

/// Converts one element from storage of dtype S to storage of dtype D.
template <DType S, DType D>
typename Stor<D>::type Convert(typename Stor<S>::type v) {
  using Out = typename Stor<D>::type;
  if constexpr (IsFloat(S)) {
    double f;
    if constexpr (S == DType::kFloat16) f = HalfToFloat(v);
    else if constexpr (S == DType::kBFloat16) f = BFloat16ToFloat(v);
    else f = static_cast<double>(v);
    if constexpr (D == DType::kFloat16) return DoubleToHalf(f);
    else if constexpr (D == DType::kBFloat16) return FloatToBFloat16(static_cast<float>(f));
    else if constexpr (IsFloat(D)) return static_cast<Out>(f);
    else if constexpr (D == DType::kBool) return f != 0.0 ? 1 : 0;
    else return FloatToInt<Out>(f);
  } else if constexpr (S == DType::kBool) {
    const bool b = v != 0;
    if constexpr (D == DType::kFloat16) return b ? 0x3c00 : 0;
    else if constexpr (D == DType::kBFloat16) return b ? 0x3f80 : 0;
    else return static_cast<Out>(b ? 1 : 0);
  } else {
    if constexpr (D == DType::kFloat16) return DoubleToHalf(static_cast<double>(v));
    else if constexpr (D == DType::kBFloat16) return FloatToBFloat16(static_cast<float>(v));
    else if constexpr (IsFloat(D)) return static_cast<Out>(v);
    else if constexpr (D == DType::kBool) return v != 0 ? 1 : 0;
    else return WrapInt<Out>(v);
  }
}

template <DType S, DType D>
void Loop(const Tensor& x, Tensor& y) {
  const auto* a = static_cast<const typename Stor<S>::type*>(x.data);
  auto* b = static_cast<typename Stor<D>::type*>(y.data);
  const int64_t n = x.numel();
  for (int64_t i = 0; i < n; ++i) b[i] = Convert<S, D>(a[i]);
}

#define TARE_CAST_TYPES(X)                                                                  \
  X(kFloat32) X(kFloat64) X(kFloat16) X(kInt8) X(kInt16) X(kInt32) X(kInt64) X(kUInt8) \
  X(kUInt16) X(kUInt32) X(kUInt64) X(kBool) X(kBFloat16)

template <DType S>
Status ToAny(const Tensor& x, Tensor& y) {
  switch (y.dtype) {
#define X(code) case DType::code: Loop<S, DType::code>(x, y); return Status::Ok();
    TARE_CAST_TYPES(X)
#undef X
    default: return Status::Error("Cast: unsupported output type " + DTypeName(y.dtype));
  }
}

// Floating-point <charconv> (std::to_chars / std::from_chars of float and double) is missing from
// the libc++ of Debian's Emscripten 3.1.6. There the C library's correctly rounded snprintf and
// strtod/strtof serve instead, with from_chars's rules kept (no leading space, '+' or hex); the
// WebAssembly C library has only the "C" locale, so they are locale-independent too.
#if defined(__EMSCRIPTEN__)
#define TARE_NO_FLOAT_CHARCONV 1
#endif

/// v in scientific notation with `precision` digits after the point (std::chars_format::scientific).
char* SciChars(char* first, char* last, double v, int precision) {
#ifdef TARE_NO_FLOAT_CHARCONV
  const int n = std::snprintf(first, static_cast<size_t>(last - first), "%.*e", precision, v);
  return first + (n < 0 ? 0 : std::min<int>(n, static_cast<int>(last - first) - 1));
#else
  return std::to_chars(first, last, v, std::chars_format::scientific, precision).ptr;
#endif
}

/// from_chars of a float or double: the value, or errc::invalid_argument / result_out_of_range.
template <class F>
std::from_chars_result ParseFloating(const char* first, const char* last, F& v) {
#ifdef TARE_NO_FLOAT_CHARCONV
  const char* p = first + (first != last && *first == '-');
  const bool hex = last - p > 1 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
  const char c = first == last ? ' ' : *first;
  const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  if (space || c == '+' || hex) return {first, std::errc::invalid_argument};
  const std::string text(first, last);
  char* end = nullptr;
  errno = 0;
  const F parsed = std::is_same_v<F, float> ? std::strtof(text.c_str(), &end) : std::strtod(text.c_str(), &end);
  if (end == text.c_str()) return {first, std::errc::invalid_argument};
  const char* stop = first + (end - text.c_str());
  if (errno == ERANGE) return {stop, std::errc::result_out_of_range};
  v = parsed;
  return {stop, std::errc()};
#else
  return std::from_chars(first, last, v);
#endif
}

/// Shortest decimal digits (no dot) and exponent e with value = d.ddd * 10^e that read back as v in
/// a 16-bit float type (`round` maps the parsed double to its bits). Tries 1, 2, ... digits, each
/// correctly rounded by std::to_chars (locale-independent, like every conversion here).
template <class Round>
void Shortest16(double v, uint16_t bits, Round round, std::string* digits, int* exp) {
  char buf[64];
  char* end = buf;
  for (int p = 1; p <= 17; ++p) {
    end = SciChars(buf, buf + sizeof buf, v, p - 1);
    double back = 0;
    ParseFloating(buf, end, back);
    if (round(back) == bits) break;
  }
  *end = '\0';
  // buf is "[-]d[.ddd]e[+-]xx"
  const char* c = buf + (buf[0] == '-');
  digits->clear();
  for (; *c != 'e'; ++c)
    if (*c != '.') *digits += *c;
  *exp = std::atoi(c + 1);
}

/// Splits std::to_chars's shortest scientific form ("[-]d[.ddd]e[+-]xx") into digits and exponent.
template <class F>
void ShortestIeee(F v, std::string* digits, int* exp) {
  char buf[64];
#ifdef TARE_NO_FLOAT_CHARCONV
  // The fewest digits that read back as v: the shortest form std::to_chars gives.
  char* end = buf;
  for (int p = 1; p <= 17; ++p) {
    end = SciChars(buf, buf + sizeof buf, static_cast<double>(v), p - 1);
    F back = 0;
    ParseFloating(buf, end, back);
    if (back == v) break;
  }
  *end = '\0';
#else
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  *r.ptr = '\0';
#endif
  const char* c = buf + (buf[0] == '-');
  digits->clear();
  for (; *c != 'e'; ++c)
    if (*c != '.') *digits += *c;
  *exp = std::atoi(c + 1);
}

/// numpy's str() of a float v given its shortest digits: positional for 1e-4 <= |v| < 1e16 (the
/// exact value compared, so float32(1e-4) = 9.99999974e-05 is scientific; at least one digit after
/// the point), else scientific with a two-digit (or longer) exponent.
std::string NumpyFloatStr(double v, const std::string& digits, int exp) {
  const bool neg = std::signbit(v);
  const double a = std::fabs(v);
  std::string s = neg ? "-" : "";
  std::string d = digits;
  while (d.size() > 1 && d.back() == '0') d.pop_back();
  if (d == "0") return s + "0.0";
  if (a >= 1e-4 && a < 1e16) {
    if (exp < 0) return s + "0." + std::string(static_cast<size_t>(-exp - 1), '0') + d;
    const size_t ip = static_cast<size_t>(exp) + 1;
    if (d.size() <= ip) return s + d + std::string(ip - d.size(), '0') + ".0";
    return s + d.substr(0, ip) + "." + d.substr(ip);
  }
  s += d.substr(0, 1);
  if (d.size() > 1) s += "." + d.substr(1);
  char e[16];
  std::snprintf(e, sizeof e, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
  return s + e;
}

/// One float value (of source type S, `as_float` = a float32 value held in a double) as text.
template <DType S>
std::string FloatStr(typename Stor<S>::type v, bool as_float) {
  double f;
  if constexpr (S == DType::kFloat16) f = HalfToFloat(v);
  else if constexpr (S == DType::kBFloat16) f = BFloat16ToFloat(v);
  else f = static_cast<double>(v);
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f < 0 ? "-inf" : "inf";
  std::string digits;
  int exp = 0;
  if constexpr (S == DType::kFloat16) Shortest16(f, v, DoubleToHalf, &digits, &exp);
  else if constexpr (S == DType::kBFloat16)
    Shortest16(f, v, [](double d) { return FloatToBFloat16Nearest(static_cast<float>(d)); }, &digits, &exp);
  else if constexpr (S == DType::kFloat32) ShortestIeee(v, &digits, &exp);
  else if (as_float) ShortestIeee(static_cast<float>(v), &digits, &exp);
  else ShortestIeee(v, &digits, &exp);
  return NumpyFloatStr(f, digits, exp);
}

/// x (numeric) into y (string). `ref64` = float32 values are held as doubles (see runtime/ops/cast.cc).
template <DType S>
void NumberToString(const Tensor& x, Tensor& y, bool ref64) {
  const auto* a = static_cast<const typename Stor<S>::type*>(x.data);
  std::string* b = y.as<std::string>();
  const int64_t n = x.numel();
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (S == DType::kBool) {
      b[i] = a[i] ? "True" : "False";
    } else if constexpr (IsFloat(S)) {
      bool as_float = false;
      if constexpr (S == DType::kFloat64)
        as_float = ref64 && std::isfinite(a[i]) && static_cast<double>(static_cast<float>(a[i])) == a[i];
      b[i] = FloatStr<S>(a[i], as_float);
    } else {
      b[i] = std::to_string(a[i]);
    }
  }
}

/// A parsed string: an exact integer (signed or unsigned) or a double.
struct Parsed {
  enum { kInt, kUInt, kReal } kind = kReal;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
};

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

bool IEquals(const std::string& a, const char* b) {
  size_t k = 0;
  for (; k < a.size() && b[k]; ++k)
    if (Lower(a[k]) != b[k]) return false;
  return k == a.size() && !b[k];
}

/// The value of a number text beyond double's range: +-0 when it is tiny (a negative exponent, or
/// no exponent and no integer digits: "0.000...1"), else +-inf.
double OutOfRange(const std::string& s) {
  const bool neg = !s.empty() && s[0] == '-';
  const size_t e = s.find_first_of("eE");
  bool tiny;
  if (e != std::string::npos) {
    tiny = e + 1 < s.size() && s[e + 1] == '-';
  } else {
    size_t k = s.find_first_not_of("+-");
    while (k < s.size() && s[k] == '0') ++k;
    tiny = k < s.size() && s[k] == '.';
  }
  const double m = tiny ? 0.0 : std::numeric_limits<double>::infinity();
  return neg ? -m : m;
}

/// Parses a number ("3", "-2.5e3", "+INF", "nan", ...; surrounding ASCII spaces allowed) or
/// "true"/"false" (any case). Error names the string.
Result<Parsed> ParseNumber(const std::string& str) {
  size_t b = 0, e = str.size();
  while (b < e && IsSpace(str[b])) ++b;
  while (e > b && IsSpace(str[e - 1])) --e;
  std::string s = str.substr(b, e - b);
  Parsed p;
  if (IEquals(s, "true") || IEquals(s, "false")) {
    p.kind = Parsed::kInt;
    p.i = IEquals(s, "true");
    return p;
  }
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (first != last && *first == '+' && last - first > 1 && first[1] != '-') ++first;  // from_chars takes no '+'
  if (first != last) {
    int64_t iv;
    auto r = std::from_chars(first, last, iv);
    if (r.ec == std::errc() && r.ptr == last) {
      p.kind = Parsed::kInt;
      p.i = iv;
      return p;
    }
    uint64_t uv;
    r = std::from_chars(first, last, uv);
    if (r.ec == std::errc() && r.ptr == last) {
      p.kind = Parsed::kUInt;
      p.u = uv;
      return p;
    }
    double dv;
    auto rd = ParseFloating(first, last, dv);
    if ((rd.ec == std::errc() || rd.ec == std::errc::result_out_of_range) && rd.ptr == last) {
      if (rd.ec == std::errc::result_out_of_range) dv = OutOfRange(s);
      p.d = dv;
      return p;
    }
  }
  return Status::Error("Cast: cannot parse '" + str + "' as a number");
}

template <DType D>
Status StringToNumber(const Tensor& x, Tensor& y) {
  const std::string* a = x.as<std::string>();
  auto* b = static_cast<typename Stor<D>::type*>(y.data);
  const int64_t n = x.numel();
  for (int64_t i = 0; i < n; ++i) {
    TARE_ASSIGN_OR_RETURN(Parsed p, ParseNumber(a[i]));
    if (p.kind == Parsed::kInt) {
      b[i] = Convert<DType::kInt64, D>(p.i);
    } else if (p.kind == Parsed::kUInt) {
      b[i] = Convert<DType::kUInt64, D>(p.u);
    } else if constexpr (D == DType::kFloat32) {
      // Correctly rounded to float32 directly from the text (no double rounding via double).
      const std::string& s = a[i];
      float fv = 0;
      const char* first = s.data();
      while (IsSpace(*first)) ++first;
      if (*first == '+') ++first;
      auto r = ParseFloating(first, s.data() + s.size(), fv);
      b[i] = r.ec == std::errc() ? fv : static_cast<float>(p.d);
    } else {
      b[i] = Convert<DType::kFloat64, D>(p.d);
    }
  }
  return Status::Ok();
}

/// True for the types held one per byte as codes or 4-bit values (runtime/ir/float8.h).
bool IsSmallType(DType t) { return DTypeIsFloat8(t) || t == DType::kInt4 || t == DType::kUInt4; }

/// Cast to or from a float8 or 4-bit type (runtime/ops/cast.cc): float8 -> any through its exact
/// double value; int4/uint4 -> any as an integer; -> float8 rounds to nearest even by the Cast-19
/// table (`saturate`); float -> int4/uint4 truncates toward zero and saturates to the range (NaN 0),
/// integer -> int4/uint4 keeps the low four bits; bool is 0/1 both ways.
Status CastSmall(const Tensor& x, Tensor& y, bool saturate) {
  if (x.dtype == DType::kString || y.dtype == DType::kString)
    return Status::Error("Cast between string and " + DTypeName(IsSmallType(x.dtype) ? x.dtype : y.dtype) +
                         " is not supported");
  const bool from_int = !DTypeIsFloat8(x.dtype) && !DTypeIsFloat(x.dtype) && x.dtype != DType::kBFloat16;
  const int64_t n = x.numel();
  for (int64_t i = 0; i < n; ++i) {
    if (from_int) {
      const int64_t v = ReadInt(x, i);
      if (DTypeIsFloat8(y.dtype)) y.as<uint8_t>()[i] = DoubleToFloat8(y.dtype, static_cast<double>(v), saturate);
      else if (y.dtype == DType::kBool) y.as<uint8_t>()[i] = v != 0;
      else if (DTypeIsFloat(y.dtype) || y.dtype == DType::kBFloat16) WriteDouble(y, i, static_cast<double>(v));
      else WriteInt(y, i, v);  // integer -> integer: low bits (int4/uint4: WrapInt4)
    } else {
      const double v = ReadDouble(x, i);
      if (DTypeIsFloat8(y.dtype)) y.as<uint8_t>()[i] = DoubleToFloat8(y.dtype, v, saturate);
      else if (y.dtype == DType::kBool) y.as<uint8_t>()[i] = v != 0.0;
      else WriteDouble(y, i, v);  // exact for float8 -> float; int4 saturates
    }
  }
  return Status::Ok();
}

/// Casts x into y (same shape), dispatching on both storage types. `ref64`: float32 values are
/// held as doubles. `saturate` applies to float8 outputs only (Cast-19).
Status CastTensor(const Tensor& x, Tensor& y, bool ref64, bool saturate) {
  if (x.dtype != y.dtype && (IsSmallType(x.dtype) || IsSmallType(y.dtype))) return CastSmall(x, y, saturate);
  if (x.dtype == DType::kString && y.dtype == DType::kString) {
    for (int64_t i = 0; i < x.numel(); ++i) y.as<std::string>()[i] = x.as<std::string>()[i];
    return Status::Ok();
  }
  if (x.dtype == DType::kString) {
    switch (y.dtype) {
#define X(code) case DType::code: return StringToNumber<DType::code>(x, y);
      TARE_CAST_TYPES(X)
#undef X
      default: return Status::Error("Cast: unsupported output type " + DTypeName(y.dtype));
    }
  }
  if (y.dtype == DType::kString) {
    switch (x.dtype) {
#define X(code) case DType::code: NumberToString<DType::code>(x, y, ref64); return Status::Ok();
      TARE_CAST_TYPES(X)
#undef X
      default: return Status::Error("Cast: unsupported input type " + DTypeName(x.dtype));
    }
  }
  if (x.dtype == y.dtype) {
    if (x.numel()) std::memcpy(y.data, x.data, x.nbytes());
    return Status::Ok();
  }
  switch (x.dtype) {
#define X(code) case DType::code: return ToAny<DType::code>(x, y);
    TARE_CAST_TYPES(X)
#undef X
    default: return Status::Error("Cast: unsupported input type " + DTypeName(x.dtype));
  }
}

}  // namespace

template <class T>
Result<KernelFn> MakeCast(const Node& node) {
  if (node.op != "CastLike" && !node.has("to")) return Status::Error(node.Where() + ": attribute 'to' is required");
  constexpr bool ref64 = std::is_same<T, double>::value;
  TARE_ASSIGN_OR_RETURN(int64_t saturate, node.GetInt("saturate", 1));
  // tare's own attribute (runtime/ir/graph.h), set only on the Casts a fast backend adds around a
  // narrow node (WidePartition): float32 rounded to nearest even, as an op's narrow output is
  // (runtime/exec/narrow_float.h), kept in float32 or stored as bfloat16.
  TARE_ASSIGN_OR_RETURN(int64_t round_to, node.GetInt(kCastRoundTo, 0));
  if (round_to != 0 && round_to != 10 && round_to != 16)
    return Status::Error(node.Where() + ": " + kCastRoundTo + " must be 10 (float16) or 16 (bfloat16)");
  return KernelFn([saturate, round_to](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    if (round_to && in[0]->dtype == DType::kFloat32 && out[0]->dtype == DType::kFloat32) {
      const float* x = in[0]->as<float>();
      float* y = out[0]->as<float>();
      for (int64_t i = 0, n = in[0]->numel(); i < n; ++i)
        y[i] = round_to == 10 ? HalfToFloat(FloatToHalf(x[i])) : BFloat16ToFloat(FloatToBFloat16Nearest(x[i]));
      return Status::Ok();
    }
    if (round_to == 16 && in[0]->dtype == DType::kFloat32 && out[0]->dtype == DType::kBFloat16) {
      const float* x = in[0]->as<float>();
      uint16_t* y = out[0]->as<uint16_t>();
      for (int64_t i = 0, n = in[0]->numel(); i < n; ++i) y[i] = FloatToBFloat16Nearest(x[i]);
      return Status::Ok();
    }
    return CastTensor(*in[0], *out[0], ref64, saturate != 0);
  });
}

TARE_INSTANTIATE_REF(Cast)

}  // namespace tare
