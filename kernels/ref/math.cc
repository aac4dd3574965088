// Reference kernels of the elementwise math ops (semantics: runtime/ops/math.cc). Every float op
// is evaluated in double on the element's value and rounded once to the storage type (float16:
// directly to half, DoubleToHalf); the exact ones (Sign, Ceil, Floor, Round, ThresholdedRelu)
// thus return exact results. Elements are independent; no accumulation order applies.
#include <cmath>
#include <string>
#include <type_traits>

#include "runtime/ir/elem.h"
#include "kernels/ref/ref_kernels.h"
#include "runtime/ir/float8.h"

namespace tare {
namespace {

/// A kernel computing y = f(x) in double for float16/float32/float64 tensors.
template <class F>
KernelFn FloatMap(F f) {
  return [f](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    const int64_t n = x.numel();
    const bool ok = VisitFloat(x.dtype, [&](auto e) {
      using E = decltype(e);
      const typename E::S* px = x.as<typename E::S>();
      typename E::S* py = out[0]->as<typename E::S>();
      for (int64_t i = 0; i < n; ++i) py[i] = E::FromDouble(f(static_cast<double>(E::Load(px[i]))));
    });
    return ok ? Status::Ok() : Status::Error("unsupported dtype " + DTypeName(x.dtype));
  };
}

/// A kernel computing the bool y = f(x) for float16/float32/float64 tensors.
template <class F>
KernelFn FloatTest(F f) {
  return [f](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    const int64_t n = x.numel();
    bool* py = out[0]->as<bool>();
    if (DTypeIsFloat8(x.dtype)) {
      for (int64_t i = 0; i < n; ++i) py[i] = f(Float8ToDouble(x.dtype, x.as<uint8_t>()[i]));
      return Status::Ok();
    }
    const bool ok = VisitFloat(x.dtype, [&](auto e) {
      using E = decltype(e);
      const typename E::S* px = x.as<typename E::S>();
      for (int64_t i = 0; i < n; ++i) py[i] = f(static_cast<double>(E::Load(px[i])));
    });
    return ok ? Status::Ok() : Status::Error("unsupported dtype " + DTypeName(x.dtype));
  };
}

/// Round half to even, keeping the sign of zero (-0.4 -> -0).
double RoundHalfEven(double v) {
  double r = std::floor(v);
  const double diff = v - r;  // exact; NaN for +-inf (then r is returned unchanged)
  if (diff > 0.5 || (diff == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
  return r == 0.0 ? std::copysign(0.0, v) : r;
}

/// Sign of any numeric tensor: -1, 0 or 1 in its dtype (NaN stays NaN).
Status SignAny(const Tensor& x, Tensor& y) {
  const int64_t n = x.numel();
  const bool ok = VisitNumeric(x.dtype, [&](auto e) {
    using E = decltype(e);
    using S = typename E::S;
    const S* px = x.as<S>();
    S* py = y.as<S>();
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (kElemIsFloat<E>) {
        const double v = E::Load(px[i]);
        py[i] = E::FromDouble(v > 0 ? 1.0 : v < 0 ? -1.0 : v);
      } else if constexpr (std::is_signed_v<S>) {
        py[i] = px[i] > 0 ? S(1) : px[i] < 0 ? S(-1) : S(0);
      } else {
        py[i] = px[i] > 0 ? S(1) : S(0);
      }
    }
  });
  return ok ? Status::Ok() : Status::Error("unsupported dtype " + DTypeName(x.dtype));
}

}  // namespace

template <class T>
Result<KernelFn> MakeMath(const Node& node) {
  const std::string& op = node.op;
  if (op == "Sign")
    return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      return SignAny(*in[0], *out[0]);
    });
  if (op == "Ceil") return FloatMap([](double v) { return std::ceil(v); });
  if (op == "Floor") return FloatMap([](double v) { return std::floor(v); });
  if (op == "Round") return FloatMap(RoundHalfEven);
  if (op == "Sin") return FloatMap([](double v) { return std::sin(v); });
  if (op == "Cos") return FloatMap([](double v) { return std::cos(v); });
  if (op == "Tan") return FloatMap([](double v) { return std::tan(v); });
  if (op == "Asin") return FloatMap([](double v) { return std::asin(v); });
  if (op == "Acos") return FloatMap([](double v) { return std::acos(v); });
  if (op == "Atan") return FloatMap([](double v) { return std::atan(v); });
  if (op == "Sinh") return FloatMap([](double v) { return std::sinh(v); });
  if (op == "Cosh") return FloatMap([](double v) { return std::cosh(v); });
  if (op == "Asinh") return FloatMap([](double v) { return std::asinh(v); });
  if (op == "Acosh") return FloatMap([](double v) { return std::acosh(v); });
  if (op == "Atanh") return FloatMap([](double v) { return std::atanh(v); });
  // ln(1 + e^x) without overflow: x + ln(1 + e^-x) for x > 0.
  if (op == "Softplus")
    return FloatMap([](double v) { return v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v)); });
  if (op == "Softsign") return FloatMap([](double v) { return v / (1.0 + std::fabs(v)); });
  if (op == "ThresholdedRelu") {
    TARE_ASSIGN_OR_RETURN(float a, node.GetFloat("alpha", 1.0f));
    const double alpha = a;
    return FloatMap([alpha](double v) { return v > alpha ? v : 0.0; });
  }
  if (op == "Shrink") {
    TARE_ASSIGN_OR_RETURN(float b, node.GetFloat("bias", 0.0f));
    TARE_ASSIGN_OR_RETURN(float l, node.GetFloat("lambd", 0.5f));
    const double bias = b, lambd = l;
    return FloatMap([bias, lambd](double v) { return v < -lambd ? v + bias : v > lambd ? v - bias : 0.0; });
  }
  if (op == "Celu") {
    TARE_ASSIGN_OR_RETURN(float a, node.GetFloat("alpha", 1.0f));
    if (a == 0.0f) return Status::Error(node.Where() + ": attribute alpha must be nonzero");
    const double alpha = a;
    // max(0, x) + min(0, alpha * (e^(x/alpha) - 1)) is x for x > 0 and the second term otherwise
    // (for either sign of alpha); written this way NaN propagates.
    return FloatMap([alpha](double v) { return v > 0 ? v : alpha * std::expm1(v / alpha); });
  }
  if (op == "Gelu") {
    TARE_ASSIGN_OR_RETURN(std::string approximate, node.GetString("approximate", "none"));
    if (approximate == "tanh")
      return FloatMap([](double v) {
        const double k = std::sqrt(2.0 / 3.14159265358979323846);
        return 0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v)));
      });
    return FloatMap([](double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); });
  }
  if (op == "Mish")
    return FloatMap([](double v) {
      const double sp = v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v));
      return v * std::tanh(sp);
    });
  if (op == "IsNaN") return FloatTest([](double v) { return std::isnan(v); });
  if (op == "IsInf") {
    TARE_ASSIGN_OR_RETURN(int64_t neg, node.GetInt("detect_negative", 1));
    TARE_ASSIGN_OR_RETURN(int64_t pos, node.GetInt("detect_positive", 1));
    return FloatTest([neg, pos](double v) { return std::isinf(v) && (v > 0 ? pos != 0 : neg != 0); });
  }
  return Status::Error(node.Where() + ": not a math op");
}

TARE_INSTANTIATE_REF(Math)

}  // namespace tare
