// Elementwise ops of the cpu backend, in whichever layout their input is held (NHWC inside an
// NHWC region, plain otherwise):
//   Relu, Clip, LeakyRelu, HardSwish, HardSigmoid, Identity, Dropout (inference), BatchNormalization
//     (inference): own loops, the reference's operations in the same order (bit-identical to
//     `ref`; NaN handled as the reference does), split over the thread pool.
//   Sigmoid: the own vector kernel on AVX2/AVX-512 (isa_kernels.h), else XNNPACK's with its NaN
//     for huge |x| mended (docs/FINDINGS.md F9); within the op's budget.
//   Sqrt: float sqrt (correctly rounded, as the reference's: bit-identical; ONNX Sqrt-13).
//   Erf, Tanh, Exp, Log: Eigen's vectorized functions (eigen_kernels.h; within the op's budget),
//     or where Eigen's file cannot run, the reference's: double, rounded once (bit-identical).
//   (Add, Sub, Mul, Div: binary.cc.)
#include <algorithm>
#include <cmath>
#include <cstring>

#include "backends/cpu/eigen_kernels.h"
#include "backends/cpu/isa.h"
#include "backends/cpu/isa_kernels.h"
#include "backends/cpu/ops.h"

namespace tare::cpu {
namespace {

constexpr size_t kTile = size_t(1) << 14;

template <class F>
void Map(Compiler& c, const float* x, float* y, size_t n, F f) {
  ThreadPool* pool = c.pool();
  c.Add([=] {
    pool->ParallelFor(n, kTile, [=](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) y[i] = f(x[i]);
    });
    return Status::Ok();
  });
}

/// The layout an elementwise op works in: its input's, preferring NHWC when held.
Layout Preferred(const Compiler& c, int v) { return c.HasNHWC(v) ? Layout::kNHWC : Layout::kPlain; }

/// y[i] = 1 where x[i] > 88, 0 where x[i] < -88 (the true sigmoid there is 1 in float, or under
/// 6e-39), else unchanged.
TARE_CPU_CLONES void MendSigmoidTails(const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = x[i] > 88.0f ? 1.0f : x[i] < -88.0f ? 0.0f : y[i];
}

}  // namespace


Status AddFiniteGuarded(Compiler& c, const Node& n, const float* x, size_t count, float* y, const Clamp& cl,
                        std::function<Status()> fast, std::function<void()> after_ref) {
  bool known_finite = true;
  std::vector<Tensor> ins(n.inputs.size());
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const int v = n.inputs[i];
    if (v < 0) continue;
    ins[i] = c.slot(v);
    if (i == 0) {
      ins[i].data = const_cast<float*>(x);
    } else if (c.IsConst(v) && ins[i].dtype == DType::kFloat32) {
      known_finite = known_finite && AllFinite(ins[i].as<float>(), static_cast<size_t>(ins[i].numel()));
    }
  }
  std::vector<Tensor> outs(n.outputs.size());
  outs[0] = c.slot(n.outputs[0]);
  outs[0].data = y;
  TARE_ASSIGN_OR_RETURN(std::function<Status()> ref, RefStep(n, std::move(ins), std::move(outs)));
  const size_t ny = static_cast<size_t>(c.slot(n.outputs[0]).numel());
  ThreadPool* pool = c.pool();
  c.Add([=] {
    if (known_finite && AllFiniteParallel(x, count, pool)) return fast();
    TARE_RETURN_IF_ERROR(ref());
    if (after_ref) after_ref();
    if (cl.active) ApplyClamp(cl, y, ny);
    return Status::Ok();
  });
  return Status::Ok();
}

Clamp ClipBounds(const Compiler& c, const Node& n) {
  Clamp cl;
  if (n.inputs.size() > 1 && n.inputs[1] >= 0) cl.lo = static_cast<float>(ReadDouble(c.slot(n.inputs[1]), 0));
  if (n.inputs.size() > 2 && n.inputs[2] >= 0) cl.hi = static_cast<float>(ReadDouble(c.slot(n.inputs[2]), 0));
  return cl;
}

