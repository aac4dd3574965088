// Gemm, MatMul and Softmax (plain layouts).
//   Gemm: transA=0, alpha=1, B known: a fully connected product with B as [N][K] (transB=1) or
//     [K][N] (transB=0); bias = beta * C rounded once, C known of shape [], [1], [N], [1, 1] or
//     [1, N] (other C shapes run the reference). A following Relu/Clip is fused.
//   MatMul: A (..., M, K), B known 2-D (K, N): the same over all rows of A, a following Add of a
//     known row fused as the bias; other MatMuls (run-time B, batched, broadcast): matmul.cc.
//   The product runs on GemmConv (conv_gemm.h, AVX2/AVX-512) where GemmConv::Worth says so, else
//   on XNNPACK's fully_connected. Each runs its reference kernel instead when its input holds a
//   NaN or an inf (AddFiniteGuarded: the fast kernels' clamp turns a NaN into -inf or lo).
//   Softmax: over the last axis (or legacy_2d's flattened trailing block): softmax_nc. Softmax over
//     another axis and LogSoftmax over any: AddSoftmaxAxis (the reference's order, Eigen's exp/log).
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include "backends/cpu/conv_gemm.h"
#include "backends/cpu/eigen_kernels.h"
#include "backends/cpu/ops.h"

namespace tare::cpu {
namespace {

/// The Add after a MatMul (its only reader, the next node) of a known, finite row of N floats
/// (shape [N], [1, N], ...: PyTorch's Linear on 3-D inputs exports MatMul then Add): absorbed, its
/// values copied to *bias, the Add's output returned; else -1.
int FuseRowBias(Compiler& c, int v, size_t N, std::vector<float>* bias) {
  const Node* next = c.NextSoleReader(v);
  if (!next || next->op != "Add" || !next->domain.empty() || next->inputs.size() != 2 || next->outputs[0] < 0) return -1;
  const int other = next->inputs[0] == v ? next->inputs[1] : next->inputs[0];
  if (other == v || !c.IsConst(other) || c.slot(other).dtype != DType::kFloat32) return -1;
  const Shape& bs = c.shape(other);
  if (static_cast<size_t>(c.slot(other).numel()) != N || bs.empty() || static_cast<size_t>(bs.back()) != N ||
      bs.size() > c.shape(v).size() || c.shape(next->outputs[0]) != c.shape(v))
    return -1;
  const float* b = c.slot(other).as<float>();
  if (!AllFinite(b, N)) return -1;
  bias->assign(b, b + N);
  c.AbsorbNext();
  c.SetPos(c.pos() + 1);
  return next->outputs[0];
}

/// The fully connected product on GemmConv (conv_gemm.h) as a 1 x 1 convolution over the rows of
/// A (plain ap -> yp): on AVX-512 about 1.45x XNNPACK's fully connected operator on transformer
/// shapes (one thread, rows x K x N = 196 x 384 x 1536: 1.10 ms against 1.60 ms). Returns the
/// fast step for AddFiniteGuarded.
Result<std::function<Status()>> GemmFcStep(Compiler& c, const Node& n, const GemmConvShape& gs, const float* w,
                                           bool in_out, const float* bias, const float* ap, float* yp) {
  const size_t K = gs.cg, N = gs.og;
  std::vector<float> oi;  // GemmConv reads OIHW: [N][K]
  if (in_out) {
    oi.resize(K * N);
    for (size_t k = 0; k < K; ++k)
      for (size_t j = 0; j < N; ++j) oi[j * K + k] = w[k * N + j];
    w = oi.data();
  }
  auto gc = std::make_shared<GemmConv>(gs, w, bias);
  gc->Bind(ap, yp, nullptr);
  if (!gc->ok()) return Status::Error(n.Where() + ": out of memory packing the weights");
  c.Hold(gc);
  const GemmConv* raw = gc.get();
  ThreadPool* pool = c.pool();
  return std::function<Status()>([raw, pool] {
    raw->Run(pool);
    return Status::Ok();
  });
}

/// XNNPACK's fully connected operator (ap -> yp), bias and clamp fused; the fast step for
/// AddFiniteGuarded.
Result<std::function<Status()>> XnnFcStep(Compiler& c, const Node& n, size_t K, size_t N, const float* w, bool in_out,
                                          const float* bias, const Clamp& cl, size_t rows, const float* ap, float* yp) {
  pthreadpool* pool = c.pool()->raw();
  Result<XnnFc> made = CreateFullyConnected(K, N, w, in_out, bias, cl.lo, cl.hi, pool);
  if (!made.ok()) return made.status().With(n.Where());
  auto fc = std::make_shared<XnnFc>(std::move(made).value());
  c.Hold(fc);
  const std::string where = n.Where();
  TARE_RETURN_IF_ERROR(SetupFullyConnected(*fc, rows, ap, yp, pool).With(where));
  const XnnFc* raw = fc.get();
  return std::function<Status()>([raw, pool, where] { return RunFullyConnected(*raw, pool).With(where); });
}

/// A (rows x K, plain) times the known weights w ([K][N] when in_out, else [N][K]) plus bias,
/// then a fused Relu/Clip: on GemmConv where it is worth it (AVX2/AVX-512), else XNNPACK. A MatMul
/// followed by the Add of a known row (a Linear layer) takes the row as its bias; the guarded
/// fallback (a non-finite input) then runs the reference MatMul and adds the row, as the Add would.
Status AddFullyConnected(Compiler& c, const Node& n, int a, int y0, size_t K, size_t N, const float* w, bool in_out,
                         const float* bias) {
  auto row = std::make_shared<std::vector<float>>();
  int yb = y0;
  if (n.op == "MatMul" && !bias) {
    const int added = FuseRowBias(c, y0, N, row.get());
    if (added >= 0) {
      yb = added;
      bias = row->data();
    }
  }
  Clamp cl;
  const int y = FuseClamp(c, yb, &cl);
  const size_t rows = static_cast<size_t>(c.slot(a).numel()) / K;
  const float* ap = c.In(a, Layout::kPlain);
  float* yp = c.OutFused(y0, y, Layout::kPlain, {{ap, c.slot(a).nbytes()}});
  GemmConvShape gs;
  gs.ih = gs.oh = rows;
  gs.cg = K;
  gs.og = N;
  gs.lo = cl.lo;
  gs.hi = cl.hi;
  Result<std::function<Status()>> fast = GemmConv::Available() && GemmConv::Worth(gs)
                                             ? GemmFcStep(c, n, gs, w, in_out, bias, ap, yp)
                                             : XnnFcStep(c, n, K, N, w, in_out, bias, cl, rows, ap, yp);
  if (!fast.ok()) return fast.status();
  std::function<void()> after_ref;
  if (!row->empty()) {
    const size_t count = rows * N;
    after_ref = [row, yp, count, N] {
      for (size_t i = 0; i < count; ++i) yp[i] = yp[i] + (*row)[i % N];
    };
  }
  TARE_RETURN_IF_ERROR(AddFiniteGuarded(c, n, ap, static_cast<size_t>(c.slot(a).numel()), yp, cl,
                                        std::move(fast).value(), std::move(after_ref)));
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
  return (n.op == "Softmax" || n.op == "LogSoftmax") && n.inputs.size() == 1 && IsF32(g, n.inputs[0]);
}

/// (Log)Softmax over the middle axis of [outer, k, inner] (inner > 1, or LogSoftmax): the
/// reference's order (max over k; e = exp(x - max); the sum in index order; e / sum, or (x - max) -
/// log(sum)) with exp and log from Eigen's packets (eigen_kernels.h) where available, else the
/// reference's double functions rounded once; vectorized over `inner`, tasks of (outer, a block
/// of 256 inner positions) over the pool. Within Softmax's budget, not ref's bits.
void AddSoftmaxAxis(Compiler& c, const float* xp, float* yp, size_t outer, size_t k, size_t inner, bool log) {
  constexpr size_t kB = 256;
  const size_t blocks = (inner + kB - 1) / kB;
  ThreadPool* pool = c.pool();
  const bool eigen = EigenAvailable();
  auto map = [eigen](EigenFn f, float* v, size_t m) {
    if (eigen) return MapEigen(f, v, v, m);
    for (size_t j = 0; j < m; ++j)
      v[j] = static_cast<float>(f == EigenFn::kExp ? std::exp(double(v[j])) : std::log(double(v[j])));
  };
  c.Add([=] {
    pool->ParallelFor(outer * blocks, 1, [&](size_t t0, size_t t1) {
      float mx[kB], sum[kB], e[kB];
      for (size_t t = t0; t < t1; ++t) {
        const size_t o = t / blocks, j0 = (t % blocks) * kB, m = std::min(kB, inner - j0);
        const float* xo = xp + o * k * inner + j0;
        float* yo = yp + o * k * inner + j0;
        for (size_t j = 0; j < m; ++j) mx[j] = xo[j];
        for (size_t kk = 1; kk < k; ++kk)
          for (size_t j = 0; j < m; ++j)
            if (xo[kk * inner + j] > mx[j]) mx[j] = xo[kk * inner + j];
        for (size_t j = 0; j < m; ++j) sum[j] = 0;
        for (size_t kk = 0; kk < k; ++kk) {
          for (size_t j = 0; j < m; ++j) e[j] = xo[kk * inner + j] - mx[j];
          map(EigenFn::kExp, e, m);
          for (size_t j = 0; j < m; ++j) sum[j] = sum[j] + e[j];
          if (!log) std::copy(e, e + m, yo + kk * inner);
        }
        if (log) {
          map(EigenFn::kLog, sum, m);
          for (size_t kk = 0; kk < k; ++kk)
            for (size_t j = 0; j < m; ++j) yo[kk * inner + j] = (xo[kk * inner + j] - mx[j]) - sum[j];
        } else {
          for (size_t kk = 0; kk < k; ++kk)
            for (size_t j = 0; j < m; ++j) yo[kk * inner + j] = yo[kk * inner + j] / sum[j];
        }
      }
    });
    return Status::Ok();
  });
}

Status CompileSoftmax(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  const Shape& s = c.shape(x);
  TARE_ASSIGN_OR_RETURN(int64_t axis, n.GetInt("axis", -1));
  TARE_ASSIGN_OR_RETURN(int64_t legacy, n.GetInt("legacy_2d", 0));
  const int64_t r = static_cast<int64_t>(s.size());
  if (axis < 0) axis += r;
  if (c.slot(x).numel() == 0) return c.CompileRef(n);
  const bool log = n.op == "LogSoftmax";
  if ((!legacy && axis != r - 1) || log) {
    if (legacy || axis < 0 || axis >= r) return c.CompileRef(n);
    size_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= static_cast<size_t>(s[size_t(i)]);
    for (int64_t i = axis + 1; i < r; ++i) inner *= static_cast<size_t>(s[size_t(i)]);
    const float* xp = c.In(x, Layout::kPlain);
    float* yp = c.Out(y, Layout::kPlain);
    if (yp == xp || c.Overlap(xp, c.slot(x).nbytes(), yp, c.slot(y).nbytes())) return c.CompileRef(n);
    AddSoftmaxAxis(c, xp, yp, outer, static_cast<size_t>(s[size_t(axis)]), inner, log);
    c.Done(y);
    return Status::Ok();
  }
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
