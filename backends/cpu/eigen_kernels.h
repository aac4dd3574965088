// The cpu backend's kernels on Eigen 3.4 (issue 23): the matrix product on run-time operands
// (batched MatMul) and the vectorized Erf, Tanh, Exp and Log. eigen_kernels.cc is the only file that
// includes Eigen and, on x86-64, the only one built with -mavx2 -mfma, so no inline code compiled
// for AVX2 is shared with the rest of the backend; it runs where CpuIsa() allows AVX2 (and always on
// aarch64, with NEON). Elsewhere, and under TARE_CPU_ISA=generic, Sgemm is a plain loop and the
// functions are the reference's (double, rounded once).
#pragma once
#include <cstddef>

namespace tare::cpu {

/// C[M][N] = A[M][K] * B[K][N], row-major with leading dimensions lda, ldb, ldc (in floats), no
/// aliasing between C and A or B, on the calling thread (the caller splits rows over its pool).
/// Any order of a K-term sum is within ONNX MatMul's error budget (kBudgetDot); NaN and inf
/// propagate. Eigen's GEMM where EigenAvailable(), else a plain loop (matmul.cc).
void Sgemm(const float* a, size_t lda, const float* b, size_t ldb, float* c, size_t ldc, size_t m, size_t k, size_t n);

/// The elementwise functions computed with Eigen's packet math (ONNX Erf-13, Tanh-13, Exp-13,
/// Log-13; a few ULP, within kBudgetTranscendental's 8 eps |y|; a NaN input gives NaN; erf and
/// tanh stay within [-1, 1]).
enum class EigenFn { kErf, kTanh, kExp, kLog };

/// Whether this CPU runs eigen_kernels.cc (AVX2 and FMA on x86-64, not capped by TARE_CPU_ISA).
bool EigenAvailable();
/// Eigen's product (see Sgemm); call only when EigenAvailable().
void SgemmEigen(const float* a, size_t lda, const float* b, size_t ldb, float* c, size_t ldc, size_t m, size_t k, size_t n);
/// y[i] = f(x[i]) for i < n (x == y allowed); call only when EigenAvailable().
void MapEigen(EigenFn f, const float* x, float* y, size_t n);

/// Gelu as the fused chain computes it (fusions.cc): y = ((erf(x / c1) + c2) * x) * c3, each
/// operation rounded once, erf as MapEigen's; the unfused cpu chain's bits. A NaN x gives NaN (the
/// packet loop's own NaN pass-through). Call only when EigenAvailable().
void GeluEigen(const float* x, float* y, size_t n, float c1, float c2, float c3);

/// Gelu's tanh form as PyTorch exports nn.GELU(approximate='tanh') (fusions.cc): y = half * (x *
/// (one + tanh(k2 * (x + k1 * (x * (x * x)))))), each operation rounded once in that order, tanh as
/// MapEigen's: the unfused cpu chain's bits. Call only when EigenAvailable().
void GeluTanhEigen(const float* x, float* y, size_t n, float k1, float k2, float one, float half);

}  // namespace tare::cpu
