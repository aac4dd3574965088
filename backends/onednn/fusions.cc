// The onednn backend's fusions for transformer graphs (issue 23): PyTorch's erf and tanh Gelu
// chains as one oneDNN eltwise each (tried by CompileBinary at their first node, ops.cc), and Erf
// alone on its reference kernel inside the partition, so a Gelu chain is never cut by ref.
// Declared in op_util.h.
#include <cmath>

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

}  // namespace tare::onednn
