// Reference kernels of the elementwise binary ops Add, Sub, Mul, Div, Pow, PRelu (semantics:
// runtime/ops/binary.cc). Each output element is one operation on its two broadcast operands:
// float Add/Sub/Mul/Div/PRelu are one IEEE operation in the storage type (rounded once); Pow is
// evaluated in double and rounded once. Elements are independent, so no accumulation order applies.
//
// Broadcasting: the output shape is iterated as rows. Size-1 output dims are dropped and adjacent
// dims merged while both operands stay contiguous (or stay broadcast) across them, so the common
// cases become one flat loop: same shape (vector op vector), a scalar operand (vector op scalar),
// a per-channel operand like [1,C,1,1] against [N,C,H,W] (N*C rows of H*W, each vector op scalar),
// a trailing [W] operand (rows of vector op vector). Anything else walks the rows with strides.
// Floating-point tensors are dispatched on their storage dtype (the compute type T for float32
// values, so the same code serves `ref` and `ref64`).
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// The row decomposition of a broadcast: collapsed output dims (innermost last) and the element
/// strides of each operand along them (0 where the operand is broadcast).
struct BroadcastPlan {
  std::vector<int64_t> dims, sa, sb;
};

BroadcastPlan MakePlan(const Shape& out, const Shape& a, const Shape& b) {
  const size_t r = out.size();
  std::vector<int64_t> sa(r), sb(r);
  int64_t acc_a = 1, acc_b = 1;
  for (size_t k = r; k-- > 0;) {
    const int64_t da = k + a.size() >= r ? a[k + a.size() - r] : 1;
    const int64_t db = k + b.size() >= r ? b[k + b.size() - r] : 1;
    sa[k] = da == 1 ? 0 : acc_a;
    sb[k] = db == 1 ? 0 : acc_b;
    acc_a *= da;
    acc_b *= db;
  }
  BroadcastPlan p;
  for (size_t k = 0; k < r; ++k) {
    if (out[k] == 1) continue;
    if (!p.dims.empty() && p.sa.back() == sa[k] * out[k] && p.sb.back() == sb[k] * out[k]) {
      p.dims.back() *= out[k];
      p.sa.back() = sa[k];
      p.sb.back() = sb[k];
    } else {
      p.dims.push_back(out[k]);
      p.sa.push_back(sa[k]);
      p.sb.push_back(sb[k]);
    }
  }
  if (p.dims.empty()) p = BroadcastPlan{{1}, {1}, {1}};
  return p;
}

