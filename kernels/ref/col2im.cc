// Reference kernel of Col2Im (semantics: runtime/ops/col2im.cc).
// Order: y starts at 0 (in T); for each (n, c) the input rows are visited by block offset k in
// row-major order over block_shape, and each row's columns by block position l in row-major
// order; x[n, c * prod(B) + k, l] is added to its output element when that lies in the image.
// For a fixed k distinct l reach distinct output elements, so each output element is
// 0 + its contributions in increasing k, one rounding in T per addition.
#include <algorithm>
#include <vector>

#include "kernels/ref/ref_kernels.h"

namespace tare {

template <class T>
Result<KernelFn> MakeCol2Im(const Node& node) {
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, node.GetInts("strides"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> dil, node.GetInts("dilations"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> pads, node.GetInts("pads"));
  return KernelFn([strides, dil, pads](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& xt = *in[0];
    Tensor& yt = *out[0];
    const size_t n = yt.shape.size() - 2;
    std::vector<int64_t> image(n), block(n), s(n, 1), d(n, 1), b(n, 0), nblk(n);
    int64_t block_size = 1, image_size = 1;
    for (size_t i = 0; i < n; ++i) {
      image[i] = yt.shape[2 + i];
      block[i] = ReadInt(*in[2], static_cast<int64_t>(i));
      if (!strides.empty()) s[i] = strides[i];
      if (!dil.empty()) d[i] = dil[i];
      if (!pads.empty()) b[i] = pads[i];
      const int64_t e = pads.empty() ? 0 : pads[n + i];
      nblk[i] = (image[i] + b[i] + e - ((block[i] - 1) * d[i] + 1)) / s[i] + 1;
      block_size *= block[i];
      image_size *= image[i];
    }
    const int64_t planes = yt.shape[0] * yt.shape[1], cols = xt.shape[2];
    const T* x = xt.as<T>();
    T* y = yt.as<T>();
    for (int64_t i = 0; i < planes * image_size; ++i) y[i] = T(0);
    // Per axis and block offset k_i: the output index of block position l_i (-1: in the padding).
    std::vector<std::vector<int64_t>> pos(n);
    for (size_t i = 0; i < n; ++i) {
      pos[i].resize(static_cast<size_t>(block[i] * nblk[i]));
      for (int64_t k = 0; k < block[i]; ++k)
        for (int64_t l = 0; l < nblk[i]; ++l) {
          const int64_t p = l * s[i] - b[i] + k * d[i];
          pos[i][static_cast<size_t>(k * nblk[i] + l)] = p >= 0 && p < image[i] ? p : -1;
        }
    }
    std::vector<int64_t> k(n), l(n);
    for (int64_t plane = 0; plane < planes; ++plane) {
      T* yp = y + plane * image_size;
      for (int64_t row = 0; row < block_size; ++row) {
        for (int64_t r = row, i = static_cast<int64_t>(n) - 1; i >= 0; --i) {
          k[i] = r % block[i];
          r /= block[i];
        }
        const T* xr = x + (plane * block_size + row) * cols;
        std::fill(l.begin(), l.end(), 0);
        for (int64_t col = 0; col < cols; ++col) {
          int64_t off = 0;
          bool inside = true;
          for (size_t i = 0; i < n && inside; ++i) {
            const int64_t p = pos[i][static_cast<size_t>(k[i] * nblk[i] + l[i])];
            inside = p >= 0;
            off = off * image[i] + p;
          }
          if (inside) yp[off] = yp[off] + xr[col];
          for (size_t i = n; i-- > 0;) {  // next block position, row-major
            if (++l[i] < nblk[i]) break;
            l[i] = 0;
          }
        }
      }
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Col2Im)

}  // namespace tare
