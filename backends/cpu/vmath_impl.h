// Vector math of the cpu backend's own kernels (isa_kernels.h), written once over a vector type
// and included by the two files built for an instruction set: conv_gemm_avx512.cc (16 lanes) and
// conv_gemm_avx2.cc (8 lanes). Not a public header: include it only there. Both do the same
// operations per lane except V::Ratio (AVX2 divides, AVX-512 multiplies by a refined reciprocal),
// so their results may differ in the last bit.
#pragma once
#include <cstddef>

namespace tare::cpu::vmath_impl {

/// e^-a for a >= 0 (a NaN lane gives some number; callers restore NaN): t = max(-a, -104) (below,
/// e^t is under half the smallest denormal), n = round(t / ln 2) as nb = fma(t, 1 / ln 2, M) - M
/// with M = 1.5 * 2^23 + 127 (the sum rounds to an integer whose low mantissa bits hold n + 127,
/// 2^n's biased exponent for n >= -126), r = t - n ln 2 in two parts (Cody-Waite; |r| <= ln 2 / 2),
/// e^r by its Taylor polynomial of degree 7 (truncation under 0.1 ULP there) in Horner's form with
/// FMAs, times 2^n exactly (V::Scale2, denormals included).
template <class V>
inline typename V::T ExpNeg(typename V::T a) {
  using T = typename V::T;
  const T t = V::Max(V::Sub(V::Set1(0.0f), a), V::Set1(-104.0f));
  const T magic = V::Set1(12583039.0f);  // 1.5 * 2^23 + 127
  const T nb = V::Fma(t, V::Set1(1.44269504088896341f), magic);
  const T n = V::Sub(nb, magic);
  T r = V::Fnma(n, V::Set1(0.693145751953125f), t);  // ln 2 = 0.693145751953125 + 1.42860682e-6
  r = V::Fnma(n, V::Set1(1.428606820309417e-06f), r);
  T p = V::Set1(1.0f / 5040);
  p = V::Fma(p, r, V::Set1(1.0f / 720));
  p = V::Fma(p, r, V::Set1(1.0f / 120));
  p = V::Fma(p, r, V::Set1(1.0f / 24));
  p = V::Fma(p, r, V::Set1(1.0f / 6));
  p = V::Fma(p, r, V::Set1(0.5f));
  p = V::Fma(p, r, V::Set1(1.0f));
  p = V::Fma(p, r, V::Set1(1.0f));
  return V::Scale2(p, n, nb);
}

/// sigmoid(x) = 1 / (1 + e^-x) per lane: e = e^-|x|; V::Ratio(x < 0 ? e : 1, 1 + e) (1 + e is in
/// [1, 2]; the quotient correctly rounded or within about an ULP), which
/// never overflows (XNNPACK 2022's sigmoid gives NaN from |x| ~ 5e26, docs/FINDINGS.md F9); NaN
/// lanes keep x.
template <class V>
inline typename V::T Sigmoid(typename V::T x) {
  using T = typename V::T;
  const T one = V::Set1(1.0f);
  const T e = ExpNeg<V>(V::Abs(x));
  const T s = V::Ratio(V::Blend(V::Less(x, V::Set1(0.0f)), e, one), V::Add(one, e));
  return V::Blend(V::IsNan(x), x, s);
}

/// x * sigmoid(x) per lane (isa_kernels.h, SiluAvx512), the product rounded once; NaN lanes keep
/// x, -inf gives NaN (-inf * 0), as ONNX Mul(x, Sigmoid(x)) does.
template <class V>
inline typename V::T Silu(typename V::T x) {
  return V::Mul(x, Sigmoid<V>(x));
}

/// A vector at p: lanes m, or (Full) all of them by a plain load; AMD Zen microcodes AVX2's masked
/// moves (vmaskmovps), whose store form costs many times a plain store.
template <class V, bool Full>
inline typename V::T Ld(const float* p, typename V::Mask m) {
  if constexpr (Full) return V::LoadU(p);
  else return V::Load(p, m);
}
/// The store of Ld.
template <class V, bool Full>
inline void St(float* p, typename V::T v, typename V::Mask m) {
  if constexpr (Full) V::StoreU(p, v);
  else V::Store(p, v, m);
}

/// y[i] = F(x[i]) for i < n, a vector at a time (plain loads and stores), the tail masked (F:
/// Sigmoid<V> or Silu<V>).
template <class V, typename V::T (*F)(typename V::T)>
void Row(const float* x, float* y, size_t n) {
  size_t i = 0;
  // Two independent vectors a step: F is one long dependency chain, which one vector at a time
  // leaves the FMA units waiting, and four spill registers on AVX2 (Zen 3, EfficientNet-B0's SiLU
  // steps: one vector 5.4 ms, four 4.7; with V::Ratio's division, four 3.7 and two 3.5).
  constexpr size_t kW = V::kW;
  for (; i + 2 * kW <= n; i += 2 * kW) {
    const typename V::T a = F(V::LoadU(x + i)), b = F(V::LoadU(x + i + kW));
    V::StoreU(y + i, a);
    V::StoreU(y + i + kW, b);
  }
  for (; i + kW <= n; i += kW) V::StoreU(y + i, F(V::LoadU(x + i)));
  if (i < n) {
    const typename V::Mask m = V::MaskOf(n - i);
    V::Store(y + i, F(V::Load(x + i, m)), m);
  }
}

}  // namespace tare::cpu::vmath_impl
