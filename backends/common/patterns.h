// Patterns the fast backends (cpu, onednn) fuse inside their compile (issue 23), matched on a
// partition's node list the same way by both. The file's graph stays the specification: a match
// only says which consecutive nodes one fused step may compute, never changes what ref and ref64
// run. Each matcher is a template over the backend's Compiler, which provides: pos(), size(),
// NodeAt(p), Absorbed(p), IsConst(v), IsLiveOut(v), Readers(v) (node inputs and graph outputs
// reading v, GraphInfo::readers), slot(v) and shape(v).
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "runtime/ir/graph.h"

namespace tare::patterns {

/// The node at position pos() + k when it exists, is not absorbed, is in the default domain and
/// has an output; else nullptr.
template <class C>
const Node* Ahead(const C& c, size_t k) {
  const size_t p = c.pos() + k;
  if (p >= c.size() || c.Absorbed(p)) return nullptr;
  const Node& n = c.NodeAt(p);
  return n.domain.empty() && !n.outputs.empty() ? &n : nullptr;
}

/// Whether v is an intermediate a fused chain may skip: exactly `readers` readers, not live out,
/// float32.
template <class C>
bool Private(const C& c, int v, int readers) {
  return v >= 0 && !c.IsLiveOut(v) && c.Readers(v) == readers && c.slot(v).dtype == DType::kFloat32;
}

/// The single float32 value of a known one-element v, or NaN when v is not one.
template <class C>
float KnownScalar(const C& c, int v) {
  if (!c.IsConst(v) || c.slot(v).dtype != DType::kFloat32 || c.slot(v).numel() != 1) return NAN;
  return c.slot(v).template as<float>()[0];
}

/// The other input of binary node b than v (-1 when b does not read v exactly once).
inline int Other(const Node& b, int v) {
  if (b.NumInputs() != 2) return -1;
  if (b.inputs[0] == v && b.inputs[1] != v) return b.inputs[1];
  if (b.inputs[1] == v && b.inputs[0] != v) return b.inputs[0];
  return -1;
}

/// A Reduce* node's axes: its second input (opset 18; known int64), else its `axes` attribute
/// (empty when absent: every axis, unless noop_with_empty_axes). Errors: axes not known.
template <class C>
Result<std::vector<int64_t>> ReduceAxes(const C& c, const Node& n) {
  if (n.NumInputs() > 1 && n.inputs[1] >= 0) {
    const Tensor& t = c.slot(n.inputs[1]);
    if (!c.IsConst(n.inputs[1]) || t.dtype != DType::kInt64) return Status::Error(n.Where() + ": axes not a known int64 tensor");
    return std::vector<int64_t>(t.template as<int64_t>(), t.template as<int64_t>() + t.numel());
  }
  return n.GetInts("axes");
}

/// Whether n is ReduceMean(x) over the last axis only (attribute or known input), keepdims = 1.
template <class C>
bool LastAxisMean(const C& c, const Node& n, int x) {
  if (n.op != "ReduceMean" || n.inputs.empty() || n.inputs[0] != x) return false;
  Result<int64_t> keep = n.GetInt("keepdims", 1);
  if (!keep.ok() || *keep != 1) return false;
  Result<std::vector<int64_t>> got = ReduceAxes(c, n);
  if (!got.ok()) return false;
  const int64_t r = static_cast<int64_t>(c.shape(x).size());
  return got->size() == 1 && r >= 1 && ((*got)[0] == -1 || (*got)[0] == r - 1);
}

/// ONNX LayerNormalization-17's block for X of shape xs: *D, the elements of the dims from `axis`
/// (attribute, default -1) on, and *eps (attribute `epsilon`, default 1e-5). False when the axis is
/// out of range. Errors: attributes of the wrong kind.
inline Result<bool> LayerNorm17Block(const Node& n, const Shape& xs, size_t* D, float* eps) {
  const int64_t r = static_cast<int64_t>(xs.size());
  TARE_ASSIGN_OR_RETURN(int64_t axis, n.GetInt("axis", -1));
  TARE_ASSIGN_OR_RETURN(*eps, n.GetFloat("epsilon", 1e-5f));
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) return false;
  *D = 1;
  for (int64_t i = axis; i < r; ++i) *D *= static_cast<size_t>(xs[static_cast<size_t>(i)]);
  return true;
}

