// The cpu backend's own kernels other than GemmConv's tile loops, built once per instruction set
// (issue 23): conv_gemm_avx512.cc (-mavx512f) and conv_gemm_avx2.cc (-mavx2 -mfma) instantiate the
// templates of dwconv_impl.h and vmath_impl.h with 16- and 8-lane vectors. Call the Avx512
// variants only where CpuIsa() is kAvx512, the Avx2 ones where it is kAvx2 or above.
#pragma once
#include <cstddef>

#include "backends/cpu/conv_gemm.h"
#include "backends/cpu/isa.h"

namespace tare::cpu {

/// A depthwise convolution (groups == channels, one output channel per group) over NHWC: output
/// rows [r0, r1) of the n * oh rows. x: [n][ih][iw][C]; w: [kh * kw][C] (tap-major); bias: [C];
/// y: pixel p at y + p * ystride. Per output element: bias, then one FMA per tap in row-major
/// order (taps in the padding skipped), clamped to [s.lo, s.hi] (max/min: a NaN does not survive,
/// so the caller guards non-finite inputs). Issue 23: ConvNeXt's 7 x 7 depthwise layers.
struct DwConvTask {
  const float* x;
  const float* w;
  const float* bias;
  float* y;
  GemmConvShape s;
  size_t C, ystride, r0, r1;
};
void DwConvAvx512(const DwConvTask& task);
/// The same on AVX2 + FMA, bit-identical to DwConvAvx512.
void DwConvAvx2(const DwConvTask& task);

/// ONNX Sigmoid-13 over y[i] = 1 / (1 + exp(-x[i])), i < n (x == y allowed), as below without the
/// product by x: within 8 eps |y| + 1e-38 over the whole float range (XNNPACK 2022's sigmoid gives
/// NaN from |x| ~ 5e26: docs/FINDINGS.md F9); NaN gives NaN, +-inf give 1 and 0.
void SigmoidAvx512(const float* x, float* y, size_t n);
/// The same with 8 lanes.
void SigmoidAvx2(const float* x, float* y, size_t n);

/// SiLU (Swish, x * sigmoid(x)) over y[i] = f(x[i]), i < n (x == y allowed), as the cpu backend
/// fuses PyTorch's Sigmoid + Mul (fusions.cc): e = exp(-|x|) (Cody-Waite reduction, a degree-7
/// polynomial, exact scaling into the denormals), sigmoid = (x >= 0 ? 1 : e) / (1 + e) (a
/// refined reciprocal), times x (vmath_impl.h).
/// Within ONNX Sigmoid's and Mul's budgets (8 eps |y| + 1e-38); NaN gives NaN, -inf gives NaN (as
/// Mul(-inf, Sigmoid(-inf) = 0)), +inf gives +inf. Measured against Eigen's exp: 0.68 ns an
/// element for SiLU on Eigen's AVX2 packets, which made the fused step slower than XNNPACK's
/// sigmoid and a Mul (tests/backends/cpu_math_test.cc sweeps it against double).
void SiluAvx512(const float* x, float* y, size_t n);
/// The same with 8 lanes (the reciprocal's estimate differs: the last bit may).
void SiluAvx2(const float* x, float* y, size_t n);

/// The kernels above chosen by level (isa: kAvx512 or kAvx2, from CpuIsa()). The _avx files are
/// built on x86-64 only; elsewhere CpuIsa() is always kGeneric and these are never called.
inline void DwConvIsa(Isa isa, const DwConvTask& t) {
#if defined(__x86_64__)
  if (isa == Isa::kAvx512) DwConvAvx512(t);
  else DwConvAvx2(t);
#else
  (void)isa;
  (void)t;
#endif
}
inline void SigmoidIsa(Isa isa, const float* x, float* y, size_t n) {
#if defined(__x86_64__)
  if (isa == Isa::kAvx512) SigmoidAvx512(x, y, n);
  else SigmoidAvx2(x, y, n);
#else
  (void)isa, (void)x, (void)y, (void)n;
#endif
}
inline void SiluIsa(Isa isa, const float* x, float* y, size_t n) {
#if defined(__x86_64__)
  if (isa == Isa::kAvx512) SiluAvx512(x, y, n);
  else SiluAvx2(x, y, n);
#else
  (void)isa, (void)x, (void)y, (void)n;
#endif
}

}  // namespace tare::cpu
