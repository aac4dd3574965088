// GemmConv (conv_gemm.h): weight packing, the indirection table and the task split; the tile loop
// is in conv_gemm_avx512.cc.
#include "backends/cpu/conv_gemm.h"
#include "backends/cpu/isa.h"

#include <algorithm>
#include <cmath>

namespace tare::cpu {
namespace {

constexpr size_t kMR = 6, kNR = 64;
/// Taps per K chunk: about this many weights per output channel, so that a chunk of one channel
/// block (kKc x 64 floats, 256 KiB) stays in L2 while every pixel tile of the task uses it.
constexpr size_t kKc = 1024;
/// Pixel tiles per task on one thread (the task's output rows, 96 KiB, stay in L2 across chunks).
constexpr size_t kTilesPerTask = 64;

/// Where weight (k, j) of a 64-column block of K rows sits: [K][64] for the AVX-512 tile, four
/// 16-column strips one after another ([4][K][16]) for the AVX2 one, which reads one strip at a
/// time: contiguous, it streams and prefetches better than rows 256 bytes apart (Zen 3, 1 thread:
/// ViT-B/16 430 -> 394 ms, ConvNeXt-T 129 -> 121 ms, ResNet-18 42.0 -> 40.5 ms; same bits).
size_t PackedAt(size_t k, size_t j, size_t K) {
  if (CpuIsa() == Isa::kAvx512) return k * kNR + j;
  return (j / 16) * K * 16 + k * 16 + j % 16;
}

}  // namespace

bool GemmConv::Available() { return CpuIsa() != Isa::kGeneric; }

bool GemmConv::Worth(const GemmConvShape& s) {
  // Enough terms per output (K = cg * kh * kw) to amortize a tile's set-up and stores, and output
  // channels filling the tiles' columns (XNNPACK's 16-wide tiles waste less on narrow layers;
  // depthwise convolutions stay on XNNPACK).
  // AVX-512: 64-wide tiles at least 80% full and K >= 32. Measured on MobileNetV2, SqueezeNet and
  // ResNet-18 layers (one thread): K = 16 or 24, or 96 or 144 output channels, ran faster on XNNPACK.
  // AVX2: the loop computes 16-wide column strips and skips those past the channel count, so the
  // strips must be 60% full and K >= 16. Measured on an AMD EPYC Zen 3 (one thread), against the
  // AVX-512 rule: ResNet-20 4.3 -> 2.0-2.8 ms (its 16- and 32-channel layers), MobileNetV2 13.0-13.3
  // -> 10.8-11.6 ms, EfficientNet-B0 22.1-22.9 -> 19.9-20.1 ms; K >= 8 or 80% fill was slower.
  // Also on AVX2, fewer output pixels (Gemm rows) than a tile's 6, e.g. a classifier at batch 1,
  // go to XNNPACK: the tile would compute 6 rows for one (Zen 3 at batch 1: MobileNetV2 11.4-12.1
  // -> 10.9-11.1 ms, EfficientNet-B0 20.2-21.4 -> 19.4-19.8 ms). Not measured on AVX-512.
  const bool avx512 = CpuIsa() == Isa::kAvx512;
  if (!avx512 && s.n * s.oh * s.ow < kMR) return false;
  const size_t width = avx512 ? kNR : 16, min_k = avx512 ? 32 : 16, fill_of_5 = avx512 ? 4 : 3;
  const size_t blocks = (s.og + width - 1) / width;
  return s.cg * s.kh * s.kw >= min_k && s.og * 5 >= blocks * width * fill_of_5;
}

GemmConv::GemmConv(const GemmConvShape& s, const float* w, const float* bias) : s_(s) {
  nblocks_ = (s.og + kNR - 1) / kNR;
  taps_ = s.kh * s.kw;
  merged_ = s.groups == 1 && s.cg < 16 && s.dw == 1 && s.kw > 1;
  ktaps_ = merged_ ? s.kh : taps_;
  kcg_ = merged_ ? s.kw * s.cg : s.cg;
  chunk_taps_ = std::max<size_t>(1, kKc / kcg_);
  w_ = Buffer<float>(s.groups * nblocks_ * taps_ * s.cg * kNR);
  bias_ = Buffer<float>(s.groups * nblocks_ * kNR);
  zeros_ = Buffer<float>(s.groups * s.cg * s.kw + 16);
  if (!w_.data() || !bias_.data()) return;  // ok() reports it
  for (size_t g = 0; g < s.groups; ++g)
    for (size_t o = 0; o < s.og; ++o) {
      const size_t m = g * s.og + o, nb = o / kNR, j = o % kNR;
      float* dst = w_.data() + (g * nblocks_ + nb) * taps_ * s.cg * kNR;
      for (size_t c = 0; c < s.cg; ++c)
        for (size_t t = 0; t < taps_; ++t) dst[PackedAt(t * s.cg + c, j, taps_ * s.cg)] = w[(m * s.cg + c) * taps_ + t];
      if (bias) bias_[(g * nblocks_ + nb) * kNR + j] = bias[m];
    }
}

bool GemmConv::ok() const {
  return w_.data() && bias_.data() && zeros_.data() && (tiles_ == 0 || ind_.data()) && (!merged_ || padded_.data());
}

void GemmConv::Bind(const float* x, float* y, const float* residual) {
  const GemmConvShape& s = s_;
  const size_t pixels = s.n * s.oh * s.ow, C = s.groups * s.cg;
  tiles_ = (pixels + kMR - 1) / kMR;
  ind_ = Buffer<const float*>(tiles_ * ktaps_ * kMR);
  if (!w_.data() || !zeros_.data() || !ind_.data()) return;  // ok() reports it
  for (size_t i = 0; i < ind_.size(); ++i) ind_[i] = zeros_.data();
  x_ = x;
  y_ = y;
  res_ = residual;
  if (merged_) {
    // Padded extent: every tap of every output pixel lands inside it.
    hp_ = std::max(s.ih + s.pt, (s.oh - 1) * s.sh + (s.kh - 1) * s.dh + 1);
    wp_ = std::max(s.iw + s.pl, (s.ow - 1) * s.sw + s.kw);
    padded_ = Buffer<float>(s.n * hp_ * wp_ * C + 16);
    if (!padded_.data()) return;
    for (size_t p = 0; p < pixels; ++p) {
      const size_t n = p / (s.oh * s.ow), oy = p / s.ow % s.oh, ox = p % s.ow;
      for (size_t ky = 0; ky < s.kh; ++ky)
        ind_[((p / kMR) * ktaps_ + ky) * kMR + p % kMR] =
            padded_.data() + ((n * hp_ + oy * s.sh + ky * s.dh) * wp_ + ox * s.sw) * C;
    }
    return;
  }
  for (size_t p = 0; p < pixels; ++p) {
    const size_t tile = p / kMR, i = p % kMR;
    const size_t n = p / (s.oh * s.ow), oy = p / s.ow % s.oh, ox = p % s.ow;
    for (size_t ky = 0; ky < s.kh; ++ky)
      for (size_t kx = 0; kx < s.kw; ++kx) {
        const int64_t iy = int64_t(oy * s.sh + ky * s.dh) - int64_t(s.pt);
        const int64_t ix = int64_t(ox * s.sw + kx * s.dw) - int64_t(s.pl);
        if (iy < 0 || ix < 0 || iy >= int64_t(s.ih) || ix >= int64_t(s.iw)) continue;
        ind_[(tile * taps_ + ky * s.kw + kx) * kMR + i] = x + ((n * s.ih + size_t(iy)) * s.iw + size_t(ix)) * C;
      }
  }
}

void GemmConv::Run(const ThreadPool* pool) const {
  const GemmConvShape& s = s_;
  const size_t pixels = s.n * s.oh * s.ow;
  if (merged_) {  // the input rows into the padded buffer (its borders stay zero)
    const size_t C = s.cg, row = s.iw * C;
    float* dst = const_cast<float*>(padded_.data());
    const float* src = x_;
    const size_t hp = hp_, wp = wp_, pt = s.pt, pl = s.pl, ih = s.ih;
    pool->ParallelFor(s.n * ih, 64, [=](size_t b, size_t e) {
      for (size_t r = b; r < e; ++r) {
        const size_t n = r / ih, y = r % ih;
        std::copy(src + r * row, src + (r + 1) * row, dst + ((n * hp + y + pt) * wp + pl) * C);
      }
    });
  }
  // Tasks: (group, channel block, run of pixel tiles); every output element belongs to one task.
  // Numbered run-major: the pool gives each thread a contiguous range of tasks first, so each
  // thread writes a contiguous range of output pixels (all their channels), which the next step
  // (XNNPACK's depthwise convolution splits output rows the same way) mostly reads on the same
  // core. Block-major, the threads wrote channel halves of every pixel; Zen 3 VM, 2 threads:
  // MobileNetV2 7.3-7.5 -> 6.5-6.7 ms, EfficientNet-B0 and ResNet-18 unchanged.
  size_t per = std::min(kTilesPerTask, tiles_);
  const size_t threads = static_cast<size_t>(pool->threads());
  const size_t outer = s.groups * nblocks_;
  if (threads > 1) {
    const size_t want = 4 * threads;  // enough tasks to balance
    if (outer < want) per = std::max<size_t>(1, std::min(per, (tiles_ * outer + want - 1) / want));
  }
  const size_t runs = (tiles_ + per - 1) / per;
  const size_t M = s.ystride ? s.ystride : s.groups * s.og;
  [[maybe_unused]] const bool avx512 = CpuIsa() == Isa::kAvx512;
  pool->ParallelFor(outer * runs, 1, [&](size_t b, size_t e) {
    for (size_t task = b; task < e; ++task) {
      const size_t gb = task % outer, run = task / outer;
      const size_t g = gb / nblocks_, nb = gb % nblocks_;
      GemmConvTask k;
      k.ind = ind_.data();
      k.w = w_.data() + gb * taps_ * s.cg * kNR;
      k.bias = bias_.data() + gb * kNR;
      k.y = y_ + g * s.og + nb * kNR;
      k.res = res_ ? res_ + g * s.og + nb * kNR : nullptr;
      k.ystride = M;
      k.rstride = s.groups * s.og;
      k.nvalid = std::min(kNR, s.og - nb * kNR);
      k.taps = ktaps_;
      k.cg = kcg_;
      k.coff = g * s.cg;
      k.chunk_taps = chunk_taps_;
      k.pixels = pixels;
      k.t0 = run * per;
      k.t1 = std::min(tiles_, k.t0 + per);
      k.lo = s.lo;
      k.hi = s.hi;
#if defined(__x86_64__)
      if (avx512) GemmConvAvx512(k);
      else GemmConvAvx2(k);
#endif
    }
  });
}

BatchedGemm::BatchedGemm(size_t M, size_t K, size_t N, std::vector<size_t> a_off, std::vector<size_t> b_off, const float* a,
                         const float* b, float* y)
    : M_(M), K_(K), N_(N), a_off_(std::move(a_off)), b_off_(std::move(b_off)), b_(b), y_(y) {
  nblocks_ = (N + kNR - 1) / kNR;
  tiles_ = (M + kMR - 1) / kMR;
  bmats_ = b_off_.empty() ? 0 : *std::max_element(b_off_.begin(), b_off_.end()) + 1;
  const size_t batches = a_off_.size();
  packed_ = Buffer<float>(bmats_ * nblocks_ * K * kNR);
  zeros_ = Buffer<float>(std::max(K, kNR) + 16);
  ind_ = Buffer<const float*>(batches * tiles_ * kMR);
  if (!packed_.data() || !zeros_.data() || !ind_.data()) return;
  std::fill(zeros_.data(), zeros_.data() + zeros_.size(), 0.0f);
  for (size_t bi = 0; bi < batches; ++bi)
    for (size_t r = 0; r < tiles_ * kMR; ++r)
      ind_[bi * tiles_ * kMR + r] = r < M ? a + (a_off_[bi] * M + r) * K : zeros_.data();
  ok_ = true;
}

bool BatchedGemm::Worth(size_t M, size_t K, size_t N) {
  // Measured on attention's shapes (AVX-512, one thread): 197 x 64 x 197 and 197 x 197 x 64 run
  // about twice as fast as Eigen's product; small products stay on Eigen.
  return GemmConv::Available() && M >= kMR && K >= 16 && N >= 32;
}

void BatchedGemm::Run(const ThreadPool* pool) const {
  const size_t K = K_, N = N_, nb = nblocks_;
  float* packed = const_cast<float*>(packed_.data());
  const float* b = b_;
  // Pack: per (B matrix, column block), K rows of 64 (zero past N).
  pool->ParallelFor(bmats_ * nb, 1, [=](size_t t0, size_t t1) {
    for (size_t t = t0; t < t1; ++t) {
      const size_t m = t / nb, blk = t % nb, c0 = blk * kNR, w = std::min(kNR, N - c0);
      float* dst = packed + t * K * kNR;
      const float* src = b + m * K * N + c0;
      if (CpuIsa() == Isa::kAvx512) {
        for (size_t k = 0; k < K; ++k, dst += kNR, src += N) {
          std::copy(src, src + w, dst);
          std::fill(dst + w, dst + kNR, 0.0f);
        }
      } else {
        for (size_t strip = 0; strip < 4; ++strip) {
          const size_t j0 = strip * 16, j1 = std::min(w, j0 + 16);
          float* ds = dst + strip * K * 16;
          const float* sr = src;
          for (size_t k = 0; k < K; ++k, ds += 16, sr += N) {
            size_t j = j0;
            for (; j < j1; ++j) ds[j - j0] = sr[j];
            for (; j < j0 + 16; ++j) ds[j - j0] = 0.0f;
          }
        }
      }
    }
  });
  const size_t batches = a_off_.size();
  size_t per = std::min(kTilesPerTask, tiles_);
  const size_t threads = static_cast<size_t>(pool->threads());
  if (threads > 1 && batches * nb < 4 * threads) per = std::max<size_t>(1, std::min(per, (tiles_ * batches * nb + 4 * threads - 1) / (4 * threads)));
  const size_t runs = (tiles_ + per - 1) / per;
  [[maybe_unused]] const bool avx512 = CpuIsa() == Isa::kAvx512;
  pool->ParallelFor(batches * nb * runs, 1, [&](size_t t0, size_t t1) {
    for (size_t task = t0; task < t1; ++task) {
      const size_t bi = task / (nb * runs), blk = task / runs % nb, run = task % runs;
      GemmConvTask k;
      k.ind = ind_.data() + bi * tiles_ * kMR;
      k.w = packed_.data() + (b_off_[bi] * nb + blk) * K * kNR;
      k.bias = zeros_.data();
      k.y = y_ + bi * M_ * N + blk * kNR;
      k.res = nullptr;
      k.rstride = 0;
      k.ystride = N;
      k.nvalid = std::min(kNR, N - blk * kNR);
      k.taps = 1;
      k.cg = K;
      k.coff = 0;
      k.chunk_taps = 1;
      k.pixels = M_;
      k.t0 = run * per;
      k.t1 = std::min(tiles_, k.t0 + per);
      k.lo = -INFINITY;
      k.hi = INFINITY;
#if defined(__x86_64__)
      if (avx512) GemmConvAvx512(k);
      else GemmConvAvx2(k);
#endif
    }
  });
}

}  // namespace tare::cpu
