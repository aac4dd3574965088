// The ops of the vulkan backend: for each, a Supports test (op, dtypes, attributes, which inputs
// are known at plan time) and a Compile function that adds dispatches through the Compiler from
// the concrete shapes (a case the shaders do not cover runs its reference kernel on the host,
// Compiler::CompileRef). Semantics are the reference kernels' (kernels/ref/), named per op.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "backends/vulkan/compiler.h"
#include "kernels/ref/conv_geometry.h"
#include "kernels/ref/resize_taps.h"

namespace tare::vk {
namespace {

uint32_t U(int64_t v) { return static_cast<uint32_t>(v); }
uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
int In(const Node& n, size_t i) { return i < n.inputs.size() ? n.inputs[i] : -1; }
bool OnlyFirstOutput(const Node& n) {
  for (size_t i = 1; i < n.outputs.size(); ++i)
    if (n.outputs[i] >= 0) return false;
  return true;
}
/// Row-major element strides of s.
std::vector<int64_t> Strides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}
int64_t Numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}
std::string ActName(const Activation& a) {
  static const char* names[] = {"", "Relu", "Clip", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish",
                                "Exp", "Abs", "Neg", "Sqrt", "SiLU (Sigmoid + Mul)"};
  return a.kind < 13 ? names[a.kind] : "?";
}

// ---- GEMM (shaders/gemm.comp) ----

/// One batched GEMM: strides as in gemm.comp, `batch` workgroup layers.
struct GemmCall {
  int64_t M = 0, N = 0, K = 0, sam = 0, sak = 0, sab = 0, sbk = 0, sbn = 0, sbb = 0, scm = 0, scn = 0, batch = 1;
  float alpha = 1, beta = 1;
  int64_t agroups = 0xffffffff, scb = 0;  // A and the bias step by batch % agroups
  bool im2col = false;                    // B is a 2-D convolution's input (the conv fields below)
  int64_t in_h = 1, in_w = 1, out_w = 1, kh = 1, kw = 1, s0 = 1, s1 = 1, d0 = 1, d1 = 1, pb0 = 0, pb1 = 0;
  Bind a, b, c;
};

/// Adds the GEMM, or returns false when its grid exceeds the device's workgroup counts.
bool AddGemm(Compiler& c, const GemmCall& g, Bind y, const Activation& act) {
  const VkPhysicalDeviceLimits& l = c.device().limits();
  const int64_t gx = (g.N + 63) / 64, gy = (g.M + 63) / 64;
  if (gx > l.maxComputeWorkGroupCount[0] || gy > l.maxComputeWorkGroupCount[1] || g.batch > l.maxComputeWorkGroupCount[2])
    return false;
  Dispatch d;
  d.shader = ShaderId::kGemm;
  d.spec = act.Spec({g.c.kind != Bind::kNone ? 1u : 0u, g.im2col ? 1u : 0u});
  d.bind[0] = g.a;
  d.bind[1] = g.b;
  d.bind[2] = g.c;
  d.bind[3] = y;
  d.push = {U(g.M),     U(g.N),      U(g.K),     U(g.sam),  U(g.sak), U(g.sab), U(g.sbk), U(g.sbn), U(g.sbb),
            U(g.scm),   U(g.scn),    Bits(g.alpha), Bits(g.beta), U(g.agroups), U(g.scb), U(g.in_h), U(g.in_w),
            U(g.out_w), U(g.kh),     U(g.kw),    U(g.s0),   U(g.s1),  U(g.d0),  U(g.d1),  U(g.pb0), U(g.pb1)};
  d.groups[0] = U(gx);
  d.groups[1] = U(gy);
  d.groups[2] = U(g.batch);
  c.Add(std::move(d));
  return true;
}

// ---- Conv, ConvTranspose ----

bool SupportsConv(const Node& n, const Graph& g, const GraphInfo& info) {
  return n.inputs.size() >= 2 && IsF32(g, n.inputs[0]) && Known(info, n.inputs[1]) &&
         (In(n, 2) < 0 || Known(info, In(n, 2))) && OnlyFirstOutput(n);
}

/// Folds a BatchNormalization that is y's sole reader into (w, bias) of M output channels, in
/// double: w' = w * scale / sqrt(var + eps), b' = (b - mean) * scale / sqrt(var + eps) + B.
int FoldBatchNorm(Compiler& c, int y, int64_t M, std::vector<double>* w, std::vector<double>* bias, std::string* what) {
  const Node* bn = c.NextSoleReader(y);
  if (!bn || bn->op != "BatchNormalization" || bn->inputs.size() != 5 || bn->inputs[0] != y || !OnlyFirstOutput(*bn))
    return y;
  for (size_t i = 1; i < 5; ++i)
    if (!c.IsConst(bn->inputs[i]) || !c.F32(bn->inputs[i]) || c.slot(bn->inputs[i]).numel() != M) return y;
  Result<float> eps = bn->GetFloat("epsilon", 1e-5f);
  if (!eps.ok()) return y;
  const float* scale = c.slot(bn->inputs[1]).as<float>();
  const float* beta = c.slot(bn->inputs[2]).as<float>();
  const float* mean = c.slot(bn->inputs[3]).as<float>();
  const float* var = c.slot(bn->inputs[4]).as<float>();
  const size_t per = w->size() / size_t(M);
  for (int64_t m = 0; m < M; ++m) {
    const double f = double(scale[m]) / std::sqrt(double(var[m]) + double(*eps));
    for (size_t i = 0; i < per; ++i) (*w)[size_t(m) * per + i] *= f;
    (*bias)[size_t(m)] = ((*bias)[size_t(m)] - double(mean[m])) * f + double(beta[m]);
  }
  c.AbsorbNext();
  *what += " + BatchNormalization (folded)";
  return bn->outputs[0];
}

