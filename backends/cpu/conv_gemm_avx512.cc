// The AVX-512 tile loop of GemmConv (conv_gemm.h); built with -mavx512f, called only when
// GemmConv::Available(). 6 output pixels x 64 output channels per tile: 24 zmm accumulators,
// per input channel 4 weight loads, 6 broadcasts and 24 FMAs. One tile and chunk of taps is a
// separate function whose inner loop keeps only the accumulators, the weight and input pointers
// and the counters live, so that nothing spills there.
#include <immintrin.h>

#include <algorithm>

#include "backends/cpu/conv_gemm.h"
#include "backends/cpu/dwconv_impl.h"
#include "backends/cpu/isa_kernels.h"
#include "backends/cpu/vmath_impl.h"

namespace tare::cpu {
namespace {

constexpr size_t kMR = 6;

#define TARE_INIT_ROW(i)                                                                 \
  __m512 acc##i##0, acc##i##1, acc##i##2, acc##i##3;                                     \
  if (first) {                                                                           \
    acc##i##0 = _mm512_loadu_ps(k.bias);                                                 \
    acc##i##1 = _mm512_loadu_ps(k.bias + 16);                                            \
    acc##i##2 = _mm512_loadu_ps(k.bias + 32);                                            \
    acc##i##3 = _mm512_loadu_ps(k.bias + 48);                                            \
  } else {                                                                               \
    const float* yr = k.y + (p0 + (i < rows ? i : 0)) * k.ystride;                       \
    acc##i##0 = _mm512_maskz_loadu_ps(m0, yr);                                           \
    acc##i##1 = _mm512_maskz_loadu_ps(m1, yr + 16);                                      \
    acc##i##2 = _mm512_maskz_loadu_ps(m2, yr + 32);                                      \
    acc##i##3 = _mm512_maskz_loadu_ps(m3, yr + 48);                                      \
  }

#define TARE_FMA_ROW(i)                                 \
  {                                                     \
    const __m512 va = _mm512_set1_ps(a##i[c]);          \
    acc##i##0 = _mm512_fmadd_ps(va, b0, acc##i##0);     \
    acc##i##1 = _mm512_fmadd_ps(va, b1, acc##i##1);     \
    acc##i##2 = _mm512_fmadd_ps(va, b2, acc##i##2);     \
    acc##i##3 = _mm512_fmadd_ps(va, b3, acc##i##3);     \
  }

#define TARE_FINISH(v, off, m)                                                           \
  if (last) {                                                                            \
    if (k.res) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, k.res + rroff + off));      \
    v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(k.lo)), _mm512_set1_ps(k.hi));     \
  }                                                                                      \
  _mm512_mask_storeu_ps(k.y + roff + off, m, v);

