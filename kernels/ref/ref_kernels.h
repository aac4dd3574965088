// The reference kernels: the specification of every op, templated on the compute type T (float for
// the `ref` backend, double for `ref64`). Floating-point tensors arrive in T; integer and bool
// tensors keep their own types. A kernel never validates what shape inference already checked:
// shapes and dtypes of inputs and (preallocated) outputs are consistent when it runs.
//
// Numerics rules for T = float (docs/ARCHITECTURE.md, the numerics contract): fp32 storage, sums accumulated in T in the
// documented order, no FMA contraction (the library is built with -ffp-contract=off),
// transcendentals evaluated in double and rounded once to T.
#pragma once
#include <functional>
#include <vector>

#include "runtime/ir/graph.h"

namespace tare {

/// A prepared kernel: attributes parsed and validated once; called with the node's inputs (nullptr
/// for omitted optional ones) and outputs (nullptr for omitted optional ones, preallocated with the
/// inferred shapes otherwise).
using KernelFn = std::function<Status(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out)>;

// Make<Family><T>(node): prepares the kernel of one op family (kernels/ref/<family>.cc; ControlFlow
// and Gradient, whose kernels run graphs, in runtime/exec/). The table that picks the family of a
// node is MakeRefKernel (runtime/exec/ref_kernel.h).
#define TARE_OP(name, family, budget, doc) \
  template <class T>                       \
  Result<KernelFn> Make##family(const Node& node);
#include "runtime/ops/op_list.inc"
#undef TARE_OP

/// Explicitly instantiates Make<Family> for float and double (use once in kernels/ref/<family>.cc).
#define TARE_INSTANTIATE_REF(family)                              \
  template Result<KernelFn> Make##family<float>(const Node&);     \
  template Result<KernelFn> Make##family<double>(const Node&);

/// Converts the compute value to double for transcendental evaluation and rounds once to T.
template <class T, class F>
inline T ViaDouble(F f, T x) {
  return static_cast<T>(f(static_cast<double>(x)));
}

}  // namespace tare
