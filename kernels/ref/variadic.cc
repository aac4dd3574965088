// Reference kernels of Min, Max, Mean, Sum over 1..N broadcast inputs (semantics:
// runtime/ops/variadic.cc). Order, fixed: y = x0 broadcast to y's shape (N = 1) or
// y = op(x0, x1), then y = op(y, x_i) in place for i = 2..N-1; float steps are one operation in
// the computation type (float for float16/float32, double for float64) rounded to the storage
// type; Mean then divides each element by N (one rounding). Min/Max return one of the operands
// exactly (NaN if either is NaN).
#include <cmath>
#include <cstring>
#include <string>

#include "kernels/ref/broadcast.h"
#include "runtime/ir/elem.h"
#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

enum class VarOp { kMin, kMax, kSum, kMean };

/// Min or max of two elements of type E (NaN-propagating for floats).
template <class E, bool kMax>
typename E::S Pick(typename E::S p, typename E::S q) {
  const auto a = E::Load(p), b = E::Load(q);
  if constexpr (kElemIsFloat<E>) {
    if (std::isnan(a)) return p;
    if (std::isnan(b)) return q;
  }
  if constexpr (kMax) return b > a ? q : p;
  else return b < a ? q : p;
}

/// Runs op over inputs of element type E into y.
template <class E>
void VariadicTyped(VarOp op, const std::vector<const Tensor*>& in, Tensor& y) {
  using S = typename E::S;
  using C = typename E::C;
  S* py = y.as<S>();
  if (in.size() == 1) {
    if (y.nbytes()) std::memcpy(py, in[0]->data, y.nbytes());
  } else {
    for (size_t i = 1; i < in.size(); ++i) {
      // Step 1 reads x0; later steps read y in place (same index, so each element is read first).
      const S* a = i == 1 ? in[0]->as<S>() : py;
      const Shape& as = i == 1 ? in[0]->shape : y.shape;
      auto run = [&](auto f) { BroadcastBinary(a, as, in[i]->as<S>(), in[i]->shape, py, y.shape, f); };
      if (op == VarOp::kMin) run(Pick<E, false>);
      else if (op == VarOp::kMax) run(Pick<E, true>);
      else if constexpr (kElemIsFloat<E>) run([](S p, S q) { return E::Store(static_cast<C>(E::Load(p) + E::Load(q))); });
    }
  }
  if constexpr (kElemIsFloat<E>) {
    if (op == VarOp::kMean) {
      const C n = static_cast<C>(in.size());
      const int64_t count = y.numel();
      for (int64_t k = 0; k < count; ++k) py[k] = E::Store(static_cast<C>(E::Load(py[k]) / n));
    }
  }
}

}  // namespace

template <class T>
Result<KernelFn> MakeVariadic(const Node& node) {
  const std::string& name = node.op;
  VarOp op;
  if (name == "Min") op = VarOp::kMin;
  else if (name == "Max") op = VarOp::kMax;
  else if (name == "Sum") op = VarOp::kSum;
  else if (name == "Mean") op = VarOp::kMean;
  else return Status::Error(node.Where() + ": not a variadic op");
  return KernelFn([op](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    Tensor& y = *out[0];
    if (!VisitNumeric(in[0]->dtype, [&](auto e) { VariadicTyped<decltype(e)>(op, in, y); }))
      return Status::Error("unsupported dtype " + DTypeName(in[0]->dtype));
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Variadic)

}  // namespace tare