std::vector<float> ToFloat(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

Status CompileConv(Compiler& c, const Node& n) {
  const int x = n.inputs[0], w = n.inputs[1], b = In(n, 2);
  const Shape& xs = c.shape(x);
  const Shape& ws = c.shape(w);
  const Shape& ys = c.shape(n.outputs[0]);
  if (xs.size() < 3 || xs.size() > 5 || !c.F32(w) || (b >= 0 && !c.F32(b)) || ws.size() != xs.size()) return c.CompileRef(n);
  TARE_ASSIGN_OR_RETURN(ConvAttrs at, ConvAttrs::Parse(n));
  const ConvGeometry geo(at, xs, ws, ys);
  const int64_t M = ws[0], Cg = ws[1], G = at.group, Mg = M / G;
  const float* wp = c.slot(w).as<float>();
  std::vector<double> wd(wp, wp + c.slot(w).numel()), bd(size_t(M), 0.0);
  if (b >= 0)
    for (int64_t m = 0; m < M; ++m) bd[size_t(m)] = c.slot(b).as<float>()[m];
  std::string what;
  int y = FoldBatchNorm(c, n.outputs[0], M, &wd, &bd, &what);
  const bool has_bias = b >= 0 || !what.empty();
  Activation act;
  y = c.FuseActivation(y, &act);
  if (act.kind) what += " + " + ActName(act);
  const Bind xb = c.In(x);
  const Bind wb = c.AddWeight(ToFloat(wd));
  const Bind bb = has_bias ? c.AddWeight(ToFloat(bd)) : Bind{};
  const Bind yb = c.Out(y);
  const int64_t HW = geo.out[0] * geo.out[1] * geo.out[2];
  const bool pointwise = G == 1 && geo.k[0] * geo.k[1] * geo.k[2] == 1 && geo.s[0] * geo.s[1] * geo.s[2] == 1 &&
                         geo.pb[0] + geo.pb[1] + geo.pb[2] == 0 && HW == geo.in[0] * geo.in[1] * geo.in[2];
  if (pointwise) {
    // Y[n] (M x HW) = W (M x C) * X[n] (C x HW) + bias per row.
    GemmCall g;
    g.M = M, g.N = HW, g.K = Cg, g.sam = Cg, g.sak = 1, g.sab = 0, g.sbk = HW, g.sbn = 1, g.sbb = Cg * HW;
    g.scm = 1, g.scn = 0, g.batch = xs[0];
    g.a = wb, g.b = xb, g.c = bb;
    if (AddGemm(c, g, yb, act)) {
      c.Note("gemm (1x1 convolution, tiled)" + what);
      return Status::Ok();
    }
  }
  // A 2-D convolution with at least 16 output channels per group: the implicit GEMM (the tiled
  // kernel with B gathered from the input); narrower ones (depthwise) would fill a 64-row tile
  // with a few rows, so they stay direct.
  if (geo.in[0] == 1 && geo.k[0] == 1 && Mg >= 16) {
    GemmCall g;
    g.M = Mg, g.N = HW, g.K = Cg * geo.k[1] * geo.k[2];
    g.sam = g.K, g.sak = 1, g.sab = Mg * g.K, g.agroups = G;
    g.sbb = Cg * geo.in[1] * geo.in[2];
    g.scm = 1, g.scn = 0, g.scb = Mg;
    g.batch = xs[0] * G;
    g.im2col = true;
    g.in_h = geo.in[1], g.in_w = geo.in[2], g.out_w = geo.out[2], g.kh = geo.k[1], g.kw = geo.k[2];
    g.s0 = geo.s[1], g.s1 = geo.s[2], g.d0 = geo.d[1], g.d1 = geo.d[2], g.pb0 = geo.pb[1], g.pb1 = geo.pb[2];
    g.a = wb, g.b = xb, g.c = bb;
    if (AddGemm(c, g, yb, act)) {
      c.Note("gemm (implicit-GEMM convolution, tiled)" + what);
      return Status::Ok();
    }
  }
  Dispatch d;
  d.shader = ShaderId::kConv;
  d.spec = act.Spec({has_bias ? 1u : 0u});
  d.bind[0] = xb, d.bind[1] = wb, d.bind[2] = bb, d.bind[3] = yb;
  const int64_t total = Numel(c.shape(y));
  d.push = {U(total), U(Cg), U(Mg), U(M)};
  for (int i = 0; i < 3; ++i) d.push.push_back(U(geo.in[i]));
  for (int i = 0; i < 3; ++i) d.push.push_back(U(geo.out[i]));
  for (int i = 0; i < 3; ++i) d.push.push_back(U(geo.k[i]));
  for (int i = 0; i < 3; ++i) d.push.push_back(U(geo.s[i]));
  for (int i = 0; i < 3; ++i) d.push.push_back(U(geo.d[i]));
  for (int i = 0; i < 3; ++i) d.push.push_back(U(geo.pb[i]));
  Compiler::Grid1D(&d, uint64_t(total));
  c.Add(std::move(d));
  c.Note("conv (direct)" + what);
  return Status::Ok();
}

Status CompileConvTranspose(Compiler& c, const Node& n) {
  const int x = n.inputs[0], w = n.inputs[1], b = In(n, 2);
  const Shape& xs = c.shape(x);
  const Shape& ws = c.shape(w);
  const Shape& ys = c.shape(n.outputs[0]);
  if (xs.size() < 3 || xs.size() > 5 || !c.F32(w) || (b >= 0 && !c.F32(b)) || ws.size() != xs.size()) return c.CompileRef(n);
  TARE_ASSIGN_OR_RETURN(ConvTAttrs at, ConvTAttrs::Parse(n));
  const ConvTransposeGeometry geo(at, xs, ws, ys);
  const int64_t G = at.group, Mg = ws[1], M = Mg * G, Cg = xs[1] / G;
  std::string what;
  Activation act;
  const int y = c.FuseActivation(n.outputs[0], &act);
  if (act.kind) what += " + " + ActName(act);
  Dispatch d;
  d.shader = ShaderId::kConvTranspose;
  d.spec = act.Spec({b >= 0 ? 1u : 0u});
  d.bind[0] = c.In(x), d.bind[1] = c.In(w);
  if (b >= 0) d.bind[2] = c.In(b);
  d.bind[3] = c.Out(y);
  const int64_t total = Numel(c.shape(y));
  d.push = {U(total), U(Cg), U(Mg), U(M)};
  for (const int64_t* a : {geo.in, geo.out, geo.k, geo.s, geo.d, geo.pb})
    for (int i = 0; i < 3; ++i) d.push.push_back(U(a[i]));
  Compiler::Grid1D(&d, uint64_t(total));
  c.Add(std::move(d));
  c.Note("conv_transpose (direct, gathered)" + what);
  return Status::Ok();
}

// ---- Gemm, MatMul ----

bool SupportsGemm(const Node& n, const Graph& g, const GraphInfo& info) {
  (void)info;
  return n.inputs.size() >= 2 && IsF32(g, n.inputs[0]) && IsF32(g, n.inputs[1]) && OnlyFirstOutput(n);
}

Status CompileGemm(Compiler& c, const Node& n) {
  const int a = n.inputs[0], b = n.inputs[1], cv = In(n, 2);
  const Shape& as = c.shape(a);
  const Shape& bs = c.shape(b);
  if (!c.F32(b) || (cv >= 0 && !c.F32(cv))) return c.CompileRef(n);
  GemmCall g;
  std::string what;
  if (n.op == "Gemm") {
    if (as.size() != 2 || bs.size() != 2) return c.CompileRef(n);
    TARE_ASSIGN_OR_RETURN(int64_t ta, n.GetInt("transA", 0));
    TARE_ASSIGN_OR_RETURN(int64_t tb, n.GetInt("transB", 0));
    TARE_ASSIGN_OR_RETURN(g.alpha, n.GetFloat("alpha", 1.0f));
    TARE_ASSIGN_OR_RETURN(g.beta, n.GetFloat("beta", 1.0f));
    g.M = ta ? as[1] : as[0];
    g.K = ta ? as[0] : as[1];
    g.N = tb ? bs[0] : bs[1];
    g.sam = ta ? 1 : as[1], g.sak = ta ? as[1] : 1;
    g.sbk = tb ? 1 : bs[1], g.sbn = tb ? bs[1] : 1;
    if (cv >= 0) {
      const Shape& cs = c.shape(cv);
      if (cs.size() > 2) return c.CompileRef(n);
      const int64_t cm = cs.size() == 2 ? cs[0] : 1, cn = cs.empty() ? 1 : cs.back();
      if ((cm != 1 && cm != g.M) || (cn != 1 && cn != g.N)) return c.CompileRef(n);
      g.scm = cm == 1 ? 0 : cn;
      g.scn = cn == 1 ? 0 : 1;
    }
  } else {
    // MatMul-13 (numpy matmul): 1-D operands get a unit dim; batch dims broadcast when one side
    // has none (or only ones) or both have the same.
    Shape A = as, B = bs;
    if (A.size() < 1 || B.size() < 1) return c.CompileRef(n);
    if (A.size() == 1) A.insert(A.begin(), 1);
    if (B.size() == 1) B.push_back(1);
    g.M = A[A.size() - 2], g.K = A.back(), g.N = B.back();
    const Shape ab(A.begin(), A.end() - 2), bb(B.begin(), B.end() - 2);
    const int64_t na = Numel(ab), nb = Numel(bb);
    const int64_t ny = Numel(c.shape(n.outputs[0])) / std::max<int64_t>(1, g.M * g.N);
    if (!(na == 1 || nb == 1 || ab == bb) || (na != 1 && nb != 1 && na != ny)) return c.CompileRef(n);
    g.batch = ny;
    g.sam = g.K, g.sak = 1, g.sab = na == 1 ? 0 : g.M * g.K;
    g.sbk = g.N, g.sbn = 1, g.sbb = nb == 1 ? 0 : g.K * g.N;
  }
  Activation act;
  const int y = c.FuseActivation(n.outputs[0], &act);
  if (act.kind) what += " + " + ActName(act);
  g.a = c.In(a);
  g.b = c.In(b);
  if (cv >= 0) g.c = c.In(cv);
  if (!AddGemm(c, g, c.Out(y), act)) return Status::Error(n.Where() + ": the GEMM grid exceeds the device's limits");
  c.Note("gemm (tiled)" + what);
  return Status::Ok();
}

// ---- Pools ----

bool SupportsPool(const Node& n, const Graph& g, const GraphInfo& info) {
  (void)info;
  return n.inputs.size() == 1 && IsF32(g, n.inputs[0]) && OnlyFirstOutput(n);
}

Status CompilePool(Compiler& c, const Node& n) {
  const int x = n.inputs[0];
  const Shape& xs = c.shape(x);
  const Shape& ys = c.shape(n.outputs[0]);
  if (xs.size() < 3 || xs.size() > 5) return c.CompileRef(n);
  const bool global = n.op == "GlobalAveragePool" || n.op == "GlobalMaxPool";
  const bool is_max = n.op == "MaxPool" || n.op == "GlobalMaxPool";
  std::vector<int64_t> ks, strides, dil, pads;
  std::string auto_pad = "NOTSET";
  int64_t cip = 0;
  if (!global) {
    TARE_ASSIGN_OR_RETURN(ks, n.GetInts("kernel_shape"));
    TARE_ASSIGN_OR_RETURN(strides, n.GetInts("strides"));
    TARE_ASSIGN_OR_RETURN(dil, n.GetInts("dilations"));
    TARE_ASSIGN_OR_RETURN(pads, n.GetInts("pads"));
    TARE_ASSIGN_OR_RETURN(auto_pad, n.GetString("auto_pad", "NOTSET"));
    TARE_ASSIGN_OR_RETURN(cip, n.GetInt("count_include_pad", 0));
  }
  const size_t nsp = xs.size() - 2;
  if (!global && ks.size() != nsp) return c.CompileRef(n);
  // Geometry as kernels/ref/pool.cc.
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, d[3] = {1, 1, 1};
  int64_t b[3] = {0, 0, 0}, e[3] = {0, 0, 0};
  for (size_t i = 0; i < nsp; ++i) {
    const size_t j = 3 - nsp + i;
    in[j] = xs[2 + i], out[j] = ys[2 + i];
    if (global) {
      k[j] = in[j];
      continue;
    }
    k[j] = ks[i];
    s[j] = strides.empty() ? 1 : strides[i];
    d[j] = dil.empty() ? 1 : dil[i];
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t total = std::max<int64_t>(0, (out[j] - 1) * s[j] + (k[j] - 1) * d[j] + 1 - in[j]);
      b[j] = auto_pad == "SAME_UPPER" ? total / 2 : (total + 1) / 2;
      e[j] = total - b[j];
    } else if (auto_pad == "NOTSET" && !pads.empty()) {
      b[j] = pads[i];
      e[j] = pads[nsp + i];
    }
  }
  // A window entirely in the padding is the reference's error; huge kernels loop per tap.
  for (int j = 0; j < 3; ++j) {
    if (k[j] > 4096 && !global) return c.CompileRef(n);
    for (int64_t o = 0; o < out[j]; ++o) {
      bool any = false;
      for (int64_t t = 0; t < k[j] && !any; ++t) {
        const int64_t q = o * s[j] - b[j] + t * d[j];
        any = q >= 0 && q < in[j];
      }
      if (!any) return c.CompileRef(n);
    }
  }
  Activation act;
  const int y = c.FuseActivation(n.outputs[0], &act);
  Dispatch dp;
  dp.shader = ShaderId::kPool;
  dp.spec = act.Spec({is_max ? 1u : 0u, (!is_max && cip) ? 1u : 0u});
  dp.bind[0] = c.In(x);
  dp.bind[3] = c.Out(y);
  const int64_t total = Numel(c.shape(y));
  dp.push = {U(total)};
  for (const int64_t* a : {in, out, k, s, d, b, e})
    for (int i = 0; i < 3; ++i) dp.push.push_back(U(a[i]));
  Compiler::Grid1D(&dp, uint64_t(total));
  c.Add(std::move(dp));
  c.Note(std::string("pool (") + (is_max ? "max" : "average") + ")" + (act.kind ? " + " + ActName(act) : ""));
  return Status::Ok();
}

