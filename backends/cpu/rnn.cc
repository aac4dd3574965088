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
//   1. Input projection of all steps and directions in one XNNPACK fully connected operator:
//      XW[t*B + b][d*G*H + j] = sum_k X[t,b,k] W[d,j,k] + bias[d,j], with W as one [nd*G*H, I]
//      matrix (packed in Compile), bias = Wb + Rb (GRU linear_before_reset: Wb only for the h gate).
//   2. Per direction (directions run in parallel when the backend has threads), per step: the
//      recurrent product HR[b][j] = sum_k h[b,k] R[d,j,k] (+ Rb for the GRU linear_before_reset h
//      gate) by a fully connected operator set up once on fixed state buffers; then the gates,
//      elementwise. GRU linear_before_reset 0: a first operator gives the z and r rows, a second one
//      (R's h rows) multiplies r*h.
//   LSTM: i = s(xw_i + hr_i [+ P_i C]), f = s(xw_f + hr_f [+ P_f C]), c = tanh(xw_c + hr_c),
//         C' = f C + i c, o = s(xw_o + hr_o [+ P_o C']), H' = o tanh(C').
//   GRU:  z = s(xw_z + hr_z), r = s(xw_r + hr_r), n = tanh(xw_h + hr_h(r*h)) (lbr 0) or
//         tanh(xw_h + r*(hr_h + Rb_h)) (lbr 1), H' = (1 - z) n + z h.
// Numerics: sums in float in XNNPACK's order (not the reference's; within the rnn budget of
// T (K + 16) eps per step); sigmoid and tanh in float (ExpF: Cody-Waite reduction and a degree-7
// Taylor polynomial, a few ulp; tanh below |x| = 0.4 by its Taylor series), not in double.
// A fixed thread count gives bit-identical repeated runs (work split by direction only).
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "backends/cpu/ops.h"

namespace tare::cpu {
namespace {

/// e^x in float for x clamped to [-87, 88] (a few ulp): x = n ln2 + r, |r| <= ln2/2, e^r by its
/// Taylor polynomial of degree 7 (truncation < 6e-9 relative), times 2^n built in the exponent bits.
inline float ExpF(float x) {
  x = x < -87.0f ? -87.0f : (x > 88.0f ? 88.0f : x);
  const float big = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const float n = (x * 1.44269504088896341f + big) - big;
  float r = x - n * 0.693359375f;  // ln2 = 0.693359375 - 2.12194440e-4; n * 0.693359375 is exact
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
  return p * scale;
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
  XnnFc input_fc;
  XnnFc rec[2];   // h -> hr (GRU lbr 0: z and r rows only)
  XnnFc rec2[2];  // GRU lbr 0: (r*h) -> hh
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
      TARE_RETURN_IF_ERROR(RunFullyConnected(rec[d], nullptr).With(where));
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
          TARE_RETURN_IF_ERROR(RunFullyConnected(rec2[d], nullptr).With(where));
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

  // Input projection: one fully connected over S*B rows, nd*GH outputs.
  std::vector<float> bias;
  if (Bt) {
    bias.resize(static_cast<size_t>(nd * GH));
    for (int64_t d = 0; d < nd; ++d)
      for (int64_t j = 0; j < GH; ++j) {
        const float wb = Bt[d * 2 * GH + j], rb = Bt[d * 2 * GH + GH + j];
        bias[d * GH + j] = p.lbr && j >= 2 * H ? wb : wb + rb;
      }
  }
  pthreadpool* raw = c.pool()->raw();
  Result<XnnFc> made =
      CreateFullyConnected(I, nd * GH, W, false, Bt ? bias.data() : nullptr, -INFINITY, INFINITY, raw);
  if (!made.ok()) return made.status().With(p.where);
  p.input_fc = std::move(made).value();

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
  for (int64_t d = 0; d < nd; ++d) {
    const float* Rd = R + d * GH * H;
    std::vector<float> rbias;
    if (p.lbr && Bt) {
      rbias.assign(static_cast<size_t>(GH), 0.0f);
      for (int64_t j = 2 * H; j < GH; ++j) rbias[j] = Bt[d * 2 * GH + GH + j];
    }
    Result<XnnFc> r1 = CreateFullyConnected(H, p.hr_cols, Rd, false, rbias.empty() ? nullptr : rbias.data(),
                                            -INFINITY, INFINITY, nullptr);
    if (!r1.ok()) return r1.status().With(p.where);
    p.rec[d] = std::move(r1).value();
    TARE_RETURN_IF_ERROR(SetupFullyConnected(p.rec[d], B, p.h + d * B * H, p.hr + d * B * p.hr_cols, nullptr)
                             .With(p.where));
    if (!p.lstm && !p.lbr) {
      Result<XnnFc> r2 = CreateFullyConnected(H, H, Rd + 2 * H * H, false, nullptr, -INFINITY, INFINITY, nullptr);
      if (!r2.ok()) return r2.status().With(p.where);
      p.rec2[d] = std::move(r2).value();
      TARE_RETURN_IF_ERROR(
          SetupFullyConnected(p.rec2[d], B, p.rh + d * B * H, p.hh + d * B * H, nullptr).With(p.where));
    }
  }
  if (p.lstm && in(7) >= 0) p.P = c.In(in(7), Layout::kPlain);
  const float* xp = c.In(x, Layout::kPlain);
  if (in(5) >= 0) p.h0 = c.In(in(5), Layout::kPlain);
  if (p.lstm && in(6) >= 0) p.c0 = c.In(in(6), Layout::kPlain);
  TARE_RETURN_IF_ERROR(SetupFullyConnected(p.input_fc, p.S * B, xp, p.xw, raw).With(p.where));
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
  c.Add([pp, raw, pool] {
    TARE_RETURN_IF_ERROR(RunFullyConnected(pp->input_fc, raw).With(pp->where));
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
