// Reference kernel of Cast and CastLike (semantics: runtime/ops/cast.cc). Dispatches on the storage types of
// the input and the (preallocated) output: a float32 value arrives and leaves in the compute type
// T, so on ref64 float32 <-> float64 casts are plain copies. Every conversion is defined for every
// input (no C++ undefined behaviour): float -> integer saturates and maps NaN to 0; integer ->
// integer wraps (two's complement); float16 results are rounded once, directly from double.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/ref/ref_kernels.h"

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
TARE_STOR(kBool, uint8_t)
#undef TARE_STOR

constexpr bool IsFloat(DType d) { return d == DType::kFloat32 || d == DType::kFloat64 || d == DType::kFloat16; }

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
    else f = static_cast<double>(v);
    if constexpr (D == DType::kFloat16) return DoubleToHalf(f);
    else if constexpr (IsFloat(D)) return static_cast<Out>(f);
    else if constexpr (D == DType::kBool) return f != 0.0 ? 1 : 0;
    else return FloatToInt<Out>(f);
  } else if constexpr (S == DType::kBool) {
    const bool b = v != 0;
    if constexpr (D == DType::kFloat16) return b ? 0x3c00 : 0;
    else return static_cast<Out>(b ? 1 : 0);
  } else {
    if constexpr (D == DType::kFloat16) return DoubleToHalf(static_cast<double>(v));
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
  X(kUInt16) X(kUInt32) X(kUInt64) X(kBool)

template <DType S>
Status ToAny(const Tensor& x, Tensor& y) {
  switch (y.dtype) {
#define X(code) case DType::code: Loop<S, DType::code>(x, y); return Status::Ok();
    TARE_CAST_TYPES(X)
#undef X
    default: return Status::Error("Cast: unsupported output type " + DTypeName(y.dtype));
  }
}

/// Casts x into y (same shape), dispatching on both storage types.
Status CastTensor(const Tensor& x, Tensor& y) {
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
  return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    return CastTensor(*in[0], *out[0]);
  });
}

TARE_INSTANTIATE_REF(Cast)

}  // namespace tare
