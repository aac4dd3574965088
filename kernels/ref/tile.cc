// Reference kernel of Tile (semantics: runtime/ops/tile.cc). Pure data movement (exact, any
// dtype): along each axis, the first copy of x's extent is built recursively, then duplicated
// repeats-1 times by memcpy.
#include <cstring>

#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// Fills the block of y at `dst` (axes d.. of y) from the block of x at `src` (axes d.. of x);
/// xs/ys are byte strides of one step along each axis.
void TileAxis(const char* src, char* dst, size_t d, const Shape& x, const Shape& y, const std::vector<int64_t>& xs,
              const std::vector<int64_t>& ys) {
  const int64_t reps = y[d] / x[d];
  const size_t span = static_cast<size_t>(x[d] * ys[d]);  // bytes of one copy of x's extent in y
  if (d + 1 == x.size()) {
    std::memcpy(dst, src, span);
  } else {
    for (int64_t j = 0; j < x[d]; ++j) TileAxis(src + j * xs[d], dst + j * ys[d], d + 1, x, y, xs, ys);
  }
  for (int64_t r = 1; r < reps; ++r) std::memcpy(dst + r * static_cast<int64_t>(span), dst, span);
}

}  // namespace

template <class T>
Result<KernelFn> MakeTile(const Node&) {
  return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    Tensor& y = *out[0];
    if (y.numel() == 0) return Status::Ok();
    const int64_t es = static_cast<int64_t>(DTypeSize(x.dtype));
    const size_t r = x.shape.size();
    if (r == 0) {
      std::memcpy(y.data, x.data, static_cast<size_t>(es));
      return Status::Ok();
    }
    std::vector<int64_t> xs(r), ys(r);
    xs[r - 1] = ys[r - 1] = es;
    for (size_t d = r - 1; d > 0; --d) {
      xs[d - 1] = xs[d] * x.shape[d];
      ys[d - 1] = ys[d] * y.shape[d];
    }
    TileAxis(static_cast<const char*>(x.data), static_cast<char*>(y.data), 0, x.shape, y.shape, xs, ys);
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Tile)

}  // namespace tare
