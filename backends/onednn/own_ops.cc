// The onednn backend's own steps on the layouts oneDNN's primitives leave (op_util.h): where
// oneDNN 2.6 offers only its reference kernel, or a slow one, for a simple memory-bound op on a
// channel-blocked (aBcd8b / aBcd16b) or channels-last tensor, one pass of plain C++ on that layout
// instead of reorders around a plain primitive. Each follows the reference kernel's arithmetic
// and NaN rules exactly (a product per element; a max with NaN sticky), so a chain of one needs
// no NaN guard (Compiler::ChainNeedsGuard skips notes starting with "own ").
#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/onednn/op_util.h"

namespace tare::onednn {
namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TARE_OWN_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TARE_OWN_CLONES
#endif

/// How a rank-4 tensor's pixels are laid out: channel blocks of `lanes` floats (aBcd8b, aBcd16b)
/// or channels-last (acdb: one block of all C channels, `last`); lanes 0 for any other layout.
struct PixelLayout {
  int64_t lanes = 0;
  bool last = false;
};
PixelLayout LayoutOf(const memory::desc& d, const Shape& X) {
  if (X.size() != 4) return {};
  for (int64_t k : {8, 16})
    if (d == memory::desc(Dims(X), dt::f32, Compiler::BlockedTag(4, k))) return {k, false};
  if (d == memory::desc(Dims(X), dt::f32, tag::acdb)) return {X[1], true};
  return {};
}
/// The desc of shape Y in layout l.
memory::desc DescOf(const PixelLayout& l, const Shape& Y) {
  return memory::desc(Dims(Y), dt::f32, l.last ? tag::acdb : Compiler::BlockedTag(4, l.lanes));
}

/// 8 floats (GCC/Clang vector extension: one AVX register, or two SSE ones).
typedef float V8f __attribute__((vector_size(32)));

/// Max pooling over [planes][H][W][lanes] (channels-last: one plane per image, lanes = C);
/// windows clamped to the input, taps in row-major order, the first in-input tap starting the max
/// (the reference's step: v replaces best when best is not NaN and v is greater or NaN); 8 lanes a
/// register, the lanes past a multiple of 8 one at a time.
TARE_OWN_CLONES void MaxPoolPixels(const float* x, float* y, int64_t planes, int64_t lanes, int64_t IH, int64_t IW,
                                   int64_t OH, int64_t OW, const PoolGeom& g) {
  const int64_t kh = g.kernel[0], kw = g.kernel[1], sh = g.strides[0], sw = g.strides[1], pt = g.pl[0], pl = g.pl[1];
  const size_t L = size_t(lanes), L8 = L / 8 * 8;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t oy = 0; oy < OH; ++oy) {
      const int64_t y0 = std::max<int64_t>(0, oy * sh - pt), y1 = std::min(IH, oy * sh - pt + kh);
      const float* plane = x + size_t(p * IH * IW) * L;
      for (int64_t ox = 0; ox < OW; ++ox) {
        const int64_t x0 = std::max<int64_t>(0, ox * sw - pl), x1 = std::min(IW, ox * sw - pl + kw);
        float* yv = y + size_t((p * OH + oy) * OW + ox) * L;
        const float* first = plane + size_t(y0 * IW + x0) * L;
        for (size_t c = 0; c < L8; c += 8) {
          V8f best, v;
          std::memcpy(&best, first + c, sizeof best);
          for (int64_t iy = y0; iy < y1; ++iy)
            for (int64_t ix = x0; ix < x1; ++ix) {
              std::memcpy(&v, plane + size_t(iy * IW + ix) * L + c, sizeof v);
              best = ((best == best) & ((v > best) | (v != v))) ? v : best;
            }
          std::memcpy(yv + c, &best, sizeof best);
        }
        for (size_t c = L8; c < L; ++c) {
          float best = first[c];
          for (int64_t iy = y0; iy < y1; ++iy)
            for (int64_t ix = x0; ix < x1; ++ix) {
              const float v = plane[size_t(iy * IW + ix) * L + c];
              if (best == best && (v > best || v != v)) best = v;
            }
          yv[c] = best;
        }
      }
    }
}

