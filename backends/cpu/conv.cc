// Conv (2-D, NHWC): groups (depthwise included), strides, dilations, asymmetric pads, auto_pad
// resolved from the shapes as the reference does (kernels/ref/conv_geometry.h). On the backend's
// own AVX-512 kernel (conv_gemm.h) when the CPU has it and the layer is wide enough, else XNNPACK.
// Fusions, when each follower is the next node and the only reader of its input (not live out):
//   Conv -> BatchNormalization: folded into the weights and bias, in double, rounded once:
//     s = scale / sqrt(var + eps); W' = W * s; b' = (b - mean) * s + B.
//   Conv [-> BatchNormalization] -> Add(other of the same shape) (own kernel only): the residual
//     is added to the rounded convolution result, as the unfused Add would.
//   ... -> Relu | Clip: the output clamp.
//   ... -> Concat over channels (the chain's only reader): written in place into the Concat's
//     output (output pixel stride = the Concat's channel count).
// NaN and inf: an input (or residual, or weight) that holds one runs the reference Conv instead
// (AddConvStep): both fast kernels' output clamp would turn a NaN into -inf or the clamp's lo.
// Weights are repacked OIHW -> OHWI per group ([groups][M/groups][kh][kw][C/groups]); XNNPACK then
// packs them once at creation. The end pads passed to XNNPACK are those that give the inferred
// output size (unused trailing padding dropped), so its size formula always agrees.
#include <algorithm>
#include <cmath>

#include <cstdlib>

#include "backends/cpu/conv_gemm.h"
#include "backends/cpu/isa.h"
#include "backends/cpu/isa_kernels.h"
#include "backends/cpu/ops.h"
#include "kernels/ref/conv_geometry.h"
#include "runtime/exec/ref_kernel.h"

