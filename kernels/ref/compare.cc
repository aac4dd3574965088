// Reference kernels of the comparisons Equal, Greater, Less, GreaterOrEqual, LessOrEqual
// (semantics: runtime/ops/compare.cc). Each output is one exact comparison of the two broadcast
// operands in their computation type (float16 compared as float, which is exact); no rounding.
#include <string>

#include "kernels/ref/broadcast.h"
#include "runtime/ir/elem.h"
#include "kernels/ref/ref_kernels.h"
#include "runtime/ops/elementwise.h"

namespace tare {
namespace {

enum class CmpOp { kEq, kGt, kLt, kGe, kLe };

/// y = a op b for operands of element type E.
template <class E>
void CompareTyped(CmpOp op, const Tensor& a, const Tensor& b, const Shape& bs, Tensor& y) {
  using S = typename E::S;
  auto run = [&](auto f) { BroadcastBinary(a.as<S>(), a.shape, b.as<S>(), bs, y.as<bool>(), y.shape, f); };
  switch (op) {
    case CmpOp::kEq: run([](S p, S q) { return E::Load(p) == E::Load(q); }); break;
    case CmpOp::kGt: run([](S p, S q) { return E::Load(p) > E::Load(q); }); break;
    case CmpOp::kLt: run([](S p, S q) { return E::Load(p) < E::Load(q); }); break;
    case CmpOp::kGe: run([](S p, S q) { return E::Load(p) >= E::Load(q); }); break;
    case CmpOp::kLe: run([](S p, S q) { return E::Load(p) <= E::Load(q); }); break;
  }
}

}  // namespace

template <class T>
Result<KernelFn> MakeCompare(const Node& node) {
  const std::string& name = node.op;
  CmpOp op;
  if (name == "Equal") op = CmpOp::kEq;
  else if (name == "Greater") op = CmpOp::kGt;
  else if (name == "Less") op = CmpOp::kLt;
  else if (name == "GreaterOrEqual") op = CmpOp::kGe;
  else if (name == "LessOrEqual") op = CmpOp::kLe;
  else return Status::Error(node.Where() + ": not a comparison op");
  Result<LegacyBroadcast> lb = LegacyBroadcast::FromNode(node);
  if (!lb.ok()) return Status::Error(node.Where() + ": " + lb.status().message());
  return KernelFn([op, legacy = *lb](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& a = *in[0];
    const Tensor& b = *in[1];
    TARE_ASSIGN_OR_RETURN(Shape bs, legacy.OperandShape(a.shape, b.shape));
    auto f = [&](auto e) { CompareTyped<decltype(e)>(op, a, b, bs, *out[0]); };
    if (a.dtype == DType::kBool) {
      f(Elem<DType::kBool>{});
    } else if (!VisitNumeric(a.dtype, f)) {
      return Status::Error("unsupported dtype " + DTypeName(a.dtype));
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Compare)

}  // namespace tare
