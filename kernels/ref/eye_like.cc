// Reference kernel of EyeLike (semantics: runtime/ops/eye_like.cc). Exact: y is zero-filled (all-zero
// bytes are 0 for every dtype), then 1 is written at (i, i + k) for every row whose column is in range.
#include <algorithm>
#include <cstring>

#include "kernels/ref/ref_kernels.h"

namespace tare {

template <class T>
Result<KernelFn> MakeEyeLike(const Node& node) {
  TARE_ASSIGN_OR_RETURN(int64_t k, node.GetInt("k", 0));
  return KernelFn([k](const std::vector<const Tensor*>&, const std::vector<Tensor*>& out) {
    Tensor& y = *out[0];
    if (y.numel() == 0) return Status::Ok();
    std::memset(y.data, 0, y.nbytes());
    const int64_t rows = y.shape[0], cols = y.shape[1];
    // Rows whose column i + d lies in [0, cols): i in [max(0, -d), min(rows, cols - d)); k is
    // clamped first (no overflow; diagonals beyond the matrix stay empty).
    const int64_t d = std::clamp<int64_t>(k, -rows, cols);
    const int64_t lo = std::max<int64_t>(0, -d), hi = std::min<int64_t>(rows, cols - d);
    for (int64_t i = lo; i < hi; ++i) WriteDouble(y, i * cols + i + d, 1.0);
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(EyeLike)

}  // namespace tare
