// LSTM and GRU on the cpu backend (semantics: ONNX LSTM-14 / GRU-14, runtime/ops/rnn.cc; the
// reference kernel and its operation order: kernels/ref/rnn.cc).
//
// Claimed (Supports): float32 X; W, R known at plan time; B, sequence_lens and LSTM peepholes
// absent or known; initial_h / initial_c any (run-time or known); layout 0; no clip; the default
// activations (LSTM Sigmoid, Tanh, Tanh; GRU Sigmoid, Tanh; named per direction or once, any case);
// LSTM input_forget 0; GRU linear_before_reset 0 or 1; any direction. Compile runs the reference
// kernel (Compiler::CompileRef) when a known sequence_lens has an entry != seq_length or a
// dimension is 0.
//
// Plan, with G gates and nd directions (Wb, Rb: the two halves of B):
//   1. Input projection of all steps and directions in one product:
//      XW[t*B + b][d*G*H + j] = sum_k X[t,b,k] W[d,j,k] + bias[d,j], with W as one [nd*G*H, I]
//      matrix, bias = Wb + Rb (GRU linear_before_reset: Wb only for the h gate); on GemmConv
//      (conv_gemm.h) where GemmConv::Worth says so and X is finite, else PackedProduct (below).
//   2. Per direction (directions run in parallel when the backend has threads), per step: the
//      recurrent product HR[b][j] = sum_k h[b,k] R[d,j,k] (+ Rb for the GRU linear_before_reset h
//      gate) by PackedProduct on R packed k-major in Compile; then the gates, elementwise. GRU
//      linear_before_reset 0: a first product gives the z and r rows, a second one (R's h rows)
//      multiplies r*h.
//   LSTM: i = s(xw_i + hr_i [+ P_i C]), f = s(xw_f + hr_f [+ P_f C]), c = tanh(xw_c + hr_c),
//         C' = f C + i c, o = s(xw_o + hr_o [+ P_o C']), H' = o tanh(C').
//   GRU:  z = s(xw_z + hr_z), r = s(xw_r + hr_r), n = tanh(xw_h + hr_h(r*h)) (lbr 0) or
//         tanh(xw_h + r*(hr_h + Rb_h)) (lbr 1), H' = (1 - z) n + z h.
// Numerics: sums in float, k ascending (GemmConv: one FMA a term; PackedProduct: a product and a
// sum; not the reference's order), within the rnn budget of T (K + 16) eps per step; sigmoid and
// tanh in float (ExpF: Cody-Waite reduction and a degree-7 Taylor polynomial, a few ulp; tanh
// below |x| = 0.4 by its Taylor series), not in double. A NaN in X, initial_h or initial_c
// propagates as in the reference.
// Repeated runs are bit-identical, at any thread count (GemmConv's sums do not depend on it).
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backends/cpu/conv_gemm.h"
#include "backends/cpu/ops.h"

