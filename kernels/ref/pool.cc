// Reference kernels of MaxPool, AveragePool, LpPool, GlobalAveragePool, GlobalMaxPool (semantics:
// runtime/ops/pool.cc). Spatial ranks 1 and 2 run as rank 3 with leading unit axes.
// Order: for each output element the taps are visited in row-major window order (first spatial
// axis outermost, increasing tap index). AveragePool: acc starts at 0 (in T), adds each in-input
// tap in that order, then y = acc / count (one division in T). MaxPool: the first in-input tap
// starts the max; a later tap replaces it when strictly greater or NaN (a NaN is then kept).
// LpPool: acc starts at 0 (in T) and adds t = |x| (p = 1), x * x (p = 2, one rounding) or
// pow(|x|, p) evaluated in double and rounded once to T, per in-input tap in that order; then
// y = acc (p = 1), sqrt(acc) (p = 2) or pow(acc, 1/p) in double rounded once to T.
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// Pooling geometry of one spatial axis, resolved against the run-time shapes.
struct PoolAxis {
  int64_t in = 1, out = 1, k = 1, s = 1, d = 1, b = 0, e = 0;
  std::vector<int64_t> start;  ///< window o's taps are start[o] + t * d for t < count[o]
  std::vector<int64_t> count;  ///< in-input taps of window o
  std::vector<int64_t> padded_count;  ///< taps of window o inside [-b, in + e)
  int64_t total = 0;           ///< sum of count over the windows (the work of this axis)

  /// Fills start/count/padded_count/total. Window o's taps are p_j = o*s - b + j*d, j in [0, k);
  /// the j whose p_j falls in [lo, hi) are found by division and kept as a progression, so a huge
  /// kernel over a small input costs neither time nor memory per absent tap (fuzzed models with
  /// kernels near 2^30 walked, then stored, every tap).
  void Resolve() {
    start.clear();
    count.clear();
    padded_count.clear();
    total = 0;
    // j range with lo <= o*s - b + j*d < hi (d >= 1), clamped to [0, k).
    auto range = [&](int64_t o, int64_t lo, int64_t hi, int64_t* j0, int64_t* j1) {
      const int64_t base = o * s - b;
      const int64_t a = lo - base, c = hi - 1 - base;  // need a <= j*d <= c
      *j0 = a <= 0 ? 0 : (a + d - 1) / d;
      *j1 = c < 0 ? -1 : c / d;
      *j0 = std::max<int64_t>(*j0, 0);
      *j1 = std::min<int64_t>(*j1, k - 1);
    };
    for (int64_t o = 0; o < out; ++o) {
      int64_t j0, j1;
      range(o, 0, in, &j0, &j1);
      start.push_back(o * s - b + j0 * d);
      count.push_back(std::max<int64_t>(0, j1 - j0 + 1));
      total += count.back();
      int64_t q0, q1;
      range(o, -b, in + e, &q0, &q1);
      padded_count.push_back(std::max<int64_t>(0, q1 - q0 + 1));
    }
  }
};

/// Attributes of a pooling node, parsed once.
struct PoolAttrs {
  bool global = false, is_max = false, is_lp = false, count_include_pad = false, col_major = false;
  int64_t p = 2;  ///< LpPool's exponent (>= 1)
  std::string auto_pad;
  std::vector<int64_t> ks, strides, dil, pads;
};

/// True for a floating-point NaN (never for integer element types).
template <class U>
bool IsNaN(U v) {
  if constexpr (std::is_floating_point_v<U>) return std::isnan(v);
  else return false;
}

/// Runs the pooling over every (n, c) plane; U is the element type (T, int8_t or uint8_t).
template <class U>
void PoolPlanes(const PoolAttrs& at, const PoolAxis* ax, int64_t planes, const U* x, U* y, int64_t* idx) {
  const int64_t in_plane = ax[0].in * ax[1].in * ax[2].in;
  const int64_t out_plane = ax[0].out * ax[1].out * ax[2].out;
  for (int64_t p = 0; p < planes; ++p) {
    const U* xp = x + p * in_plane;
    int64_t oi = p * out_plane;
    for (int64_t o0 = 0; o0 < ax[0].out; ++o0)
      for (int64_t o1 = 0; o1 < ax[1].out; ++o1)
        for (int64_t o2 = 0; o2 < ax[2].out; ++o2, ++oi) {
          // Tap t of axis a is at s_a + t * d_a, t < n_a.
          const int64_t s0 = ax[0].start[o0], s1 = ax[1].start[o1], s2 = ax[2].start[o2];
          const int64_t d0 = ax[0].d, d1 = ax[1].d, d2 = ax[2].d;
          const int64_t n0 = ax[0].count[o0], n1 = ax[1].count[o1], n2 = ax[2].count[o2];
          if (at.is_max) {
            U best = xp[(s0 * ax[1].in + s1) * ax[2].in + s2];
            int64_t a0 = s0, a1 = s1, a2 = s2;
            for (int64_t i0 = 0; i0 < n0; ++i0)
              for (int64_t i1 = 0; i1 < n1; ++i1)
                for (int64_t i2 = 0; i2 < n2; ++i2) {
                  const int64_t p0 = s0 + i0 * d0, p1 = s1 + i1 * d1, p2 = s2 + i2 * d2;
                  const U v = xp[(p0 * ax[1].in + p1) * ax[2].in + p2];
                  if (!IsNaN(best) && (v > best || IsNaN(v))) { best = v; a0 = p0; a1 = p1; a2 = p2; }
                }
            y[oi] = best;
            if (idx)
              idx[oi] = p * in_plane + (at.col_major ? a0 + ax[0].in * (a1 + ax[1].in * a2)
                                                     : (a0 * ax[1].in + a1) * ax[2].in + a2);
          } else if (at.is_lp) {
            if constexpr (std::is_floating_point_v<U>) {
              const int64_t pw = at.p;
              auto term = [pw](U v) -> U {
                if (pw == 1) return std::fabs(v);
                if (pw == 2) return v * v;
                return static_cast<U>(std::pow(std::fabs(static_cast<double>(v)), static_cast<double>(pw)));
              };
              U acc = 0;
              for (int64_t i0 = 0; i0 < n0; ++i0)
                for (int64_t i1 = 0; i1 < n1; ++i1)
                  for (int64_t i2 = 0; i2 < n2; ++i2)
                    acc = acc + term(xp[((s0 + i0 * d0) * ax[1].in + s1 + i1 * d1) * ax[2].in + s2 + i2 * d2]);
              y[oi] = pw == 1   ? acc
                      : pw == 2 ? std::sqrt(acc)
                                : static_cast<U>(std::pow(static_cast<double>(acc), 1.0 / static_cast<double>(pw)));
            }
          } else {
            U acc = 0;
            for (int64_t i0 = 0; i0 < n0; ++i0)
              for (int64_t i1 = 0; i1 < n1; ++i1)
                for (int64_t i2 = 0; i2 < n2; ++i2)
                  acc = acc + xp[((s0 + i0 * d0) * ax[1].in + s1 + i1 * d1) * ax[2].in + s2 + i2 * d2];
            const int64_t count = at.count_include_pad
                                      ? ax[0].padded_count[o0] * ax[1].padded_count[o1] * ax[2].padded_count[o2]
                                      : n0 * n1 * n2;
            y[oi] = static_cast<U>(acc / static_cast<U>(count));
          }
        }
  }
}

}  // namespace

