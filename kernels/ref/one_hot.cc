// Reference kernel of OneHot (semantics: runtime/ops/one_hot.cc). Pure data movement (exact, any
// values dtype): y, viewed as [outer, depth, inner] (outer = product of the index dims before
// `axis`), is filled with the off value, then the on value is written at each valid index.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// Element i of an index tensor as an integer; false when it is not one (NaN, too large).
bool IndexAt(const Tensor& t, int64_t i, int64_t* v) {
  if (DTypeIsFloat(t.dtype)) {
    const double d = std::trunc(ReadDouble(t, i));
    if (!(d >= -9.2e18 && d <= 9.2e18)) return false;
    *v = static_cast<int64_t>(d);
    return true;
  }
  if (t.dtype == DType::kUInt64 && t.as<uint64_t>()[i] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return false;
  *v = ReadInt(t, i);
  return true;
}

}  // namespace

template <class T>
Result<KernelFn> MakeOneHot(const Node& node) {
  TARE_ASSIGN_OR_RETURN(int64_t axis_attr, node.GetInt("axis", -1));
  return KernelFn([axis_attr](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& ind = *in[0];
    const Tensor& vals = *in[2];
    Tensor& y = *out[0];
    const int64_t n = y.numel();
    if (n == 0) return Status::Ok();
    const int64_t r = static_cast<int64_t>(ind.shape.size());
    const size_t axis = static_cast<size_t>(axis_attr < 0 ? axis_attr + r + 1 : axis_attr);
    const int64_t depth = y.shape[axis];
    int64_t inner = 1;
    for (size_t d = axis; d < ind.shape.size(); ++d) inner *= ind.shape[d];
    const size_t es = DTypeSize(vals.dtype);
    const char* off = static_cast<const char*>(vals.data);
    const char* on = off + es;
    char* dst = static_cast<char*>(y.data);
    // Fill with `off`: one element, then doubling copies of what is already written.
    std::memcpy(dst, off, es);
    for (int64_t done = 1; done < n;) {
      const int64_t c = std::min(done, n - done);
      std::memcpy(dst + done * es, dst, static_cast<size_t>(c) * es);
      done += c;
    }
    const int64_t count = ind.numel();
    for (int64_t p = 0; p < count; ++p) {
      int64_t j = 0;
      if (!IndexAt(ind, p, &j) || j < -depth || j >= depth) continue;
      if (j < 0) j += depth;
      const int64_t o = p / inner, i = p % inner;
      std::memcpy(dst + ((o * depth + j) * inner + i) * static_cast<int64_t>(es), on, es);
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(OneHot)

}  // namespace tare
