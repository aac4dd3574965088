// Reference kernel of Conv (semantics: runtime/ops/conv.cc).
//
// Accumulation order (each output element): acc starts at 0 and adds the products
// X[n, c, ...] * W[m, c', ...] over (c' = input channel of the group, k1, ..., kn) in lexicographic
// order, each product rounded to T and added in T; padding positions are skipped (they contribute
// nothing); then y = acc + B[m] when B is given.
//
// Loop structure: 1-D and 2-D convolutions are treated as 3-D ones with leading unit dims. Per
// (n, block of up to 4 output channels, output depth, output row) a row accumulator in T receives,
// for each (c', kd, kh, kw) in order, the products for all output columns at once (a contiguous
// loop when the stride is 1, which the compiler vectorizes). Each output element still sees its
// terms in the documented order.
#include <algorithm>
#include <string>

#include "kernels/ref/conv_geometry.h"
#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// acc[b * acc_stride + o] += x[o * s] * w[b] for o in [0, n), for the first nb (<= 4) channels.
template <class T>
inline void AddRow(T* acc, int64_t acc_stride, int nb, const T* x, int64_t s, int64_t n, const T* w) {
  if (nb == 4) {
    T* __restrict a0 = acc;
    T* __restrict a1 = acc + acc_stride;
    T* __restrict a2 = acc + 2 * acc_stride;
    T* __restrict a3 = acc + 3 * acc_stride;
    const T* __restrict xr = x;
    const T w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];
    if (s == 1) {  // contiguous: vectorized
      for (int64_t o = 0; o < n; ++o) {
        const T v = xr[o];
        a0[o] += v * w0;
        a1[o] += v * w1;
        a2[o] += v * w2;
        a3[o] += v * w3;
      }
    } else {
      for (int64_t o = 0; o < n; ++o) {
        const T v = xr[o * s];
        a0[o] += v * w0;
        a1[o] += v * w1;
        a2[o] += v * w2;
        a3[o] += v * w3;
      }
    }
    return;
  }
  for (int b = 0; b < nb; ++b) {
    T* a = acc + b * acc_stride;
    const T wb = w[b];
    if (s == 1) {
      for (int64_t o = 0; o < n; ++o) a[o] += x[o] * wb;
    } else {
      for (int64_t o = 0; o < n; ++o) a[o] += x[o * s] * wb;
    }
  }
}

/// Computes Y = conv(X, W) + B for shapes checked by InferConv.
template <class T>
Status RunConv(const ConvAttrs& a, const Tensor& X, const Tensor& W, const Tensor* B, Tensor& Y) {
  // An empty output needs no work (and its other dims may be huge: the row buffer below is
  // 4 x the output width, bounded by the output's size only when the output is not empty).
  if (Y.numel() == 0) return Status::Ok();
  const ConvGeometry g(a, X.shape, W.shape, Y.shape);
  const int64_t N = X.shape[0], C = X.shape[1], M = W.shape[0], G = a.group, Cg = C / G, Mg = M / G;
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2], out_plane = g.out[0] * g.out[1] * g.out[2];
  const int64_t k_size = g.k[0] * g.k[1] * g.k[2];
  const int64_t OW = g.out[2];
  // Valid output-column range [lo, hi) per kernel column: 0 <= o * s + kw * d - pb < in.
  std::vector<int64_t> lo(g.k[2]), hi(g.k[2]);
  for (int64_t kw = 0; kw < g.k[2]; ++kw) {
    const int64_t off = kw * g.d[2] - g.pb[2], s = g.s[2];
    lo[kw] = off >= 0 ? 0 : (-off + s - 1) / s;
    hi[kw] = g.in[2] - off <= 0 ? 0 : std::min(OW, (g.in[2] - off + s - 1) / s);
    lo[kw] = std::min(lo[kw], hi[kw]);
  }
  const T* x = X.as<T>();
  const T* w = W.as<T>();
  const T* bias = B ? B->as<T>() : nullptr;
  T* y = Y.as<T>();
  constexpr int kBlock = 4;
  std::vector<T> acc(static_cast<size_t>(kBlock * OW));
  T wv[kBlock];
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t grp = 0; grp < G; ++grp) {
      for (int64_t m0 = 0; m0 < Mg; m0 += kBlock) {
        const int nb = static_cast<int>(std::min<int64_t>(kBlock, Mg - m0));
        const int64_t oc0 = grp * Mg + m0;
        for (int64_t od = 0; od < g.out[0]; ++od) {
          for (int64_t oh = 0; oh < g.out[1]; ++oh) {
            std::fill(acc.begin(), acc.end(), T(0));
            for (int64_t ci = 0; ci < Cg; ++ci) {
              const T* xc = x + (n * C + grp * Cg + ci) * in_plane;
              for (int64_t kd = 0; kd < g.k[0]; ++kd) {
                const int64_t id = od * g.s[0] + kd * g.d[0] - g.pb[0];
                if (id < 0 || id >= g.in[0]) continue;
                for (int64_t kh = 0; kh < g.k[1]; ++kh) {
                  const int64_t ih = oh * g.s[1] + kh * g.d[1] - g.pb[1];
                  if (ih < 0 || ih >= g.in[1]) continue;
                  const T* xrow = xc + (id * g.in[1] + ih) * g.in[2];
                  for (int64_t kw = 0; kw < g.k[2]; ++kw) {
                    if (lo[kw] >= hi[kw]) continue;
                    const int64_t widx = ((ci * g.k[0] + kd) * g.k[1] + kh) * g.k[2] + kw;
                    for (int b = 0; b < nb; ++b) wv[b] = w[(oc0 + b) * Cg * k_size + widx];
                    // First valid column lo: input column lo * s + kw * d - pb >= 0.
                    AddRow(acc.data() + lo[kw], OW, nb, xrow + lo[kw] * g.s[2] + kw * g.d[2] - g.pb[2], g.s[2],
                           hi[kw] - lo[kw], wv);
                  }
                }
              }
            }
            for (int b = 0; b < nb; ++b) {
              T* yr = y + (n * M + oc0 + b) * out_plane + (od * g.out[1] + oh) * OW;
              const T* ar = acc.data() + b * OW;
              if (bias) {
                const T bv = bias[oc0 + b];
                for (int64_t o = 0; o < OW; ++o) yr[o] = ar[o] + bv;
              } else {
                std::copy(ar, ar + OW, yr);
              }
            }
          }
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace

/// Prepares the Conv reference kernel (attributes parsed once; padding resolved per call).
template <class T>
Result<KernelFn> MakeConv(const Node& node) {
  TARE_ASSIGN_OR_RETURN(ConvAttrs a, ConvAttrs::Parse(node));
  return KernelFn([a](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    return RunConv<T>(a, *in[0], *in[1], in.size() > 2 ? in[2] : nullptr, *out[0]);
  });
}

TARE_INSTANTIATE_REF(Conv)

}  // namespace tare