namespace tare::cpu {
namespace {

/// Folds a following BatchNormalization into w (OIHW, M rows of `per` weights) and b (M).
Status FoldBatchNorm(const Compiler& c, const Node& bn, std::vector<float>* w, std::vector<float>* b, size_t per) {
  TARE_ASSIGN_OR_RETURN(float eps, bn.GetFloat("epsilon", 1e-5f));
  const float* scale = c.slot(bn.inputs[1]).as<float>();
  const float* bias = c.slot(bn.inputs[2]).as<float>();
  const float* mean = c.slot(bn.inputs[3]).as<float>();
  const float* var = c.slot(bn.inputs[4]).as<float>();
  for (size_t m = 0; m < b->size(); ++m) {
    const double s = double(scale[m]) / std::sqrt(double(var[m]) + double(eps));
    for (size_t i = 0; i < per; ++i) (*w)[m * per + i] = static_cast<float>(double((*w)[m * per + i]) * s);
    (*b)[m] = static_cast<float>((double((*b)[m]) - double(mean[m])) * s + double(bias[m]));
  }
  return Status::Ok();
}

bool IsFoldableBatchNorm(const Compiler& c, const Node& n, int x) {
  if (n.op != "BatchNormalization" || !n.domain.empty() || n.inputs.size() != 5 || n.inputs[0] != x) return false;
  for (size_t i = 1; i < 5; ++i)
    if (!c.IsConst(n.inputs[i])) return false;
  for (size_t i = 1; i < n.outputs.size(); ++i)
    if (n.outputs[i] >= 0) return false;
  return true;
}

}  // namespace

bool SupportsConv(const Node& n, const Graph& g, const GraphInfo& info) {
  if (n.NumInputs() < 2 || !IsF32(g, n.inputs[0]) || !Known(info, n.inputs[1])) return false;
  if (n.NumInputs() > 2 && n.inputs[2] >= 0 && !Known(info, n.inputs[2])) return false;
  const Value& w = g.values[n.inputs[1]];
  if (w.is_constant && w.constant.shape.size() != 4 && w.constant.shape.size() != 3) return false;  // 3-D convolutions: ref
  return true;
}

namespace {

/// The Add after a conv (on its only reader, the next node) whose other operand has the conv
/// output's shape: fused as a residual into GemmConv's epilogue (before the clamp). Returns the
/// other operand, or -1.
int FuseResidual(Compiler& c, int y) {
  const Node* next = c.NextSoleReader(y);
  if (!next || next->op != "Add" || !next->domain.empty() || next->inputs.size() != 2 || next->outputs[0] < 0) return -1;
  const int other = next->inputs[0] == y ? next->inputs[1] : next->inputs[0];
  if (other == y || other < 0 || c.slot(other).dtype != DType::kFloat32 || c.shape(other) != c.shape(y)) return -1;
  if (c.slot(next->outputs[0]).dtype != DType::kFloat32) return -1;
  c.AbsorbNext();
  c.SetPos(c.pos() + 1);
  return other;
}

/// Adds the convolution step `fast` (NHWC: xp [N][ih*iw][C]; yp, pixel stride gs.ystride; rp, the
/// fused residual [N][oh*ow][M] or null; clamp [gs.lo, gs.hi]) guarded: when xp or rp holds a NaN
/// or an inf (or the weights w / bias b, OIHW as folded, do), the step runs the reference Conv of n
/// on NCHW copies instead, then adds rp and clamps keeping NaN, as the unfused nodes would. The fast
/// kernels' clamp (XNNPACK's and GemmConv's max/min) turns a NaN into -inf or lo
/// (tests/conformance/cases test_nan_conv*). `w` must outlive the compiled partition.
Status AddConvStep(Compiler& c, const Node& n, const GemmConvShape& gs, const float* w, const std::vector<float>& b,
                   const float* xp, float* yp, const float* rp, std::function<Status()> fast) {
  const size_t N = gs.n, C = gs.groups * gs.cg, M = gs.groups * gs.og, P = gs.ih * gs.iw, OP = gs.oh * gs.ow;
  const size_t ystride = gs.ystride ? gs.ystride : M;
  const Shape& ws = c.shape(n.inputs[1]);
  const size_t wn = static_cast<size_t>(c.slot(n.inputs[1]).numel());
  const bool weights_finite = AllFinite(w, wn) && AllFinite(b.data(), b.size());
  Node conv = n;
  conv.inputs = {0, 1, 2};
  conv.outputs = {0};
  TARE_ASSIGN_OR_RETURN(KernelFn k, MakeRefKernel(conv, DType::kFloat32));
  auto bias = std::make_shared<std::vector<float>>(b);
  auto wt = std::make_shared<Tensor>(Tensor::View(DType::kFloat32, ws, const_cast<float*>(w)));
  auto bt = std::make_shared<Tensor>(Tensor::View(DType::kFloat32, {static_cast<int64_t>(M)}, bias->data(), bias));
  const Shape xs = c.shape(n.inputs[0]), ys = c.shape(n.outputs[0]);
  const float lo = gs.lo, hi = gs.hi;
  ThreadPool* pool = c.pool();
  const std::string where = n.Where();
  c.Add([=] {
    if (weights_finite && AllFiniteParallel(xp, N * P * C, pool) && (!rp || AllFiniteParallel(rp, N * OP * M, pool)))
      return fast();
    std::vector<float> xn(N * C * P), yn(N * M * OP);
    NhwcToNchw(xp, xn.data(), N, C, P, pool);
    Tensor xt = Tensor::View(DType::kFloat32, xs, xn.data()), yt = Tensor::View(DType::kFloat32, ys, yn.data());
    TARE_RETURN_IF_ERROR(k({&xt, wt.get(), bt.get()}, {&yt}).With(where));
    for (size_t i = 0; i < N; ++i)
      for (size_t p = 0; p < OP; ++p)
        for (size_t m = 0; m < M; ++m) {
          float v = yn[(i * M + m) * OP + p];
          if (rp) v += rp[(i * OP + p) * M + m];
          yp[(i * OP + p) * ystride + m] = v < lo ? lo : v > hi ? hi : v;
        }
    return Status::Ok();
  });
  return Status::Ok();
}

Status AddXnnConv(Compiler& c, const Node& n, const ConvGeometry& geo, const GemmConvShape& gs, const std::vector<float>& w,
                  const std::vector<float>& b, const float* wkeep, const float* xp, float* yp) {
  const size_t M = gs.groups * gs.og, Cg = gs.cg, kh = gs.kh, kw = gs.kw;
  // OIHW -> OHWI (per output channel: [kh][kw][Cg]).
  std::vector<float> packed(w.size());
  for (size_t m = 0; m < M; ++m)
    for (size_t ci = 0; ci < Cg; ++ci)
      for (size_t k = 0; k < kh * kw; ++k) packed[(m * kh * kw + k) * Cg + ci] = w[(m * Cg + ci) * kh * kw + k];
  const int64_t dk_h = (int64_t(kh) - 1) * geo.d[1] + 1, dk_w = (int64_t(kw) - 1) * geo.d[2] + 1;
  XnnConvDesc d;
  d.pad_top = static_cast<uint32_t>(gs.pt);
  d.pad_left = static_cast<uint32_t>(gs.pl);
  d.pad_bottom = static_cast<uint32_t>(std::max<int64_t>(0, int64_t(gs.oh - 1) * geo.s[1] + dk_h - int64_t(gs.ih) - geo.pb[1]));
  d.pad_right = static_cast<uint32_t>(std::max<int64_t>(0, int64_t(gs.ow - 1) * geo.s[2] + dk_w - int64_t(gs.iw) - geo.pb[2]));
  d.kh = kh;
  d.kw = kw;
  d.stride_h = gs.sh;
  d.stride_w = gs.sw;
  d.dil_h = gs.dh;
  d.dil_w = gs.dw;
  d.groups = gs.groups;
  d.group_in = Cg;
  d.group_out = gs.og;
  d.in_stride = gs.groups * Cg;
  d.out_stride = gs.ystride;
  Result<XnnOp> op = CreateConv2d(d, packed.data(), b.data(), gs.lo, gs.hi);
  if (!op.ok()) return op.status().With(n.Where());
  xnn_operator* raw = c.Keep(std::move(op).value());
  TARE_RETURN_IF_ERROR(SetupConv2d(raw, gs.n, gs.ih, gs.iw, xp, yp, c.pool()->raw()).With(n.Where()));
  pthreadpool* pool = c.pool()->raw();
  const std::string where = n.Where();
  return AddConvStep(c, n, gs, wkeep, b, xp, yp, nullptr, [raw, pool, where] { return RunXnn(raw, pool).With(where); });
}

/// y[c] = y[c] + x[c] * w[c] for c < C (one pixel's channels, one tap): vectorized per x86-64 level.
TARE_CPU_CLONES void DwTap(const float* x, const float* w, float* y, size_t C) {
  for (size_t i = 0; i < C; ++i) y[i] = y[i] + x[i] * w[i];
}

/// Depthwise convolutions with kernels larger than XNNPACK 2022's single-pass depthwise kernels
/// (more than 25 taps, e.g. ConvNeXt's 7 x 7, which XNNPACK runs about 10x slower): NHWC, per
/// output pixel y = bias, then per tap in row-major order (taps in the padding skipped) one term
/// (a K-term dot product: within Conv's budget); output rows split over the pool. On AVX2 and
/// AVX-512 the accumulators stay in registers (DwConvAvx2/DwConvAvx512, isa_kernels.h: one FMA per
/// term, the same bits on both); the generic path adds y + x * w in memory, vectorized over the
/// channels.
Status AddDepthwiseConv(Compiler& c, const Node& n, const GemmConvShape& gs, const std::vector<float>& w,
                        const std::vector<float>& b, const float* wkeep, const float* xp, float* yp) {
  const size_t C = gs.groups, taps = gs.kh * gs.kw, ystride = gs.ystride ? gs.ystride : C;
  auto wt = std::make_shared<std::vector<float>>(taps * C);  // [tap][C]
  for (size_t ch = 0; ch < C; ++ch)
    for (size_t t = 0; t < taps; ++t) (*wt)[t * C + ch] = w[ch * taps + t];
  c.Hold(wt);
  auto bias = std::make_shared<std::vector<float>>(b.empty() ? std::vector<float>(C, 0.0f) : b);
  c.Hold(bias);
  const float* wp = wt->data();
  const float* bp = bias->data();
  const GemmConvShape s = gs;
  ThreadPool* pool = c.pool();
  const Isa isa = CpuIsa();
  return AddConvStep(c, n, gs, wkeep, b, xp, yp, nullptr, [=] {
    if (isa != Isa::kGeneric) {
      pool->ParallelFor(s.n * s.oh, 1, [&](size_t r0, size_t r1) {
        DwConvIsa(isa, DwConvTask{xp, wp, bp, yp, s, C, ystride, r0, r1});
      });
      return Status::Ok();
    }
    pool->ParallelFor(s.n * s.oh, 1, [&](size_t r0, size_t r1) {
      for (size_t r = r0; r < r1; ++r) {
        const size_t img = r / s.oh, oy = r % s.oh;
        for (size_t ox = 0; ox < s.ow; ++ox) {
          float* yr = yp + ((img * s.oh + oy) * s.ow + ox) * ystride;
          std::copy(bp, bp + C, yr);
          for (size_t ky = 0; ky < s.kh; ++ky) {
            const int64_t iy = int64_t(oy * s.sh + ky * s.dh) - int64_t(s.pt);
            if (iy < 0 || iy >= int64_t(s.ih)) continue;
            for (size_t kx = 0; kx < s.kw; ++kx) {
              const int64_t ix = int64_t(ox * s.sw + kx * s.dw) - int64_t(s.pl);
              if (ix < 0 || ix >= int64_t(s.iw)) continue;
              DwTap(xp + ((img * s.ih + size_t(iy)) * s.iw + size_t(ix)) * C, wp + (ky * s.kw + kx) * C, yr, C);
            }
          }
          const float lo = s.lo, hi = s.hi;
          for (size_t i = 0; i < C; ++i) yr[i] = yr[i] < lo ? lo : yr[i] > hi ? hi : yr[i];
        }
      }
    });
    return Status::Ok();
  });
}

Status AddGemmConv(Compiler& c, const Node& n, const GemmConvShape& gs, const std::vector<float>& w,
                   const std::vector<float>& b, const float* wkeep, const float* xp, float* yp, const float* rp) {
  auto gc = std::make_shared<GemmConv>(gs, w.data(), b.data());
  gc->Bind(xp, yp, rp);
  if (!gc->ok()) return Status::Error(n.Where() + ": out of memory packing the weights");
  c.Hold(gc);
  const GemmConv* raw = gc.get();
  ThreadPool* pool = c.pool();
  return AddConvStep(c, n, gs, wkeep, b, xp, yp, rp, [raw, pool] {
    raw->Run(pool);
    return Status::Ok();
  });
}

/// A 1-D convolution: N C L is transposed to N L C (a private buffer, when C > 1 and L > 1), run
/// as a 2-D convolution with H = 1 into N OL M, and transposed back into the plain output.
Status CompileConv1d(Compiler& c, const Node& n, const ConvGeometry& geo, const GemmConvShape& gs,
                     const std::vector<float>& w, const std::vector<float>& b, const float* wkeep, bool own, int x,
                     int y0, int y) {
  const size_t N = gs.n, C = gs.groups * gs.cg, L = gs.iw, M = gs.groups * gs.og, OL = gs.ow;
  const float* xplain = c.In(x, Layout::kPlain);
  ThreadPool* pool = c.pool();
  const float* xp = xplain;
  if (C > 1 && L > 1) {
    float* xt = c.Alloc(N * C * L);
    c.SetLabel("transpose ");
    c.Add([=] { NchwToNhwc(xplain, xt, N, C, L, pool); return Status::Ok(); });
    c.SetLabel("");
    xp = xt;
  }
  const bool direct = M == 1 || OL == 1;
  float* yplain = c.OutFused(y0, y, Layout::kPlain, {{xplain, c.slot(x).nbytes()}});
  float* yp = direct ? yplain : c.Alloc(N * M * OL);
  if (own) {
    TARE_RETURN_IF_ERROR(AddGemmConv(c, n, gs, w, b, wkeep, xp, yp, nullptr));
  } else {
    TARE_RETURN_IF_ERROR(AddXnnConv(c, n, geo, gs, w, b, wkeep, xp, yp));
  }
  if (!direct) {
    c.SetLabel("transpose ");
    c.Add([=] { NhwcToNchw(yp, yplain, N, M, OL, pool); return Status::Ok(); });
    c.SetLabel("");
  }
  c.Done(y);
  return Status::Ok();
}

}  // namespace

Status CompileConv(Compiler& c, const Node& n) {
  const int x = n.inputs[0], wv = n.inputs[1];
  const int bv = n.inputs.size() > 2 ? n.inputs[2] : -1;
  const int y0 = n.outputs[0];
  const Shape& xs = c.shape(x);
  const Shape& ws = c.shape(wv);
  const Shape& ys = c.shape(y0);
  const bool one_d = xs.size() == 3;
  if ((xs.size() != 4 && !one_d) || ws.size() != xs.size() || c.slot(y0).numel() == 0 || c.slot(x).numel() == 0)
    return c.CompileRef(n);
  TARE_ASSIGN_OR_RETURN(ConvAttrs at, ConvAttrs::Parse(n));
  // A 1-D convolution (N C L) is the 2-D one with H = 1 (the geometry is right-aligned).
  ConvGeometry geo(at, xs, ws, ys);
  const size_t M = ws[0], Cg = ws[1], kh = geo.k[1], kw = geo.k[2], groups = at.group;
  const size_t per = Cg * kh * kw;
  std::vector<float> w(c.slot(wv).as<float>(), c.slot(wv).as<float>() + M * per);
  std::vector<float> b(M, 0.0f);
  if (bv >= 0) std::copy(c.slot(bv).as<float>(), c.slot(bv).as<float>() + M, b.begin());
  int y = y0;
  bool folded = false;
  if (const Node* next = c.NextSoleReader(y); next && IsFoldableBatchNorm(c, *next, y)) {
    TARE_RETURN_IF_ERROR(FoldBatchNorm(c, *next, &w, &b, per).With(next->Where()));
    folded = true;
    c.AbsorbNext();
    c.SetPos(c.pos() + 1);
    y = next->outputs[0];
  }
  GemmConvShape gs;
  gs.n = xs[0];
  gs.ih = geo.in[1];
  gs.iw = geo.in[2];
  gs.oh = geo.out[1];
  gs.ow = geo.out[2];
  gs.kh = kh;
  gs.kw = kw;
  gs.sh = geo.s[1];
  gs.sw = geo.s[2];
  gs.dh = geo.d[1];
  gs.dw = geo.d[2];
  gs.pt = geo.pb[1];
  gs.pl = geo.pb[2];
  gs.groups = groups;
  gs.cg = Cg;
  gs.og = M / groups;
  // TARE_CPU_CONV=xnnpack forces XNNPACK, TARE_CPU_CONV=own the own GemmConv where it runs (to
  // compare the two paths).
  static const bool force_xnn = [] {
    const char* e = std::getenv("TARE_CPU_CONV");
    return e && std::string(e) == "xnnpack";
  }();
  // A depthwise convolution (one channel per group, multiplier 1) of more than 25 taps: own loop.
  const bool dw_large = !force_xnn && !one_d && Cg == 1 && gs.og == 1 && kh * kw > 25;
  static const bool force_own = [] {
    const char* e = std::getenv("TARE_CPU_CONV");
    return e && std::string(e) == "own";
  }();
  const bool own = dw_large || (!force_xnn && GemmConv::Available() && (force_own || GemmConv::Worth(gs)));
  const int res = own && !one_d && !dw_large ? FuseResidual(c, y) : -1;
  if (res >= 0) y = c.NodeAt(c.pos()).outputs[0];
  Clamp cl;
  y = FuseClamp(c, y, &cl);
  gs.lo = cl.lo;
  gs.hi = cl.hi;
  // Written straight into a following channel Concat's output when possible.
  gs.ystride = M;
  float* placed = one_d ? nullptr : c.PlaceInConcat(y, &gs.ystride);
  // The weights the guarded fallback (AddConvStep) reads: the constant, or a kept copy when folded.
  const float* wkeep = c.slot(wv).as<float>();
  if (folded) {
    auto keep = std::make_shared<std::vector<float>>(w);
    c.Hold(keep);
    wkeep = keep->data();
  }
  if (one_d) return CompileConv1d(c, n, geo, gs, w, b, wkeep, own, x, y0, y);
  const float* xp = c.In(x, Layout::kNHWC);
  if (!own) {
    float* yp = placed ? placed : c.OutFused(y0, y, Layout::kNHWC, {{xp, c.slot(x).nbytes()}});
    TARE_RETURN_IF_ERROR(AddXnnConv(c, n, geo, gs, w, b, wkeep, xp, yp));
    if (!placed) c.Done(y);
    return Status::Ok();
  }
  if (dw_large) {
    float* yp = placed ? placed : c.OutFused(y0, y, Layout::kNHWC, {{xp, c.slot(x).nbytes()}});
    TARE_RETURN_IF_ERROR(AddDepthwiseConv(c, n, gs, w, b, wkeep, xp, yp));
    if (!placed) c.Done(y);
    return Status::Ok();
  }
  const float* rp = res >= 0 ? c.In(res, Layout::kNHWC) : nullptr;
  std::vector<std::pair<const void*, size_t>> reads = {{xp, c.slot(x).nbytes()}};
  if (rp) reads.push_back({rp, c.slot(res).nbytes()});
  float* yp = placed ? placed : c.OutFused(y0, y, Layout::kNHWC, reads);
  TARE_RETURN_IF_ERROR(AddGemmConv(c, n, gs, w, b, wkeep, xp, yp, rp));
  if (!placed) c.Done(y);
  return Status::Ok();
}

}  // namespace tare::cpu
