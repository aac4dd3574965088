// Reference kernels of Scatter, ScatterElements and ScatterND (semantics: runtime/ops/scatter.cc).
// y starts as a copy of data; updates are then applied one by one in row-major order of indices
// (ScatterND: slice by slice). Each reduction combines old value and update once, in the storage
// type (T for float32 data, double for float64; float16 in float, rounded back to float16;
// integers wrap around): add y + u, mul y * u, max/min (NaN wins). "none" copies bytes: exact.
// Every index is checked before use; an out-of-range index is a run-time error naming its value.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "runtime/ir/elem.h"
#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// The reduction attribute.
enum class Red { kNone, kAdd, kMul, kMax, kMin };

/// Combines the old value a with the update b under reduction R (add, mul, max or min).
template <Red R, class V>
V Op(V a, V b) {
  if constexpr (R == Red::kAdd || R == Red::kMul) {
    if constexpr (std::is_integral_v<V>) {  // wrap around, without signed overflow
      using U = WrapUnsigned<V>;
      const U x = static_cast<U>(a), y = static_cast<U>(b);
      return static_cast<V>(R == Red::kAdd ? static_cast<U>(x + y) : static_cast<U>(x * y));
    } else {
      return R == Red::kAdd ? static_cast<V>(a + b) : static_cast<V>(a * b);
    }
  } else {
    if constexpr (std::is_floating_point_v<V>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return R == Red::kMax ? (b > a ? b : a) : (b < a ? b : a);
  }
}

/// y[i] = Op(y[i], u[i]) for n elements of element type E.
template <class E, Red R>
void Combine(char* y, const char* u, int64_t n) {
  auto* yp = reinterpret_cast<typename E::S*>(y);
  auto* up = reinterpret_cast<const typename E::S*>(u);
  for (int64_t i = 0; i < n; ++i) yp[i] = E::Store(Op<R>(E::Load(yp[i]), E::Load(up[i])));
}

/// Combines n update elements into n elements of y (pointers to their first bytes).
using Applier = void (*)(char*, const char*, int64_t);

/// Combine<E, R> for the element type of dtype t; nullptr for non-numeric dtypes.
template <Red R>
Applier ForType(DType t) {
  Applier f = nullptr;
  VisitNumeric(t, [&](auto e) { f = &Combine<decltype(e), R>; });
  return f;
}

/// The combining function of reduction `red` for dtype t; nullptr for "none" (plain copy).
Result<Applier> ApplierFor(Red red, DType t) {
  Applier f = nullptr;
  switch (red) {
    case Red::kNone: return f;
    case Red::kAdd: f = ForType<Red::kAdd>(t); break;
    case Red::kMul: f = ForType<Red::kMul>(t); break;
    case Red::kMax: f = ForType<Red::kMax>(t); break;
    case Red::kMin: f = ForType<Red::kMin>(t); break;
  }
  if (!f) return Status::Error("reduction is not supported for dtype " + DTypeName(t));
  return f;
}

/// Index p of an int32/int64 tensor checked against an axis of size dim; negative counts from the end.
Result<int64_t> Index(const Tensor& ind, int64_t p, int64_t dim, const std::string& op) {
  const int64_t v = ind.dtype == DType::kInt32 ? ind.as<int32_t>()[p] : ind.as<int64_t>()[p];
  if (v < -dim || v >= dim)
    return Status::Error(op + ": index " + std::to_string(v) + " (position " + std::to_string(p) +
                         " of indices) is out of range [" + std::to_string(-dim) + ", " + std::to_string(dim - 1) + "]");
  return v < 0 ? v + dim : v;
}

/// Writes or combines n elements of updates at element offset `src` into y at element offset `dst`.
void Put(Tensor& y, const Tensor& upd, int64_t dst, int64_t src, int64_t n, Applier f) {
  const int64_t es = static_cast<int64_t>(DTypeSize(y.dtype));
  char* yp = static_cast<char*>(y.data) + dst * es;
  const char* up = static_cast<const char*>(upd.data) + src * es;
  if (f) f(yp, up, n);
  else std::memcpy(yp, up, static_cast<size_t>(n * es));
}

/// ScatterElements/Scatter: update p of `upd` goes to y[p with p[axis] = indices[p]].
Status ScatterElements(const Tensor& ind, const Tensor& upd, Tensor& y, size_t axis, Applier f, const std::string& op) {
  const size_t r = y.shape.size();
  std::vector<int64_t> stride(r, 1), coord(r, 0);
  for (size_t d = r - 1; d > 0; --d) stride[d - 1] = stride[d] * y.shape[d];
  for (int64_t p = 0, n = ind.numel(); p < n; ++p) {
    TARE_ASSIGN_OR_RETURN(int64_t v, Index(ind, p, y.shape[axis], op));
    int64_t off = 0;
    for (size_t d = 0; d < r; ++d) off += (d == axis ? v : coord[d]) * stride[d];
    Put(y, upd, off, p, 1, f);
    for (size_t d = r; d-- > 0;) {  // advance the row-major coordinate of indices
      if (++coord[d] < ind.shape[d]) break;
      coord[d] = 0;
    }
  }
  return Status::Ok();
}

/// ScatterND: each k-tuple of indices selects a slice of y that receives one slice of `upd`.
Status ScatterND(const Tensor& ind, const Tensor& upd, Tensor& y, Applier f) {
  const int64_t k = ind.shape.back();
  int64_t slice = 1;
  for (size_t d = static_cast<size_t>(k); d < y.shape.size(); ++d) slice *= y.shape[d];
  const int64_t tuples = k == 0 ? 0 : ind.numel() / k;
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t off = 0;
    for (int64_t j = 0; j < k; ++j) {
      TARE_ASSIGN_OR_RETURN(int64_t v, Index(ind, t * k + j, y.shape[j], "ScatterND"));
      off = off * y.shape[j] + v;
    }
    if (slice) Put(y, upd, off * slice, t * slice, slice, f);
  }
  return Status::Ok();
}

}  // namespace

template <class T>
Result<KernelFn> MakeScatter(const Node& node) {
  TARE_ASSIGN_OR_RETURN(std::string rs, node.GetString("reduction", "none"));
  TARE_ASSIGN_OR_RETURN(int64_t axis, node.GetInt("axis", 0));
  const Red red = rs == "add" ? Red::kAdd : rs == "mul" ? Red::kMul : rs == "max" ? Red::kMax : rs == "min" ? Red::kMin : Red::kNone;
  if (red == Red::kNone && rs != "none") return Status::Error(node.Where() + ": unknown reduction '" + rs + "'");
  const bool nd = node.op == "ScatterND";
  const std::string op = node.op;
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& data = *in[0];
    Tensor& y = *out[0];
    if (y.nbytes()) std::memcpy(y.data, data.data, y.nbytes());
    TARE_ASSIGN_OR_RETURN(Applier f, ApplierFor(red, y.dtype));
    if (nd) return ScatterND(*in[1], *in[2], y, f);
    const int64_t r = static_cast<int64_t>(y.shape.size());
    return ScatterElements(*in[1], *in[2], y, static_cast<size_t>(axis < 0 ? axis + r : axis), f, op);
  });
}

TARE_INSTANTIATE_REF(Scatter)

}  // namespace tare