// ---- Elementwise ----

bool SupportsUnary(const Node& n, const Graph& g, const GraphInfo& info) {
  if (!IsF32(g, n.inputs[0]) || !OnlyFirstOutput(n)) return false;
  if (n.op == "Clip") {
    if (n.has("min") || n.has("max")) return false;
    return (In(n, 1) < 0 || Known(info, In(n, 1))) && (In(n, 2) < 0 || Known(info, In(n, 2)));
  }
  return true;
}

Status CompileUnary(Compiler& c, const Node& n) {
  const int x = n.inputs[0];
  if (n.op == "Identity" || n.op == "Dropout") {
    if (n.op == "Dropout" && In(n, 2) >= 0 && !c.IsConst(In(n, 2))) return c.CompileRef(n);  // training_mode
    c.Alias(n.outputs[0], x);
    c.Note("alias (no dispatch)");
    return Status::Ok();
  }
  Activation act;
  if (!c.ActivationOf(n, &act)) return c.CompileRef(n);
  int y = n.outputs[0];
  // SiLU as exporters write it: Sigmoid(x) read only by the next node, Mul(x, Sigmoid(x)).
  const Node* mul = c.NextSoleReader(y);
  if (n.op == "Sigmoid" && mul && mul->op == "Mul" && mul->domain.empty() && mul->inputs.size() == 2 &&
      !mul->has("broadcast") && ((mul->inputs[0] == x && mul->inputs[1] == y) || (mul->inputs[0] == y && mul->inputs[1] == x)) &&
      c.F32(mul->outputs[0]) && c.shape(mul->outputs[0]) == c.shape(x)) {
    act.kind = kActSilu;
    c.AbsorbNext();
    y = mul->outputs[0];
  }
  Dispatch d;
  d.shader = ShaderId::kUnary;
  d.spec = act.Spec();
  d.bind[0] = c.In(x);
  d.bind[3] = c.Out(y);
  const int64_t total = c.slot(x).numel();
  d.push = {U(total)};
  Compiler::Grid1D(&d, uint64_t(total));
  c.Add(std::move(d));
  c.Note(act.kind == kActSilu ? "unary (SiLU: Sigmoid + Mul)" : "unary");
  return Status::Ok();
}

