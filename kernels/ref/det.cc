// Reference kernel of Det (semantics: runtime/ops/det.cc).
// Each M x M matrix is copied (in T) and reduced by Gaussian elimination with partial pivoting:
// for column k = 0..M-1 the pivot is the row p >= k of largest |a[p][k]| (the first such row on
// ties); rows p and k are swapped (the sign flips); a column whose candidates are all zero makes
// det 0; otherwise for i > k: f = a[i][k] / a[k][k] and a[i][j] = a[i][j] - f * a[k][j] for
// j > k (each product and difference rounded to T). det = +-(a[0][0] * a[1][1] * ... *
// a[M-1][M-1]), multiplied left to right in T, the sign applied last (exact). A NaN in X gives
// NaN; infinities propagate through the arithmetic.
// Error: LU's backward error is O(M eps) per entry (kBudgetDot with K = M, relative to the
// size of the products of the pivots; ill-conditioned matrices amplify it).
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "kernels/ref/ref_kernels.h"

namespace tare {

template <class T>
Result<KernelFn> MakeDet(const Node&) {
  return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    Tensor& y = *out[0];
    const size_t r = x.shape.size();
    const int64_t m = x.shape[r - 1];
    const int64_t batch = y.numel();
    const T* xd = x.as<T>();
    T* yd = y.as<T>();
    if (batch == 0) return Status::Ok();  // (M may be huge when a batch dim is 0)
    std::vector<T> a(static_cast<size_t>(m * m));
    for (int64_t b = 0; b < batch; ++b) {
      bool nan = false;
      for (int64_t i = 0; i < m * m; ++i) {
        a[i] = xd[b * m * m + i];
        if (std::isnan(a[i])) nan = true;
      }
      T det = T(1);
      bool negate = false;
      bool zero = nan;
      for (int64_t k = 0; k < m && !zero; ++k) {
        int64_t p = k;
        T best = std::fabs(a[k * m + k]);
        for (int64_t i = k + 1; i < m; ++i) {
          const T v = std::fabs(a[i * m + k]);
          if (v > best) best = v, p = i;
        }
        if (best == T(0)) {
          zero = true;
          break;
        }
        if (p != k) {
          for (int64_t j = 0; j < m; ++j) std::swap(a[k * m + j], a[p * m + j]);
          negate = !negate;
        }
        const T piv = a[k * m + k];
        for (int64_t i = k + 1; i < m; ++i) {
          const T f = a[i * m + k] / piv;
          for (int64_t j = k + 1; j < m; ++j) a[i * m + j] = a[i * m + j] - f * a[k * m + j];
        }
      }
      if (nan) {
        det = std::numeric_limits<T>::quiet_NaN();
      } else if (zero) {
        det = T(0);
      } else {
        for (int64_t k = 0; k < m; ++k) det = det * a[k * m + k];
        if (negate) det = -det;
      }
      yd[b] = det;
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Det)

}  // namespace tare