namespace tare::cpu {
namespace {

/// e^x in float for x clamped to [-87, 88] (a few ulp): x = n ln2 + r, |r| <= ln2/2, e^r by its
/// Taylor polynomial of degree 7 (truncation < 6e-9 relative), times 2^n built in the exponent bits;
/// +inf above ln(FLT_MAX) = 88.72, where e^x overflows (so Sigmoid(-inf) is 0, and a gate of 0
/// times an infinite state gives NaN, as in the reference).
inline float ExpF(float x) {
  // A NaN computes on 0 (no float-to-int conversion of a NaN, undefined in C++) and is returned.
  const float xc = x < -87.0f ? -87.0f : (x > 88.0f ? 88.0f : (x == x ? x : 0.0f));
  const float big = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const float n = (xc * 1.44269504088896341f + big) - big;
  float r = xc - n * 0.693359375f;  // ln2 = 0.693359375 - 2.12194440e-4; n * 0.693359375 is exact
  r = r + n * 2.12194440e-4f;
  float p = 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return x > 88.72283935546875f ? INFINITY : (x == x ? p * scale : x);
}

inline float SigmoidF(float x) { return 1.0f / (1.0f + ExpF(-x)); }

/// tanh in float: |x| < 0.4 by the Taylor series to x^15 (truncation < 3e-10 relative), else
/// 1 - 2 / (e^{2|x|} + 1) with x's sign.
inline float TanhF(float x) {
  const float ax = std::fabs(x);
  const float x2 = x * x;
  float p = -929569.0f / 638512875.0f;
  p = p * x2 + 21844.0f / 6081075.0f;
  p = p * x2 - 1382.0f / 155925.0f;
  p = p * x2 + 62.0f / 2835.0f;
  p = p * x2 - 17.0f / 315.0f;
  p = p * x2 + 2.0f / 15.0f;
  p = p * x2 - 1.0f / 3.0f;
  const float small = x + x * (x2 * p);
  const float big = 1.0f - 2.0f / (ExpF(2.0f * ax) + 1.0f);
  return ax < 0.4f ? small : (x < 0 ? -big : big);
}

// The elementwise loops are compiled for AVX-512, AVX2 and the baseline and chosen at load time
// (target_clones); with -ffp-contract=off all three do the same IEEE operations, so results are
// identical on every machine. Not under ThreadSanitizer: the loader runs the clones' resolver
// (an IFUNC) before the sanitizer's runtime is up, and an instrumented resolver crashes.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TARE_NO_TARGET_CLONES 1
#endif
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(TARE_NO_TARGET_CLONES) && !defined(__SANITIZE_THREAD__)
#define TARE_RNN_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TARE_RNN_CLONES
#endif

inline void SigmoidArr(float* __restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = SigmoidF(x[i]);
}
inline void TanhArr(const float* __restrict x, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = TanhF(x[i]);
}

/// y[b][j] = bias[j] (or 0) + sum over k ascending of h[b][k] * r[k][j] for B rows of H values
/// (r packed k-major, [H][cols]), a product then a sum per term (no FMA: the same IEEE operations
/// in every clone; a NaN or an inf propagates). Four k at a time per column, so y is read and
/// written once per four terms. The recurrent product of a step: XNNPACK 2022's fully connected
/// operator took about 2 us a step on lstm_text (B = 2, H = 48, 192 columns; the AVX2 6 x 16 kernel
/// of Debian's build spills an accumulator to the stack), this loop 0.4 us (AMD Zen 3).
TARE_RNN_CLONES void PackedProduct(const float* __restrict h, const float* __restrict r, const float* __restrict bias,
                                   float* __restrict y, int64_t B, int64_t H, int64_t cols) {
  for (int64_t b = 0; b < B; ++b) {
    const float* hb = h + b * H;
    float* __restrict yb = y + b * cols;
    if (bias) std::memcpy(yb, bias, cols * sizeof(float));
    else std::memset(yb, 0, cols * sizeof(float));
    int64_t k = 0;
    for (; k + 4 <= H; k += 4) {
      const float h0 = hb[k], h1 = hb[k + 1], h2 = hb[k + 2], h3 = hb[k + 3];
      const float* r0 = r + k * cols;
      const float* r1 = r0 + cols;
      const float* r2 = r1 + cols;
      const float* r3 = r2 + cols;
      for (int64_t j = 0; j < cols; ++j) yb[j] = (((yb[j] + h0 * r0[j]) + h1 * r1[j]) + h2 * r2[j]) + h3 * r3[j];
    }
    for (; k < H; ++k) {
      const float hk = hb[k];
      const float* rk = r + k * cols;
      for (int64_t j = 0; j < cols; ++j) yb[j] = yb[j] + hk * rk[j];
    }
  }
}

/// One LSTM cell update of one batch row (see the file comment): x, r: the gate rows of XW and
/// HR; p: peepholes or null; g: GH floats of scratch; c, h: the state, updated; sc: H floats.
TARE_RNN_CLONES void LstmCell(const float* __restrict x, const float* __restrict r, const float* __restrict p,
                              float* __restrict g, float* __restrict c, float* __restrict h, float* __restrict sc,
                              int64_t H) {
  for (int64_t j = 0; j < 4 * H; ++j) g[j] = x[j] + r[j];
  if (p) {
    for (int64_t u = 0; u < H; ++u) {
      g[u] = g[u] + p[u] * c[u];
      g[2 * H + u] = g[2 * H + u] + p[2 * H + u] * c[u];
    }
    SigmoidArr(g, H);
    SigmoidArr(g + 2 * H, H);
  } else {
    SigmoidArr(g, 3 * H);
  }
  TanhArr(g + 3 * H, sc, H);
  for (int64_t u = 0; u < H; ++u) c[u] = g[2 * H + u] * c[u] + g[u] * sc[u];
  if (p) {
    for (int64_t u = 0; u < H; ++u) g[H + u] = g[H + u] + p[H + u] * c[u];
    SigmoidArr(g + H, H);
  }
  TanhArr(c, sc, H);
  for (int64_t u = 0; u < H; ++u) h[u] = g[H + u] * sc[u];
}

/// GRU, one batch row: z and r gates into g[0, 2H) from x, r rows.
TARE_RNN_CLONES void GruZR(const float* __restrict x, const float* __restrict r, float* __restrict g, int64_t H) {
  for (int64_t j = 0; j < 2 * H; ++j) g[j] = x[j] + r[j];
  SigmoidArr(g, 2 * H);
}

/// GRU, one batch row: n = tanh(a) for a = g[2H, 3H), then h = (1 - z) n + z h.
TARE_RNN_CLONES void GruOut(const float* __restrict g, float* __restrict h, float* __restrict sc, int64_t H) {
  TanhArr(g + 2 * H, sc, H);
  for (int64_t u = 0; u < H; ++u) h[u] = (1.0f - g[u]) * sc[u] + g[u] * h[u];
}

/// Everything one compiled LSTM/GRU node needs at run time (buffers owned by the Compiler).
struct RnnPlan {
  bool lstm = true, lbr = false;
  bool rev[2] = {false, false};
  int64_t S = 0, B = 0, H = 0, G = 0, nd = 1;
  std::shared_ptr<GemmConv> input_gemm;  // the input projection on GemmConv (AVX2/AVX-512), or null
  std::vector<float> wk;                  // W packed k-major, [I][nd*GH]: the projection otherwise
  std::vector<float> bias;                // [nd*GH] (empty: none)
  const float* x = nullptr;               // X, [S*B][I]
  int64_t I = 0;
  std::vector<float> rec[2];    // R packed k-major, [H][hr_cols]: h -> hr (GRU lbr 0: z and r rows only)
  std::vector<float> rbias[2];  // GRU lbr 1: Rb on the h gate's columns (else empty)
  std::vector<float> rec2[2];   // GRU lbr 0: R's h rows, [H][H]: (r*h) -> hh
  const float* P = nullptr;                    // peepholes [nd][3H] or null
  const float* h0 = nullptr;
  const float* c0 = nullptr;
  float *xw = nullptr, *h = nullptr, *c = nullptr, *hr = nullptr, *rh = nullptr, *hh = nullptr, *tmp = nullptr;
  float *Y = nullptr, *Yh = nullptr, *Yc = nullptr;
  int64_t hr_cols = 0;  // columns of hr per batch row
  std::string where;