/// One row of n outputs; sa/sb are the operand strides (specialised for the contiguous and the
/// scalar-operand cases so the compiler can vectorise them).
template <class A, class B, class Y, class F>
inline void Row(const A* a, const B* b, Y* y, int64_t n, int64_t sa, int64_t sb, F& f) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) y[i] = f(a[i], b[i]);
  } else if (sa == 1 && sb == 0) {
    const B bv = *b;
    for (int64_t i = 0; i < n; ++i) y[i] = f(a[i], bv);
  } else if (sa == 0 && sb == 1) {
    const A av = *a;
    for (int64_t i = 0; i < n; ++i) y[i] = f(av, b[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = f(a[i * sa], b[i * sb]);
  }
}

/// y = f(a, b) elementwise over the broadcast of a and b (y preallocated with that shape).
template <class A, class B, class Y, class F>
void Broadcast(const Tensor& ta, const Tensor& tb, Tensor& ty, F f) {
  if (ty.numel() == 0) return;
  const BroadcastPlan p = MakePlan(ty.shape, ta.shape, tb.shape);
  const A* a = ta.as<A>();
  const B* b = tb.as<B>();
  Y* y = ty.as<Y>();
  const size_t outer = p.dims.size() - 1;
  const int64_t n = p.dims.back();
  std::vector<int64_t> idx(outer, 0);
  int64_t oa = 0, ob = 0;
  for (int64_t oy = 0;; oy += n) {
    Row(a + oa, b + ob, y + oy, n, p.sa.back(), p.sb.back(), f);
    size_t k = outer;  // odometer over the outer dims, innermost first
    while (k > 0) {
      --k;
      oa += p.sa[k];
      ob += p.sb[k];
      if (++idx[k] < p.dims[k]) break;
      oa -= p.sa[k] * p.dims[k];
      ob -= p.sb[k] * p.dims[k];
      idx[k] = 0;
      if (k == 0) return;
    }
    if (outer == 0) return;
  }
}

enum class BinOp { kAdd, kSub, kMul, kDiv, kPow, kPRelu };

/// Two's-complement wrapping arithmetic for signed integers (no undefined behaviour).
template <class I>
I Wrap(std::make_unsigned_t<I> v) {
  return static_cast<I>(v);
}

/// Add/Sub/Mul/Div/PRelu on same-typed operands V.
template <class V>
Status Arith(BinOp op, const Tensor& a, const Tensor& b, Tensor& y) {
  using U = std::make_unsigned_t<std::conditional_t<std::is_integral_v<V>, V, int>>;
  constexpr bool kInt = std::is_integral_v<V>;
  switch (op) {
    case BinOp::kAdd:
      if constexpr (kInt) Broadcast<V, V, V>(a, b, y, [](V p, V q) { return Wrap<V>(U(p) + U(q)); });
      else Broadcast<V, V, V>(a, b, y, [](V p, V q) { return static_cast<V>(p + q); });
      break;
    case BinOp::kSub:
      if constexpr (kInt) Broadcast<V, V, V>(a, b, y, [](V p, V q) { return Wrap<V>(U(p) - U(q)); });
      else Broadcast<V, V, V>(a, b, y, [](V p, V q) { return static_cast<V>(p - q); });
      break;
    case BinOp::kMul:
      if constexpr (kInt) Broadcast<V, V, V>(a, b, y, [](V p, V q) { return Wrap<V>(U(p) * U(q)); });
      else Broadcast<V, V, V>(a, b, y, [](V p, V q) { return static_cast<V>(p * q); });
      break;
    case BinOp::kDiv:
      if constexpr (kInt) {
        // Every element of B is used when the output is not empty: reject a zero divisor up front.
        const V* q = b.as<V>();
        if (y.numel() > 0)
          for (int64_t i = 0; i < b.numel(); ++i)
            if (q[i] == 0) return Status::Error("Div: integer division by zero (divisor B contains 0)");
        Broadcast<V, V, V>(a, b, y, [](V p, V d) { return d == -1 ? Wrap<V>(U(0) - U(p)) : static_cast<V>(p / d); });
      } else {
        Broadcast<V, V, V>(a, b, y, [](V p, V q) { return static_cast<V>(p / q); });
      }
      break;
    case BinOp::kPRelu:
      if constexpr (kInt) Broadcast<V, V, V>(a, b, y, [](V x, V s) { return x < 0 ? Wrap<V>(U(s) * U(x)) : x; });
      else Broadcast<V, V, V>(a, b, y, [](V x, V s) { return x < 0 ? static_cast<V>(s * x) : x; });
      break;
    case BinOp::kPow:
      break;
  }
  return Status::Ok();
}

/// Exact integer power with wrap-around; negative exponents truncate 1/x^|e| toward zero.
template <class I>
I IntPow(I x, int64_t e, bool& bad) {
  using U = std::make_unsigned_t<I>;
  if (e < 0) {
    if (x == 0) bad = true;
    if (x == 1) return 1;
    if (x == -1) return (e % 2) ? I(-1) : I(1);
    return 0;
  }
  U result = 1, base = static_cast<U>(x);
  for (uint64_t k = static_cast<uint64_t>(e); k; k >>= 1) {
    if (k & 1) result *= base;
    base *= base;
  }
  return Wrap<I>(result);
}

/// Pow for base type X and exponent type E (see the semantics in runtime/ops/binary.cc).
template <class X, class E>
Status PowTyped(const Tensor& a, const Tensor& b, Tensor& y) {
  if constexpr (std::is_floating_point_v<X>) {
    Broadcast<X, E, X>(a, b, y, [](X p, E q) {
      return static_cast<X>(std::pow(static_cast<double>(p), static_cast<double>(q)));
    });
    return Status::Ok();
  } else {
    bool bad = false;
    if constexpr (std::is_integral_v<E>) {
      Broadcast<X, E, X>(a, b, y, [&bad](X p, E q) { return IntPow<X>(p, static_cast<int64_t>(q), bad); });
      if (bad) return Status::Error("Pow: 0 raised to a negative integer power");
    } else {
      Broadcast<X, E, X>(a, b, y, [&bad](X p, E q) {
        const double r = std::trunc(std::pow(static_cast<double>(p), static_cast<double>(q)));
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

template <class X>
Status PowBase(const Tensor& a, const Tensor& b, Tensor& y) {
  switch (b.dtype) {
    case DType::kFloat32: return PowTyped<X, float>(a, b, y);
    case DType::kFloat64: return PowTyped<X, double>(a, b, y);
    case DType::kInt32: return PowTyped<X, int32_t>(a, b, y);
    case DType::kInt64: return PowTyped<X, int64_t>(a, b, y);
    default: return Status::Error("Pow: unsupported exponent dtype " + DTypeName(b.dtype));
  }
}

Status RunBinary(BinOp op, const Tensor& a, const Tensor& b, Tensor& y) {
  if (op == BinOp::kPow) {
    switch (a.dtype) {
      case DType::kFloat32: return PowBase<float>(a, b, y);
      case DType::kFloat64: return PowBase<double>(a, b, y);
      case DType::kInt32: return PowBase<int32_t>(a, b, y);
      case DType::kInt64: return PowBase<int64_t>(a, b, y);
      default: break;
    }
  } else {
    switch (a.dtype) {
      case DType::kFloat32: return Arith<float>(op, a, b, y);
      case DType::kFloat64: return Arith<double>(op, a, b, y);
      case DType::kInt32: return Arith<int32_t>(op, a, b, y);
      case DType::kInt64: return Arith<int64_t>(op, a, b, y);
      default: break;
    }
  }
  return Status::Error("unsupported dtype " + DTypeName(a.dtype));
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
  return KernelFn([op](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    return RunBinary(op, *in[0], *in[1], *out[0]);
  });
}

TARE_INSTANTIATE_REF(Binary)

}  // namespace tare
