// Per-dtype element access, shared by the reference kernels (kernels/ref/) and the data-dependent
// helpers of shape inference (runtime/ops/data_dependent.h): Elem<D> names a dtype's storage type S
// and the type C its arithmetic runs in, and the Visit* functions dispatch a generic lambda
// on a tensor's runtime dtype. float16 is stored as raw uint16 bits and computed in float; every
// other type is computed in its own storage type (float32 values reach kernels as the compute
// type T, i.e. as a kFloat32 tensor in `ref` and a kFloat64 tensor in `ref64`).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "runtime/ir/tensor.h"

namespace tare {

/// double -> float16 bits, rounded once to nearest even: the double is first rounded to float
/// with round-to-odd (truncate, then set the last bit when inexact), which keeps the following
/// float -> half rounding correct (float carries 24 >= 11 + 2 bits).
inline uint16_t DoubleToHalf(double d) {
  float f = static_cast<float>(d);
  if (std::isfinite(f) && static_cast<double>(f) != d) {
    if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    bits |= 1;
    std::memcpy(&f, &bits, 4);
  }
  return FloatToHalf(f);
}

/// Element traits of dtype D: S = storage type, C = computation type, Load/Store between them,
/// FromDouble (floating types: round a double once to S).
template <DType D>
struct Elem;

#define TARE_ELEM_PLAIN(code, type)                                \
  template <>                                                      \
  struct Elem<DType::code> {                                       \
    using S = type;                                                \
    using C = type;                                                \
    static constexpr DType kType = DType::code;                    \
    static C Load(S v) { return v; }                               \
    static S Store(C v) { return v; }                              \
    static S FromDouble(double v) { return static_cast<S>(v); }    \
  };
TARE_ELEM_PLAIN(kFloat32, float)
TARE_ELEM_PLAIN(kFloat64, double)
TARE_ELEM_PLAIN(kInt8, int8_t)
TARE_ELEM_PLAIN(kInt16, int16_t)
TARE_ELEM_PLAIN(kInt32, int32_t)
TARE_ELEM_PLAIN(kInt64, int64_t)
TARE_ELEM_PLAIN(kUInt8, uint8_t)
TARE_ELEM_PLAIN(kUInt16, uint16_t)
TARE_ELEM_PLAIN(kUInt32, uint32_t)
TARE_ELEM_PLAIN(kUInt64, uint64_t)
TARE_ELEM_PLAIN(kBool, bool)
#undef TARE_ELEM_PLAIN

template <>
struct Elem<DType::kFloat16> {
  using S = uint16_t;
  using C = float;
  static constexpr DType kType = DType::kFloat16;
  static C Load(S v) { return HalfToFloat(v); }
  static S Store(C v) { return FloatToHalf(v); }
  static S FromDouble(double v) { return DoubleToHalf(v); }
};

/// True when E (an Elem<D>) is a floating-point type (float16, float32, float64).
template <class E>
constexpr bool kElemIsFloat = std::is_floating_point_v<typename E::C>;

/// Calls f(Elem<D>{}) for a floating-point dtype D; false (f not called) for other dtypes.
template <class F>
bool VisitFloat(DType d, F&& f) {
  switch (d) {
    case DType::kFloat16: f(Elem<DType::kFloat16>{}); return true;
    case DType::kFloat32: f(Elem<DType::kFloat32>{}); return true;
    case DType::kFloat64: f(Elem<DType::kFloat64>{}); return true;
    default: return false;
  }
}

/// Calls f(Elem<D>{}) for an integer dtype D (int8..int64, uint8..uint64); false otherwise.
template <class F>
bool VisitInteger(DType d, F&& f) {
  switch (d) {
    case DType::kInt8: f(Elem<DType::kInt8>{}); return true;
    case DType::kInt16: f(Elem<DType::kInt16>{}); return true;
    case DType::kInt32: f(Elem<DType::kInt32>{}); return true;
    case DType::kInt64: f(Elem<DType::kInt64>{}); return true;
    case DType::kUInt8: f(Elem<DType::kUInt8>{}); return true;
    case DType::kUInt16: f(Elem<DType::kUInt16>{}); return true;
    case DType::kUInt32: f(Elem<DType::kUInt32>{}); return true;
    case DType::kUInt64: f(Elem<DType::kUInt64>{}); return true;
    default: return false;
  }
}

/// Calls f(Elem<D>{}) for a float or integer dtype; false otherwise (bool, undefined, string).
template <class F>
bool VisitNumeric(DType d, F&& f) {
  return VisitFloat(d, f) || VisitInteger(d, f);
}

/// True for a NaN of a floating type; integers are never NaN.
template <class V>
inline bool IsNan(V v) {
  if constexpr (std::is_floating_point_v<V>) return std::isnan(v);
  else return false;
}

/// Integer arithmetic that wraps around like two's complement, without undefined behaviour:
/// operands are widened to an unsigned type of at least `unsigned int`'s width, combined, and
/// the result narrowed back to I.
template <class I>
using WrapUnsigned = std::conditional_t<(sizeof(I) < sizeof(unsigned)), unsigned, std::make_unsigned_t<I>>;

}  // namespace tare
