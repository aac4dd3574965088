// Einsum on the cpu backend (ONNX Einsum-12): a contraction of two float32 operands, as attention's
// and bilinear layers' einsums are written ("bhqd,bhkd->bhqk", "bij,bjk->bik",
// "...ij,...jk->...ik", "i,j->ij"), runs as one batched product (AddBatchedProduct: the own tile
// loop or Eigen's). The equation is resolved on the concrete shapes by the reference's own
// EinsumPlan (kernels/ref/einsum_plan.h). Each label is then a batch label (in both operands and
// the output), an M label (first operand and output), an N label (second operand and output) or a
// contracted label (both operands, not the output): A is viewed (or copied, when its dims are in
// another order) as [batch, M, K], B as [batch, K, N], the product written as [batch, M, N] and
// copied into the output's order when that differs. The sums run in the product's order, within
// Einsum's budget of ref64 ((K + 2) eps sum|w x|). Left to the reference kernel: one operand or
// three or more, a label repeated within an operand (a diagonal), a label of size 1 broadcast
// against a larger one, a label summed in one operand only, an empty tensor.
#include <algorithm>
#include <string>

#include "backends/cpu/ops.h"
#include "kernels/ref/einsum_plan.h"

namespace tare::cpu {
namespace {

/// The operand x (plain, labels `have`, shape `s`) with its dims in the order `want` (a
/// permutation of `have`): x itself when the orders agree, else a private copy made by a strided
/// copy step.
const float* InOrder(Compiler& c, const float* xp, const Shape& s, const std::vector<int>& have, const std::vector<int>& want) {
  if (have == want) return xp;
  std::vector<int64_t> stride(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) stride[i - 1] = stride[i] * s[i];
  std::vector<int64_t> od, is;
  for (int id : want) {
    const size_t j = static_cast<size_t>(std::find(have.begin(), have.end(), id) - have.begin());
    od.push_back(s[j]);
    is.push_back(stride[j]);
  }
  size_t count = 1;
  for (int64_t d : od) count *= static_cast<size_t>(d);
  float* copy = c.Alloc(count);
  AddStridedCopy(c, xp, 0, od, is, copy);
  return copy;
}

}  // namespace

bool SupportsEinsum(const Node& n, const Graph& g, const GraphInfo&) {
  return n.domain.empty() && n.inputs.size() == 2 && n.outputs.size() == 1 && IsF32(g, n.inputs[0]) && IsF32(g, n.inputs[1]);
}

Status CompileEinsum(Compiler& c, const Node& n) {
  const int a = n.inputs[0], b = n.inputs[1], y = n.outputs[0];
  if (c.slot(a).numel() == 0 || c.slot(b).numel() == 0 || c.slot(y).numel() == 0 || c.slot(b).dtype != DType::kFloat32)
    return c.CompileRef(n);
  TARE_ASSIGN_OR_RETURN(std::string eq, n.GetString("equation", ""));
  const Shape* shapes[2] = {&c.shape(a), &c.shape(b)};
  const EinsumPlan p = MakeEinsumPlan(eq, {*shapes[0], *shapes[1]});
  const size_t L = p.size.size();
  std::vector<char> in[2] = {std::vector<char>(L, 0), std::vector<char>(L, 0)}, in_out(L, 0);
  for (int k = 0; k < 2; ++k)
    for (size_t j = 0; j < p.labels[k].size(); ++j) {
      const int id = p.labels[k][j];
      if (in[k][id] || (*shapes[k])[j] != p.size[id]) return c.CompileRef(n);  // a diagonal, a broadcast
      in[k][id] = 1;
    }
  for (int id : p.out) in_out[id] = 1;
  std::vector<int> batch, m, nn, kk;
  for (int id : p.out) (in[0][id] && in[1][id] ? batch : in[0][id] ? m : nn).push_back(id);
  for (int id : p.labels[0])
    if (in[1][id] && !in_out[id]) kk.push_back(id);
  for (size_t id = 0; id < L; ++id)
    if ((in[0][id] || in[1][id]) && !(in[0][id] && in[1][id]) && !in_out[id]) return c.CompileRef(n);  // summed in one operand
  auto prod = [&](const std::vector<int>& ids) {
    size_t v = 1;
    for (int id : ids) v *= static_cast<size_t>(p.size[id]);
    return v;
  };
  const size_t B = prod(batch), M = prod(m), N = prod(nn), K = prod(kk);
  auto cat = [](std::vector<int> x, const std::vector<int>& u, const std::vector<int>& v) {
    x.insert(x.end(), u.begin(), u.end());
    x.insert(x.end(), v.begin(), v.end());
    return x;
  };
  const float* ap = InOrder(c, c.In(a, Layout::kPlain), *shapes[0], p.labels[0], cat(batch, m, kk));
  const float* bp = InOrder(c, c.In(b, Layout::kPlain), *shapes[1], p.labels[1], cat(batch, kk, nn));
  const std::vector<int> prod_order = cat(batch, m, nn);
  float* yp = c.Out(y, Layout::kPlain);
  float* cp = prod_order == p.out ? yp : c.Alloc(B * M * N);
  TARE_RETURN_IF_ERROR(AddBatchedProduct(c, n, ap, bp, cp, B, M, K, N, [](size_t bi) { return std::make_pair(bi, bi); }, B * M * K, B * K * N));
  if (cp != yp) {
    // The product [batch, M, N] copied into the output's label order.
    Shape ps;
    for (int id : prod_order) ps.push_back(p.size[id]);
    std::vector<int64_t> stride(ps.size(), 1);
    for (size_t i = ps.size(); i-- > 1;) stride[i - 1] = stride[i] * ps[i];
    std::vector<int64_t> od, is;
    for (int id : p.out) {
      const size_t j = static_cast<size_t>(std::find(prod_order.begin(), prod_order.end(), id) - prod_order.begin());
      od.push_back(ps[j]);
      is.push_back(stride[j]);
    }
    AddStridedCopy(c, cp, 0, od, is, yp);
  }
  c.Done(y);
  return Status::Ok();
}

}  // namespace tare::cpu