  Status Direction(int64_t d) const {
    const int64_t GH = G * H, BH = B * H;
    float* hd = h + d * BH;
    float* cd = c + d * BH;
    float* hrd = hr + d * B * hr_cols;
    float* rhd = rh + d * BH;
    float* hhd = hh + d * BH;
    float* g = tmp + d * (B * GH + H);  // gate pre-activations [B][GH], then H floats of scratch
    float* sc = g + B * GH;
    if (h0) std::memcpy(hd, h0 + d * BH, BH * sizeof(float));
    else std::memset(hd, 0, BH * sizeof(float));
    if (lstm) {
      if (c0) std::memcpy(cd, c0 + d * BH, BH * sizeof(float));
      else std::memset(cd, 0, BH * sizeof(float));
    }
    const float* p = P ? P + d * 3 * H : nullptr;
    for (int64_t s = 0; s < S; ++s) {
      const int64_t t = rev[d] ? S - 1 - s : s;
      PackedProduct(hd, rec[d].data(), rbias[d].empty() ? nullptr : rbias[d].data(), hrd, B, H, hr_cols);
      for (int64_t b = 0; b < B; ++b) {
        const float* x = xw + ((t * B + b) * nd + d) * GH;
        const float* r = hrd + b * hr_cols;
        float* gb = g + b * GH;
        float* hb = hd + b * H;
        if (lstm) {
          LstmCell(x, r, p, gb, cd + b * H, hb, sc, H);
        } else {
          GruZR(x, r, gb, H);
          if (lbr) {
            for (int64_t u = 0; u < H; ++u) gb[2 * H + u] = x[2 * H + u] + gb[H + u] * r[2 * H + u];
          } else {
            for (int64_t u = 0; u < H; ++u) rhd[b * H + u] = gb[H + u] * hb[u];
          }
        }
      }
      if (!lstm) {
        if (!lbr) {
          PackedProduct(rhd, rec2[d].data(), nullptr, hhd, B, H, H);
          for (int64_t b = 0; b < B; ++b) {
            const float* x = xw + ((t * B + b) * nd + d) * GH;
            float* gb = g + b * GH;
            for (int64_t u = 0; u < H; ++u) gb[2 * H + u] = x[2 * H + u] + hhd[b * H + u];
          }
        }
        for (int64_t b = 0; b < B; ++b) {
          GruOut(g + b * GH, hd + b * H, sc, H);
        }
      }
      if (Y) std::memcpy(Y + (t * nd + d) * BH, hd, BH * sizeof(float));
    }
    if (Yh) std::memcpy(Yh + d * BH, hd, BH * sizeof(float));
    if (Yc) std::memcpy(Yc + d * BH, cd, BH * sizeof(float));
    return Status::Ok();
  }
};

}  // namespace

bool SupportsRnn(const Node& n, const Graph& g, const GraphInfo& info) {
  const bool lstm = n.op == "LSTM";
  if (!lstm && n.op != "GRU") return false;
  const size_t ni = n.inputs.size();
  if (ni < 3 || !IsF32(g, n.inputs[0]) || !Known(info, n.inputs[1]) || !Known(info, n.inputs[2])) return false;
  auto opt_known = [&](size_t i) { return i >= ni || n.inputs[i] < 0 || Known(info, n.inputs[i]); };
  if (!opt_known(3) || !opt_known(4) || (lstm && !opt_known(7))) return false;
  if (n.has("clip")) return false;
  Result<std::string> dir = n.GetString("direction", "forward");
  Result<int64_t> layout = n.GetInt("layout", 0);
  Result<int64_t> input_forget = n.GetInt("input_forget", 0);
  Result<int64_t> lbr = n.GetInt("linear_before_reset", 0);
  if (!dir.ok() || !layout.ok() || !input_forget.ok() || !lbr.ok() || *layout != 0) return false;
  if (lstm && *input_forget != 0) return false;
  for (const char* a : {"activation_alpha", "activation_beta"}) {
    auto it = n.attrs.find(a);
    if (it != n.attrs.end() && !it->second.floats.empty()) return false;
  }
  return RnnDefaultActivations(n, lstm, *dir == "bidirectional" ? 2 : 1);
}

Status CompileRnn(Compiler& c, const Node& n) {
  auto in = [&](size_t i) { return i < n.inputs.size() ? n.inputs[i] : -1; };
  auto out = [&](size_t i) { return i < n.outputs.size() ? n.outputs[i] : -1; };
  const int x = in(0);
  const Shape& xs = c.shape(x);
  const Shape& rs = c.shape(in(2));
  if (xs.size() != 3 || rs.size() != 3) return c.CompileRef(n);
  auto plan = std::make_shared<RnnPlan>();
  RnnPlan& p = *plan;
  p.lstm = n.op == "LSTM";
  p.S = xs[0];
  p.B = xs[1];
  const int64_t I = xs[2];
  p.H = rs[2];
  p.nd = rs[0];
  p.G = p.lstm ? 4 : 3;
  if (p.S == 0 || p.B == 0 || I == 0 || p.H == 0) return c.CompileRef(n);
  if (in(4) >= 0) {  // sequence_lens: the fast path needs every entry == S
    const Tensor& sl = c.slot(in(4));
    for (int64_t b = 0; b < sl.numel(); ++b) {
      const int64_t v = sl.dtype == DType::kInt32 ? sl.as<int32_t>()[b] : sl.as<int64_t>()[b];
      if (v != p.S) return c.CompileRef(n);
    }
  }
  TARE_ASSIGN_OR_RETURN(std::string dir, n.GetString("direction", "forward"));
  TARE_ASSIGN_OR_RETURN(int64_t lbr, n.GetInt("linear_before_reset", 0));
  p.lbr = !p.lstm && lbr != 0;
  p.rev[0] = dir == "reverse";
  p.rev[1] = true;
  p.where = n.Where();
  const int64_t H = p.H, G = p.G, GH = G * H, nd = p.nd, B = p.B;
  const float* W = c.slot(in(1)).as<float>();
  const float* R = c.slot(in(2)).as<float>();
  const float* Bt = in(3) >= 0 ? c.slot(in(3)).as<float>() : nullptr;

  // Input projection: one product over S*B rows, nd*GH outputs.
  p.I = I;
  if (Bt) {
    p.bias.resize(static_cast<size_t>(nd * GH));
    for (int64_t d = 0; d < nd; ++d)
      for (int64_t j = 0; j < GH; ++j) {
        const float wb = Bt[d * 2 * GH + j], rb = Bt[d * 2 * GH + GH + j];
        p.bias[d * GH + j] = p.lbr && j >= 2 * H ? wb : wb + rb;
      }
  }
  p.wk.resize(static_cast<size_t>(I * nd * GH));
  for (int64_t j = 0; j < nd * GH; ++j)
    for (int64_t k = 0; k < I; ++k) p.wk[k * nd * GH + j] = W[j * I + k];
  GemmConvShape gs;  // W is [nd*GH][I]: OIHW of a 1 x 1 convolution over the S*B rows
  gs.ih = gs.oh = static_cast<size_t>(p.S * B);
  gs.cg = static_cast<size_t>(I);
  gs.og = static_cast<size_t>(nd * GH);
  gs.lo = -INFINITY;
  gs.hi = INFINITY;
  // GemmConv's clamp would turn a NaN into -inf: weights or biases holding a NaN or an inf take
  // the plain product (X is checked at each run).
  const bool finite = AllFinite(W, static_cast<size_t>(nd * GH * I)) && AllFinite(p.bias.data(), p.bias.size());
  const bool gemm = finite && GemmConv::Available() && GemmConv::Worth(gs);
  if (gemm) p.input_gemm = std::make_shared<GemmConv>(gs, W, Bt ? p.bias.data() : nullptr);

  // Recurrent operators and state buffers.
  p.hr_cols = p.lstm || p.lbr ? GH : 2 * H;
  p.h = c.Alloc(nd * B * H);
  p.c = c.Alloc(nd * B * H);
  p.hr = c.Alloc(nd * B * p.hr_cols);
  p.rh = c.Alloc(nd * B * H);
  p.hh = c.Alloc(nd * B * H);
  p.tmp = c.Alloc(nd * (B * GH + H));
  p.xw = c.Alloc(p.S * B * nd * GH);
  if (!p.h || !p.c || !p.hr || !p.rh || !p.hh || !p.tmp || !p.xw) return Status::Ok();  // Finish reports it
  // R[d] is [GH][H] (rows j, columns k); the recurrent product reads it k-major.
  auto pack = [H](const float* Rrows, int64_t cols) {
    std::vector<float> out(static_cast<size_t>(H * cols));
    for (int64_t j = 0; j < cols; ++j)
      for (int64_t k = 0; k < H; ++k) out[k * cols + j] = Rrows[j * H + k];
    return out;
  };
  for (int64_t d = 0; d < nd; ++d) {
    const float* Rd = R + d * GH * H;
    if (p.lbr && Bt) {
      p.rbias[d].assign(static_cast<size_t>(GH), 0.0f);
      for (int64_t j = 2 * H; j < GH; ++j) p.rbias[d][j] = Bt[d * 2 * GH + GH + j];
    }
    p.rec[d] = pack(Rd, p.hr_cols);
    if (!p.lstm && !p.lbr) p.rec2[d] = pack(Rd + 2 * H * H, H);
  }
  if (p.lstm && in(7) >= 0) p.P = c.In(in(7), Layout::kPlain);
  const float* xp = c.In(x, Layout::kPlain);
  p.x = xp;
  if (in(5) >= 0) p.h0 = c.In(in(5), Layout::kPlain);
  if (p.lstm && in(6) >= 0) p.c0 = c.In(in(6), Layout::kPlain);
  if (p.input_gemm) {
    p.input_gemm->Bind(xp, p.xw, nullptr);
    if (!p.input_gemm->ok()) return Status::Error(p.where + ": out of memory packing the weights");
  }
  const int ys[3] = {out(0), out(1), p.lstm ? out(2) : -1};
  float* yp[3] = {nullptr, nullptr, nullptr};
  for (int i = 0; i < 3; ++i)
    if (ys[i] >= 0) yp[i] = c.Out(ys[i], Layout::kPlain);
  p.Y = yp[0];
  p.Yh = yp[1];
  p.Yc = yp[2];
  const ThreadPool* pool = c.pool();
  c.Hold(plan);
  const RnnPlan* pp = plan.get();
  c.Add([pp, pool] {
    // GemmConv's clamp would turn a NaN into -inf: a non-finite X takes the plain product.
    if (pp->input_gemm && AllFiniteParallel(pp->x, static_cast<size_t>(pp->S * pp->B * pp->I), pool))
      pp->input_gemm->Run(pool);
    else
      PackedProduct(pp->x, pp->wk.data(), pp->bias.empty() ? nullptr : pp->bias.data(), pp->xw, pp->S * pp->B, pp->I,
                    pp->nd * pp->G * pp->H);
    if (pp->nd == 1) return pp->Direction(0);
    Status st[2];
    pool->ParallelFor(2, 1, [&](size_t b, size_t e) {
      for (size_t d = b; d < e; ++d) st[d] = pp->Direction(static_cast<int64_t>(d));
    });
    TARE_RETURN_IF_ERROR(st[0]);
    return st[1];
  });
  for (int i = 0; i < 3; ++i)
    if (ys[i] >= 0) c.Done(ys[i]);
  return Status::Ok();
}

}  // namespace tare::cpu
