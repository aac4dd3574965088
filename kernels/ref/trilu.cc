// Reference kernel of Trilu (semantics: runtime/ops/trilu.cc). Pure data movement (exact, any
// dtype): each matrix row copies its kept column range and zero-fills the rest (all-zero bytes are
// 0 for every dtype).
#include <algorithm>
#include <cstring>

#include "kernels/ref/ref_kernels.h"

namespace tare {

template <class T>
Result<KernelFn> MakeTrilu(const Node& node) {
  TARE_ASSIGN_OR_RETURN(int64_t upper, node.GetInt("upper", 1));
  return KernelFn([upper](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    Tensor& y = *out[0];
    if (y.numel() == 0) return Status::Ok();
    const size_t r = x.shape.size();
    const int64_t rows = x.shape[r - 2], cols = x.shape[r - 1];
    const int64_t mats = x.numel() / (rows * cols);
    // Clamp k to [-rows, cols] first: beyond that every row is all kept or all zero, and i + k
    // cannot overflow.
    int64_t k = in.size() > 1 && in[1] ? ReadInt(*in[1], 0) : 0;
    k = std::clamp<int64_t>(k, -rows, cols);
    const size_t es = DTypeSize(x.dtype);
    const char* src = static_cast<const char*>(x.data);
    char* dst = static_cast<char*>(y.data);
    std::memset(dst, 0, y.nbytes());
    for (int64_t m = 0; m < mats; ++m)
      for (int64_t i = 0; i < rows; ++i) {
        // Kept columns [lo, hi): upper keeps j >= i + k, lower keeps j <= i + k.
        const int64_t lo = upper ? std::clamp<int64_t>(i + k, 0, cols) : 0;
        const int64_t hi = upper ? cols : std::clamp<int64_t>(i + k + 1, 0, cols);
        if (hi <= lo) continue;
        const int64_t off = ((m * rows + i) * cols + lo) * static_cast<int64_t>(es);
        std::memcpy(dst + off, src + off, static_cast<size_t>(hi - lo) * es);
      }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Trilu)

}  // namespace tare