bool SupportsBatchNorm(const Node& n, const Graph& g, const GraphInfo& info) {
  if (n.inputs.size() != 5 || !IsF32(g, n.inputs[0]) || !OnlyFirstOutput(n)) return false;
  for (size_t i = 1; i < 5; ++i)
    if (!Known(info, n.inputs[i])) return false;
  return true;
}

Status CompileBatchNorm(Compiler& c, const Node& n) {
  const int x = n.inputs[0];
  const Shape& s = c.shape(x);
  if (s.size() < 2) return c.CompileRef(n);
  const int64_t C = s[1];
  for (size_t i = 1; i < 5; ++i)
    if (!c.F32(n.inputs[i]) || c.slot(n.inputs[i]).numel() != C) return c.CompileRef(n);
  TARE_ASSIGN_OR_RETURN(float eps, n.GetFloat("epsilon", 1e-5f));
  // Per channel, as the reference: (mean, sqrt(var + eps), scale, B).
  std::vector<float> p(size_t(4 * C));
  for (int64_t ch = 0; ch < C; ++ch) {
    p[size_t(4 * ch)] = c.slot(n.inputs[3]).as<float>()[ch];
    p[size_t(4 * ch + 1)] = std::sqrt(c.slot(n.inputs[4]).as<float>()[ch] + eps);
    p[size_t(4 * ch + 2)] = c.slot(n.inputs[1]).as<float>()[ch];
    p[size_t(4 * ch + 3)] = c.slot(n.inputs[2]).as<float>()[ch];
  }
  Activation act;
  const int y = c.FuseActivation(n.outputs[0], &act);
  Dispatch d;
  d.shader = ShaderId::kBatchNorm;
  d.spec = act.Spec();
  d.bind[0] = c.In(x);
  d.bind[1] = c.AddWeight(std::move(p));
  d.bind[3] = c.Out(y);
  const int64_t total = c.slot(x).numel();
  d.push = {U(total), U(C), U(total / (s[0] * C))};
  Compiler::Grid1D(&d, uint64_t(total));
  c.Add(std::move(d));
  c.Note(std::string("batchnorm") + (act.kind ? " + " + ActName(act) : ""));
  return Status::Ok();
}

