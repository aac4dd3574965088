// The onednn backend's fusions for transformer graphs (issue 23): PyTorch's erf and tanh Gelu
// chains as one oneDNN eltwise each (tried by CompileBinary at their first node, ops.cc), and Erf
// alone on its reference kernel inside the partition, so a Gelu chain is never cut by ref.
// Declared in op_util.h.
#include <cmath>

#include "backends/onednn/op_util.h"

namespace tare::onednn {

// ---- Gelu (erf form, as PyTorch exports nn.GELU()) ------------------------------------------

namespace {

/// The known single float value of v, or NaN.
float KnownScalarOf(const Compiler& c, int v) {
  if (!c.IsConst(v) || !c.F32(v) || c.slot(v).numel() != 1) return NAN;
  return ReadScalar(c, v);
}

}  // namespace

/// At a Div: a = Div(x, sqrt 2) ; b = Erf(a) ; cc = Add(b, 1) ; d = Mul(x, cc) ; y = Mul(d, 0.5)
/// (operands of Add and the Muls in either order), each intermediate read once and not live out,
/// the nodes consecutive: computed as oneDNN's eltwise_gelu_erf of x (0.5 x (1 + erf(x / sqrt 2))
/// with oneDNN's erf; within the chain's budget, tests/backends/onednn_test.cc). True when done.
Result<bool> TryGelu(Compiler& c, const Node& div) {
  if (div.NumInputs() != 2 || div.outputs.empty()) return false;
  const int x = div.inputs[0];
  const float c1 = KnownScalarOf(c, div.inputs[1]);
  if (!(std::fabs(c1 - 1.41421356f) <= 1e-6f) || !c.F32(x)) return false;
  auto ahead = [&](size_t k) -> const Node* {
    const size_t p = c.pos() + k;
    if (p >= c.size() || c.Absorbed(p)) return nullptr;
    const Node& n = c.NodeAt(p);
    return n.domain.empty() && !n.outputs.empty() ? &n : nullptr;
  };
  auto single = [&](int v) { return v >= 0 && !c.IsLiveOut(v) && c.Readers(v) == 1; };
  auto other = [](const Node& b, int v) {
    if (b.NumInputs() != 2) return -1;
    if (b.inputs[0] == v && b.inputs[1] != v) return b.inputs[1];
    if (b.inputs[1] == v && b.inputs[0] != v) return b.inputs[0];
    return -1;
  };
  const int a = div.outputs[0];
  const Node* erf = ahead(1);
  if (!single(a) || !erf || erf->op != "Erf" || erf->inputs.size() != 1 || erf->inputs[0] != a) return false;
  const int b = erf->outputs[0];
  const Node* add = ahead(2);
  if (!single(b) || !add || add->op != "Add" || KnownScalarOf(c, other(*add, b)) != 1.0f) return false;
  const int cc = add->outputs[0];
  const Node* mul1 = ahead(3);
  if (!single(cc) || !mul1 || mul1->op != "Mul" || other(*mul1, cc) != x) return false;
  const int d = mul1->outputs[0];
  const Node* mul2 = ahead(4);
  if (!single(d) || !mul2 || mul2->op != "Mul" || KnownScalarOf(c, other(*mul2, d)) != 0.5f) return false;
  const int y = mul2->outputs[0];
  if (!c.F32(y) || c.shape(y) != c.shape(x)) return false;
  memory src = c.Current(x);
  dnnl::eltwise_forward::desc ed(prop_kind::forward_inference, algorithm::eltwise_gelu_erf, src.get_desc(), 0.0f, 0.0f);
  dnnl::eltwise_forward::primitive_desc pd(ed, c.engine());
  for (int i = 0; i < 4; ++i) c.AbsorbNext();
  memory dst = c.Out(y, pd.dst_desc(), {x});
  c.Add(dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, pd.impl_info_str());
  c.Done(y);
  return true;
}

/// At a Mul(x, x): PyTorch's tanh Gelu at opset 14 (x * x, * x, * 0.044715, + x, * sqrt(2 / pi),
/// Tanh, + 1, * x, * 0.5; scalar constants on either side; the nodes consecutive, each
/// intermediate read once) as oneDNN's eltwise_gelu_tanh of x; within the chain's budget
/// (tests/backends/onednn_test.cc). True when done.
Result<bool> TryGeluTanh(Compiler& c, const Node& sq) {
  if (sq.NumInputs() != 2 || sq.inputs[0] != sq.inputs[1] || sq.outputs.empty()) return false;
  const int x = sq.inputs[0];
  if (!c.F32(x) || c.Readers(x) < 5) return false;
  auto ahead = [&](size_t k) -> const Node* {
    const size_t p = c.pos() + k;
    if (p >= c.size() || c.Absorbed(p)) return nullptr;
    const Node& n = c.NodeAt(p);
    return n.domain.empty() && !n.outputs.empty() ? &n : nullptr;
  };
  auto other = [](const Node& b, int v) {
    if (b.NumInputs() != 2) return -1;
    if (b.inputs[0] == v && b.inputs[1] != v) return b.inputs[1];
    if (b.inputs[1] == v && b.inputs[0] != v) return b.inputs[0];
    return -1;
  };
  const struct {
    const char* op;
    char other;  // 'x' (the input), 'k' (a known scalar), 0 (unary)
    float k;
  } chain[] = {{"Mul", 'x', 0}, {"Mul", 'k', 0.044715f}, {"Add", 'x', 0}, {"Mul", 'k', 0.7978845608f},
               {"Tanh", 0, 0},  {"Add", 'k', 1.0f},      {"Mul", 'x', 0}, {"Mul", 'k', 0.5f}};
  int cur = sq.outputs[0];
  for (size_t i = 0; i < 8; ++i) {
    const Node* nd = ahead(i + 1);
    if (cur < 0 || c.IsLiveOut(cur) || c.Readers(cur) != 1 || !nd || nd->op != chain[i].op) return false;
    if (chain[i].other == 0) {
      if (nd->NumInputs() != 1 || nd->inputs[0] != cur) return false;
    } else if (chain[i].other == 'x') {
      if (other(*nd, cur) != x) return false;
    } else if (!(std::fabs(KnownScalarOf(c, other(*nd, cur)) - chain[i].k) <= 1e-6f * std::fabs(chain[i].k))) {
      return false;
    }
    cur = nd->outputs[0];
  }
  const int y = cur;
  if (!c.F32(y) || c.shape(y) != c.shape(x)) return false;
  memory src = c.Current(x);
  dnnl::eltwise_forward::desc ed(prop_kind::forward_inference, algorithm::eltwise_gelu_tanh, src.get_desc(), 0.0f, 0.0f);
  dnnl::eltwise_forward::primitive_desc pd(ed, c.engine());
  for (int i = 0; i < 8; ++i) c.AbsorbNext();
  memory dst = c.Out(y, pd.dst_desc(), {x});
  c.Add(dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, pd.impl_info_str());
  c.Done(y);
  return true;
}

bool SupportsErf(const Node& n, const Graph& g, const GraphInfo&) {
  return n.domain.empty() && n.NumInputs() == 1 && IsF32(g, n.inputs[0]);
}

/// An Erf outside a Gelu chain: the reference kernel inside the partition (oneDNN has no erf), so
/// a Gelu's chain stays in one partition for TryGelu.
Status CompileErf(Compiler& c, const Node& n) { return c.CompileRef(n); }

}  // namespace tare::onednn
