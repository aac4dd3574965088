// Reference kernel of Gemm (semantics: runtime/ops/gemm.cc).
//
// Order (each output element y[i, j]): acc starts at 0 and adds A'[i, k] * B'[k, j] for
// k = 0, 1, ..., K-1, each product rounded to T and added in T; then t = alpha * acc (skipped when
// alpha == 1), c = beta * C[i, j] (skipped when beta == 1), y = t + c (no C: y = t).
// So with alpha == beta == 1 the result equals a plain dot product plus bias.
//
// Loop structure: per output row i, the row of Y is the accumulator; for each k in order the row
// B'[k, :] scaled by A'[i, k] is added to it (contiguous, vectorizable). With transB, B is first
// transposed into a (K, N) buffer.
#include <algorithm>

#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// Gemm attributes.
struct GemmAttrs {
  float alpha = 1, beta = 1;
  bool trans_a = false, trans_b = false;
};

/// Computes Y = alpha * A' * B' + beta * C for shapes checked by InferGemm.
template <class T>
Status RunGemm(const GemmAttrs& g, const Tensor& A, const Tensor& B, const Tensor* Cmat, Tensor& Y) {
  const int64_t M = Y.shape[0], N = Y.shape[1];
  const int64_t K = g.trans_a ? A.shape[0] : A.shape[1];
  const T* a = A.as<T>();
  const T* b = B.as<T>();
  std::vector<T> bt;
  if (g.trans_b) {  // B is (N, K): make the (K, N) copy.
    bt.resize(static_cast<size_t>(K * N));
    for (int64_t j = 0; j < N; ++j)
      for (int64_t k = 0; k < K; ++k) bt[k * N + j] = b[j * K + k];
    b = bt.data();
  }
  T* y = Y.as<T>();
  for (int64_t i = 0; i < M; ++i) {
    T* __restrict yr = y + i * N;
    std::fill(yr, yr + N, T(0));
    for (int64_t k = 0; k < K; ++k) {
      const T av = g.trans_a ? a[k * M + i] : a[i * K + k];
      const T* __restrict br = b + k * N;
      for (int64_t j = 0; j < N; ++j) yr[j] += av * br[j];
    }
  }
  const T alpha = static_cast<T>(g.alpha), beta = static_cast<T>(g.beta);
  if (alpha != T(1))
    for (int64_t e = 0; e < M * N; ++e) y[e] = alpha * y[e];
  if (Cmat) {
    // Unidirectional broadcast of C (rank <= 2) to (M, N): view it as (cm, cn).
    const Shape& cs = Cmat->shape;
    const int64_t cn = cs.empty() ? 1 : cs.back();
    const int64_t cm = cs.size() == 2 ? cs[0] : 1;
    const T* c = Cmat->as<T>();
    for (int64_t i = 0; i < M; ++i) {
      const T* cr = c + (cm == 1 ? 0 : i) * cn;
      T* yr = y + i * N;
      for (int64_t j = 0; j < N; ++j) {
        T cv = cr[cn == 1 ? 0 : j];
        if (beta != T(1)) cv = beta * cv;
        yr[j] = yr[j] + cv;
      }
    }
  }
  return Status::Ok();
}

}  // namespace

/// Prepares the Gemm reference kernel.
template <class T>
Result<KernelFn> MakeGemm(const Node& node) {
  GemmAttrs g;
  TARE_ASSIGN_OR_RETURN(g.alpha, node.GetFloat("alpha", 1.0f));
  TARE_ASSIGN_OR_RETURN(g.beta, node.GetFloat("beta", 1.0f));
  TARE_ASSIGN_OR_RETURN(int64_t ta, node.GetInt("transA", 0));
  TARE_ASSIGN_OR_RETURN(int64_t tb, node.GetInt("transB", 0));
  g.trans_a = ta != 0;
  g.trans_b = tb != 0;
  return KernelFn([g](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    return RunGemm<T>(g, *in[0], *in[1], in.size() > 2 ? in[2] : nullptr, *out[0]);
  });
}

TARE_INSTANTIATE_REF(Gemm)

}  // namespace tare
