// Reference kernel of DeformConv (semantics: runtime/ops/deform_conv.cc); the geometry (strides,
// dilations, begin pads) is Conv's, from kernels/ref/conv_geometry.h.
//
// Per (n, group): a column buffer holds, for each input channel c' of the group, kernel tap
// t = i * kW + j and output position, the sample s: its sampling position (p_h, p_w) in double;
// then acc = 0; acc += w * x over the in-range taps in the order (h0, w0), (h0, w1), (h1, w0),
// (h1, w1) with w = (h1 - p_h)(w1 - p_w), (h1 - p_h)(p_w - w0), (p_h - h0)(w1 - p_w),
// (p_h - h0)(p_w - w0) computed in double and rounded once to T (h1 = h0 + 1 = floor(p_h) + 1);
// s = acc * mask when a mask is given. Positions are checked against [0, H) as doubles before
// any conversion to an integer, so NaN, infinite or huge offsets sample 0.
// Each output element: acc = 0; acc += W[m, c', i, j] * s over (c', i, j) in lexicographic order,
// each product rounded to T and added in T; then y = acc + B[m] when B is given.
#include <cmath>
#include <vector>

#include "kernels/ref/conv_geometry.h"
#include "kernels/ref/bilinear.h"
#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// Computes Y = DeformConv(X, W, offset, B, mask) for shapes checked by InferDeformConv.
template <class T>
Status RunDeformConv(const ConvAttrs& a, int64_t og, const Tensor& X, const Tensor& W, const Tensor& Off,
                     const Tensor* B, const Tensor* Mask, Tensor& Y) {
  const ConvGeometry g(a, X.shape, W.shape, Y.shape);  // index 1 = rows, 2 = columns
  const int64_t N = X.shape[0], C = X.shape[1], H = X.shape[2], Wd = X.shape[3];
  const int64_t M = W.shape[0], G = a.group, Cg = C / G, Mg = M / G, Cog = C / og;
  const int64_t kh = g.k[1], kw = g.k[2], K = kh * kw, OH = g.out[1], OW = g.out[2], P = OH * OW;
  const T* x = X.as<T>();
  const T* w = W.as<T>();
  const T* off = Off.as<T>();
  const T* mask = Mask ? Mask->as<T>() : nullptr;
  const T* bias = B ? B->as<T>() : nullptr;
  T* y = Y.as<T>();
  std::vector<T> col(static_cast<size_t>(Cg * K * P)), acc(static_cast<size_t>(P));
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t grp = 0; grp < G; ++grp) {
      for (int64_t ci = 0; ci < Cg; ++ci) {
        const int64_t c = grp * Cg + ci, o = c / Cog;  // o: the offset group of channel c
        const T* img = x + (n * C + c) * H * Wd;
        for (int64_t t = 0; t < K; ++t) {
          const int64_t i = t / kw, j = t % kw;
          const T* oh_off = off + ((n * og + o) * K + t) * 2 * P;  // (dh, dw) planes of tap t
          const T* mk = mask ? mask + ((n * og + o) * K + t) * P : nullptr;
          T* cr = col.data() + (ci * K + t) * P;
          for (int64_t oh = 0; oh < OH; ++oh)
            for (int64_t ow = 0; ow < OW; ++ow) {
              const int64_t p = oh * OW + ow;
              const double ph = static_cast<double>(oh * g.s[1] - g.pb[1] + i * g.d[1]) + static_cast<double>(oh_off[p]);
              const double pw = static_cast<double>(ow * g.s[2] - g.pb[2] + j * g.d[2]) + static_cast<double>(oh_off[P + p]);
              const T s = BilinearZeros<T>(img, H, Wd, ph, pw);
              cr[p] = mk ? s * mk[p] : s;
            }
        }
      }
      for (int64_t mi = 0; mi < Mg; ++mi) {
        const int64_t m = grp * Mg + mi;
        const T* wm = w + m * Cg * K;
        std::fill(acc.begin(), acc.end(), T(0));
        for (int64_t ct = 0; ct < Cg * K; ++ct) {
          const T wv = wm[ct];
          const T* cr = col.data() + ct * P;
          for (int64_t p = 0; p < P; ++p) acc[static_cast<size_t>(p)] += wv * cr[p];
        }
        T* yr = y + (n * M + m) * P;
        for (int64_t p = 0; p < P; ++p) yr[p] = bias ? acc[static_cast<size_t>(p)] + bias[m] : acc[static_cast<size_t>(p)];
      }
    }
  }
  return Status::Ok();
}

}  // namespace

/// Prepares the DeformConv reference kernel (attributes parsed once; geometry resolved per call).
template <class T>
Result<KernelFn> MakeDeformConv(const Node& node) {
  TARE_ASSIGN_OR_RETURN(ConvAttrs a, ConvAttrs::Parse(node));
  TARE_ASSIGN_OR_RETURN(int64_t og, node.GetInt("offset_group", 1));
  if (og < 1) return Status::Error(node.Where() + ": attribute 'offset_group' must be >= 1");
  return KernelFn([a, og](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor* b = in.size() > 3 ? in[3] : nullptr;  // absent optional inputs are nullptr
    const Tensor* mask = in.size() > 4 ? in[4] : nullptr;
    return RunDeformConv<T>(a, og, *in[0], *in[1], *in[2], b, mask, *out[0]);
  });
}

TARE_INSTANTIATE_REF(DeformConv)

}  // namespace tare
