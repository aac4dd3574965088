// Reference kernel of MatMul (semantics: runtime/ops/matmul.cc).
//
// Order (each output element y[..., i, j]): acc starts at 0 and adds A[..., i, k] * B[..., k, j]
// for k = 0, 1, ..., K-1, each product rounded to T and added in T. Integer inputs (int32, int64)
// are multiplied and summed in the unsigned type of the same width (wrap-around modulo 2^bits,
// no undefined overflow), which gives the two's complement result.
//
// Loop structure: per batch and output row i, the row of Y is the accumulator; for each k in
// order the row B[k, :] scaled by A[i, k] is added to it (contiguous, vectorizable).
#include <algorithm>
#include <type_traits>

#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// The accumulation type: U itself for floating point, its unsigned twin for integers.
template <class U, bool = std::is_integral_v<U>>
struct AccOf { using type = U; };
template <class U>
struct AccOf<U, true> { using type = std::make_unsigned_t<U>; };

/// One (M, K) x (K, N) product: y = a * b, rows of y accumulated in order of k.
template <class U>
void MatMul2D(const U* a, const U* b, U* y, int64_t M, int64_t K, int64_t N) {
  using Acc = typename AccOf<U>::type;
  for (int64_t i = 0; i < M; ++i) {
    Acc* __restrict yr = reinterpret_cast<Acc*>(y + i * N);
    std::fill(yr, yr + N, Acc(0));
    for (int64_t k = 0; k < K; ++k) {
      const Acc av = static_cast<Acc>(a[i * K + k]);
      const U* __restrict br = b + k * N;
      for (int64_t j = 0; j < N; ++j) yr[j] += static_cast<Acc>(av * static_cast<Acc>(br[j]));
    }
  }
}

/// Batched, broadcast matmul on element type U; shapes were checked by InferMatMul.
template <class U>
void RunMatMul(const Tensor& A, const Tensor& B, Tensor& Y) {
  const Shape& as = A.shape;
  const Shape& bs = B.shape;
  const int64_t K = as.back();
  const int64_t M = as.size() >= 2 ? as[as.size() - 2] : 1;
  const int64_t N = bs.size() >= 2 ? bs.back() : 1;
  // Batch dims of Y: everything before its matrix dims.
  const size_t y_mat = (as.size() >= 2 ? 1 : 0) + (bs.size() >= 2 ? 1 : 0);
  const Shape yb(Y.shape.begin(), Y.shape.end() - y_mat);
  const size_t r = yb.size();
  // Element strides of A's and B's matrices per batch dim of Y (0 where broadcast or absent).
  std::vector<int64_t> sa(r, 0), sb(r, 0);
  auto strides = [r](const Shape& s, int64_t mat, std::vector<int64_t>& out) {
    const size_t nb = s.size() >= 2 ? s.size() - 2 : 0;
    int64_t st = mat;
    for (size_t i = 0; i < nb; ++i) {
      const size_t src = nb - 1 - i, dst = r - 1 - i;
      out[dst] = s[src] == 1 ? 0 : st;
      st *= s[src];
    }
  };
  strides(as, M * K, sa);
  strides(bs, K * N, sb);
  int64_t batches = 1;
  for (int64_t d : yb) batches *= d;
  std::vector<int64_t> idx(r, 0);
  const U* a = A.as<U>();
  const U* b = B.as<U>();
  U* y = Y.as<U>();
  for (int64_t t = 0; t < batches; ++t) {
    int64_t oa = 0, ob = 0;
    for (size_t i = 0; i < r; ++i) {
      oa += idx[i] * sa[i];
      ob += idx[i] * sb[i];
    }
    MatMul2D(a + oa, b + ob, y + t * M * N, M, K, N);
    for (size_t i = r; i-- > 0;) {  // next batch index, last dim fastest
      if (++idx[i] < yb[i]) break;
      idx[i] = 0;
    }
  }
}

}  // namespace

/// Prepares the MatMul reference kernel (float in T, int32, int64 dispatched on the input dtype).
template <class T>
Result<KernelFn> MakeMatMul(const Node&) {
  return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    switch (in[0]->dtype) {
      case DType::kInt32: RunMatMul<int32_t>(*in[0], *in[1], *out[0]); break;
      case DType::kInt64: RunMatMul<int64_t>(*in[0], *in[1], *out[0]); break;
      default: RunMatMul<T>(*in[0], *in[1], *out[0]); break;
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(MatMul)

}  // namespace tare