int FuseClamp(Compiler& c, int v, Clamp* cl) {
  const Node* next = c.NextSoleReader(v);
  if (!next || !next->domain.empty() || next->inputs[0] != v) return v;
  Clamp k;
  if (next->op == "Relu") {
    k.lo = 0;
  } else if (next->op == "Clip") {
    for (size_t i = 1; i < next->inputs.size(); ++i)
      if (next->inputs[i] >= 0 && (!c.IsConst(next->inputs[i]) || c.slot(next->inputs[i]).dtype != DType::kFloat32))
        return v;
    k = ClipBounds(c, *next);
    if (std::isnan(k.lo) || std::isnan(k.hi) || k.lo > k.hi) return v;
  } else {
    return v;
  }
  if (cl->active) return v;  // one absorbed clamp per producer
  *cl = k;
  cl->active = true;
  c.AbsorbNext();
  c.SetPos(c.pos() + 1);
  return next->outputs[0];
}

bool SupportsUnary(const Node& n, const Graph& g, const GraphInfo& info) {
  const std::string& op = n.op;
  if (n.inputs.empty() || !IsF32(g, n.inputs[0]) || n.outputs.empty()) return false;
  if (op == "Clip") {
    for (size_t i = 1; i < n.inputs.size(); ++i)
      if (n.inputs[i] >= 0 && (!Known(info, n.inputs[i]) || !IsF32(g, n.inputs[i]))) return false;
    return true;
  }
  if (op == "Dropout") {
    // Inference only: no mask output, training_mode absent or known (checked by inference).
    if (n.outputs.size() > 1 && n.outputs[1] >= 0) return false;
    for (size_t i = 1; i < n.inputs.size(); ++i)
      if (n.inputs[i] >= 0 && !Known(info, n.inputs[i])) return false;
    return true;
  }
  return (op == "Relu" || op == "LeakyRelu" || op == "HardSwish" || op == "HardSigmoid" || op == "Sigmoid" || op == "Identity" || op == "Sqrt" ||
          op == "Erf" || op == "Tanh" || op == "Exp" || op == "Log") &&
         n.NumInputs() == 1;
}

