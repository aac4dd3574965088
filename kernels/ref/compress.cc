// Reference kernel of Compress (semantics: runtime/ops/compress.cc). Pure data movement (exact, any
// dtype): x is viewed as [outer, dim, inner] (flattened: [1, numel, 1]) and each kept slice of
// `inner` elements is copied in order.
#include <algorithm>
#include <cstring>

#include "kernels/ref/ref_kernels.h"

namespace tare {

template <class T>
Result<KernelFn> MakeCompress(const Node& node) {
  const bool has_axis = node.has("axis");
  TARE_ASSIGN_OR_RETURN(int64_t axis_attr, node.GetInt("axis", 0));
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    const Tensor& cond = *in[1];
    Tensor& y = *out[0];
    int64_t outer = 1, dim = x.numel(), inner = 1;
    size_t axis = 0;
    if (has_axis) {
      const int64_t r = static_cast<int64_t>(x.shape.size());
      axis = static_cast<size_t>(axis_attr < 0 ? axis_attr + r : axis_attr);
      dim = x.shape[axis];
      for (size_t d = 0; d < axis; ++d) outer *= x.shape[d];
      for (size_t d = axis + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
    }
    const bool* c = cond.as<bool>();
    const int64_t len = std::min(cond.numel(), dim);
    int64_t count = 0;
    for (int64_t j = 0; j < len; ++j) count += c[j];
    const int64_t planned = has_axis ? y.shape[axis] : y.shape[0];
    if (count != planned)
      return Status::Error("Compress: condition selects " + std::to_string(count) + " entries, " + std::to_string(planned) +
                           " were planned");
    const size_t block = static_cast<size_t>(inner) * DTypeSize(x.dtype);
    if (block == 0) return Status::Ok();
    const char* src = static_cast<const char*>(x.data);
    char* dst = static_cast<char*>(y.data);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < len; ++j)
        if (c[j]) {
          std::memcpy(dst, src + (o * dim + j) * static_cast<int64_t>(block), block);
          dst += block;
        }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Compress)

}  // namespace tare
