// Reference kernel of CumSum (semantics: runtime/ops/cum_sum.cc).
// Accumulation order: along the axis in the scan direction (forward, or backward for reverse=1),
// each output is the previous output plus one element: y[first] = x[first] (exclusive: 0) and
// y[t] = y[t-1] + x[t] (exclusive: + x[t-1]), evaluated in the storage type (T for float32 data,
// double for float64, float16 sums formed in float and rounded to float16 at every step, like
// numpy; integers wrap around). Independent lines (the inner positions) are scanned together.
#include <type_traits>

#include "runtime/ir/elem.h"
#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// a + b in E's computation type, rounded to its storage type; integers wrap around.
template <class E>
typename E::S Add(typename E::S a, typename E::S b) {
  using C = typename E::C;
  if constexpr (std::is_integral_v<C>) {
    using U = WrapUnsigned<C>;
    return static_cast<typename E::S>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return E::Store(static_cast<C>(E::Load(a) + E::Load(b)));
  }
}

/// Scans x viewed as [outer, dim, inner] along dim into y (same shape).
template <class E>
void Scan(const Tensor& x, Tensor& y, size_t axis, bool exclusive, bool reverse) {
  using S = typename E::S;
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (size_t d = axis + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
  const int64_t dim = x.shape[axis];
  if (dim == 0) return;
  const int64_t step = reverse ? -inner : inner;  // from one scan position to the next
  for (int64_t o = 0; o < outer; ++o) {
    const int64_t first = o * dim * inner + (reverse ? (dim - 1) * inner : 0);
    const S* xs = x.as<S>() + first;
    S* ys = y.as<S>() + first;
    for (int64_t i = 0; i < inner; ++i) ys[i] = exclusive ? S(0) : xs[i];
    for (int64_t t = 1; t < dim; ++t) {
      const S* prev = ys + (t - 1) * step;
      const S* add = xs + (exclusive ? t - 1 : t) * step;
      S* cur = ys + t * step;
      for (int64_t i = 0; i < inner; ++i) cur[i] = Add<E>(prev[i], add[i]);
    }
  }
}

}  // namespace

template <class T>
Result<KernelFn> MakeCumSum(const Node& node) {
  TARE_ASSIGN_OR_RETURN(int64_t exclusive, node.GetInt("exclusive", 0));
  TARE_ASSIGN_OR_RETURN(int64_t reverse, node.GetInt("reverse", 0));
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    const int64_t r = static_cast<int64_t>(x.shape.size());
    const int64_t axis = ReadInt(*in[1], 0);
    if (axis < -r || axis >= r)
      return Status::Error("CumSum: axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r));
    const size_t a = static_cast<size_t>(axis < 0 ? axis + r : axis);
    const bool ok = VisitNumeric(x.dtype, [&](auto e) { Scan<decltype(e)>(x, *out[0], a, exclusive != 0, reverse != 0); });
    return ok ? Status::Ok() : Status::Error("CumSum: unsupported dtype " + DTypeName(x.dtype));
  });
}

TARE_INSTANTIATE_REF(CumSum)

}  // namespace tare