bool SupportsBinary(const Node& n, const Graph& g, const GraphInfo& info) {
  (void)info;
  // Legacy (opset < 7) broadcast/axis attributes run the reference.
  return n.inputs.size() == 2 && IsF32(g, n.inputs[0]) && IsF32(g, n.inputs[1]) && OnlyFirstOutput(n) &&
         !n.has("broadcast") && !n.has("axis");
}

/// Element strides of operand shape `s` broadcast to `out` (right-aligned, 0 on broadcast axes).
std::vector<uint32_t> BroadcastStrides(const Shape& s, const Shape& out) {
  std::vector<uint32_t> st(out.size(), 0);
  int64_t stride = 1;
  for (size_t i = 0; i < s.size(); ++i) {
    const size_t si = s.size() - 1 - i, oi = out.size() - 1 - i;
    st[oi] = s[si] == 1 ? 0 : U(stride);
    stride *= s[si];
  }
  return st;
}

Status CompileBinary(Compiler& c, const Node& n) {
  const int a = n.inputs[0], b = n.inputs[1];
  if (!c.F32(b)) return c.CompileRef(n);
  const Shape& ys = c.shape(n.outputs[0]);
  if (ys.size() > 6 || c.shape(a).size() > ys.size() || c.shape(b).size() > ys.size()) return c.CompileRef(n);
  const uint32_t op = n.op == "Add" ? 0 : n.op == "Sub" ? 1 : n.op == "Mul" ? 2 : 3;
  Activation act;
  const int y = c.FuseActivation(n.outputs[0], &act);
  Dispatch d;
  d.shader = ShaderId::kBinary;
  d.spec = act.Spec({op});
  d.bind[0] = c.In(a);
  d.bind[1] = c.In(b);
  d.bind[3] = c.Out(y);
  const int64_t total = Numel(ys);
  const Shape out = ys.empty() ? Shape{1} : ys;
  std::vector<uint32_t> sa = BroadcastStrides(c.shape(a), out), sb = BroadcastStrides(c.shape(b), out);
  d.push = {U(total), U(out.size())};
  for (size_t i = 0; i < 6; ++i) d.push.push_back(i < out.size() ? U(out[i]) : 1);
  for (size_t i = 0; i < 6; ++i) d.push.push_back(i < sa.size() ? sa[i] : 0);
  for (size_t i = 0; i < 6; ++i) d.push.push_back(i < sb.size() ? sb[i] : 0);
  Compiler::Grid1D(&d, uint64_t(total));
  c.Add(std::move(d));
  c.Note(std::string("binary (broadcast)") + (act.kind ? " + " + ActName(act) : ""));
  return Status::Ok();
}

// ---- Softmax, reductions ----

bool SupportsSoftmax(const Node& n, const Graph& g, const GraphInfo& info) {
  (void)info;
  return n.inputs.size() == 1 && IsF32(g, n.inputs[0]);
}

Status CompileSoftmax(Compiler& c, const Node& n) {
  const int x = n.inputs[0];
  const Shape& s = c.shape(x);
  TARE_ASSIGN_OR_RETURN(int64_t axis, n.GetInt("axis", -1));
  TARE_ASSIGN_OR_RETURN(int64_t legacy, n.GetInt("legacy_2d", 0));
  const int64_t r = int64_t(s.size());
  if (r == 0) return c.CompileRef(n);
  if (axis < 0) axis += r;
  int64_t outer = 1, K = 1, inner = 1;
  for (int64_t i = 0; i < r; ++i) {
    if (i < axis) outer *= s[size_t(i)];
    else if (i == axis || legacy) K *= s[size_t(i)];
    else inner *= s[size_t(i)];
  }
  Dispatch d;
  d.shader = ShaderId::kSoftmax;
  d.spec = Activation().Spec({n.op == "LogSoftmax" ? 1u : 0u});
  d.bind[0] = c.In(x);
  d.bind[3] = c.Out(n.outputs[0]);
  d.push = {U(outer * inner), U(K), U(inner)};
  Compiler::Grid1D(&d, uint64_t(outer * inner));
  c.Add(std::move(d));
  c.Note("softmax (one invocation per row)");
  return Status::Ok();
}

