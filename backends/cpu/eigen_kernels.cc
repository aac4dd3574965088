// Eigen's kernels (eigen_kernels.h). On x86-64 this file alone is built with -mavx2 -mfma
// (CMakeLists.txt) and runs only where CpuIsa() allows AVX2: Eigen then uses 8-wide FMA code.
#include "backends/cpu/eigen_kernels.h"

#include <limits>

#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include "backends/cpu/isa.h"

namespace tare::cpu {

bool EigenAvailable() {
#if defined(__x86_64__)
  return CpuIsa() != Isa::kGeneric;
#else
  return true;
#endif
}

void SgemmEigen(const float* a, size_t lda, const float* b, size_t ldb, float* c, size_t ldc, size_t m, size_t k, size_t n) {
  using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Stride = Eigen::OuterStride<>;
  const Eigen::Index M = static_cast<Eigen::Index>(m), K = static_cast<Eigen::Index>(k), N = static_cast<Eigen::Index>(n);
  Eigen::Map<const Mat, 0, Stride> A(a, M, K, Stride(static_cast<Eigen::Index>(lda)));
  Eigen::Map<const Mat, 0, Stride> B(b, K, N, Stride(static_cast<Eigen::Index>(ldb)));
  Eigen::Map<Mat, 0, Stride> C(c, M, N, Stride(static_cast<Eigen::Index>(ldc)));
  C.noalias() = A * B;
}

namespace {

// y = f(x) a packet at a time with Eigen's packet functions (8 floats with AVX2, 4 with NEON), the
// tail through one zero-padded packet. A NaN input is kept as it is (the packet's own compare and
// blend): Eigen's erf and tanh clamp their argument with min/max, which turn a NaN into a bound, and
// Eigen 3.4's expression-level select() is not vectorized (it made every function scalar, 2-3 ns
// an element, before).
template <typename F>
void MapPackets(const float* x, float* y, size_t n, F f) {
  using namespace Eigen::internal;
  using P = packet_traits<float>::type;
  constexpr size_t kW = sizeof(P) / sizeof(float);
  size_t i = 0;
  for (; i + kW <= n; i += kW) {
    const P v = ploadu<P>(x + i);
    pstoreu(y + i, pselect(pcmp_eq(v, v), f(v), v));
  }
  if (i == n) return;
  float buf[kW] = {};
  for (size_t j = i; j < n; ++j) buf[j - i] = x[j];
  const P v = ploadu<P>(buf);
  pstoreu(buf, pselect(pcmp_eq(v, v), f(v), v));
  for (size_t j = i; j < n; ++j) y[j] = buf[j - i];
}

}  // namespace

void MapEigen(EigenFn f, const float* x, float* y, size_t n) {
  using namespace Eigen::internal;
  using P = packet_traits<float>::type;
  // Eigen's erf reaches 1.0000002 near |x| = 3.7 to 4 (within the op's budget, but 1 + erf(x) then
  // changes sign, as Gelu computes it): erf and tanh are clamped to [-1, 1], where the true
  // functions stay.
  const P lo = pset1<P>(-1.0f), hi = pset1<P>(1.0f);
  switch (f) {
    case EigenFn::kErf: MapPackets(x, y, n, [&](const P& v) { return pmin(pmax(perf(v), lo), hi); }); break;
    case EigenFn::kTanh: MapPackets(x, y, n, [&](const P& v) { return pmin(pmax(ptanh(v), lo), hi); }); break;
    case EigenFn::kExp: MapPackets(x, y, n, [](const P& v) { return pexp(v); }); break;
    case EigenFn::kLog: {
      // Eigen's log treats a denormal input as FLT_MIN (log 1e-45 gave -87.3, not -103.3): those
      // are scaled by 2^24 first and 24 ln 2 is taken off the result.
      const P tiny = pset1<P>(std::numeric_limits<float>::min()), scale = pset1<P>(16777216.0f);
      const P shift = pset1<P>(static_cast<float>(24 * 0.693147180559945309));
      MapPackets(x, y, n, [&](const P& v) {
        const P sub = pcmp_lt(v, tiny);
        const P r = plog(pselect(sub, pmul(v, scale), v));
        return pselect(sub, psub(r, shift), r);
      });
      break;
    }
  }
}

void GeluEigen(const float* x, float* y, size_t n, float c1, float c2, float c3) {
  using namespace Eigen::internal;
  using P = packet_traits<float>::type;
  const P d = pset1<P>(c1), a = pset1<P>(c2), m = pset1<P>(c3), lo = pset1<P>(-1.0f), hi = pset1<P>(1.0f);
  MapPackets(x, y, n, [&](const P& v) {
    const P t = pdiv(v, d);
    const P e = pselect(pcmp_eq(t, t), pmin(pmax(perf(t), lo), hi), t);  // as MapEigen's Erf
    return pmul(pmul(padd(e, a), v), m);
  });
}

void GeluTanhEigen(const float* x, float* y, size_t n, float k1, float k2, float one, float half) {
  using namespace Eigen::internal;
  using P = packet_traits<float>::type;
  const P a1 = pset1<P>(k1), a2 = pset1<P>(k2), o = pset1<P>(one), h = pset1<P>(half), lo = pset1<P>(-1.0f),
          hi = pset1<P>(1.0f);
  MapPackets(x, y, n, [&](const P& v) {
    const P cube = pmul(v, pmul(v, v));
    const P e = pmul(a2, padd(v, pmul(a1, cube)));
    const P t = pselect(pcmp_eq(e, e), pmin(pmax(ptanh(e), lo), hi), e);  // as MapEigen's Tanh
    return pmul(h, pmul(v, padd(o, t)));
  });
}

}  // namespace tare::cpu
