// The depthwise convolution's row loop (isa_kernels.h, DwConvTask), written once over a vector type
// and included by the two files built for an instruction set: conv_gemm_avx512.cc (16 lanes) and
// conv_gemm_avx2.cc (8 lanes). Not a public header: include it only there.
//
// Per output pixel and block of W channels the accumulator starts at the bias and takes one FMA
// per tap in row-major order (taps in the padding skipped), in a register, stored once after the
// clamp; up to four neighbouring pixels of a row share each weight load. The channel tail is
// masked. Both instantiations add the same terms in the same order with one rounding each, so
// AVX2 and AVX-512 give the same bits.
#pragma once
#include <algorithm>
#include <cstdint>

#include "backends/cpu/isa_kernels.h"
#include "backends/cpu/vmath_impl.h"

namespace tare::cpu::dw_impl {

/// Valid kernel taps [k0, k1) along one axis for output position o (input extent n).
inline void TapRange(size_t o, size_t stride, size_t dil, size_t pad, size_t k, size_t n, size_t* k0, size_t* k1) {
  *k0 = k;
  *k1 = 0;
  for (size_t t = 0; t < k; ++t) {
    const int64_t i = int64_t(o * stride + t * dil) - int64_t(pad);
    if (i < 0 || i >= int64_t(n)) continue;
    *k0 = std::min(*k0, t);
    *k1 = t + 1;
  }
}

/// P pixels (ox .. ox + P - 1 of row oy) sharing the kernel columns [kx0, kx1), channels [cb, cb + W)
/// (Full: all W channels exist).
template <class V, int P, bool Full>
inline void Pixels(const DwConvTask& k, size_t img, size_t oy, size_t ox, size_t ky0, size_t ky1, size_t kx0,
                   size_t kx1, size_t cb, typename V::Mask m) {
  const GemmConvShape& s = k.s;
  // Everything the loops read is a local (the task's fields were reloaded at every tap).
  const size_t C = k.C, px = s.sw * C, dx = s.dw * C, kn = kx1 - kx0;
  typename V::T acc[P];
  const typename V::T b = vmath_impl::Ld<V, Full>(k.bias + cb, m);
  for (int p = 0; p < P; ++p) acc[p] = b;
  for (size_t ky = ky0; ky < ky1; ++ky) {
    const size_t iy = oy * s.sh + ky * s.dh - s.pt;
    const float* xp = k.x + ((img * s.ih + iy) * s.iw + ox * s.sw + kx0 * s.dw - s.pl) * C + cb;
    const float* wp = k.w + (ky * s.kw + kx0) * C + cb;
    for (size_t t = 0; t < kn; ++t, xp += dx, wp += C) {
      const typename V::T wv = vmath_impl::Ld<V, Full>(wp, m);
      for (int p = 0; p < P; ++p) acc[p] = V::Fma(vmath_impl::Ld<V, Full>(xp + p * px, m), wv, acc[p]);
    }
  }
  const typename V::T lo = V::Set1(s.lo), hi = V::Set1(s.hi);
  float* y = k.y + ((img * s.oh + oy) * s.ow + ox) * k.ystride + cb;
  for (int p = 0; p < P; ++p) vmath_impl::St<V, Full>(y + p * k.ystride, V::Clamp(acc[p], lo, hi), m);
}

template <class V>
void Rows(const DwConvTask& k) {
  const GemmConvShape& s = k.s;
  for (size_t r = k.r0; r < k.r1; ++r) {
    const size_t img = r / s.oh, oy = r % s.oh;
    size_t ky0, ky1;
    TapRange(oy, s.sh, s.dh, s.pt, s.kh, s.ih, &ky0, &ky1);
    for (size_t ox = 0; ox < s.ow;) {
      size_t kx0, kx1;
      TapRange(ox, s.sw, s.dw, s.pl, s.kw, s.iw, &kx0, &kx1);
      // Four pixels at once where all four see the same kernel columns.
      bool four = ox + 4 <= s.ow;
      for (size_t p = 1; four && p < 4; ++p) {
        size_t a, b;
        TapRange(ox + p, s.sw, s.dw, s.pl, s.kw, s.iw, &a, &b);
        four = a == kx0 && b == kx1;
      }
      // Every tap in the padding: the bias alone (an empty tap range).
      const bool none = ky0 >= ky1 || kx0 >= kx1;
      const size_t y0 = none ? 0 : ky0, y1 = none ? 0 : ky1, x0 = none ? 0 : kx0, x1 = none ? 0 : kx1;
      for (size_t cb = 0; cb < k.C; cb += V::kW) {
        const typename V::Mask m = V::MaskOf(k.C - cb);
        const bool full = k.C - cb >= V::kW;
        if (four && full) Pixels<V, 4, true>(k, img, oy, ox, y0, y1, x0, x1, cb, m);
        else if (four) Pixels<V, 4, false>(k, img, oy, ox, y0, y1, x0, x1, cb, m);
        else if (full) Pixels<V, 1, true>(k, img, oy, ox, y0, y1, x0, x1, cb, m);
        else Pixels<V, 1, false>(k, img, oy, ox, y0, y1, x0, x1, cb, m);
      }
      ox += four ? 4 : 1;
    }
  }
}

}  // namespace tare::cpu::dw_impl
