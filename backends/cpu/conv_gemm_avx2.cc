// The AVX2 + FMA tile loop of GemmConv (conv_gemm.h; issue 23): built with -mavx2 -mfma, called
// only when CpuIsa() is AVX2 (an AVX-512 machine runs conv_gemm_avx512.cc unless TARE_CPU_ISA caps
// it). A 64-channel block's weights are packed as four 16-column strips one after another
// ([4][taps][cg][16], GemmConv's PackedAt), so a strip streams contiguously; a tile is 6 output
// pixels x 16 output channels (12 ymm accumulators, 2 weight loads and 6 broadcasts per input
// channel, 15 of the 16 ymm registers), and a 64-channel block is four such column strips. Each
// output element sums bias, then taps in order, channels ascending, one FMA each: the AVX-512
// kernel's order, so both give the same bits.
#include <immintrin.h>

#include <algorithm>

#include "backends/cpu/conv_gemm.h"
#include "backends/cpu/dwconv_impl.h"
#include "backends/cpu/isa_kernels.h"
#include "backends/cpu/vmath_impl.h"

namespace tare::cpu {
namespace {

constexpr size_t kMR = 6;
/// Prefetch distance in floats along a strip: 64 inputs, 4 KiB (512 and 2048 measured slower).
constexpr size_t kPrefetch = 1024;

/// Lanes [0, n) of 8 enabled (n clamped to [0, 8]), as _mm256_maskload_ps/_maskstore_ps want.
__m256i Mask8(size_t nvalid, size_t lo) {
  const int n = nvalid <= lo ? 0 : static_cast<int>(std::min<size_t>(8, nvalid - lo));
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), idx);
}

/// 8 lanes for the tile loop, dwconv_impl.h and vmath_impl.h; the tail through maskload/maskstore.
struct V8 {
  using T = __m256;
  using Mask = __m256i;
  static constexpr size_t kW = 8;
  static Mask MaskOf(size_t left) { return Mask8(left, 0); }
  static T Load(const float* p, Mask m) { return _mm256_maskload_ps(p, m); }
  static void Store(float* p, T v, Mask m) { _mm256_maskstore_ps(p, m, v); }
  /// A whole vector: plain moves (AMD Zen's vmaskmovps store is microcoded, many times slower).
  static T LoadU(const float* p) { return _mm256_loadu_ps(p); }
  static void StoreU(float* p, T v) { _mm256_storeu_ps(p, v); }
  static T Fma(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
  static T Set1(float v) { return _mm256_set1_ps(v); }
  static T Clamp(T v, T lo, T hi) { return _mm256_min_ps(_mm256_max_ps(v, lo), hi); }
  using Cmp = __m256;
  static T Add(T a, T b) { return _mm256_add_ps(a, b); }
  static T Sub(T a, T b) { return _mm256_sub_ps(a, b); }
  static T Mul(T a, T b) { return _mm256_mul_ps(a, b); }
  static T Div(T a, T b) { return _mm256_div_ps(a, b); }
  /// a / d for d in [1, 2], correctly rounded: vdivps (Zen 3: EfficientNet-B0's SiLU steps 4.7 ->
  /// 3.7 ms against the 12-bit reciprocal estimate and two Newton steps, which use the FMA units).
  static T Ratio(T a, T d) { return _mm256_div_ps(a, d); }
  static T Max(T a, T b) { return _mm256_max_ps(a, b); }
  static T Fnma(T a, T b, T c) { return _mm256_fnmadd_ps(a, b, c); }
  static T Abs(T a) { return _mm256_and_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff))); }
  /// 2^k for integral k in [-126, 127], exact.
  static T Pow2(T k) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127)), 23));
  }
  /// p * 2^n for integral n in [-150, 0] (nb: ExpNeg's fma, whose low bits hold n + 127): p *
  /// 2^max(n, -126) (exact, normal), then * 2^(n - that) (in [-24, 0]): one rounding, into the
  /// denormals, as AVX-512's scalef. Lanes that all have n >= -126 (the common case) take one
  /// product, the same bits, with 2^n from nb's bits.
  static T Scale2(T p, T n, T nb) {
    const T lo = _mm256_set1_ps(-126.0f);
    if (_mm256_movemask_ps(_mm256_cmp_ps(n, lo, _CMP_LT_OQ)) == 0)
      return _mm256_mul_ps(p, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(nb), 23)));
    const T n1 = _mm256_max_ps(n, lo);
    return _mm256_mul_ps(_mm256_mul_ps(p, Pow2(n1)), Pow2(_mm256_sub_ps(n, n1)));
  }
  static Cmp Less(T a, T b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
  static Cmp IsNan(T a) { return _mm256_cmp_ps(a, a, _CMP_UNORD_Q); }
  /// m ? a : b per lane.
  static T Blend(Cmp m, T a, T b) { return _mm256_blendv_ps(b, a, m); }
};

#define TARE_INIT_ROW2(i)                                                       \
  __m256 acc##i##0, acc##i##1 = _mm256_setzero_ps();                            \
  if (first) {                                                                  \
    acc##i##0 = _mm256_loadu_ps(k.bias + col);                                  \
    if constexpr (Nv == 2) acc##i##1 = _mm256_loadu_ps(k.bias + col + 8);       \
  } else {                                                                      \
    const float* yr = k.y + (p0 + (i < rows ? i : 0)) * k.ystride + col;        \
    acc##i##0 = vmath_impl::Ld<V8, Full>(yr, m0);                               \
    if constexpr (Nv == 2) acc##i##1 = vmath_impl::Ld<V8, Full>(yr + 8, m1);    \
  }

