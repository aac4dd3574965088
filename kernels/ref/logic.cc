// Reference kernels of the logical ops And, Or, Xor, Not on bool tensors (semantics:
// runtime/ops/logic.cc). Exact; each output element depends only on its own operands.
#include <string>

#include "kernels/ref/broadcast.h"
#include "kernels/ref/ref_kernels.h"
#include "runtime/ops/elementwise.h"

namespace tare {

template <class T>
Result<KernelFn> MakeLogic(const Node& node) {
  const std::string& op = node.op;
  if (op == "Not") {
    return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      const bool* x = in[0]->as<bool>();
      bool* y = out[0]->as<bool>();
      const int64_t n = in[0]->numel();
      for (int64_t i = 0; i < n; ++i) y[i] = !x[i];
      return Status::Ok();
    });
  }
  if (op != "And" && op != "Or" && op != "Xor") return Status::Error(node.Where() + ": not a logical op");
  Result<LegacyBroadcast> lb = LegacyBroadcast::FromNode(node);
  if (!lb.ok()) return Status::Error(node.Where() + ": " + lb.status().message());
  const int kind = op == "And" ? 0 : op == "Or" ? 1 : 2;
  return KernelFn([kind, legacy = *lb](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& a = *in[0];
    const Tensor& b = *in[1];
    TARE_ASSIGN_OR_RETURN(Shape bs, legacy.OperandShape(a.shape, b.shape));
    auto run = [&](auto f) { BroadcastBinary(a.as<bool>(), a.shape, b.as<bool>(), bs, out[0]->as<bool>(), out[0]->shape, f); };
    if (kind == 0) run([](bool p, bool q) { return p && q; });
    else if (kind == 1) run([](bool p, bool q) { return p || q; });
    else run([](bool p, bool q) { return p != q; });
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Logic)

}  // namespace tare