Status CompileUnary(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  const size_t count = static_cast<size_t>(c.slot(x).numel());
  if (count == 0) return c.CompileRef(n);
  const Layout l = Preferred(c, x);
  const float* xp = c.In(x, l);
  float* yp = c.Out(y, l);
  const std::string& op = n.op;
  if (op == "Relu") {
    // NaN passes (v != v), as the reference's Relu (np.maximum(x, 0)).
    Map(c, xp, yp, count, [](float v) { return (v > 0 || v != v) ? v : 0.0f; });
  } else if (op == "Clip") {
    // Min(max, Max(x, min)): NaN passes, min > max gives max (the reference's rule).
    const Clamp cl = ClipBounds(c, n);
    const float lo = cl.lo, hi = cl.hi, below = hi < lo ? hi : lo;
    Map(c, xp, yp, count, [lo, hi, below](float v) { return v < lo ? below : v > hi ? hi : v; });
  } else if (op == "LeakyRelu") {
    TARE_ASSIGN_OR_RETURN(float alpha, n.GetFloat("alpha", 0.01f));
    Map(c, xp, yp, count, [alpha](float v) { return v < 0 ? alpha * v : v; });
  } else if (op == "HardSwish") {
    Map(c, xp, yp, count, [](float v) {
      float s = v / 6.0f;
      s = s + 0.5f;
      s = s < 0 ? 0.0f : s > 1 ? 1.0f : s;
      return v * s;
    });
  } else if (op == "HardSigmoid") {
    TARE_ASSIGN_OR_RETURN(const float alpha, n.GetFloat("alpha", 0.2f));
    TARE_ASSIGN_OR_RETURN(const float beta, n.GetFloat("beta", 0.5f));
    Map(c, xp, yp, count, [alpha, beta](float v) { return HardSigmoidOf(v, alpha, beta); });
  } else if (op == "Sqrt") {
    Map(c, xp, yp, count, [](float v) { return std::sqrt(v); });
  } else if (op == "Erf" || op == "Tanh" || op == "Exp" || op == "Log") {
    const EigenFn f = op == "Erf" ? EigenFn::kErf : op == "Tanh" ? EigenFn::kTanh : op == "Exp" ? EigenFn::kExp : EigenFn::kLog;
    if (EigenAvailable()) {
      ThreadPool* pool = c.pool();
      c.Add([=] {
        pool->ParallelFor(count, kTile, [=](size_t b, size_t e) { MapEigen(f, xp + b, yp + b, e - b); });
        return Status::Ok();
      });
    } else {
      double (*g)(double) = f == EigenFn::kErf ? static_cast<double (*)(double)>(std::erf)
                            : f == EigenFn::kTanh ? static_cast<double (*)(double)>(std::tanh)
                            : f == EigenFn::kExp  ? static_cast<double (*)(double)>(std::exp)
                                                  : static_cast<double (*)(double)>(std::log);
      Map(c, xp, yp, count, [g](float v) { return static_cast<float>(g(static_cast<double>(v))); });
    }
  } else if (op == "Sigmoid") {
    const Isa isa = CpuIsa();
    if (isa != Isa::kGeneric) {  // the own kernel (isa_kernels.h)
      ThreadPool* pool = c.pool();
      c.Add([=] {
        pool->ParallelFor(count, kTile, [=](size_t b, size_t e) { SigmoidIsa(isa, xp + b, yp + b, e - b); });
        return Status::Ok();
      });
    } else {
      // XNNPACK's, then its NaN for |x| beyond ~5e26 (docs/FINDINGS.md F9) mended: beyond 88 the
      // sigmoid is 1, or under 6e-39 (0 is within the op's 1e-38).
      Result<XnnOp> made = CreateUnary(XnnUnary::kSigmoid);
      if (!made.ok()) return made.status().With(n.Where());
      xnn_operator* raw = c.Keep(std::move(made).value());
      pthreadpool* pool = c.pool()->raw();
      TARE_RETURN_IF_ERROR(SetupUnary(raw, XnnUnary::kSigmoid, count, xp, yp, pool).With(n.Where()));
      const std::string where = n.Where();
      c.Add([raw, pool, where] { return RunXnn(raw, pool).With(where); });
      ThreadPool* tp = c.pool();
      c.Add([=] {
        tp->ParallelFor(count, kTile, [=](size_t b, size_t e) { MendSigmoidTails(xp + b, yp + b, e - b); });
        return Status::Ok();
      });
    }
  } else {  // Identity, Dropout
    ThreadPool* pool = c.pool();
    c.Add([=] { CopyFloats(xp, yp, count, pool); return Status::Ok(); });
  }
  c.Done(y);
  return Status::Ok();
}