template <class T>
Result<KernelFn> MakePool(const Node& node) {
  PoolAttrs at;
  at.global = node.op == "GlobalAveragePool" || node.op == "GlobalMaxPool";
  at.is_max = node.op == "MaxPool" || node.op == "GlobalMaxPool";
  at.is_lp = node.op == "LpPool";
  if (!at.global) {
    TARE_ASSIGN_OR_RETURN(at.ks, node.GetInts("kernel_shape"));
    TARE_ASSIGN_OR_RETURN(at.strides, node.GetInts("strides"));
    TARE_ASSIGN_OR_RETURN(at.dil, node.GetInts("dilations"));
    TARE_ASSIGN_OR_RETURN(at.pads, node.GetInts("pads"));
    TARE_ASSIGN_OR_RETURN(at.auto_pad, node.GetString("auto_pad", "NOTSET"));
    TARE_ASSIGN_OR_RETURN(int64_t cip, node.GetInt("count_include_pad", 0));
    TARE_ASSIGN_OR_RETURN(int64_t so, node.GetInt("storage_order", 0));
    if (at.is_lp) {
      TARE_ASSIGN_OR_RETURN(at.p, node.GetInt("p", 2));
      if (at.p < 1)
        return Status::Error(node.Where() + ": attribute 'p' must be an integer >= 1, got " + std::to_string(at.p));
    }
    at.count_include_pad = !at.is_max && cip != 0;
    at.col_major = at.is_max && so != 0;
  }
  return KernelFn([at](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    Tensor& y = *out[0];
    Tensor* ind = out.size() > 1 ? out[1] : nullptr;
    const size_t nsp = x.shape.size() - 2, lead = 3 - nsp;
    PoolAxis ax[3];
    for (size_t i = 0; i < nsp; ++i) {
      PoolAxis& a = ax[lead + i];
      a.in = x.shape[2 + i];
      a.out = y.shape[2 + i];
      if (at.global) {
        a.k = a.in;
      } else {
        a.k = at.ks[i];
        a.s = at.strides.empty() ? 1 : at.strides[i];
        a.d = at.dil.empty() ? 1 : at.dil[i];
        if (at.auto_pad == "SAME_UPPER" || at.auto_pad == "SAME_LOWER") {
          const int64_t total = std::max<int64_t>(0, (a.out - 1) * a.s + (a.k - 1) * a.d + 1 - a.in);
          a.b = at.auto_pad == "SAME_UPPER" ? total / 2 : (total + 1) / 2;
          a.e = total - a.b;
        } else if (at.auto_pad == "NOTSET" && !at.pads.empty()) {
          a.b = at.pads[i];
          a.e = at.pads[nsp + i];
        }
      }
    }
    for (PoolAxis& a : ax) a.Resolve();
    const int64_t planes = x.shape[0] * x.shape[1];
    // Every window must see the input, and the taps visited are bounded: attributes cost nothing
    // to write, so a tiny model must not be able to ask for years of work (limit 2^32 taps).
    for (const PoolAxis& a : ax)
      for (int64_t c : a.count)
        if (c == 0) return Status::Error("a pooling window lies entirely in the padding");
    const double work = static_cast<double>(planes) * static_cast<double>(ax[0].total) * static_cast<double>(ax[1].total) *
                        static_cast<double>(ax[2].total);
    if (work > 4294967296.0)
      return Status::Error("the pooling would visit " + std::to_string(static_cast<long long>(work)) +
                           " input elements, over tare's limit of 2^32");
    int64_t* idx = ind ? ind->as<int64_t>() : nullptr;
    switch (x.dtype) {
      case DType::kInt8: PoolPlanes<int8_t>(at, ax, planes, x.as<int8_t>(), y.as<int8_t>(), idx); break;
      case DType::kUInt8: PoolPlanes<uint8_t>(at, ax, planes, x.as<uint8_t>(), y.as<uint8_t>(), idx); break;
      default: PoolPlanes<T>(at, ax, planes, x.as<T>(), y.as<T>(), idx); break;
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Pool)

}  // namespace tare