bool SupportsReduce(const Node& n, const Graph& g, const GraphInfo& info) {
  return !n.inputs.empty() && IsF32(g, n.inputs[0]) && (In(n, 1) < 0 || Known(info, In(n, 1)));
}

Status CompileReduce(Compiler& c, const Node& n) {
  const int x = n.inputs[0];
  const Shape& s = c.shape(x);
  const size_t r = s.size();
  if (r == 0 || r > 6) return c.CompileRef(n);
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, n.GetInts("axes"));
  TARE_ASSIGN_OR_RETURN(int64_t noop, n.GetInt("noop_with_empty_axes", 0));
  if (In(n, 1) >= 0)
    for (int64_t i = 0; i < c.slot(In(n, 1)).numel(); ++i) axes.push_back(ReadInt(c.slot(In(n, 1)), i));
  if (axes.empty() && noop) {
    c.Alias(n.outputs[0], x);
    c.Note("alias (no axes)");
    return Status::Ok();
  }
  std::vector<char> red(r, axes.empty());
  for (int64_t a : axes) red[size_t(a < 0 ? a + int64_t(r) : a)] = 1;
  const std::vector<int64_t> st = Strides(s);
  std::vector<uint32_t> kd, ks, rd, rs;
  int64_t count = 1, total = 1;
  for (size_t i = 0; i < r; ++i) {
    kd.push_back(red[i] ? 1 : U(s[i]));
    ks.push_back(red[i] ? 0 : U(st[i]));
    rd.push_back(red[i] ? U(s[i]) : 1);
    rs.push_back(red[i] ? U(st[i]) : 0);
    if (red[i]) count *= s[i];
    else total *= s[i];
  }
  const uint32_t op = n.op == "ReduceSum" ? 0 : n.op == "ReduceMean" ? 1 : n.op == "ReduceMax" ? 2 : 3;
  Dispatch d;
  d.shader = ShaderId::kReduce;
  d.spec = Activation().Spec({op});
  d.bind[0] = c.In(x);
  d.bind[3] = c.Out(n.outputs[0]);
  d.push = {U(total), U(r), U(count)};
  for (const std::vector<uint32_t>* v : {&kd, &ks, &rd, &rs})
    for (size_t i = 0; i < 6; ++i) d.push.push_back(i < v->size() ? (*v)[i] : (v == &kd || v == &rd ? 1 : 0));
  Compiler::Grid1D(&d, uint64_t(total));
  c.Add(std::move(d));
  c.Note("reduce");
  return Status::Ok();
}

// ---- Data movement ----

bool SupportsData(const Node& n, const Graph& g, const GraphInfo& info) {
  (void)info;
  return !n.inputs.empty() && IsF32(g, n.inputs[0]) && OnlyFirstOutput(n);
}

Status CompileReshape(Compiler& c, const Node& n) {
  c.Alias(n.outputs[0], n.inputs[0]);
  c.Note("alias (no dispatch)");
  return Status::Ok();
}

/// A strided copy of region `dims` (rank <= 6) between two bindings.
void AddCopy(Compiler& c, Bind src, Bind dst, const Shape& dims, const std::vector<int64_t>& ss,
             const std::vector<int64_t>& ds, int64_t src_off, int64_t dst_off) {
  Dispatch d;
  d.shader = ShaderId::kCopy;
  d.spec = Activation().Spec();
  d.bind[0] = src;
  d.bind[3] = dst;
  const int64_t total = Numel(dims);
  d.push = {U(total), U(dims.size()), U(src_off), U(dst_off)};
  for (size_t i = 0; i < 6; ++i) d.push.push_back(i < dims.size() ? U(dims[i]) : 1);
  for (size_t i = 0; i < 6; ++i) d.push.push_back(i < ss.size() ? U(ss[i]) : 0);
  for (size_t i = 0; i < 6; ++i) d.push.push_back(i < ds.size() ? U(ds[i]) : 0);
  Compiler::Grid1D(&d, uint64_t(total));
  c.Add(std::move(d));
}

Status CompileTranspose(Compiler& c, const Node& n) {
  const int x = n.inputs[0];
  const Shape& s = c.shape(x);
  const size_t r = s.size();
  if (r > 6) return c.CompileRef(n);
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> perm, n.GetInts("perm"));
  if (perm.empty())
    for (size_t i = 0; i < r; ++i) perm.push_back(int64_t(r - 1 - i));
  if (perm.size() != r) return c.CompileRef(n);
  const std::vector<int64_t> st = Strides(s);
  const Shape& ys = c.shape(n.outputs[0]);
  std::vector<int64_t> ss(r);
  for (size_t k = 0; k < r; ++k) ss[k] = st[size_t(perm[k])];
  const Bind src = c.In(x);
  AddCopy(c, src, c.Out(n.outputs[0]), ys, ss, Strides(ys), 0, 0);
  c.Note("copy (strided)");
  return Status::Ok();
}

Status CompileConcat(Compiler& c, const Node& n) {
  const Shape& ys = c.shape(n.outputs[0]);
  const size_t r = ys.size();
  if (r == 0 || r > 6) return c.CompileRef(n);
  for (int v : n.inputs)
    if (v < 0 || c.slot(v).dtype != DType::kFloat32 || c.shape(v).size() != r) return c.CompileRef(n);
  TARE_ASSIGN_OR_RETURN(int64_t axis, n.GetInt("axis", 0));
  if (axis < 0) axis += int64_t(r);
  std::vector<Bind> srcs;
  for (int v : n.inputs) srcs.push_back(c.slot(v).numel() > 0 ? c.In(v) : Bind{});
  const Bind dst = c.Out(n.outputs[0]);
  const std::vector<int64_t> ds = Strides(ys);
  int64_t off = 0;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Shape& s = c.shape(n.inputs[i]);
    if (c.slot(n.inputs[i]).numel() > 0) AddCopy(c, srcs[i], dst, s, Strides(s), ds, 0, off * ds[size_t(axis)]);
    off += s[size_t(axis)];
  }
  c.Note("copy (one per input)");
  return Status::Ok();
}