/// y = x * s[n][c] over a channel-blocked x ([N][C / blk][HW][blk]; s is [N or 1][C] plain),
/// one product per element; padded lanes (channels >= C) stay 0.
template <int blk>
void ScaleBlocked(const float* x, const float* s, float* y, int64_t N, int64_t C, int64_t HW, bool s_per_image) {
  const int64_t CB = (C + blk - 1) / blk;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t cb = 0; cb < CB; ++cb) {
      float sv[blk];
      for (int j = 0; j < blk; ++j) {
        const int64_t ch = cb * blk + j;
        sv[j] = ch < C ? s[(s_per_image ? n * C : 0) + ch] : 0.0f;
      }
      const size_t off = static_cast<size_t>((n * CB + cb) * HW) * blk;
      const float* xp = x + off;
      float* yp = y + off;
      for (int64_t p = 0; p < HW; ++p)
        for (int j = 0; j < blk; ++j) yp[p * blk + j] = xp[p * blk + j] * sv[j];
    }
}

}  // namespace

Result<bool> TryBlockedChannelScale(Compiler& c, const Node& n, int a, int b) {
  const int y = n.outputs[0];
  const Shape& A = c.shape(a);
  const Shape& B = c.shape(b);
  if (n.op != "Mul" || A.size() < 3 || c.shape(y) != A || c.IsConst(a)) return false;
  // b per channel: [N or 1, C, 1, ...] (or [C, 1, ...] without the batch axis).
  Shape bp(A.size() - B.size(), 1);
  bp.insert(bp.end(), B.begin(), B.end());
  if (bp[1] != A[1] || (bp[0] != 1 && bp[0] != A[0])) return false;
  for (size_t i = 2; i < bp.size(); ++i)
    if (bp[i] != 1) return false;
  memory src0 = c.Current(a);
  int blk = 0;
  for (int k : {8, 16})
    if (src0.get_desc() == memory::desc(Dims(A), dt::f32, Compiler::BlockedTag(A.size(), k))) blk = k;
  if (blk == 0) return false;
  memory src1 = c.Plain(b);
  memory dst = c.Out(y, src0.get_desc(), {a, b});
  int64_t HW = 1;
  for (size_t i = 2; i < A.size(); ++i) HW *= A[i];
  const int64_t N = A[0], C = A[1];
  const bool per_image = bp[0] == A[0] && A[0] > 1;
  c.AddFn([=]() -> Status {
    const float* x = static_cast<const float*>(src0.get_data_handle());
    const float* s = static_cast<const float*>(src1.get_data_handle());
    float* out = static_cast<float*>(dst.get_data_handle());
    if (blk == 8) ScaleBlocked<8>(x, s, out, N, C, HW, per_image);
    else ScaleBlocked<16>(x, s, out, N, C, HW, per_image);
    return Status::Ok();
  });
  c.Note("own per-channel scale on the blocked layout");
  c.Done(y);
  return true;
}

Result<bool> TryOwnMaxPool(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  const Shape &X = c.shape(x), &Y = c.shape(y);
  // Measured below AVX-512 only (oneDNN's 8-channel blocks); AVX-512 keeps oneDNN's pooling.
  if (Compiler::MaxChannelBlock() != 8) return false;
  if (X.size() != 4 || Y.size() != 4 || (n.outputs.size() > 1 && n.outputs[1] >= 0)) return false;
  PoolGeom g;
  TARE_ASSIGN_OR_RETURN(bool ok, PoolGeometry(n, X, Y, &g));
  if (!ok || g.dil[0] != 0 || g.dil[1] != 0) return false;
  // Every window must hold an input tap (ONNX's shapes guarantee it; checked, not assumed).
  for (int a = 0; a < 2; ++a)
    if (g.pl[a] >= g.kernel[a] || (Y[2 + a] - 1) * g.strides[a] - g.pl[a] >= X[2 + a]) return false;
  memory src = c.Current(x);
  const PixelLayout l = LayoutOf(src.get_desc(), X);
  if (l.lanes == 0) return false;
  const int64_t lanes = l.lanes;
  const memory::desc dd = DescOf(l, Y);
  memory dst = c.Out(y, dd, {x});
  const int64_t planes = X[0] * ((X[1] + lanes - 1) / lanes);
  const int64_t IH = X[2], IW = X[3], OH = Y[2], OW = Y[3];
  c.AddFn([=]() -> Status {
    const float* xs = static_cast<const float*>(src.get_data_handle());
    float* ys = static_cast<float*>(dst.get_data_handle());
    MaxPoolPixels(xs, ys, planes, lanes, IH, IW, OH, OW, g);
    return Status::Ok();
  });
  c.Note("own max pooling on the input's layout");
  c.Done(y);
  return true;
}

}  // namespace tare::onednn
