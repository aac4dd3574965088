// The onednn backend's fusions for transformer graphs (issue 23): PyTorch's erf and tanh Gelu
// chains as one oneDNN eltwise each (tried by CompileBinary at their first node, ops.cc), Erf
// alone on its reference kernel inside the partition, so a Gelu chain is never cut by ref, and
// LayerNorm (its decomposition, tried by CompileReduceMean, and LayerNormalization-17) as oneDNN's
// layer_normalization_forward. Declared in op_util.h.
#include <cmath>

#include "backends/common/patterns.h"
#include "backends/onednn/op_util.h"

namespace tare::onednn {

// ---- Gelu (erf and tanh forms, as PyTorch exports nn.GELU()) --------------------------------

namespace {

/// The known single float value of v, or NaN.
float KnownScalarOf(const Compiler& c, int v) {
  if (!c.IsConst(v) || !c.F32(v) || c.slot(v).numel() != 1) return NAN;
  return ReadScalar(c, v);
}

/// One link of a chain after its first node: the op, the operand besides the running value ('x':
/// the chain's input, 'k': the known scalar `k` within `rel` relative, 0: a unary op).
struct Link {
  const char* op;
  char other;
  float k, rel;
};

/// Follows `links` from `cur` (the first node's output) over the next unabsorbed nodes of the
/// partition, each reading the running value, which must be read once and not live out; scalars
/// must equal their `k` within `rel`. Returns the last output, or -1.
int WalkChain(const Compiler& c, int cur, int x, const Link* links, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const size_t p = c.pos() + i + 1;
    if (p >= c.size() || c.Absorbed(p) || cur < 0 || c.IsLiveOut(cur) || c.Readers(cur) != 1) return -1;
    const Node& nd = c.NodeAt(p);
    if (!nd.domain.empty() || nd.outputs.empty() || nd.op != links[i].op) return -1;
    if (links[i].other == 0) {
      if (nd.NumInputs() != 1 || nd.inputs[0] != cur) return -1;
    } else {
      if (nd.NumInputs() != 2 || (nd.inputs[0] == cur) == (nd.inputs[1] == cur)) return -1;
      const int o = nd.inputs[0] == cur ? nd.inputs[1] : nd.inputs[0];
      if (links[i].other == 'x' ? o != x : !(std::fabs(KnownScalarOf(c, o) - links[i].k) <= links[i].rel * std::fabs(links[i].k)))
        return -1;
    }
    cur = nd.outputs[0];
  }
  return cur;
}

/// x -> y (float, same shape) as one eltwise_forward of `alg`, absorbing the chain's `absorb`
/// following nodes. False (nothing done) when y does not fit.
bool AddGeluEltwise(Compiler& c, int x, int y, algorithm alg, int absorb) {
  if (y < 0 || !c.F32(y) || c.shape(y) != c.shape(x)) return false;
  memory src = c.Current(x);
  dnnl::eltwise_forward::desc ed(prop_kind::forward_inference, alg, src.get_desc(), 0.0f, 0.0f);
  dnnl::eltwise_forward::primitive_desc pd(ed, c.engine());
  for (int i = 0; i < absorb; ++i) c.AbsorbNext();
  memory dst = c.Out(y, pd.dst_desc(), {x});
  c.Add(dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, pd.impl_info_str());
  c.Done(y);
  return true;
}

}  // namespace

/// At a Div: a = Div(x, sqrt 2) ; b = Erf(a) ; cc = Add(b, 1) ; d = Mul(x, cc) ; y = Mul(d, 0.5)
/// (operands of Add and the Muls in either order), each intermediate read once and not live out,
/// the nodes consecutive: computed as oneDNN's eltwise_gelu_erf of x (0.5 x (1 + erf(x / sqrt 2))
/// with oneDNN's erf; within the chain's budget, tests/backends/onednn_test.cc). True when done.
Result<bool> TryGelu(Compiler& c, const Node& div) {
  if (div.NumInputs() != 2 || div.outputs.empty()) return false;
  const int x = div.inputs[0];
  if (!(std::fabs(KnownScalarOf(c, div.inputs[1]) - 1.41421356f) <= 1e-6f) || !c.F32(x)) return false;
  static const Link kLinks[] = {{"Erf", 0, 0, 0}, {"Add", 'k', 1.0f, 0}, {"Mul", 'x', 0, 0}, {"Mul", 'k', 0.5f, 0}};
  return AddGeluEltwise(c, x, WalkChain(c, div.outputs[0], x, kLinks, 4), algorithm::eltwise_gelu_erf, 4);
}