/// DepthToSpace-13 (DCR, CRD) and SpaceToDepth-13 as one strided copy over a rank-6 view.
Status CompileDepthSpace(Compiler& c, const Node& n) {
  const int x = n.inputs[0];
  const Shape& xs = c.shape(x);
  if (xs.size() != 4) return c.CompileRef(n);
  TARE_ASSIGN_OR_RETURN(int64_t b, n.GetInt("blocksize", 0));
  TARE_ASSIGN_OR_RETURN(std::string mode, n.GetString("mode", "DCR"));
  const int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3];
  if (b < 1) return c.CompileRef(n);
  Shape view, out;
  std::vector<int> perm;
  if (n.op == "DepthToSpace") {
    if (C % (b * b) != 0) return c.CompileRef(n);
    const int64_t Cp = C / (b * b);
    if (mode == "DCR") view = {N, b, b, Cp, H, W}, perm = {0, 3, 4, 1, 5, 2};
    else if (mode == "CRD") view = {N, Cp, b, b, H, W}, perm = {0, 1, 4, 2, 5, 3};
    else return c.CompileRef(n);
  } else {
    if (H % b != 0 || W % b != 0) return c.CompileRef(n);
    view = {N, C, H / b, b, W / b, b}, perm = {0, 3, 5, 1, 2, 4};
  }
  const std::vector<int64_t> vs = Strides(view);
  std::vector<int64_t> ss;
  for (int k : perm) {
    out.push_back(view[size_t(k)]);
    ss.push_back(vs[size_t(k)]);
  }
  const Bind src = c.In(x);
  AddCopy(c, src, c.Out(n.outputs[0]), out, ss, Strides(out), 0, 0);
  c.Note("copy (strided, rank-6 view)");
  return Status::Ok();
}

bool SupportsPad(const Node& n, const Graph& g, const GraphInfo& info) {
  Result<std::string> mode = n.GetString("mode", "constant");
  if (!mode.ok() || (*mode != "constant" && *mode != "reflect" && *mode != "edge")) return false;
  if (n.inputs.size() < 2 || !IsF32(g, n.inputs[0])) return false;
  for (size_t i = 1; i < n.inputs.size(); ++i)
    if (n.inputs[i] >= 0 && !Known(info, n.inputs[i])) return false;
  return true;
}

Status CompilePad(Compiler& c, const Node& n) {
  const int x = n.inputs[0];
  const Shape& xs = c.shape(x);
  const Shape& ys = c.shape(n.outputs[0]);
  const size_t r = xs.size();
  if (r == 0 || r > 6) return c.CompileRef(n);
  TARE_ASSIGN_OR_RETURN(std::string mode, n.GetString("mode", "constant"));
  const Tensor& pt = c.slot(n.inputs[1]);
  std::vector<int64_t> pads;
  for (int64_t i = 0; i < pt.numel(); ++i) pads.push_back(ReadInt(pt, i));
  std::vector<int64_t> axes;
  if (In(n, 3) >= 0)
    for (int64_t i = 0; i < c.slot(In(n, 3)).numel(); ++i) axes.push_back(ReadInt(c.slot(In(n, 3)), i));
  else
    for (size_t i = 0; i < r; ++i) axes.push_back(int64_t(i));
  if (pads.size() != 2 * axes.size()) return c.CompileRef(n);
  std::vector<int64_t> pb(r, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    if (pads[i] < 0 || pads[i + axes.size()] < 0) return c.CompileRef(n);
    pb[size_t(axes[i] < 0 ? axes[i] + int64_t(r) : axes[i])] = pads[i];
  }
  float value = 0;
  if (In(n, 2) >= 0 && c.slot(In(n, 2)).numel() > 0) value = float(ReadDouble(c.slot(In(n, 2)), 0));
  Dispatch d;
  d.shader = ShaderId::kPad;
  d.spec = Activation().Spec({mode == "constant" ? 0u : mode == "reflect" ? 1u : 2u});
  d.bind[0] = c.In(x);
  d.bind[3] = c.Out(n.outputs[0]);
  const int64_t total = Numel(ys);
  d.push = {U(total), U(r), Bits(value)};
  for (size_t i = 0; i < 6; ++i) d.push.push_back(i < r ? U(ys[i]) : 1);
  for (size_t i = 0; i < 6; ++i) d.push.push_back(i < r ? U(xs[i]) : 1);
  for (size_t i = 0; i < 6; ++i) d.push.push_back(i < r ? U(pb[i]) : 0);
  Compiler::Grid1D(&d, uint64_t(total));
  c.Add(std::move(d));
  c.Note("pad (" + mode + ")");
  return Status::Ok();
}

// ---- Resize ----

bool SupportsResize(const Node& n, const Graph& g, const GraphInfo& info) {
  if (n.inputs.empty() || !IsF32(g, n.inputs[0]) || !OnlyFirstOutput(n)) return false;
  for (size_t i = 1; i < n.inputs.size(); ++i)
    if (n.inputs[i] >= 0 && !Known(info, n.inputs[i])) return false;
  // The Resize-18/19 forms (antialias, axes, keep_aspect_ratio_policy, half_pixel_symmetric) run on
  // the reference kernel.
  Result<std::string> ctm = n.GetString("coordinate_transformation_mode", "half_pixel");
  Result<std::string> policy = n.GetString("keep_aspect_ratio_policy", "stretch");
  Result<int64_t> antialias = n.GetInt("antialias", 0);
  if (!ctm.ok() || *ctm == "half_pixel_symmetric" || !policy.ok() || *policy != "stretch" || !antialias.ok() ||
      *antialias != 0 || n.has("axes"))
    return false;
  Result<std::string> mode = n.GetString("mode", "nearest");
  return mode.ok() && (*mode == "nearest" || *mode == "linear");
}

