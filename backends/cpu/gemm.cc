// Gemm, MatMul and Softmax on XNNPACK (plain layouts).
//   Gemm: transA=0, alpha=1, B known: fully_connected with B as [N][K] (transB=1) or [K][N]
//     (transB=0); bias = beta * C rounded once, C known of shape [], [1], [N], [1, 1] or [1, N]
//     (other C shapes run the reference). A following Relu/Clip is fused.
//   Each runs its reference kernel instead when its input holds a NaN or an inf (AddFiniteGuarded:
//   XNNPACK would turn a NaN into -inf or the clamp's lo).
//   MatMul: A (..., M, K), B known 2-D (K, N): fully_connected over all rows of A; other MatMuls
//     (run-time B, batched, broadcast): matmul.cc.
//   Softmax: over the last axis (or legacy_2d's flattened trailing block): softmax_nc.
#include <algorithm>
#include <memory>

#include "backends/cpu/conv_gemm.h"
#include "backends/cpu/ops.h"

namespace tare::cpu {
namespace {

/// The fully connected product on GemmConv (conv_gemm.h) as a 1 x 1 convolution over the rows of
/// A: on AVX-512 about 1.45x XNNPACK's fully connected operator on transformer shapes (one thread,
/// rows x K x N = 196 x 384 x 1536: 1.10 ms against 1.60 ms). Guarded as AddFullyConnected's
/// XNNPACK path is.
Status AddGemmFc(Compiler& c, const Node& n, int a, int y0, int y, const GemmConvShape& gs, const float* w, bool in_out,
                 const float* bias, const Clamp& cl) {
  const size_t K = gs.cg, N = gs.og;
  std::vector<float> oi;  // GemmConv reads OIHW: [N][K]
  if (in_out) {
    oi.resize(K * N);
    for (size_t k = 0; k < K; ++k)
      for (size_t j = 0; j < N; ++j) oi[j * K + k] = w[k * N + j];
    w = oi.data();
  }
  auto gc = std::make_shared<GemmConv>(gs, w, bias);
  const float* ap = c.In(a, Layout::kPlain);
  float* yp = c.OutFused(y0, y, Layout::kPlain, {{ap, c.slot(a).nbytes()}});
  gc->Bind(ap, yp, nullptr);
  if (!gc->ok()) return Status::Error(n.Where() + ": out of memory packing the weights");
  c.Hold(gc);
  const GemmConv* raw = gc.get();
  ThreadPool* pool = c.pool();
  TARE_RETURN_IF_ERROR(AddFiniteGuarded(c, n, ap, static_cast<size_t>(c.slot(a).numel()), yp, cl, [raw, pool] {
    raw->Run(pool);
    return Status::Ok();
  }));
  c.Done(y);
  return Status::Ok();
}

Status AddFullyConnected(Compiler& c, const Node& n, int a, int y0, size_t K, size_t N, const float* w, bool in_out,
                         const float* bias) {
  Clamp cl;
  const int y = FuseClamp(c, y0, &cl);
  const size_t rows = static_cast<size_t>(c.slot(a).numel()) / K;
  GemmConvShape gs;
  gs.ih = gs.oh = rows;
  gs.cg = K;
  gs.og = N;
  gs.lo = cl.lo;
  gs.hi = cl.hi;
  if (GemmConv::Available() && GemmConv::Worth(gs)) return AddGemmFc(c, n, a, y0, y, gs, w, in_out, bias, cl);
  pthreadpool* pool = c.pool()->raw();
  Result<XnnFc> made = CreateFullyConnected(K, N, w, in_out, bias, cl.lo, cl.hi, pool);
  if (!made.ok()) return made.status().With(n.Where());
  auto fc = std::make_shared<XnnFc>(std::move(made).value());
  c.Hold(fc);
  const float* ap = c.In(a, Layout::kPlain);
  float* yp = c.OutFused(y0, y, Layout::kPlain, {{ap, c.slot(a).nbytes()}});
  const size_t batch = static_cast<size_t>(c.slot(a).numel()) / K;
  const std::string where = n.Where();
  TARE_RETURN_IF_ERROR(SetupFullyConnected(*fc, batch, ap, yp, pool).With(where));
  const XnnFc* raw = fc.get();
  TARE_RETURN_IF_ERROR(AddFiniteGuarded(c, n, ap, static_cast<size_t>(c.slot(a).numel()), yp, cl,
                                        [raw, pool, where] { return RunFullyConnected(*raw, pool).With(where); }));
  c.Done(y);
  return Status::Ok();
}

}  // namespace

bool SupportsGemm(const Node& n, const Graph& g, const GraphInfo& info) {
  if (n.NumInputs() < 2 || !IsF32(g, n.inputs[0]) || !IsF32(g, n.inputs[1])) return false;
  if (n.op == "MatMul") return n.NumInputs() == 2;  // a run-time or batched B: CompileBatchedMatMul
  if (!Known(info, n.inputs[1])) return false;
  if (n.NumInputs() > 2 && n.inputs[2] >= 0 && (!Known(info, n.inputs[2]) || !IsF32(g, n.inputs[2]))) return false;
  Result<int64_t> ta = n.GetInt("transA", 0);
  Result<float> alpha = n.GetFloat("alpha", 1.0f);
  return ta.ok() && *ta == 0 && alpha.ok() && *alpha == 1.0f;
}

Status CompileGemm(Compiler& c, const Node& n) {
  const int a = n.inputs[0], b = n.inputs[1], y = n.outputs[0];
  const Shape& as = c.shape(a);
  const Shape& bs = c.shape(b);
  if (n.op == "MatMul" && (!c.IsConst(b) || bs.size() != 2)) return CompileBatchedMatMul(c, n);
  if (c.slot(y).numel() == 0 || c.slot(a).numel() == 0 || bs.size() != 2 || as.size() < 2) return c.CompileRef(n);
  const float* w = c.slot(b).as<float>();
  if (n.op == "MatMul") return AddFullyConnected(c, n, a, y, bs[0], bs[1], w, true, nullptr);
  TARE_ASSIGN_OR_RETURN(int64_t tb, n.GetInt("transB", 0));
  TARE_ASSIGN_OR_RETURN(float beta, n.GetFloat("beta", 1.0f));
  const size_t K = as[1], N = tb ? bs[0] : bs[1];
  std::vector<float> bias;
  const int cv = n.inputs.size() > 2 ? n.inputs[2] : -1;
  if (cv >= 0) {
    const Tensor& ct = c.slot(cv);
    const Shape& cs = ct.shape;
    const bool row = ct.numel() == 1 || (cs.size() == 1 && size_t(cs[0]) == N) ||
                     (cs.size() == 2 && cs[0] == 1 && size_t(cs[1]) == N);
    if (!row) return c.CompileRef(n);
    bias.resize(N);
    for (size_t j = 0; j < N; ++j) {
      const float v = ct.as<float>()[ct.numel() == 1 ? 0 : j];
      bias[j] = beta == 1.0f ? v : beta * v;
    }
  }
  return AddFullyConnected(c, n, a, y, K, N, w, tb == 0, bias.empty() ? nullptr : bias.data());
}

bool SupportsSoftmax(const Node& n, const Graph& g, const GraphInfo&) {
  return n.op == "Softmax" && n.inputs.size() == 1 && IsF32(g, n.inputs[0]);
}

Status CompileSoftmax(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  const Shape& s = c.shape(x);
  TARE_ASSIGN_OR_RETURN(int64_t axis, n.GetInt("axis", -1));
  TARE_ASSIGN_OR_RETURN(int64_t legacy, n.GetInt("legacy_2d", 0));
  const int64_t r = static_cast<int64_t>(s.size());
  if (axis < 0) axis += r;
  if (c.slot(x).numel() == 0 || (!legacy && axis != r - 1)) return c.CompileRef(n);
  size_t channels = 1;
  for (int64_t i = axis; i < r; ++i) channels *= static_cast<size_t>(s[i]);
  Result<XnnOp> made = CreateSoftmax(channels);
  if (!made.ok()) return made.status().With(n.Where());
  xnn_operator* raw = c.Keep(std::move(made).value());
  const float* xp = c.In(x, Layout::kPlain);
  float* yp = c.Out(y, Layout::kPlain);
  pthreadpool* pool = c.pool()->raw();
  const std::string where = n.Where();
  TARE_RETURN_IF_ERROR(SetupSoftmax(raw, static_cast<size_t>(c.slot(x).numel()) / channels, xp, yp, pool).With(where));
  TARE_RETURN_IF_ERROR(AddFiniteGuarded(c, n, xp, static_cast<size_t>(c.slot(x).numel()), yp, Clamp{},
                                        [raw, pool, where] { return RunXnn(raw, pool).With(where); }));
  c.Done(y);
  return Status::Ok();
}

}  // namespace tare::cpu
