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

/// ConvTranspose attributes as given on the node (empty vectors = defaults).
struct ConvTAttrs : ConvAttrs {
  std::vector<int64_t> output_padding;
  bool has_output_shape = false;
};

/// Geometry of one call, padded to 3 spatial dims (index 0 = depth, 1 = rows, 2 = columns).
struct Geo {
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1};
  int64_t s[3] = {1, 1, 1}, d[3] = {1, 1, 1}, pb[3] = {0, 0, 0};
};

/// Fills the geometry from the shapes of X, W, Y; pads_begin from pads, output_shape or auto_pad.
Geo MakeGeo(const ConvTAttrs& a, const Shape& x, const Shape& w, const Shape& y) {
  Geo g;
  const size_t nsp = x.size() - 2;
  const bool same = a.auto_pad == "SAME_UPPER" || a.auto_pad == "SAME_LOWER";
  for (size_t i = 0; i < nsp; ++i) {
    const size_t j = 3 - nsp + i;
    g.in[j] = x[2 + i];
    g.out[j] = y[2 + i];
    g.k[j] = w[2 + i];
    g.s[j] = a.strides.empty() ? 1 : a.strides[i];
    g.d[j] = a.dilations.empty() ? 1 : a.dilations[i];
    const int64_t op = a.output_padding.empty() ? 0 : a.output_padding[i];
    if (a.has_output_shape || same) {
      const int64_t full = g.s[j] * (g.in[j] - 1) + op + (g.k[j] - 1) * g.d[j] + 1;
      const int64_t total = std::max<int64_t>(0, full - g.out[j]);
      g.pb[j] = a.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else if (a.auto_pad != "VALID" && !a.pads.empty()) {
      g.pb[j] = a.pads[i];
    }
  }
  return g;
}

/// Computes Y = conv_transpose(X, W) + B for shapes checked by InferConvTranspose.
template <class T>
Status RunConvTranspose(const ConvTAttrs& a, const Tensor& X, const Tensor& W, const Tensor* B, Tensor& Y) {
  const Geo g = MakeGeo(a, X.shape, W.shape, Y.shape);
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
  ConvTAttrs a;
  TARE_ASSIGN_OR_RETURN(static_cast<ConvAttrs&>(a), ConvAttrs::Parse(node));
  TARE_ASSIGN_OR_RETURN(a.output_padding, node.GetInts("output_padding"));
  a.has_output_shape = node.has("output_shape");
  return KernelFn([a](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    return RunConvTranspose<T>(a, *in[0], *in[1], in.size() > 2 ? in[2] : nullptr, *out[0]);
  });
}

TARE_INSTANTIATE_REF(ConvTranspose)

}  // namespace tare
