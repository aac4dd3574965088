// Reference kernel of TopK (semantics: runtime/ops/top_k.cc). Exact: values are only compared (in
// their storage type; float16 widened to float) and copied. Each line along the axis is ordered by
// a strict total order (value order with NaN above every number, then lower index first), so the
// result does not depend on the sorting algorithm.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>

#include "runtime/ir/elem.h"
#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// Writes the top k of every line of x (viewed as [outer, dim, inner]) to vals/idx ([outer, k, inner]).
template <class E>
void TopKLines(const Tensor& x, Tensor* vals, Tensor* idx, size_t axis, int64_t k, bool largest) {
  using V = typename E::C;
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (size_t d = axis + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
  const int64_t dim = x.shape[axis];
  const typename E::S* p = x.as<typename E::S>();
  std::vector<V> line(static_cast<size_t>(dim));
  std::vector<int64_t> order(static_cast<size_t>(dim));
  auto before = [&](int64_t a, int64_t b) {
    const V va = line[a], vb = line[b];
    const bool an = IsNan(va), bn = IsNan(vb);
    if (an != bn) return largest ? an : bn;
    if (!an && va != vb) return largest ? va > vb : va < vb;
    return a < b;
  };
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const typename E::S* base = p + o * dim * inner + i;
      for (int64_t t = 0; t < dim; ++t) line[t] = E::Load(base[t * inner]);
      std::iota(order.begin(), order.end(), int64_t(0));
      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      const int64_t dst = o * k * inner + i;
      for (int64_t j = 0; j < k; ++j) {
        if (vals) vals->as<typename E::S>()[dst + j * inner] = base[order[j] * inner];
        if (idx) idx->as<int64_t>()[dst + j * inner] = order[j];
      }
    }
}

}  // namespace

template <class T>
Result<KernelFn> MakeTopK(const Node& node) {
  TARE_ASSIGN_OR_RETURN(int64_t axis, node.GetInt("axis", -1));
  TARE_ASSIGN_OR_RETURN(int64_t largest, node.GetInt("largest", 1));
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    Tensor* vals = out[0];
    Tensor* idx = out.size() > 1 ? out[1] : nullptr;
    const Tensor* shaped = vals ? vals : idx;
    if (!shaped || shaped->numel() == 0) return Status::Ok();
    const int64_t r = static_cast<int64_t>(x.shape.size());
    const size_t a = static_cast<size_t>(axis < 0 ? axis + r : axis);
    const int64_t k = shaped->shape[a];
    const bool ok = VisitNumeric(x.dtype, [&](auto e) { TopKLines<decltype(e)>(x, vals, idx, a, k, largest != 0); });
    return ok ? Status::Ok() : Status::Error("TopK: unsupported dtype " + DTypeName(x.dtype));
  });
}

TARE_INSTANTIATE_REF(TopK)

}  // namespace tare
