// Pooling on the cpu backend, NHWC, own loops over the channels of each output pixel (vectorized by
// the compiler; XNNPACK's pooling kernels are not used because their output clamp turns NaN into
// -inf or into the other operand, tests/conformance/cases test_nan_*_pool):
//   MaxPool (2-D, no Indices output): padding taps are skipped; NaN wins (np.max's rule, as the
//     reference's MaxPool and PyTorch's max_pool2d).
//   AveragePool (2-D, no dilation): divides by the number of in-input taps. Claimed when that is
//     ONNX's count: count_include_pad=0, or count_include_pad=1 with all pads zero (no auto_pad
//     SAME): then the only padding is the ceil_mode tail, which ONNX does not count either.
//   ceil_mode / auto_pad: the begin pads are resolved as the reference does; the output size is the
//     inferred one.
//   Sums and divisions as the reference's (tap order, one division in float): bit-identical to ref.
//   GlobalAveragePool: sum over the pixels in float, divided by P. GlobalMaxPool: the reference's order
//   and NaN rule (bit-identical).
#include <algorithm>
#include <cmath>

#include "backends/cpu/ops.h"

namespace tare::cpu {
namespace {

bool AllZero(const std::vector<int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 0; });
}
bool AllOne(const std::vector<int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 1; });
}

/// max(best, v) with NaN sticky: NaN when either is (a NaN best stays: v > NaN is false).
inline float MaxNan(float best, float v) { return (v > best || v != v) ? v : best; }
/// y[ch] = MaxNan(y[ch], x[ch]) over n channels.
TARE_CPU_CLONES void MaxRow(float* __restrict y, const float* __restrict x, size_t n) {
  for (size_t ch = 0; ch < n; ++ch) y[ch] = MaxNan(y[ch], x[ch]);
}
/// y[ch] += x[ch] over n channels.
TARE_CPU_CLONES void AddRow(float* __restrict y, const float* __restrict x, size_t n) {
  for (size_t ch = 0; ch < n; ++ch) y[ch] += x[ch];
}
/// y[ch] /= d over n channels.
TARE_CPU_CLONES void DivRow(float* y, float d, size_t n) {
  for (size_t ch = 0; ch < n; ++ch) y[ch] /= d;
}

Status CompileGlobal(Compiler& c, const Node& n, bool is_max) {
  const int x = n.inputs[0], y = n.outputs[0];
  const Shape& s = c.shape(x);
  const size_t N = s[0], C = s[1], P = s[2] * s[3];
  const float* xp = c.In(x, Layout::kNHWC);
  float* yp = c.Out(y, Layout::kPlain);
  ThreadPool* pool = c.pool();
  c.Add([=] {
    pool->ParallelFor(N, 1, [=](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) {
        const float* xi = xp + i * P * C;
        float* yi = yp + i * C;
        std::copy(xi, xi + C, yi);
        for (size_t p = 1; p < P; ++p) {
          const float* row = xi + p * C;
          if (is_max) {
            MaxRow(yi, row, C);
          } else {
            AddRow(yi, row, C);
          }
        }
        if (!is_max) DivRow(yi, static_cast<float>(P), C);
      }
    });
    return Status::Ok();
  });
  c.Done(y);
  return Status::Ok();
}

/// The geometry of one 2-D pooling: kernel, strides, dilations, begin pads, input and output sizes.
struct PoolGeom {
  int64_t k[2], s[2], d[2], b[2], in[2], out[2];
  size_t N, C;
};

/// y[ch] = max over the taps (NaN sticky, tap order) or sum over the taps (tap order, as the
/// reference adds them), for C channels; taps[t] points at the tap's first channel. The taps of
/// 64 channels at a time are reduced in registers (four AVX-512 vectors, eight AVX2 ones) and y is
/// written once. The tap loop is kept rolled: GCC 12 otherwise unrolls it by two into a scalar,
/// branching loop.
#if defined(__GNUC__) && !defined(__clang__)
#define TARE_NO_UNROLL_AND_JAM __attribute__((optimize("no-loop-unroll-and-jam")))
#else
#define TARE_NO_UNROLL_AND_JAM
#endif
template <bool kMax>
TARE_NO_UNROLL_AND_JAM TARE_CPU_CLONES void ReduceTaps(float* __restrict y, const float* const* taps, size_t nt, size_t C) {
  constexpr size_t kBlock = 64;
  size_t ch = 0;
  for (; ch + kBlock <= C; ch += kBlock) {
    float acc[kBlock];
    for (size_t j = 0; j < kBlock; ++j) acc[j] = taps[0][ch + j];
#pragma GCC unroll 1
    for (size_t t = 1; t < nt; ++t) {
      const float* x = taps[t] + ch;
      for (size_t j = 0; j < kBlock; ++j) acc[j] = kMax ? MaxNan(acc[j], x[j]) : acc[j] + x[j];
    }
    for (size_t j = 0; j < kBlock; ++j) y[ch + j] = acc[j];
  }
  if (ch == C) return;
  std::copy(taps[0] + ch, taps[0] + C, y + ch);
  for (size_t t = 1; t < nt; ++t) {
    if (kMax) {
      MaxRow(y + ch, taps[t] + ch, C - ch);
    } else {
      AddRow(y + ch, taps[t] + ch, C - ch);
    }
  }
}

