// Reference kernels of ArgMax and ArgMin (semantics: runtime/ops/arg_reduce.cc). Exact: values are
// only compared, in their storage type (float16 widened to float, which is exact). Scan order:
// along the axis from index 0 up; a candidate replaces the current best when it is strictly
// better, or equal and select_last_index=1.
#include <cmath>
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

/// True when v should replace best: NaN beats numbers; ties go to v only when `last`.
template <bool kMax, class V>
bool Better(V v, V best, bool last) {
  const bool vn = IsNan(v), bn = IsNan(best);
  if (vn || bn) return vn && (!bn || last);
  if (v == best) return last;
  return kMax ? v > best : v < best;
}

/// Scans x viewed as [outer, dim, inner] along dim; y is [outer, inner].
template <bool kMax, class E>
void ArgScan(const Tensor& x, Tensor& y, size_t axis, bool last) {
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (size_t d = axis + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
  const int64_t dim = x.shape[axis];
  const typename E::Store* p = x.as<typename E::Store>();
  int64_t* out = y.as<int64_t>();
  std::vector<typename E::Val> best(static_cast<size_t>(inner));
  for (int64_t o = 0; o < outer; ++o) {
    const typename E::Store* base = p + o * dim * inner;
    int64_t* yo = out + o * inner;
    for (int64_t i = 0; i < inner; ++i) {
      best[i] = E::Get(base[i]);
      yo[i] = 0;
    }
    for (int64_t t = 1; t < dim; ++t)
      for (int64_t i = 0; i < inner; ++i) {
        const typename E::Val v = E::Get(base[t * inner + i]);
        if (Better<kMax>(v, best[i], last)) {
          best[i] = v;
          yo[i] = t;
        }
      }
  }
}

}  // namespace

template <class T>
Result<KernelFn> MakeArgReduce(const Node& node) {
  TARE_ASSIGN_OR_RETURN(int64_t axis, node.GetInt("axis", 0));
  TARE_ASSIGN_OR_RETURN(int64_t last, node.GetInt("select_last_index", 0));
  const bool is_max = node.op == "ArgMax";
  if (!is_max && node.op != "ArgMin") return Status::Error(node.Where() + ": not an ArgMax/ArgMin op");
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    const int64_t r = static_cast<int64_t>(x.shape.size());
    const size_t a = static_cast<size_t>(axis < 0 ? axis + r : axis);
    if (out[0]->numel() == 0) return Status::Ok();
    return ForNumeric(x.dtype, [&](auto e) {
      using E = decltype(e);
      if (is_max) ArgScan<true, E>(x, *out[0], a, last != 0);
      else ArgScan<false, E>(x, *out[0], a, last != 0);
      return Status::Ok();
    });
  });
}

TARE_INSTANTIATE_REF(ArgReduce)

}  // namespace tare
