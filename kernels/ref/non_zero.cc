// Reference kernel of NonZero (semantics: runtime/ops/non_zero.cc). Exact: one row-major pass
// over X; the coordinates of each non-zero element fill the next column of y.
#include "kernels/ref/ref_kernels.h"

namespace tare {

template <class T>
Result<KernelFn> MakeNonZero(const Node&) {
  return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    Tensor& y = *out[0];
    const size_t r = x.shape.size();
    const int64_t n = x.numel(), count = y.shape[1];
    const bool is_float = DTypeIsFloat(x.dtype);
    std::vector<int64_t> coord(r, 0);
    int64_t c = 0;
    int64_t* yd = y.as<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      if (is_float ? ReadDouble(x, i) != 0.0 : ReadInt(x, i) != 0) {
        if (c == count) return Status::Error("NonZero: X has more non-zero elements than the " + std::to_string(count) + " planned");
        for (size_t d = 0; d < r; ++d) yd[d * count + c] = coord[d];
        ++c;
      }
      for (size_t d = r; d-- > 0;) {  // advance the row-major coordinate
        if (++coord[d] < x.shape[d]) break;
        coord[d] = 0;
      }
    }
    if (c != count) return Status::Error("NonZero: X has " + std::to_string(c) + " non-zero elements, " + std::to_string(count) + " were planned");
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(NonZero)

}  // namespace tare
