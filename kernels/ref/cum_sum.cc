// Reference kernel of CumSum (semantics: runtime/ops/cum_sum.cc).
// Accumulation order: along the axis in the scan direction (forward, or backward for reverse=1),
// each output is the previous output plus one element: y[first] = x[first] (exclusive: 0) and
// y[t] = y[t-1] + x[t] (exclusive: + x[t-1]), evaluated in the storage type (T for float32 data,
// double for float64, float16 sums formed in float and rounded to float16 at every step, like
// numpy; integers wrap around). Independent lines (the inner positions) are scanned together.
#include <type_traits>

#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// A numeric element type with its addition (integers wrap, no undefined overflow).
template <class S>
struct Num {
  using Store = S;
  static S Add(S a, S b) {
    if constexpr (std::is_integral_v<S>) {
      using U = std::make_unsigned_t<S>;
      return static_cast<S>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    } else {
      return static_cast<S>(a + b);
    }
  }
};
/// float16: added in float, rounded to float16.
struct Half {
  using Store = uint16_t;
  static uint16_t Add(uint16_t a, uint16_t b) { return FloatToHalf(HalfToFloat(a) + HalfToFloat(b)); }
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

/// Scans x viewed as [outer, dim, inner] along dim into y (same shape).
template <class E>
void Scan(const Tensor& x, Tensor& y, size_t axis, bool exclusive, bool reverse) {
  using S = typename E::Store;
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
      for (int64_t i = 0; i < inner; ++i) cur[i] = E::Add(prev[i], add[i]);
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
    return ForNumeric(x.dtype, [&](auto e) {
      Scan<decltype(e)>(x, *out[0], static_cast<size_t>(axis < 0 ? axis + r : axis), exclusive != 0, reverse != 0);
      return Status::Ok();
    });
  });
}

TARE_INSTANTIATE_REF(CumSum)

}  // namespace tare