#define TARE_STORE_ROW(i)                        \
  if (i < rows) {                                \
    const size_t roff = (p0 + i) * k.ystride;    \
    const size_t rroff = (p0 + i) * k.rstride;   \
    TARE_FINISH(acc##i##0, 0, m0)                \
    TARE_FINISH(acc##i##1, 16, m1)               \
    TARE_FINISH(acc##i##2, 32, m2)               \
    TARE_FINISH(acc##i##3, 48, m3)               \
  }

__mmask16 Mask(size_t nvalid, size_t j) {
  const size_t lo = 16 * j;
  if (nvalid <= lo) return 0;
  const size_t n = std::min<size_t>(16, nvalid - lo);
  return static_cast<__mmask16>((1u << n) - 1u);
}

/// One tile, taps [cb, ce): accumulators from the bias (first chunk) or the partial sums in y,
/// then per tap and input channel 24 FMAs; the last chunk adds the residual and clamps.
__attribute__((noinline)) void Tile(const GemmConvTask& k, size_t tile, size_t cb, size_t ce) {
  const bool first = cb == 0, last = ce == k.taps;
  const size_t p0 = tile * kMR;
  const size_t rows = std::min(kMR, k.pixels - p0);
  const __mmask16 m0 = Mask(k.nvalid, 0), m1 = Mask(k.nvalid, 1), m2 = Mask(k.nvalid, 2), m3 = Mask(k.nvalid, 3);
  TARE_INIT_ROW(0) TARE_INIT_ROW(1) TARE_INIT_ROW(2) TARE_INIT_ROW(3) TARE_INIT_ROW(4) TARE_INIT_ROW(5)
  const float* const* ind = k.ind + tile * k.taps * kMR;
  const size_t cg = k.cg, coff = k.coff;
  for (size_t t = cb; t < ce; ++t) {
    const float* a0 = ind[t * kMR + 0] + coff;
    const float* a1 = ind[t * kMR + 1] + coff;
    const float* a2 = ind[t * kMR + 2] + coff;
    const float* a3 = ind[t * kMR + 3] + coff;
    const float* a4 = ind[t * kMR + 4] + coff;
    const float* a5 = ind[t * kMR + 5] + coff;
    const float* wp = k.w + t * cg * 64;
    for (size_t c = 0; c < cg; ++c, wp += 64) {
      const __m512 b0 = _mm512_loadu_ps(wp);
      const __m512 b1 = _mm512_loadu_ps(wp + 16);
      const __m512 b2 = _mm512_loadu_ps(wp + 32);
      const __m512 b3 = _mm512_loadu_ps(wp + 48);
      TARE_FMA_ROW(0) TARE_FMA_ROW(1) TARE_FMA_ROW(2) TARE_FMA_ROW(3) TARE_FMA_ROW(4) TARE_FMA_ROW(5)
    }
  }
  TARE_STORE_ROW(0) TARE_STORE_ROW(1) TARE_STORE_ROW(2) TARE_STORE_ROW(3) TARE_STORE_ROW(4) TARE_STORE_ROW(5)
}

}  // namespace

void GemmConvAvx512(const GemmConvTask& k) {
  for (size_t cb = 0; cb < k.taps; cb += k.chunk_taps) {
    const size_t ce = std::min(k.taps, cb + k.chunk_taps);
    for (size_t tile = k.t0; tile < k.t1; ++tile) Tile(k, tile, cb, ce);
  }
}

namespace {

/// 16 lanes for dwconv_impl.h and vmath_impl.h; the tail through a lane mask.
struct V16 {
  using T = __m512;
  using Mask = __mmask16;
  static constexpr size_t kW = 16;
  static Mask MaskOf(size_t left) { return left >= 16 ? Mask(0xffff) : Mask((1u << left) - 1); }
  static T Load(const float* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
  static void Store(float* p, T v, Mask m) { _mm512_mask_storeu_ps(p, m, v); }
  /// A whole vector.
  static T LoadU(const float* p) { return _mm512_loadu_ps(p); }
  static void StoreU(float* p, T v) { _mm512_storeu_ps(p, v); }
  static T Fma(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
  static T Set1(float v) { return _mm512_set1_ps(v); }
  static T Clamp(T v, T lo, T hi) { return _mm512_min_ps(_mm512_max_ps(v, lo), hi); }
  using Cmp = __mmask16;
  static T Add(T a, T b) { return _mm512_add_ps(a, b); }
  static T Sub(T a, T b) { return _mm512_sub_ps(a, b); }
  static T Mul(T a, T b) { return _mm512_mul_ps(a, b); }
  static T Div(T a, T b) { return _mm512_div_ps(a, b); }
  /// a / d for d in [1, 2]: a times 1 / d by the 14-bit estimate and one Newton step (about 1 ULP;
  /// a 512-bit division is slow on Intel's AVX-512 cores).
  static T Ratio(T a, T d) {
    const T r = _mm512_rcp14_ps(d);
    return _mm512_mul_ps(a, _mm512_fmadd_ps(r, _mm512_fnmadd_ps(d, r, _mm512_set1_ps(1.0f)), r));
  }
  static T Max(T a, T b) { return _mm512_max_ps(a, b); }
  static T Fnma(T a, T b, T c) { return _mm512_fnmadd_ps(a, b, c); }
  static T Abs(T a) { return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a), _mm512_set1_epi32(0x7fffffff))); }
  /// p * 2^n for integral n in [-150, 0], exactly (scalef rounds once into the denormals; the
  /// third operand, AVX2's 2^n bits, is not needed).
  static T Scale2(T p, T n, T) { return _mm512_scalef_ps(p, n); }
  static Cmp Less(T a, T b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
  static Cmp IsNan(T a) { return _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q); }
  /// m ? a : b per lane.
  static T Blend(Cmp m, T a, T b) { return _mm512_mask_blend_ps(m, b, a); }
};

}  // namespace

void DwConvAvx512(const DwConvTask& task) { dw_impl::Rows<V16>(task); }

void SiluAvx512(const float* x, float* y, size_t n) { vmath_impl::Row<V16, vmath_impl::Silu<V16>>(x, y, n); }

void SigmoidAvx512(const float* x, float* y, size_t n) { vmath_impl::Row<V16, vmath_impl::Sigmoid<V16>>(x, y, n); }

}  // namespace tare::cpu