/// Resize-19 nearest / linear over the last two axes, from the reference's taps (resize.comp).
Status CompileResize(Compiler& c, const Node& n) {
  const int x = n.inputs[0];
  const Shape& xs = c.shape(x);
  const Shape& ys = c.shape(n.outputs[0]);
  const size_t r = xs.size();
  if (r < 2 || ys.size() != r) return c.CompileRef(n);
  const Tensor* roi = In(n, 1) >= 0 && c.slot(In(n, 1)).numel() > 0 ? &c.slot(In(n, 1)) : nullptr;
  const Tensor* scales = In(n, 2) >= 0 && c.slot(In(n, 2)).numel() > 0 ? &c.slot(In(n, 2)) : nullptr;
  int mode = 0;
  TARE_ASSIGN_OR_RETURN(std::vector<ResizeTaps> taps, ResizeAxisTaps(n, xs, ys, roi, scales, &mode));
  if (mode > 1) return c.CompileRef(n);
  for (size_t d = 0; d + 2 < r; ++d)
    if (!taps[d].identity) return c.CompileRef(n);
  // 4 words per output row, then per output column: index 0, index 1 (~0u: one tap), weights.
  std::vector<float> table;
  for (size_t d = r - 2; d < r; ++d) {
    const ResizeTaps& t = taps[d];
    for (int64_t o = 0; o < ys[d]; ++o) {
      const int64_t b = t.begin[size_t(o)], e = t.begin[size_t(o) + 1];
      if (t.outside[size_t(o)] || e - b < 1 || e - b > 2) return c.CompileRef(n);
      const uint32_t i0 = U(t.idx[size_t(b)]), i1 = e - b == 2 ? U(t.idx[size_t(b) + 1]) : 0xffffffffu;
      float f0, f1;
      std::memcpy(&f0, &i0, 4);
      std::memcpy(&f1, &i1, 4);
      table.insert(table.end(), {f0, f1, float(t.w[size_t(b)]), e - b == 2 ? float(t.w[size_t(b) + 1]) : 0.0f});
    }
  }
  const int64_t ih = xs[r - 2], iw = xs[r - 1], oh = ys[r - 2], ow = ys[r - 1];
  Dispatch d;
  d.shader = ShaderId::kResize;
  d.spec = Activation().Spec({mode == 1 ? 1u : 0u});
  d.bind[0] = c.In(x);
  d.bind[1] = c.AddWeight(std::move(table));
  d.bind[3] = c.Out(n.outputs[0]);
  const int64_t total = Numel(ys);
  // The reference's pass order: axes that shrink (or keep their size) first, then those that
  // grow, the last axis first within each: rows come first only when they shrink and columns grow.
  d.push = {U(total), U(ih), U(iw), U(oh), U(ow), oh <= ih && ow > iw ? 1u : 0u, taps[r - 2].identity ? 1u : 0u,
            taps[r - 1].identity ? 1u : 0u};
  Compiler::Grid1D(&d, uint64_t(total));
  c.Add(std::move(d));
  c.Note(mode == 1 ? "resize (linear, the reference's taps)" : "resize (nearest, the reference's taps)");
  return Status::Ok();
}

}  // namespace

std::string VulkanDeclines(const Node& n, const Graph& g, const GraphInfo& info) {
  if (!n.outputs.empty() && !IsF32(g, n.outputs[0])) return "not float32 (the shaders are fp32)";
  if (!OnlyFirstOutput(n)) return n.op + " with its optional outputs (e.g. MaxPool Indices): only the first on vulkan";
  if ((n.op == "Conv" || n.op == "ConvTranspose") && !Known(info, In(n, 1))) return "weights not known at plan time";
  if (n.op == "Resize")
    return "Resize mode other than nearest or linear, run-time roi/scales/sizes, or a Resize-18/19 form (antialias, "
           "axes, keep_aspect_ratio_policy, half_pixel_symmetric)";
  if (n.op == "Pad") return "Pad mode wrap, or run-time pads/value";
  if (n.op == "Clip") return "Clip with run-time bounds or Clip-6 attributes";
  if (n.has("broadcast") || n.has("axis")) return "legacy (opset < 7) broadcast attributes";
  return "";
}

const std::vector<OpImpl>& VulkanOps() {
  static const std::vector<OpImpl> ops = TableOf<Compiler>({
      {{"Conv"}, SupportsConv, CompileConv},
      {{"ConvTranspose"}, SupportsConv, CompileConvTranspose},
      {{"Gemm", "MatMul"}, SupportsGemm, CompileGemm},
      {{"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"}, SupportsPool, CompilePool},
      {{"Relu", "Clip", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Exp", "Abs", "Neg", "Sqrt",
        "Identity", "Dropout"},
       SupportsUnary, CompileUnary},
      {{"BatchNormalization"}, SupportsBatchNorm, CompileBatchNorm},
      {{"Add", "Sub", "Mul", "Div"}, SupportsBinary, CompileBinary},
      {{"Softmax", "LogSoftmax"}, SupportsSoftmax, CompileSoftmax},
      {{"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"}, SupportsReduce, CompileReduce},
      {{"Flatten", "Reshape", "Squeeze", "Unsqueeze"}, SupportsData, CompileReshape},
      {{"Transpose"}, SupportsData, CompileTranspose},
      {{"Concat"}, AllInputsF32, CompileConcat},
      {{"Pad"}, SupportsPad, CompilePad},
      {{"Resize"}, SupportsResize, CompileResize},
      {{"DepthToSpace", "SpaceToDepth"}, SupportsData, CompileDepthSpace},
  });
  return ops;
}

}  // namespace tare::vk
