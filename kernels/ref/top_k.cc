// Reference kernel of TopK (semantics: runtime/ops/top_k.cc). Exact: values are only compared (in
// their storage type; float16 widened to float) and copied. Each line along the axis is ordered by
// a strict total order (value order with NaN above every number, then lower index first), so the
// result does not depend on the sorting algorithm.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>

#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// A numeric element type: storage S, compared as S.
template <class S>
struct Num {
  using Store = S;
  using Val = S;
  static Val Get(S s) { return s; }
};
/// float16: raw bits, compared as float.
struct Half {
  using Store = uint16_t;
  using Val = float;
  static Val Get(uint16_t s) { return HalfToFloat(s); }
};

/// Calls f(Elem{}) with the element descriptor of dtype t (numeric types only).
template <class F>
Status ForNumeric(DType t, F&& f) {
  switch (t) {
    case DType::kFloat32: return f(Num<float>{});
    case DType::kFloat64: return f(Num<double>{});
    case DType::kFloat16: return f(Half{});
    case DType::kInt8: return f(Num<int8_t>{});
    case DType::kInt16: return f(Num<int16_t>{});
    case DType::kInt32: return f(Num<int32_t>{});
    case DType::kInt64: return f(Num<int64_t>{});
    case DType::kUInt8: return f(Num<uint8_t>{});
    case DType::kUInt16: return f(Num<uint16_t>{});
    case DType::kUInt32: return f(Num<uint32_t>{});
    case DType::kUInt64: return f(Num<uint64_t>{});
    default: return Status::Error("unsupported dtype " + DTypeName(t));
  }
}

template <class V>
bool IsNan(V v) {
  if constexpr (std::is_floating_point_v<V>) return std::isnan(v);
  else return false;
}

/// Writes the top k of every line of x (viewed as [outer, dim, inner]) to vals/idx ([outer, k, inner]).
template <class E>
void TopKLines(const Tensor& x, Tensor* vals, Tensor* idx, size_t axis, int64_t k, bool largest) {
  using V = typename E::Val;
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (size_t d = axis + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
  const int64_t dim = x.shape[axis];
  const typename E::Store* p = x.as<typename E::Store>();
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
      const typename E::Store* base = p + o * dim * inner + i;
      for (int64_t t = 0; t < dim; ++t) line[t] = E::Get(base[t * inner]);
      std::iota(order.begin(), order.end(), int64_t(0));
      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      const int64_t dst = o * k * inner + i;
      for (int64_t j = 0; j < k; ++j) {
        if (vals) vals->as<typename E::Store>()[dst + j * inner] = base[order[j] * inner];
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
    return ForNumeric(x.dtype, [&](auto e) {
      TopKLines<decltype(e)>(x, vals, idx, a, k, largest != 0);
      return Status::Ok();
    });
  });
}

TARE_INSTANTIATE_REF(TopK)

}  // namespace tare