/// Max or average pooling, NHWC, one output row (image i, output row oh) per ParallelFor item.
void AddPool2d(Compiler& c, const PoolGeom& g, bool is_max, const float* xp, float* yp) {
  ThreadPool* pool = c.pool();
  const size_t rows = g.N * static_cast<size_t>(g.out[0]);
  c.Add([=] {
    pool->ParallelFor(rows, 1, [=](size_t rb, size_t re) {
      const size_t C = g.C;
      std::vector<const float*> taps(static_cast<size_t>(g.k[0] * g.k[1]));
      for (size_t r = rb; r < re; ++r) {
        const int64_t i = static_cast<int64_t>(r) / g.out[0], oh = static_cast<int64_t>(r) % g.out[0];
        for (int64_t ow = 0; ow < g.out[1]; ++ow) {
          float* yo = yp + ((i * g.out[0] + oh) * g.out[1] + ow) * static_cast<int64_t>(C);
          size_t nt = 0;
          for (int64_t kh = 0; kh < g.k[0]; ++kh) {
            const int64_t ih = oh * g.s[0] - g.b[0] + kh * g.d[0];
            if (ih < 0 || ih >= g.in[0]) continue;
            for (int64_t kw = 0; kw < g.k[1]; ++kw) {
              const int64_t iw = ow * g.s[1] - g.b[1] + kw * g.d[1];
              if (iw < 0 || iw >= g.in[1]) continue;
              taps[nt++] = xp + ((i * g.in[0] + ih) * g.in[1] + iw) * static_cast<int64_t>(C);
            }
          }
          // Every window has a tap (CompilePool sends the others to the reference).
          if (is_max) {
            ReduceTaps<true>(yo, taps.data(), nt, C);
          } else {
            ReduceTaps<false>(yo, taps.data(), nt, C);
            if (nt > 1) DivRow(yo, static_cast<float>(nt), C);
          }
        }
      }
    });
    return Status::Ok();
  });
}

}  // namespace

bool SupportsPool(const Node& n, const Graph& g, const GraphInfo&) {
  if (n.inputs.size() != 1 || !IsF32(g, n.inputs[0])) return false;
  if (n.outputs.size() > 1 && n.outputs[1] >= 0) return false;  // MaxPool Indices: ref
  const Value& x = g.values[n.inputs[0]];
  if (x.has_shape && x.shape.size() != 4) return false;
  if (n.op == "GlobalAveragePool" || n.op == "GlobalMaxPool") return true;
  Result<std::vector<int64_t>> ks = n.GetInts("kernel_shape");
  if (!ks.ok() || ks->size() != 2) return false;
  if (n.op == "MaxPool") return true;
  Result<std::vector<int64_t>> dil = n.GetInts("dilations");
  Result<std::vector<int64_t>> pads = n.GetInts("pads");
  Result<int64_t> cip = n.GetInt("count_include_pad", 0);
  Result<std::string> ap = n.GetString("auto_pad", "NOTSET");
  if (!dil.ok() || !pads.ok() || !cip.ok() || !ap.ok() || !AllOne(*dil)) return false;
  if (*cip == 0) return true;
  return AllZero(*pads) && (*ap == "NOTSET" || *ap == "VALID");
}

Status CompilePool(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  const Shape& xs = c.shape(x);
  const Shape& ys = c.shape(y);
  if (xs.size() != 4 || c.slot(x).numel() == 0 || c.slot(y).numel() == 0) return c.CompileRef(n);
  if (n.op == "GlobalMaxPool" || n.op == "GlobalAveragePool") return CompileGlobal(c, n, n.op == "GlobalMaxPool");
  const bool is_max = n.op == "MaxPool";
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> ks, n.GetInts("kernel_shape"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> st, n.GetInts("strides"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> dil, n.GetInts("dilations"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> pads, n.GetInts("pads"));
  TARE_ASSIGN_OR_RETURN(std::string ap, n.GetString("auto_pad", "NOTSET"));
  PoolGeom g;
  g.N = static_cast<size_t>(xs[0]);
  g.C = static_cast<size_t>(xs[1]);
  for (int i = 0; i < 2; ++i) {
    g.k[i] = ks[i];
    g.s[i] = st.empty() ? 1 : st[i];
    g.d[i] = dil.empty() ? 1 : dil[i];
    g.in[i] = xs[2 + i];
    g.out[i] = ys[2 + i];
    const int64_t dk = (ks[i] - 1) * g.d[i] + 1;
    g.b[i] = 0;
    if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
      const int64_t total = std::max<int64_t>(0, (g.out[i] - 1) * g.s[i] + dk - g.in[i]);
      g.b[i] = ap == "SAME_UPPER" ? total / 2 : (total + 1) / 2;
    } else if (ap == "NOTSET" && !pads.empty()) {
      g.b[i] = pads[i];
    }
  }
  // A window entirely in the padding is an error of the reference's: let it report it.
  for (int i = 0; i < 2; ++i)
    for (int64_t o = 0; o < g.out[i]; ++o) {
      bool tap = false;
      for (int64_t j = 0; j < g.k[i] && !tap; ++j) {
        const int64_t p = o * g.s[i] - g.b[i] + j * g.d[i];
        tap = p >= 0 && p < g.in[i];
      }
      if (!tap) return c.CompileRef(n);
    }
  const float* xp = c.In(x, Layout::kNHWC);
  float* yp = c.Out(y, Layout::kNHWC);
  AddPool2d(c, g, is_max, xp, yp);
  c.Done(y);
  return Status::Ok();
}

}  // namespace tare::cpu
