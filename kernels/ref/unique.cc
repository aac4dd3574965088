// Reference kernel of Unique (semantics: runtime/ops/unique.cc). Exact: values are only compared
// (in their storage type; float16 widened to float) and copied.
// X is viewed as [outer, dim, inner] (no axis: [1, numel, 1]); slice j is the elements x[o, j, i]
// read o-major, i-minor (numpy's moveaxis + reshape). The slice numbers 0..dim-1 are sorted
// stably by the lexicographic order of their slices (NaN above every number and equal to every
// NaN; -0 equals +0), and runs of equal slices form the unique groups. Each group's first slice
// (smallest j) is its representative. sorted=1 lists groups in that order, sorted=0 by the
// position of their first slice.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/ref/elem.h"
#include "kernels/ref/data_dependent.h"
#include "kernels/ref/ref_kernels.h"

namespace tare {

namespace {
struct UniqueGroups {
  std::vector<int64_t> first, counts, inverse;
};
}  // namespace

/// The grouping of Unique: groups the slices of x along `axis` (-1: the flattened x) and gives,
/// for each unique slice in output order, its first slice number (`first`) and its count; and for
/// each slice number, the output position of its group (`inverse`). False if x's dtype is not
/// numeric. Also called by the shape inference (runtime/ops/unique.cc), which needs the number of
/// groups, through kernels/ref/data_dependent.h.
bool UniqueGroupSlices(const Tensor& x, int64_t axis, bool sorted, std::vector<int64_t>* first_out,
                       std::vector<int64_t>* counts_out, std::vector<int64_t>* inverse_out) {
  int64_t outer = 1, dim = x.numel(), inner = 1;
  if (axis >= 0) {
    dim = x.shape[static_cast<size_t>(axis)];
    for (int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
    for (size_t d = static_cast<size_t>(axis) + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
  }
  std::vector<int64_t> order(static_cast<size_t>(dim));
  std::iota(order.begin(), order.end(), int64_t(0));
  std::vector<char> same_as_prev(static_cast<size_t>(dim), 0);
  const bool ok = VisitNumeric(x.dtype, [&](auto e) {
    using E = decltype(e);
    using V = typename E::C;
    const typename E::S* p = x.template as<typename E::S>();
    // -1, 0, 1 comparison of two values: NaN above all numbers, NaNs equal.
    auto cmp = [](V a, V b) -> int {
      const bool an = IsNan(a), bn = IsNan(b);
      if (an || bn) return an == bn ? 0 : (an ? 1 : -1);
      return a < b ? -1 : (b < a ? 1 : 0);
    };
    auto cmp_slices = [&](int64_t a, int64_t b) -> int {
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          const int c = cmp(E::Load(p[(o * dim + a) * inner + i]), E::Load(p[(o * dim + b) * inner + i]));
          if (c != 0) return c;
        }
      return 0;
    };
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return cmp_slices(a, b) < 0; });
    for (int64_t t = 1; t < dim; ++t) same_as_prev[t] = cmp_slices(order[t - 1], order[t]) == 0;
  });
  if (!ok) return false;
  // Groups in sorted order: the first member of each run is its smallest slice number (stable sort).
  std::vector<int64_t> group_of(static_cast<size_t>(dim));
  std::vector<int64_t> first, counts;
  for (int64_t t = 0; t < dim; ++t) {
    if (t == 0 || !same_as_prev[t]) {
      first.push_back(order[t]);
      counts.push_back(0);
    }
    counts.back() += 1;
    group_of[order[t]] = static_cast<int64_t>(first.size()) - 1;
  }
  const size_t u = first.size();
  std::vector<int64_t> pos(u);  // output position of each sorted group
  std::iota(pos.begin(), pos.end(), int64_t(0));
  if (!sorted) {
    std::vector<int64_t> by_first(u);
    std::iota(by_first.begin(), by_first.end(), int64_t(0));
    std::sort(by_first.begin(), by_first.end(), [&](int64_t a, int64_t b) { return first[a] < first[b]; });
    for (size_t q = 0; q < u; ++q) pos[by_first[q]] = static_cast<int64_t>(q);
  }
  first_out->assign(u, 0);
  counts_out->assign(u, 0);
  for (size_t q = 0; q < u; ++q) {
    (*first_out)[pos[q]] = first[q];
    (*counts_out)[pos[q]] = counts[q];
  }
  inverse_out->resize(static_cast<size_t>(dim));
  for (int64_t j = 0; j < dim; ++j) (*inverse_out)[j] = pos[group_of[j]];
  return true;
}

template <class T>
Result<KernelFn> MakeUnique(const Node& node) {
  TARE_ASSIGN_OR_RETURN(int64_t sorted, node.GetInt("sorted", 1));
  const bool has_axis = node.has("axis");
  TARE_ASSIGN_OR_RETURN(int64_t axis_attr, node.GetInt("axis", 0));
  const std::string where = node.Where();
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    const int64_t r = static_cast<int64_t>(x.shape.size());
    const int64_t axis = has_axis ? (axis_attr < 0 ? axis_attr + r : axis_attr) : -1;
    UniqueGroups g;
    if (!UniqueGroupSlices(x, axis, sorted != 0, &g.first, &g.counts, &g.inverse)) return Status::Error(where + ": unsupported dtype " + DTypeName(x.dtype));
    const int64_t u = static_cast<int64_t>(g.first.size());
    auto planned = [&](size_t i, int64_t n) { return out.size() <= i || !out[i] || out[i]->shape.back() == n; };
    const bool y_ok = out.empty() || !out[0] || (axis < 0 ? out[0]->shape[0] == u : out[0]->shape[axis] == u);
    if (!y_ok || !planned(1, u) || !planned(3, u))
      return Status::Error(where + ": X has " + std::to_string(u) + " unique slices, a different number was planned");
    if (!out.empty() && out[0]) {
      int64_t outer = 1, dim = x.numel(), inner = 1;
      if (axis >= 0) {
        dim = x.shape[axis];
        for (int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
        for (int64_t d = axis + 1; d < r; ++d) inner *= x.shape[d];
      }
      const size_t row = DTypeSize(x.dtype) * static_cast<size_t>(inner);
      const char* src = static_cast<const char*>(x.data);
      char* dst = static_cast<char*>(out[0]->data);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t q = 0; q < u; ++q)
          if (row) std::memcpy(dst + (o * u + q) * row, src + (o * dim + g.first[q]) * row, row);
    }
    auto put = [&](size_t i, const std::vector<int64_t>& v) {
      if (out.size() > i && out[i] && !v.empty()) std::memcpy(out[i]->data, v.data(), v.size() * sizeof(int64_t));
    };
    put(1, g.first);
    put(2, g.inverse);
    put(3, g.counts);
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Unique)

}  // namespace tare
