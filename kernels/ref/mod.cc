// Reference kernel of Mod (semantics: runtime/ops/mod.cc). Integer results are exact; float
// results use std::fmod in the computation type (float for float16/float32, double for float64),
// which is exact, then stored (exactly representable in the storage type).
#include <cmath>
#include <string>
#include <type_traits>

#include "kernels/ref/broadcast.h"
#include "runtime/ir/elem.h"
#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// y = a mod b for element type E; error on an integer zero divisor.
template <class E>
Status ModTyped(bool fmod, const Tensor& a, const Tensor& b, Tensor& y) {
  using S = typename E::S;
  using C = typename E::C;
  auto run = [&](auto f) { BroadcastBinary<S, S, S>(a, b, y, f); };
  if constexpr (kElemIsFloat<E>) {
    run([](S p, S q) { return E::Store(static_cast<C>(std::fmod(E::Load(p), E::Load(q)))); });
  } else {
    const S* pb = b.as<S>();
    if (y.numel() > 0)  // every element of B is used when the output is not empty
      for (int64_t i = 0; i < b.numel(); ++i)
        if (pb[i] == 0) return Status::Error("Mod: integer division by zero (divisor B contains 0)");
    if constexpr (std::is_signed_v<S>) {
      // p % q truncates (C semantics); q == -1 is special-cased to avoid INT_MIN % -1.
      if (fmod) {
        run([](S p, S q) { return q == -1 ? S(0) : static_cast<S>(p % q); });
      } else {
        run([](S p, S q) {
          if (q == -1) return S(0);
          S r = static_cast<S>(p % q);
          if (r != 0 && ((r < 0) != (q < 0))) r = static_cast<S>(r + q);  // |r| < |q|: no overflow
          return r;
        });
      }
    } else {
      run([](S p, S q) { return static_cast<S>(p % q); });
    }
  }
  return Status::Ok();
}

}  // namespace

template <class T>
Result<KernelFn> MakeMod(const Node& node) {
  if (node.op != "Mod") return Status::Error(node.Where() + ": not Mod");
  TARE_ASSIGN_OR_RETURN(int64_t fmod, node.GetInt("fmod", 0));
  return KernelFn([fmod](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    Status st = Status::Error("Mod: unsupported dtype " + DTypeName(in[0]->dtype));
    VisitNumeric(in[0]->dtype, [&](auto e) { st = ModTyped<decltype(e)>(fmod != 0, *in[0], *in[1], *out[0]); });
    return st;
  });
}

TARE_INSTANTIATE_REF(Mod)

}  // namespace tare