/// A LayerNorm found by MatchLayerNorm: y = (x - mean) / sqrt(var + eps) [* gamma] [+ beta] over
/// x's last axis of D elements, computed by the current node and the `absorb` nodes after it.
struct LayerNormMatch {
  int x = -1, y = -1;
  size_t D = 0, rows = 0;
  float eps = 0;
  int gamma = -1, beta = -1;  // known [..., D] float32 values, or -1 (none)
  size_t absorb = 0;
};

/// At a ReduceMean: LayerNorm as PyTorch exports nn.LayerNorm before LayerNormalization-17,
///   m = ReduceMean(x, last axis, keepdims) ; d = Sub(x, m) ; p = Pow(d, 2) ;
///   v = ReduceMean(p, last axis, keepdims) ; e = Add(v, eps) ; s = Sqrt(e) ; n = Div(d, s) ;
///   [y = Mul(n, gamma) [; y = Add(y, beta)]]   (eps a known scalar; gamma, beta known with D
///   elements along the last axis; Add and Mul operands in either order),
/// the nodes consecutive in the partition, each intermediate read only inside the chain (d twice)
/// and not live out, x float32 and not empty. Returns false when the nodes are not that chain.
template <class C>
bool MatchLayerNorm(const C& c, const Node& mean1, LayerNormMatch* out) {
  const int x = mean1.inputs.empty() ? -1 : mean1.inputs[0];
  if (x < 0 || c.slot(x).dtype != DType::kFloat32 || c.slot(x).numel() == 0 || !LastAxisMean(c, mean1, x)) return false;
  const int m = mean1.outputs[0];
  const Node* sub = Ahead(c, 1);
  if (!Private(c, m, 1) || !sub || sub->op != "Sub" || sub->NumInputs() != 2 || sub->inputs[0] != x || sub->inputs[1] != m) return false;
  const int d = sub->outputs[0];
  const Node* pw = Ahead(c, 2);
  if (!Private(c, d, 2) || !pw || pw->op != "Pow" || pw->NumInputs() != 2 || pw->inputs[0] != d || KnownScalar(c, pw->inputs[1]) != 2.0f)
    return false;
  const int p = pw->outputs[0];
  const Node* mean2 = Ahead(c, 3);
  if (!Private(c, p, 1) || !mean2 || !LastAxisMean(c, *mean2, p)) return false;
  const int v = mean2->outputs[0];
  const Node* add = Ahead(c, 4);
  if (!Private(c, v, 1) || !add || add->op != "Add") return false;
  const float eps = KnownScalar(c, Other(*add, v));
  const int e = add->outputs[0];
  const Node* sq = Ahead(c, 5);
  if (std::isnan(eps) || !Private(c, e, 1) || !sq || sq->op != "Sqrt" || sq->inputs[0] != e) return false;
  const int s = sq->outputs[0];
  const Node* dv = Ahead(c, 6);
  if (!Private(c, s, 1) || !dv || dv->op != "Div" || dv->NumInputs() != 2 || dv->inputs[0] != d || dv->inputs[1] != s) return false;
  LayerNormMatch r;
  r.x = x;
  r.y = dv->outputs[0];
  r.eps = eps;
  r.absorb = 6;
  r.D = static_cast<size_t>(c.shape(x).back());
  // The affine tail: Mul by gamma, then Add of beta, each known with D elements along the last
  // axis (a scalar affine is left to the unfused ops).
  auto affine = [&](const Node* t, const char* op, int* w) {
    if (!t || t->op != op || !Private(c, r.y, 1)) return false;
    const int o = Other(*t, r.y);
    if (o < 0 || !c.IsConst(o) || c.slot(o).dtype != DType::kFloat32) return false;
    const Shape& os = c.shape(o);
    if (static_cast<size_t>(c.slot(o).numel()) != r.D || os.empty() || static_cast<size_t>(os.back()) != r.D) return false;
    if (c.shape(t->outputs[0]) != c.shape(x)) return false;
    *w = o;
    r.y = t->outputs[0];
    ++r.absorb;
    return true;
  };
  if (affine(Ahead(c, 7), "Mul", &r.gamma)) affine(Ahead(c, 8), "Add", &r.beta);
  if (c.slot(r.y).numel() != c.slot(x).numel() || c.slot(r.y).dtype != DType::kFloat32) return false;
  r.rows = static_cast<size_t>(c.slot(x).numel()) / r.D;
  *out = r;
  return true;
}

}  // namespace tare::patterns
