// Fusions of the cpu backend for 2020s architectures (issue 23), inside its compile: the file's
// graph stays the specification (ref and ref64 run every node), the cpu backend runs a chain of
// nodes as one step when the chain's intermediate values have no other reader and are not live
// out. Each fused step does the chain's float operations, each rounded as its node rounds it:
// Gelu in the chain's order (the unfused cpu chain's bits), LayerNorm's two sums in 16 partial
// sums (a reduction's order is free within its budget; the rest in the chain's order), so it
// differs from ref in the last bits and is tested against ref64 and a double LayerNorm.
//   LayerNorm, as PyTorch exports nn.LayerNorm before LayerNormalization-17:
//     m = ReduceMean(x, last axis, keepdims) ; d = Sub(x, m) ; p = Pow(d, 2) ;
//     v = ReduceMean(p, last axis, keepdims) ; e = Add(v, eps) ; s = Sqrt(e) ; n = Div(d, s) ;
//     [y = Mul(n, gamma) ; y = Add(y, beta)]   (gamma, beta known, [D] or one element)
//   per row of D: the sums (LaneSum), / D, then each element's d / s * gamma + beta.
//   ONNX LayerNormalization-17 itself (CompileLayerNorm, an op of the backend's table: Scale and B
//   with one value per normalized element, no Mean/InvStdDev outputs) runs the same step.
//   SiLU (Swish), as PyTorch exports nn.SiLU(): s = Sigmoid(x) ; y = Mul(x, s) (either order):
//     y = x * sigmoid(x) by the own vector kernel (isa_kernels.h SiluAvx512/SiluAvx2; within
//     Sigmoid's and Mul's budgets, not XNNPACK's sigmoid's bits), in the layout x is held in;
//     on AVX2 and AVX-512 only (elsewhere the two nodes run unfused).
//   Gelu (tanh form), as PyTorch exports nn.GELU(approximate='tanh') at opset 14: x * x, * x,
//     * 0.044715, + x, * sqrt(2 / pi), Tanh, + 1, * x, * 0.5 (9 nodes): the unfused cpu chain's
//     operations in its order (TryGeluTanh).
//   HardSwish, as PyTorch exports nn.Hardswish before opset 14 (HardSigmoid(x), Mul by x) and as
//   Keras and TF.js write hard_swish (Add 3, Clip 0..6, Div 6 or Mul 1/6, Mul by x, the last two
//   in either order): one map doing the chain's roundings in its order, in the layout x is held
//   in (the unfused chain's bits; TryHardSigmoidMul, TryHardSwishChain).
//   Gelu (erf form), as PyTorch exports nn.GELU():
//     a = Div(x, c1) ; b = Erf(a) ; c = Add(b, c2) ; d = Mul(x, c) ; y = Mul(d, c3)  (c1..c3
//     known scalars): y = ((erf(x / c1) + c2) * x) * c3, erf as the cpu's Erf computes it.
#include <algorithm>
#include <cmath>

#include "backends/common/patterns.h"
#include "backends/cpu/eigen_kernels.h"
#include "backends/cpu/isa.h"
#include "backends/cpu/isa_kernels.h"
#include "backends/cpu/ops.h"

