// Reference kernel of ConvTranspose (semantics: runtime/ops/conv_transpose.cc).
//
// Accumulation order (each output element): acc starts at 0 and adds the products
// X[n, c, i...] * W[c, m', k...] that land on it over (c = input channel of the group, k1, ..., kn)
// in lexicographic order (for fixed c and k at most one input position lands on a given output),
// each product rounded to T and added in T; then y = acc + B[m] when B is given.
//
// Loop structure: 1-D and 2-D cases are 3-D ones with leading unit dims. Per (n, output channel)
// the output plane is the accumulator; for each (c, kd, kh, kw) in order the products of all input
// positions are scattered into it, an input row at a time.
#include <algorithm>
#include <string>

#include "kernels/ref/conv_geometry.h"
#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

using Geo = ConvTransposeGeometry;

/// Computes Y = conv_transpose(X, W) + B for shapes checked by InferConvTranspose.
template <class T>
Status RunConvTranspose(const ConvTAttrs& a, const Tensor& X, const Tensor& W, const Tensor* B, Tensor& Y) {
  const Geo g(a, X.shape, W.shape, Y.shape);
  const int64_t N = X.shape[0], C = X.shape[1], G = a.group, Cg = C / G, Mg = W.shape[1], M = Mg * G;
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2], out_plane = g.out[0] * g.out[1] * g.out[2];
  const int64_t k_size = g.k[0] * g.k[1] * g.k[2];
  // Valid input-column range [lo, hi) per kernel column: 0 <= i * s + kw * d - pb < out.
  std::vector<int64_t> lo(g.k[2]), hi(g.k[2]);
  for (int64_t kw = 0; kw < g.k[2]; ++kw) {
    const int64_t off = kw * g.d[2] - g.pb[2], s = g.s[2];
    lo[kw] = off >= 0 ? 0 : (-off + s - 1) / s;
    hi[kw] = g.out[2] - off <= 0 ? 0 : std::min(g.in[2], (g.out[2] - off + s - 1) / s);
    lo[kw] = std::min(lo[kw], hi[kw]);
  }
  const T* x = X.as<T>();
  const T* w = W.as<T>();
  const T* bias = B ? B->as<T>() : nullptr;
  T* y = Y.as<T>();
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t m = 0; m < M; ++m) {
      const int64_t grp = m / Mg, mg = m % Mg;
      T* acc = y + (n * M + m) * out_plane;
      std::fill(acc, acc + out_plane, T(0));
      for (int64_t ci = 0; ci < Cg; ++ci) {
        const int64_t c = grp * Cg + ci;
        const T* xc = x + (n * C + c) * in_plane;
        const T* wc = w + (c * Mg + mg) * k_size;
        for (int64_t kd = 0; kd < g.k[0]; ++kd) {
          for (int64_t kh = 0; kh < g.k[1]; ++kh) {
            for (int64_t kw = 0; kw < g.k[2]; ++kw) {
              const T wv = wc[(kd * g.k[1] + kh) * g.k[2] + kw];
              const int64_t off_w = kw * g.d[2] - g.pb[2];
              for (int64_t id = 0; id < g.in[0]; ++id) {
                const int64_t od = id * g.s[0] + kd * g.d[0] - g.pb[0];
                if (od < 0 || od >= g.out[0]) continue;
                for (int64_t ih = 0; ih < g.in[1]; ++ih) {
                  const int64_t oh = ih * g.s[1] + kh * g.d[1] - g.pb[1];
                  if (oh < 0 || oh >= g.out[1]) continue;
                  const T* xr = xc + (id * g.in[1] + ih) * g.in[2];
                  T* ar = acc + (od * g.out[1] + oh) * g.out[2];
                  const int64_t s = g.s[2];
                  for (int64_t iw = lo[kw]; iw < hi[kw]; ++iw) ar[iw * s + off_w] += xr[iw] * wv;
                }
              }
            }
          }
        }
      }
      if (bias) {
        const T bv = bias[m];
        for (int64_t o = 0; o < out_plane; ++o) acc[o] = acc[o] + bv;
      }
    }
  }
  return Status::Ok();
}

}  // namespace

/// Prepares the ConvTranspose reference kernel (attributes parsed once; padding resolved per call).
template <class T>
Result<KernelFn> MakeConvTranspose(const Node& node) {
  TARE_ASSIGN_OR_RETURN(ConvTAttrs a, ConvTAttrs::Parse(node));
  return KernelFn([a](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    return RunConvTranspose<T>(a, *in[0], *in[1], in.size() > 2 ? in[2] : nullptr, *out[0]);
  });
}

TARE_INSTANTIATE_REF(ConvTranspose)

}  // namespace tare
