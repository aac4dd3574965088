// Eigen's kernels (eigen_kernels.h). On x86-64 this file alone is built with -mavx2 -mfma
// (CMakeLists.txt) and runs only where CpuIsa() allows AVX2: Eigen then uses 8-wide FMA code.
#include "backends/cpu/eigen_kernels.h"

#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include "backends/cpu/isa.h"

namespace tare::cpu {

bool EigenAvailable() {
#if defined(__x86_64__)
  return CpuIsa() != Isa::kGeneric;
#else
  return true;
#endif
}

void SgemmEigen(const float* a, size_t lda, const float* b, size_t ldb, float* c, size_t ldc, size_t m, size_t k, size_t n) {
  using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Stride = Eigen::OuterStride<>;
  const Eigen::Index M = static_cast<Eigen::Index>(m), K = static_cast<Eigen::Index>(k), N = static_cast<Eigen::Index>(n);
  Eigen::Map<const Mat, 0, Stride> A(a, M, K, Stride(static_cast<Eigen::Index>(lda)));
  Eigen::Map<const Mat, 0, Stride> B(b, K, N, Stride(static_cast<Eigen::Index>(ldb)));
  Eigen::Map<Mat, 0, Stride> C(c, M, N, Stride(static_cast<Eigen::Index>(ldc)));
  C.noalias() = A * B;
}

void MapEigen(EigenFn f, const float* x, float* y, size_t n) {
  const Eigen::Index N = static_cast<Eigen::Index>(n);
  Eigen::Map<const Eigen::ArrayXf> X(x, N);
  Eigen::Map<Eigen::ArrayXf> Y(y, N);
  // Eigen's erf and tanh clamp their argument with min/max, which turn a NaN into a bound: the
  // select keeps NaN (as the reference's functions do). Eigen's erf reaches 1.0000002 near
  // |x| = 3.7 to 4 (within the op's budget, but 1 + erf(x) then changes sign, as Gelu computes it):
  // both are clamped to [-1, 1], where the true functions stay.
  switch (f) {
    case EigenFn::kErf: Y = (X != X).select(X, X.erf().max(-1.0f).min(1.0f)); break;
    case EigenFn::kTanh: Y = (X != X).select(X, X.tanh().max(-1.0f).min(1.0f)); break;
    case EigenFn::kExp: Y = (X != X).select(X, X.exp()); break;
    case EigenFn::kLog: Y = (X != X).select(X, X.log()); break;
  }
}

}  // namespace tare::cpu
