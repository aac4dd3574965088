// Reference kernels of the elementwise unary ops (semantics: runtime/ops/unary.cc).
// Transcendental functions are evaluated in double and rounded once (ViaDouble).
#include <cmath>
#include <cstring>

#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

template <class T, class F>
KernelFn Map(F f) {
  return [f](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const T* x = in[0]->as<T>();
    T* y = out[0]->as<T>();
    const int64_t n = in[0]->numel();
    for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
    return Status::Ok();
  };
}

// Ops that also accept integer inputs (Abs, Neg, Relu, Clip): dispatch on the runtime dtype.
template <class F>
Status MapAny(const Tensor& x, Tensor& y, F f) {
  const int64_t n = x.numel();
  switch (x.dtype) {
#define CASE(code, U) \
  case DType::code: { const U* a = x.as<U>(); U* b = y.as<U>(); for (int64_t i = 0; i < n; ++i) b[i] = f(a[i]); break; }
    CASE(kFloat32, float) CASE(kFloat64, double) CASE(kInt64, int64_t) CASE(kInt32, int32_t)
    CASE(kInt16, int16_t) CASE(kInt8, int8_t) CASE(kUInt8, uint8_t) CASE(kUInt16, uint16_t)
    CASE(kUInt32, uint32_t) CASE(kUInt64, uint64_t)
#undef CASE
    default: return Status::Error("unsupported dtype " + DTypeName(x.dtype));
  }
  return Status::Ok();
}

}  // namespace

template <class T>
Result<KernelFn> MakeUnary(const Node& node) {
  const std::string& op = node.op;
  if (op == "Identity" || op == "Dropout") {
    return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      if (!in[0]->is_tensor() || in[0]->dtype == DType::kString) {  // immutable values: share them
        *out[0] = *in[0];
        return Status::Ok();
      }
      if (in[0]->nbytes()) std::memcpy(out[0]->data, in[0]->data, in[0]->nbytes());
      if (out.size() > 1 && out[1]) {
        bool* m = out[1]->as<bool>();
        for (int64_t i = 0; i < out[1]->numel(); ++i) m[i] = true;
      }
      return Status::Ok();
    });
  }
  if (op == "Abs")
    return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      return MapAny(*in[0], *out[0], [](auto v) { return v < 0 ? decltype(v)(-v) : v; });
    });
  if (op == "Neg")
    return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      return MapAny(*in[0], *out[0], [](auto v) { return decltype(v)(-v); });
    });
  if (op == "Relu")
    return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      // np.maximum(x, 0): NaN passes through (v != v), -0 and every other non-positive give +0.
      return MapAny(*in[0], *out[0], [](auto v) { return (v > 0 || v != v) ? v : decltype(v)(0); });
    });
  if (op == "Clip") {
    return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      const bool has_lo = in.size() > 1 && in[1], has_hi = in.size() > 2 && in[2];
      const double lo = has_lo ? ReadDouble(*in[1], 0) : -INFINITY;
      const double hi = has_hi ? ReadDouble(*in[2], 0) : INFINITY;
      // Min(max, Max(x, min)), compared in double (exact for every stored type up to 2^53): NaN
      // passes through; min > max gives max everywhere. An absent bound is unbounded (+-inf stay), as
      // onnx.reference and torch.clamp have it (Clip-13's text says numeric_limits lowest/max).
      return MapAny(*in[0], *out[0], [lo, hi](auto v) {
        double d = static_cast<double>(v);
        if (d < lo) return static_cast<decltype(v)>(hi < lo ? hi : lo);
        if (d > hi) return static_cast<decltype(v)>(hi);
        return v;
      });
    });
  }
  if (op == "Sqrt") return Map<T>([](T v) { return static_cast<T>(std::sqrt(v)); });
  if (op == "Reciprocal") return Map<T>([](T v) { return static_cast<T>(T(1) / v); });
  if (op == "Exp") return Map<T>([](T v) { return ViaDouble<T>([](double d) { return std::exp(d); }, v); });
  if (op == "Log") return Map<T>([](T v) { return ViaDouble<T>([](double d) { return std::log(d); }, v); });
  if (op == "Tanh") return Map<T>([](T v) { return ViaDouble<T>([](double d) { return std::tanh(d); }, v); });
  if (op == "Erf") return Map<T>([](T v) { return ViaDouble<T>([](double d) { return std::erf(d); }, v); });
  if (op == "Sigmoid")
    return Map<T>([](T v) { return ViaDouble<T>([](double d) { return 1.0 / (1.0 + std::exp(-d)); }, v); });
  if (op == "LeakyRelu") {
    TARE_ASSIGN_OR_RETURN(float a, node.GetFloat("alpha", 0.01f));
    const T alpha = static_cast<T>(a);
    return Map<T>([alpha](T v) { return v < 0 ? static_cast<T>(alpha * v) : v; });
  }
  if (op == "Elu") {
    TARE_ASSIGN_OR_RETURN(float a, node.GetFloat("alpha", 1.0f));
    const double alpha = a;
    return Map<T>([alpha](T v) {
      return v < 0 ? ViaDouble<T>([alpha](double d) { return alpha * std::expm1(d); }, v) : v;
    });
  }
  if (op == "Selu") {
    TARE_ASSIGN_OR_RETURN(float a, node.GetFloat("alpha", 1.67326319217681884765625f));
    TARE_ASSIGN_OR_RETURN(float g, node.GetFloat("gamma", 1.05070102214813232421875f));
    const double alpha = a, gamma = g;
    return Map<T>([alpha, gamma](T v) {
      return ViaDouble<T>([=](double d) { return d > 0 ? gamma * d : gamma * alpha * std::expm1(d); }, v);
    });
  }
  if (op == "HardSigmoid") {
    TARE_ASSIGN_OR_RETURN(float a, node.GetFloat("alpha", 0.2f));
    TARE_ASSIGN_OR_RETURN(float b, node.GetFloat("beta", 0.5f));
    const T alpha = static_cast<T>(a), beta = static_cast<T>(b);
    return Map<T>([alpha, beta](T v) {
      T s = static_cast<T>(alpha * v);
      s = static_cast<T>(s + beta);
      return s < 0 ? T(0) : s > 1 ? T(1) : s;
    });
  }
  if (op == "HardSwish") {
    // y = x * max(0, min(1, x/6 + 1/2)); the division is an exact-order fp operation in T.
    return Map<T>([](T v) {
      T s = static_cast<T>(v / T(6));
      s = static_cast<T>(s + T(0.5));
      s = s < 0 ? T(0) : s > 1 ? T(1) : s;
      return static_cast<T>(v * s);
    });
  }
  return Status::Error(node.Where() + ": not a unary op");
}

TARE_INSTANTIATE_REF(Unary)

}  // namespace tare
