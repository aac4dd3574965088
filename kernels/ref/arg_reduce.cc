// Reference kernels of ArgMax and ArgMin (semantics: runtime/ops/arg_reduce.cc). Exact: values are
// only compared, in their storage type (float16 widened to float, which is exact). Scan order:
// along the axis from index 0 up; a candidate replaces the current best when it is strictly
// better, or equal and select_last_index=1.
#include <cmath>
#include <type_traits>

#include "runtime/ir/elem.h"
#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

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
  const typename E::S* p = x.as<typename E::S>();
  int64_t* out = y.as<int64_t>();
  std::vector<typename E::C> best(static_cast<size_t>(inner));
  for (int64_t o = 0; o < outer; ++o) {
    const typename E::S* base = p + o * dim * inner;
    int64_t* yo = out + o * inner;
    for (int64_t i = 0; i < inner; ++i) {
      best[i] = E::Load(base[i]);
      yo[i] = 0;
    }
    for (int64_t t = 1; t < dim; ++t)
      for (int64_t i = 0; i < inner; ++i) {
        const typename E::C v = E::Load(base[t * inner + i]);
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
    const bool ok = VisitNumeric(x.dtype, [&](auto e) {
      using E = decltype(e);
      if (is_max) ArgScan<true, E>(x, *out[0], a, last != 0);
      else ArgScan<false, E>(x, *out[0], a, last != 0);
    });
    return ok ? Status::Ok() : Status::Error("ArgMax/ArgMin: unsupported dtype " + DTypeName(x.dtype));
  });
}

TARE_INSTANTIATE_REF(ArgReduce)

}  // namespace tare
