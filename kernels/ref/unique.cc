// Reference kernel of Unique (semantics: runtime/ops/unique.cc). Exact: values are only compared
// (in their storage type; float16 widened to float) and copied; the grouping is UniqueGroupSlices
// (runtime/ops/data_dependent.cc, which describes it).
#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/ref/ref_kernels.h"
#include "runtime/ops/data_dependent.h"

namespace tare {

namespace {
struct UniqueGroups {
  std::vector<int64_t> first, counts, inverse;
};
}  // namespace

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