Status CompileRoundTo(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  const size_t count = static_cast<size_t>(c.slot(x).numel());
  TARE_ASSIGN_OR_RETURN(int64_t code, n.GetInt(kCastRoundTo, 0));
  if (count == 0 || (code != 10 && code != 16)) return c.CompileRef(n);
  const Layout l = Preferred(c, x);  // elementwise: any layout
  const float* xp = c.In(x, l);
  float* yp = c.Out(y, l);
  if (code == 16) {
    // bfloat16: to nearest even (runtime/ir, inline: the loop vectorizes).
    Map(c, xp, yp, count, [](float v) { return BFloat16ToFloat(FloatToBFloat16Nearest(v)); });
  } else {
    // float16: XNNPACK's conversions there and back (F16C / NEON), through a private buffer.
    Result<XnnOp> to = CreateConvert(true), back = CreateConvert(false);
    if (!to.ok() || !back.ok()) return c.CompileRef(n);
    xnn_operator* t = c.Keep(std::move(to).value());
    xnn_operator* b = c.Keep(std::move(back).value());
    void* half = c.Alloc((count + 1) / 2);
    pthreadpool* pool = c.pool()->raw();
    TARE_RETURN_IF_ERROR(SetupConvert(t, true, count, xp, half, pool).With(n.Where()));
    TARE_RETURN_IF_ERROR(SetupConvert(b, false, count, half, yp, pool).With(n.Where()));
    const std::string where = n.Where();
    c.Add([t, b, pool, where] {
      TARE_RETURN_IF_ERROR(RunXnn(t, pool).With(where));
      return RunXnn(b, pool).With(where);
    });
  }
  c.Done(y);
  return Status::Ok();
}

bool SupportsBatchNorm(const Node& n, const Graph& g, const GraphInfo& info) {
  if (n.inputs.size() != 5 || !IsF32(g, n.inputs[0])) return false;
  for (size_t i = 1; i < 5; ++i)
    if (!Known(info, n.inputs[i])) return false;
  for (size_t i = 1; i < n.outputs.size(); ++i)
    if (n.outputs[i] >= 0) return false;
  return true;
}

Status CompileBatchNorm(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  const Shape& s = c.shape(x);
  if (c.slot(x).numel() == 0) return c.CompileRef(n);
  TARE_ASSIGN_OR_RETURN(float eps, n.GetFloat("epsilon", 1e-5f));
  const size_t C = s[1];
  size_t inner = 1;
  for (size_t i = 2; i < s.size(); ++i) inner *= s[i];
  const size_t outer = s[0];
  // Per channel, as the reference: den = sqrt(var + eps); y = ((x - mean) / den) * scale + B.
  auto params = std::make_shared<std::vector<float>>(4 * C);
  float* p = params->data();
  for (size_t ch = 0; ch < C; ++ch) {
    p[4 * ch] = c.slot(n.inputs[3]).as<float>()[ch];
    p[4 * ch + 1] = std::sqrt(c.slot(n.inputs[4]).as<float>()[ch] + eps);
    p[4 * ch + 2] = c.slot(n.inputs[1]).as<float>()[ch];
    p[4 * ch + 3] = c.slot(n.inputs[2]).as<float>()[ch];
  }
  const Layout l = Preferred(c, x);
  const float* xp = c.In(x, l);
  float* yp = c.Out(y, l);
  ThreadPool* pool = c.pool();
  const bool nhwc = l == Layout::kNHWC && c.LayoutMatters(x);
  // Rows: (n, c) planes of `inner` elements (plain) or pixels of C channels (NHWC).
  const size_t rows = nhwc ? outer * inner : outer * C, row_len = nhwc ? C : inner;
  c.Add([=] {
    const float* q = params->data();
    pool->ParallelFor(rows, std::max<size_t>(1, kTile / std::max<size_t>(1, row_len)), [=](size_t b, size_t e) {
      for (size_t r = b; r < e; ++r) {
        const float* xr = xp + r * row_len;
        float* yr = yp + r * row_len;
        if (nhwc) {
          for (size_t ch = 0; ch < row_len; ++ch) {
            const float* k = q + 4 * ch;
            float v = (xr[ch] - k[0]) / k[1];
            v = v * k[2];
            yr[ch] = v + k[3];
          }
        } else {
          const float* k = q + 4 * (r % C);
          for (size_t i = 0; i < row_len; ++i) {
            float v = (xr[i] - k[0]) / k[1];
            v = v * k[2];
            yr[i] = v + k[3];
          }
        }
      }
    });
    return Status::Ok();
  });
  c.Done(y);
  return Status::Ok();
}

}  // namespace tare::cpu