namespace tare::cpu {
namespace {

using patterns::Ahead;
using patterns::KnownScalar;
using patterns::Other;
using patterns::Private;

/// Absorbs the next k nodes (they become part of the current step), noting `what` on the chain's
/// k + 1 nodes for `tare run --explain`.
void AbsorbAhead(Compiler& c, size_t k, const std::string& what) {
  c.Note(c.pos(), what);
  for (size_t i = 0; i < k; ++i) {
    c.AbsorbNext();
    c.SetPos(c.pos() + 1);
    c.Note(c.pos(), what);
  }
}

/// Where a fused step writes its output y (in layout l) while reading x (same element count): y's
/// slot, unless the arena gave y bytes that partly overlap x's (then a private buffer, copied
/// after).
float* FusedOut(Compiler& c, const float* xp, int x, int y, float** copy_to, Layout l = Layout::kPlain) {
  float* yp = c.Out(y, l);
  *copy_to = nullptr;
  if (yp != xp && c.Overlap(xp, c.slot(x).nbytes(), yp, c.slot(y).nbytes())) {
    *copy_to = yp;
    yp = c.Alloc(static_cast<size_t>(c.slot(y).numel()));
  }
  return yp;
}

/// One link of an elementwise chain after its first node: the op, and the operand besides the
/// running value: 'x' (the chain's input), 'k' (a known scalar, collected), or 0 (a unary op).
struct Link {
  const char* op;
  char other;
};

/// Follows `links` from value `cur` (the first node's output) over the next nodes of the
/// partition, each reading the running value, which must be private (one reader, not live out):
/// returns the last node's output, the known scalars in *ks (in order), or -1 when the nodes ahead
/// are not that chain.
int WalkChain(const Compiler& c, int cur, int x, const Link* links, size_t n, float* ks) {
  for (size_t i = 0; i < n; ++i) {
    const Node* nd = Ahead(c, i + 1);
    if (!Private(c, cur, 1) || !nd || nd->op != links[i].op) return -1;
    if (links[i].other == 0) {
      if (nd->NumInputs() != 1 || nd->inputs[0] != cur) return -1;
    } else {
      const int o = Other(*nd, cur);
      if (links[i].other == 'x' ? o != x : std::isnan(*ks++ = KnownScalar(c, o))) return -1;
    }
    cur = nd->outputs[0];
  }
  return cur;
}

/// The fused step of an elementwise chain x -> y whose first node is the current one and whose
/// `absorb` followers are next: absorbed and noted `what` (for --explain), y written in layout l
/// (FusedOut), fn(x, y, n) over the pool in blocks of 2^14 elements, then FusedOut's copy.
template <class F>
void AddMapStep(Compiler& c, int x, int y, Layout l, size_t absorb, const std::string& what, F fn) {
  const size_t count = static_cast<size_t>(c.slot(x).numel());
  const float* xp = c.In(x, l);
  float* copy_to = nullptr;
  float* yp = FusedOut(c, xp, x, y, &copy_to, l);
  AbsorbAhead(c, absorb, what);
  ThreadPool* pool = c.pool();
  c.SetLabel("[" + what + ", to] ");
  c.Add([=] {
    pool->ParallelFor(count, size_t(1) << 14, [=](size_t b, size_t e) { fn(xp + b, yp + b, e - b); });
    if (copy_to) CopyFloats(yp, copy_to, count, pool);
    return Status::Ok();
  });
  c.SetLabel("");
  c.Done(y);
}

/// The sum of x[0, n) in 16 interleaved partial sums (element i goes to sum i mod 16), which are
/// then added pairwise: each partial sum is a plain loop, so the compiler vectorizes it without
/// reordering any float addition (16 lanes on AVX-512, fewer elsewhere: the same bits).
TARE_CPU_CLONES float LaneSum(const float* x, size_t n) {
  float acc[16] = {};
  size_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (size_t j = 0; j < 16; ++j) acc[j] = acc[j] + x[i + j];
  for (size_t j = 0; i + j < n; ++j) acc[j] = acc[j] + x[i + j];
  for (size_t w = 8; w >= 1; w /= 2)
    for (size_t j = 0; j < w; ++j) acc[j] = acc[j] + acc[j + w];
  return acc[0];
}

/// d[i] = x[i] - mean (Sub), and the sum of d[i] * d[i] (Pow 2, then the sum) as LaneSum adds.
TARE_CPU_CLONES float CenterSquareSum(const float* x, float mean, float* d, size_t n) {
  float acc[16] = {};
  size_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (size_t j = 0; j < 16; ++j) {
      const float v = x[i + j] - mean;
      d[i + j] = v;
      acc[j] = acc[j] + v * v;
    }
  for (size_t j = 0; i + j < n; ++j) {
    const float v = x[i + j] - mean;
    d[i + j] = v;
    acc[j] = acc[j] + v * v;
  }
  for (size_t w = 8; w >= 1; w /= 2)
    for (size_t j = 0; j < w; ++j) acc[j] = acc[j] + acc[j + w];
  return acc[0];
}

/// y[i] = y[i] / den (Div), then * gamma[i] (Mul), then + beta[i] (Add), each rounded as the node.
TARE_CPU_CLONES void Normalize(float* y, float den, const float* gamma, const float* beta, size_t n) {
  if (gamma && beta)
    for (size_t i = 0; i < n; ++i) y[i] = y[i] / den * gamma[i] + beta[i];
  else if (gamma)
    for (size_t i = 0; i < n; ++i) y[i] = y[i] / den * gamma[i];
  else
    for (size_t i = 0; i < n; ++i) y[i] = y[i] / den;
}

/// The LayerNorm step: per row of D floats of xp, the mean and the variance (LaneSum), then each
/// element's (x - mean) / sqrt(var + eps) * gamma + beta (gamma, beta [D] or null) into yp;
/// copied to copy_to after (when not null, FusedOut).
void AddLayerNormStep(Compiler& c, const float* xp, float* yp, float* copy_to, size_t rows, size_t D, float eps,
                      const float* gamma, const float* beta) {
  ThreadPool* pool = c.pool();
  const float fd = static_cast<float>(D);
  c.Add([=] {
    pool->ParallelFor(rows, std::max<size_t>(1, (size_t(1) << 14) / D), [=](size_t b, size_t en) {
      for (size_t r = b; r < en; ++r) {
        const float* xr = xp + r * D;
        float* yr = yp + r * D;
        const float mean = LaneSum(xr, D) / fd;
        const float den = std::sqrt(CenterSquareSum(xr, mean, yr, D) / fd + eps);
        Normalize(yr, den, gamma, beta, D);
      }
    });
    if (copy_to) CopyFloats(yp, copy_to, rows * D, pool);
    return Status::Ok();
  });
}

}  // namespace

Result<bool> TryLayerNorm(Compiler& c, const Node& mean1) {
  patterns::LayerNormMatch ln;
  if (!patterns::MatchLayerNorm(c, mean1, &ln)) return false;
  const float* gamma = ln.gamma >= 0 ? c.slot(ln.gamma).as<float>() : nullptr;
  const float* beta = ln.beta >= 0 ? c.slot(ln.beta).as<float>() : nullptr;
  const float* xp = c.In(ln.x, Layout::kPlain);
  float* copy_to = nullptr;
  float* yp = FusedOut(c, xp, ln.x, ln.y, &copy_to);
  AbsorbAhead(c, ln.absorb, "fused LayerNorm (" + std::to_string(ln.absorb + 1) + " nodes)");
  c.SetLabel("[fused LayerNorm, to] ");
  AddLayerNormStep(c, xp, yp, copy_to, ln.rows, ln.D, ln.eps, gamma, beta);
  c.SetLabel("");
  c.Done(ln.y);
  return true;
}

Status CompileLayerNorm(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  size_t D = 1;
  float eps = 0;
  TARE_ASSIGN_OR_RETURN(bool block, patterns::LayerNorm17Block(n, c.shape(x), &D, &eps));
  if (c.slot(x).numel() == 0 || !block) return c.CompileRef(n);
  // Scale and B with one value per element of the normalized block (other broadcasts: ref).
  auto per_element = [&](int v) -> const float* {
    if (v < 0) return nullptr;
    if (c.slot(v).dtype != DType::kFloat32 || static_cast<size_t>(c.slot(v).numel()) != D) return nullptr;
    return c.slot(v).as<float>();
  };
  const float* gamma = per_element(n.inputs[1]);
  const int bv = n.NumInputs() > 2 ? n.inputs[2] : -1;
  const float* beta = per_element(bv);
  if (!gamma || (bv >= 0 && !beta) || c.slot(y).dtype != DType::kFloat32) return c.CompileRef(n);
  const float* xp = c.In(x, Layout::kPlain);
  float* copy_to = nullptr;
  float* yp = FusedOut(c, xp, x, y, &copy_to);
  AddLayerNormStep(c, xp, yp, copy_to, static_cast<size_t>(c.slot(x).numel()) / D, D, eps, gamma, beta);
  c.Done(y);
  return Status::Ok();
}

Result<bool> TryGelu(Compiler& c, const Node& div) {
  if (div.op != "Div" || div.NumInputs() != 2) return false;
  const int x = div.inputs[0];
  const float c1 = KnownScalar(c, div.inputs[1]);
  if (std::isnan(c1) || c.slot(x).dtype != DType::kFloat32 || c.slot(x).numel() == 0) return false;
  static const Link kLinks[] = {{"Erf", 0}, {"Add", 'k'}, {"Mul", 'x'}, {"Mul", 'k'}};
  float k[2];  // c2, c3
  const int y = WalkChain(c, div.outputs[0], x, kLinks, 4, k);
  if (y < 0 || c.slot(y).numel() != c.slot(x).numel()) return false;
  const float c2 = k[0], c3 = k[1];
  if (EigenAvailable()) {
    AddMapStep(c, x, y, Layout::kPlain, 4, "fused Gelu (5 nodes)",
               [=](const float* xp, float* yp, size_t n) { GeluEigen(xp, yp, n, c1, c2, c3); });
    return true;
  }
  AddMapStep(c, x, y, Layout::kPlain, 4, "fused Gelu (5 nodes)", [=](const float* xp, float* yp, size_t n) {
    constexpr size_t kChunk = 256;
    float t[kChunk];
    for (size_t i0 = 0; i0 < n; i0 += kChunk) {
      const size_t m = std::min(kChunk, n - i0);
      for (size_t j = 0; j < m; ++j) t[j] = xp[i0 + j] / c1;
      for (size_t j = 0; j < m; ++j) t[j] = static_cast<float>(std::erf(static_cast<double>(t[j])));
      for (size_t j = 0; j < m; ++j) yp[i0 + j] = ((t[j] + c2) * xp[i0 + j]) * c3;
    }
  });
  return true;
}

Result<bool> TrySilu(Compiler& c, const Node& sig) {
  const Isa isa = CpuIsa();
  if (isa == Isa::kGeneric || sig.NumInputs() != 1 || sig.outputs.empty()) return false;
  const int x = sig.inputs[0], s = sig.outputs[0];
  if (x < 0 || c.slot(x).dtype != DType::kFloat32 || c.slot(x).numel() == 0) return false;
  const Node* mul = Ahead(c, 1);
  if (!Private(c, s, 1) || !mul || mul->op != "Mul" || Other(*mul, s) != x) return false;
  const int y = mul->outputs[0];
  if (c.shape(y) != c.shape(x) || c.slot(y).dtype != DType::kFloat32) return false;
  // Elementwise: in the layout x is held in (a convolution's NHWC output stays NHWC).
  const Layout l = c.HasNHWC(x) ? Layout::kNHWC : Layout::kPlain;
  AddMapStep(c, x, y, l, 1, "fused SiLU (2 nodes)", [isa](const float* xp, float* yp, size_t n) { SiluIsa(isa, xp, yp, n); });
  return true;
}

/// PyTorch's tanh Gelu (opset 14), from its first node: a = Mul(x, x) ; b = Mul(x, a) ;
/// cc = Mul(k1, b) ; d = Add(x, cc) ; e = Mul(k2, d) ; t = Tanh(e) ; f = Add(1, t) ; g = Mul(x, f) ;
/// y = Mul(0.5, g) (scalar constants on either side), the nodes consecutive, each intermediate
/// read once (x may have other readers). One step: GeluTanhEigen where Eigen runs,
/// else the same operations with the reference's tanh.
Result<bool> TryGeluTanh(Compiler& c, const Node& sq) {
  if (sq.op != "Mul" || sq.NumInputs() != 2 || sq.inputs[0] != sq.inputs[1]) return false;
  const int x = sq.inputs[0];
  if (x < 0 || c.slot(x).dtype != DType::kFloat32 || c.slot(x).numel() == 0 || c.Readers(x) < 5) return false;
  static const Link kLinks[] = {{"Mul", 'x'}, {"Mul", 'k'}, {"Add", 'x'}, {"Mul", 'k'},
                                {"Tanh", 0},   {"Add", 'k'}, {"Mul", 'x'}, {"Mul", 'k'}};
  float k[4];  // k1, k2, one, half
  const int y = WalkChain(c, sq.outputs[0], x, kLinks, 8, k);
  if (y < 0 || c.slot(y).numel() != c.slot(x).numel() || k[2] != 1.0f || k[3] != 0.5f) return false;
  const bool eigen = EigenAvailable();
  const float k1 = k[0], k2 = k[1];
  AddMapStep(c, x, y, Layout::kPlain, 8, "fused Gelu tanh (9 nodes)", [=](const float* xp, float* yp, size_t n) {
    if (eigen) return GeluTanhEigen(xp, yp, n, k1, k2, 1.0f, 0.5f);
    for (size_t i = 0; i < n; ++i) {
      const float v = xp[i];
      const float e = k2 * (v + k1 * (v * (v * v)));
      yp[i] = 0.5f * (v * (1.0f + static_cast<float>(std::tanh(static_cast<double>(e)))));
    }
  });
  return true;
}

/// The layout an elementwise chain from x runs in: NHWC when x is held so (a convolution's
/// output), else plain.
Layout MapLayout(const Compiler& c, int x) { return c.HasNHWC(x) ? Layout::kNHWC : Layout::kPlain; }

/// A Clip with known float32 bounds (inputs), else false.
bool KnownClip(const Compiler& c, const Node& n, Clamp* cl) {
  if (n.op != "Clip" || n.inputs.empty()) return false;
  for (size_t i = 1; i < n.inputs.size(); ++i)
    if (n.inputs[i] >= 0 && (!c.IsConst(n.inputs[i]) || c.slot(n.inputs[i]).dtype != DType::kFloat32)) return false;
  *cl = ClipBounds(c, n);
  return !std::isnan(cl->lo) && !std::isnan(cl->hi) && cl->lo <= cl->hi;
}

/// At a HardSigmoid: s = HardSigmoid(x, alpha, beta) ; y = Mul(x, s) (either order; PyTorch's
/// nn.Hardswish before opset 14, alpha 1/6 and beta 1/2, any alpha and beta here), s read once:
/// one map computing both nodes' roundings in order (the unfused chain's bits).
Result<bool> TryHardSigmoidMul(Compiler& c, const Node& hs) {
  if (hs.NumInputs() != 1 || hs.outputs.empty()) return false;
  const int x = hs.inputs[0], s = hs.outputs[0];
  if (x < 0 || c.slot(x).dtype != DType::kFloat32 || c.slot(x).numel() == 0) return false;
  const Node* mul = Ahead(c, 1);
  if (!Private(c, s, 1) || !mul || mul->op != "Mul" || Other(*mul, s) != x) return false;
  const int y = mul->outputs[0];
  if (c.shape(y) != c.shape(x) || c.slot(y).dtype != DType::kFloat32) return false;
  TARE_ASSIGN_OR_RETURN(const float alpha, hs.GetFloat("alpha", 0.2f));
  TARE_ASSIGN_OR_RETURN(const float beta, hs.GetFloat("beta", 0.5f));
  AddMapStep(c, x, y, MapLayout(c, x), 1, "fused HardSwish (2 nodes)", [=](const float* xp, float* yp, size_t n) {
    for (size_t i = 0; i < n; ++i) yp[i] = xp[i] * HardSigmoidOf(xp[i], alpha, beta);
  });
  return true;
}

/// At an Add: Keras' and TF.js's hard_swish, t = Add(x, 3) ; r = Clip(t, 0, 6) ; then either
/// q = Div(r, 6) or Mul(r, 1/6) and y = Mul(x, q), or q = Mul(x, r) and y = Div(q, 6) or
/// Mul(q, 1/6) (constants as found, operands in either order), each intermediate read once: one
/// map doing the chain's roundings in its order (the unfused chain's bits).
Result<bool> TryHardSwishChain(Compiler& c, const Node& add) {
  if (add.NumInputs() != 2 || add.outputs.empty()) return false;
  int x = add.inputs[0];
  float k3 = KnownScalar(c, add.inputs[1]);
  if (std::isnan(k3)) {
    x = add.inputs[1];
    k3 = KnownScalar(c, add.inputs[0]);
  }
  if (std::isnan(k3) || x < 0 || c.IsConst(x) || c.slot(x).dtype != DType::kFloat32 || c.slot(x).numel() == 0) return false;
  const int t = add.outputs[0];
  const Node* clip = Ahead(c, 1);
  Clamp cl;
  if (!Private(c, t, 1) || !clip || clip->inputs[0] != t || !KnownClip(c, *clip, &cl)) return false;
  const int r = clip->outputs[0];
  const Node* n2 = Ahead(c, 2);
  const Node* n3 = Ahead(c, 3);
  if (!Private(c, r, 1) || !n2 || !n3 || n2->outputs.empty() || !Private(c, n2->outputs[0], 1)) return false;
  const int q = n2->outputs[0];
  // The scaling node: Div by k (k on the right) or Mul by k (either side) of value v.
  auto scaling = [&](const Node& n, int v, bool* div, float* k) {
    if (n.op == "Div" && n.NumInputs() == 2 && n.inputs[0] == v) {
      *div = true;
      *k = KnownScalar(c, n.inputs[1]);
    } else if (n.op == "Mul") {
      *div = false;
      *k = KnownScalar(c, Other(n, v));
    } else {
      return false;
    }
    return !std::isnan(*k);
  };
  bool div = false, scale_first = false;
  float k = NAN;
  if (scaling(*n2, r, &div, &k) && n3->op == "Mul" && Other(*n3, q) == x) {
    scale_first = true;
  } else if (!(n2->op == "Mul" && Other(*n2, r) == x && scaling(*n3, q, &div, &k))) {
    return false;
  }
  const int y = n3->outputs[0];
  if (c.shape(y) != c.shape(x) || c.slot(y).dtype != DType::kFloat32) return false;
  const float lo = cl.lo, hi = cl.hi;
  AddMapStep(c, x, y, MapLayout(c, x), 3, "fused HardSwish (4 nodes)", [=](const float* xp, float* yp, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      const float v = xp[i];
      float a = v + k3;
      a = a < lo ? lo : a > hi ? hi : a;  // Clip: NaN passes
      yp[i] = scale_first ? v * (div ? a / k : a * k) : (div ? (v * a) / k : (v * a) * k);
    }
  });
  return true;
}

Result<bool> TryFusions(Compiler& c, const Node& n) {
  if (!n.domain.empty()) return false;
  if (n.op == "HardSigmoid") return TryHardSigmoidMul(c, n);
  if (n.op == "Add") return TryHardSwishChain(c, n);
  if (n.op == "Mul") return TryGeluTanh(c, n);
  if (n.op == "Sigmoid") return TrySilu(c, n);
  if (n.op == "ReduceMean") return TryLayerNorm(c, n);
  if (n.op == "Div") return TryGelu(c, n);
  return false;
}

}  // namespace tare::cpu
