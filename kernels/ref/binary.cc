// Reference kernels of the elementwise binary ops Add, Sub, Mul, Div, Pow, PRelu (semantics:
// runtime/ops/binary.cc). Each output element is one operation on its two broadcast operands:
// float Add/Sub/Mul/Div/PRelu are one IEEE operation in the computation type (float for float16
// and float32, double for float64) rounded once to the storage type; Pow is evaluated in double
// and rounded once. Elements are independent, so no accumulation order applies. Broadcasting:
// kernels/ref/broadcast.h; B's shape is first adjusted for the legacy `broadcast`/`axis`
// attributes (LegacyBroadcast). Tensors are dispatched on their storage dtype (runtime/ir/elem.h).
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/ref/broadcast.h"
#include "runtime/ir/elem.h"
#include "kernels/ref/ref_kernels.h"
#include "runtime/ops/elementwise.h"

namespace tare {
namespace {

enum class BinOp { kAdd, kSub, kMul, kDiv, kPow, kPRelu };

/// Add/Sub/Mul/Div/PRelu on same-typed operands of element type E (an Elem<D>).
template <class E>
Status Arith(BinOp op, const Tensor& a, const Tensor& b, const Shape& bs, Tensor& y) {
  using S = typename E::S;
  using C = typename E::C;
  const S* pa = a.as<S>();
  const S* pb = b.as<S>();
  S* py = y.as<S>();
  auto run = [&](auto f) { BroadcastBinary(pa, a.shape, pb, bs, py, y.shape, f); };
  if constexpr (kElemIsFloat<E>) {
    switch (op) {
      case BinOp::kAdd: run([](S p, S q) { return E::Store(static_cast<C>(E::Load(p) + E::Load(q))); }); break;
      case BinOp::kSub: run([](S p, S q) { return E::Store(static_cast<C>(E::Load(p) - E::Load(q))); }); break;
      case BinOp::kMul: run([](S p, S q) { return E::Store(static_cast<C>(E::Load(p) * E::Load(q))); }); break;
      case BinOp::kDiv: run([](S p, S q) { return E::Store(static_cast<C>(E::Load(p) / E::Load(q))); }); break;
      case BinOp::kPRelu:
        run([](S p, S s) {
          const C x = E::Load(p);
          return x < 0 ? E::Store(static_cast<C>(E::Load(s) * x)) : p;
        });
        break;
      case BinOp::kPow: break;
    }
  } else {
    using W = WrapUnsigned<S>;
    switch (op) {
      case BinOp::kAdd: run([](S p, S q) { return static_cast<S>(W(p) + W(q)); }); break;
      case BinOp::kSub: run([](S p, S q) { return static_cast<S>(W(p) - W(q)); }); break;
      case BinOp::kMul: run([](S p, S q) { return static_cast<S>(W(p) * W(q)); }); break;
      case BinOp::kDiv: {
        // Every element of B is used when the output is not empty: reject a zero divisor up front.
        if (y.numel() > 0)
          for (int64_t i = 0; i < b.numel(); ++i)
            if (pb[i] == 0) return Status::Error("Div: integer division by zero (divisor B contains 0)");
        if constexpr (std::is_signed_v<S>)
          run([](S p, S d) { return d == -1 ? static_cast<S>(W(0) - W(p)) : static_cast<S>(p / d); });
        else
          run([](S p, S d) { return static_cast<S>(p / d); });
        break;
      }
      case BinOp::kPRelu:
        if constexpr (std::is_signed_v<S>)
          run([](S x, S s) { return x < 0 ? static_cast<S>(W(s) * W(x)) : x; });
        else
          run([](S x, S) { return x; });  // an unsigned x is never negative
        break;
      case BinOp::kPow: break;
    }
  }
  return Status::Ok();
}

/// Exact integer power with wrap-around; x^-m truncates 1/x^m toward zero (bad: 0^-m).
template <class I>
I IntPow(I x, bool negative, uint64_t m, bool& bad) {
  using U = std::make_unsigned_t<I>;
  if (negative) {
    if (x == 0) bad = true;
    if (x == 1) return 1;
    if (x == -1) return (m % 2) ? I(-1) : I(1);
    return 0;
  }
  U result = 1, base = static_cast<U>(x);
  for (uint64_t k = m; k; k >>= 1) {
    if (k & 1) result = static_cast<U>(result * base);
    base = static_cast<U>(base * base);
  }
  return static_cast<I>(result);
}

/// Pow for base element type EX and exponent element type EE (semantics: runtime/ops/binary.cc).
template <class EX, class EE>
Status PowTyped(const Tensor& a, const Tensor& b, const Shape& bs, Tensor& y) {
  using X = typename EX::S;
  using Q = typename EE::S;
  const X* pa = a.as<X>();
  const Q* pb = b.as<Q>();
  X* py = y.as<X>();
  if constexpr (kElemIsFloat<EX>) {
    BroadcastBinary(pa, a.shape, pb, bs, py, y.shape, [](X p, Q q) {
      return EX::FromDouble(std::pow(static_cast<double>(EX::Load(p)), static_cast<double>(EE::Load(q))));
    });
    return Status::Ok();
  } else {
    bool bad = false;
    if constexpr (!kElemIsFloat<EE>) {
      BroadcastBinary(pa, a.shape, pb, bs, py, y.shape, [&bad](X p, Q q) {
        if constexpr (std::is_signed_v<Q>) {
          const uint64_t mag = q < 0 ? uint64_t(0) - static_cast<uint64_t>(q) : static_cast<uint64_t>(q);
          return IntPow<X>(p, q < 0, mag, bad);
        } else {
          return IntPow<X>(p, false, static_cast<uint64_t>(q), bad);
        }
      });
      if (bad) return Status::Error("Pow: 0 raised to a negative integer power");
    } else {
      BroadcastBinary(pa, a.shape, pb, bs, py, y.shape, [&bad](X p, Q q) {
        const double r = std::trunc(std::pow(static_cast<double>(p), static_cast<double>(EE::Load(q))));
        // Both limits are exact doubles (-2^k and 2^k); NaN fails the comparison too.
        if (!(r >= static_cast<double>(std::numeric_limits<X>::min()) &&
              r < -static_cast<double>(std::numeric_limits<X>::min()))) {
          bad = true;
          return X(0);
        }
        return static_cast<X>(r);
      });
      if (bad) return Status::Error("Pow: result is NaN or out of the range of " + DTypeName(a.dtype));
    }
    return Status::Ok();
  }
}

Status RunPow(const Tensor& a, const Tensor& b, const Shape& bs, Tensor& y) {
  Status st = Status::Error("Pow: unsupported dtypes " + DTypeName(a.dtype) + ", " + DTypeName(b.dtype));
  auto base = [&](auto ex) {
    using EX = decltype(ex);
    if constexpr (kElemIsFloat<EX> || std::is_same_v<typename EX::S, int32_t> ||
                  std::is_same_v<typename EX::S, int64_t>) {
      VisitNumeric(b.dtype, [&](auto ee) { st = PowTyped<EX, decltype(ee)>(a, b, bs, y); });
    }
  };
  VisitNumeric(a.dtype, base);
  return st;
}

}  // namespace

template <class T>
Result<KernelFn> MakeBinary(const Node& node) {
  const std::string& name = node.op;
  BinOp op;
  if (name == "Add") op = BinOp::kAdd;
  else if (name == "Sub") op = BinOp::kSub;
  else if (name == "Mul") op = BinOp::kMul;
  else if (name == "Div") op = BinOp::kDiv;
  else if (name == "Pow") op = BinOp::kPow;
  else if (name == "PRelu") op = BinOp::kPRelu;
  else return Status::Error(node.Where() + ": not a binary op");
  LegacyBroadcast legacy;
  if (op != BinOp::kPRelu) {
    Result<LegacyBroadcast> lb = LegacyBroadcast::FromNode(node);
    if (!lb.ok()) return Status::Error(node.Where() + ": " + lb.status().message());
    legacy = *lb;
  }
  return KernelFn([op, legacy](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& a = *in[0];
    const Tensor& b = *in[1];
    TARE_ASSIGN_OR_RETURN(Shape bs, legacy.OperandShape(a.shape, b.shape));
    if (op == BinOp::kPow) return RunPow(a, b, bs, *out[0]);
    Status st = Status::Error("unsupported dtype " + DTypeName(a.dtype));
    VisitNumeric(a.dtype, [&](auto e) { st = Arith<decltype(e)>(op, a, b, bs, *out[0]); });
    return st;
  });
}

TARE_INSTANTIATE_REF(Binary)

}  // namespace tare