/// At a Mul(x, x): PyTorch's tanh Gelu at opset 14 (x * x, * x, * 0.044715, + x, * sqrt(2 / pi),
/// Tanh, + 1, * x, * 0.5; scalar constants on either side; the nodes consecutive, each
/// intermediate read once) as oneDNN's eltwise_gelu_tanh of x; within the chain's budget
/// (tests/backends/onednn_test.cc). True when done.
Result<bool> TryGeluTanh(Compiler& c, const Node& sq) {
  if (sq.NumInputs() != 2 || sq.inputs[0] != sq.inputs[1] || sq.outputs.empty()) return false;
  const int x = sq.inputs[0];
  if (!c.F32(x) || c.Readers(x) < 5) return false;
  // The exported constants are rounded from sqrt(2 / pi) and the like: within 1e-6 relative.
  static const Link kLinks[] = {{"Mul", 'x', 0, 0},    {"Mul", 'k', 0.044715f, 1e-6f}, {"Add", 'x', 0, 0},
                                {"Mul", 'k', 0.7978845608f, 1e-6f}, {"Tanh", 0, 0, 0}, {"Add", 'k', 1.0f, 1e-6f},
                                {"Mul", 'x', 0, 0},    {"Mul", 'k', 0.5f, 1e-6f}};
  return AddGeluEltwise(c, x, WalkChain(c, sq.outputs[0], x, kLinks, 8), algorithm::eltwise_gelu_tanh, 8);
}

bool SupportsErf(const Node& n, const Graph& g, const GraphInfo&) {
  return n.domain.empty() && n.NumInputs() == 1 && IsF32(g, n.inputs[0]);
}

/// An Erf outside a Gelu chain: the reference kernel inside the partition (oneDNN has no erf), so
/// a Gelu's chain stays in one partition for TryGelu.
Status CompileErf(Compiler& c, const Node& n) { return c.CompileRef(n); }

// ---- LayerNorm ------------------------------------------------------------------------------

namespace {

/// y = (x - mean) / sqrt(var + eps) [* gamma] [+ beta] over rows of D elements (x and y plain, as
/// [rows, D]; gamma and beta known, D elements, or -1) as one layer_normalization_forward
/// (inference: mean and variance computed, not given). False (nothing added) when oneDNN has no
/// implementation for it.
bool AddLayerNorm(Compiler& c, int x, int y, size_t rows, size_t D, float eps, int gamma, int beta) {
  const memory::desc md = RowMajor({static_cast<memory::dim>(rows), static_cast<memory::dim>(D)});
  const memory::desc wd = RowMajor({static_cast<memory::dim>(D)});
  auto flags = dnnl::normalization_flags::none;
  if (gamma >= 0) flags |= dnnl::normalization_flags::use_scale;
  if (beta >= 0) flags |= dnnl::normalization_flags::use_shift;
  dnnl::layer_normalization_forward::primitive_desc pd;
  try {
    dnnl::layer_normalization_forward::desc d(dnnl::prop_kind::forward_inference, md, eps, flags);
    pd = dnnl::layer_normalization_forward::primitive_desc(d, c.engine());
  } catch (const dnnl::error&) {
    return false;
  }
  memory src = View(c, c.Plain(x), md);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}};
  if (gamma >= 0) args[DNNL_ARG_SCALE] = View(c, c.Plain(gamma), wd);
  if (beta >= 0) args[DNNL_ARG_SHIFT] = View(c, c.Plain(beta), wd);
  args[DNNL_ARG_DST] = View(c, c.Out(y, c.PlainDesc(y), {x}), md);
  c.Add(dnnl::layer_normalization_forward(pd), std::move(args), pd.impl_info_str());
  c.Done(y);
  return true;
}

}  // namespace

Result<bool> TryLayerNorm(Compiler& c, const Node& mean) {
  patterns::LayerNormMatch ln;
  if (!patterns::MatchLayerNorm(c, mean, &ln) || ln.rows == 0) return false;
  const Compiler::Snapshot before = c.Save();
  for (size_t i = 0; i < ln.absorb; ++i) c.AbsorbNext();
  if (AddLayerNorm(c, ln.x, ln.y, ln.rows, ln.D, ln.eps, ln.gamma, ln.beta)) return true;
  c.Restore(before);
  return false;
}

/// ONNX LayerNormalization-17 over axes [axis, rank) viewed as [rows, D], Scale and B with one
/// value per normalized element (another broadcast, an empty x, a non-float output: ref).
Status CompileLayerNorm(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  size_t D = 1;
  float eps = 0;
  TARE_ASSIGN_OR_RETURN(bool block, patterns::LayerNorm17Block(n, c.shape(x), &D, &eps));
  if (!c.F32(x) || !c.F32(y) || !block) return c.CompileRef(n);
  auto per_element = [&](int v) { return v >= 0 && c.F32(v) && static_cast<size_t>(c.slot(v).numel()) == D; };
  const int bv = n.NumInputs() > 2 ? n.inputs[2] : -1;
  if (!per_element(n.inputs[1]) || (bv >= 0 && !per_element(bv))) return c.CompileRef(n);
  const size_t rows = static_cast<size_t>(c.slot(x).numel()) / D;
  if (!AddLayerNorm(c, x, y, rows, D, eps, n.inputs[1], bv)) return c.CompileRef(n);
  return Status::Ok();
}

}  // namespace tare::onednn