#define TARE_FMA_ROW2(i)                                                    \
  {                                                                         \
    const __m256 va = _mm256_broadcast_ss(a##i + c);                        \
    acc##i##0 = _mm256_fmadd_ps(va, b0, acc##i##0);                         \
    if constexpr (Nv == 2) acc##i##1 = _mm256_fmadd_ps(va, b1, acc##i##1);  \
  }

#define TARE_FINISH2(v, off, m)                                                              \
  if (last) {                                                                                \
    if (k.res) v = _mm256_add_ps(v, vmath_impl::Ld<V8, Full>(k.res + rroff + col + off, m)); \
    v = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(k.lo)), _mm256_set1_ps(k.hi));         \
  }                                                                                          \
  vmath_impl::St<V8, Full>(k.y + roff + col + off, v, m);

#define TARE_STORE_ROW2(i)                                \
  if (i < rows) {                                         \
    const size_t roff = (p0 + i) * k.ystride;             \
    const size_t rroff = (p0 + i) * k.rstride;            \
    TARE_FINISH2(acc##i##0, 0, m0)                        \
    if constexpr (Nv == 2) { TARE_FINISH2(acc##i##1, 8, m1) } \
  }

/// One tile and column strip of the 64-channel block, taps [cb, ce): Nv = 2 vectors, columns
/// [col, col + 16), or Nv = 1, [col, col + 8) (a block's last 8 or fewer channels: a layer of 24
/// or 40 channels computes no empty half-strip). Full: every column is an output channel.
template <bool Full, int Nv>
__attribute__((noinline)) void Tile2(const GemmConvTask& k, size_t tile, size_t col, size_t cb, size_t ce) {
  const bool first = cb == 0, last = ce == k.taps;
  const size_t p0 = tile * kMR;
  const size_t rows = std::min(kMR, k.pixels - p0);
  [[maybe_unused]] const __m256i m0 = Mask8(k.nvalid, col), m1 = Mask8(k.nvalid, col + 8);
  TARE_INIT_ROW2(0) TARE_INIT_ROW2(1) TARE_INIT_ROW2(2) TARE_INIT_ROW2(3) TARE_INIT_ROW2(4) TARE_INIT_ROW2(5)
  const float* const* ind = k.ind + tile * k.taps * kMR;
  const size_t cg = k.cg, coff = k.coff;
  for (size_t t = cb; t < ce; ++t) {
    const float* a0 = ind[t * kMR + 0] + coff;
    const float* a1 = ind[t * kMR + 1] + coff;
    const float* a2 = ind[t * kMR + 2] + coff;
    const float* a3 = ind[t * kMR + 3] + coff;
    const float* a4 = ind[t * kMR + 4] + coff;
    const float* a5 = ind[t * kMR + 5] + coff;
    const float* wp = k.w + (col / 16) * k.taps * cg * 16 + t * cg * 16 + col % 16;
    for (size_t c = 0; c < cg; ++c, wp += 16) {
      // The weights 4 KiB ahead: the first tile of a chunk reads them from memory (Zen 3, one
      // thread: ResNet-18's layer4 3 x 3 convolutions 67 -> 87 GFLOP/s).
      _mm_prefetch(reinterpret_cast<const char*>(wp + kPrefetch), _MM_HINT_T0);
      const __m256 b0 = _mm256_loadu_ps(wp);
      __m256 b1 = b0;
      if constexpr (Nv == 2) b1 = _mm256_loadu_ps(wp + 8);
      TARE_FMA_ROW2(0) TARE_FMA_ROW2(1) TARE_FMA_ROW2(2) TARE_FMA_ROW2(3) TARE_FMA_ROW2(4) TARE_FMA_ROW2(5)
    }
  }
  TARE_STORE_ROW2(0) TARE_STORE_ROW2(1) TARE_STORE_ROW2(2) TARE_STORE_ROW2(3) TARE_STORE_ROW2(4) TARE_STORE_ROW2(5)
}

}  // namespace

void GemmConvAvx2(const GemmConvTask& k) {
  for (size_t cb = 0; cb < k.taps; cb += k.chunk_taps) {
    const size_t ce = std::min(k.taps, cb + k.chunk_taps);
    for (size_t tile = k.t0; tile < k.t1; ++tile)
      for (size_t col = 0; col < 64 && col < k.nvalid; col += 16) {
        if (col + 16 <= k.nvalid) Tile2<true, 2>(k, tile, col, cb, ce);
        else if (col + 8 == k.nvalid) Tile2<true, 1>(k, tile, col, cb, ce);
        else if (col + 8 > k.nvalid) Tile2<false, 1>(k, tile, col, cb, ce);
        else Tile2<false, 2>(k, tile, col, cb, ce);
      }
  }
}


void DwConvAvx2(const DwConvTask& task) { dw_impl::Rows<V8>(task); }

void SiluAvx2(const float* x, float* y, size_t n) { vmath_impl::Row<V8, vmath_impl::Silu<V8>>(x, y, n); }

void SigmoidAvx2(const float* x, float* y, size_t n) { vmath_impl::Row<V8, vmath_impl::Sigmoid<V8>>(x, y, n); }

}  // namespace tare::cpu
