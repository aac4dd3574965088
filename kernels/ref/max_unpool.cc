// Reference kernel of MaxUnpool (semantics: runtime/ops/max_unpool.cc). Exact: Y is zero-filled,
// then X's elements are copied, in row-major order of X, to the positions I gives (each index
// checked against numel(U); a repeated index keeps the last write). When Y is larger than the
// unpooled shape U (output_shape given), an index is decoded into U's coordinates and re-encoded
// in Y's shape.
#include <cstring>
#include <string>

#include "kernels/ref/ref_kernels.h"

namespace tare {

template <class T>
Result<KernelFn> MakeMaxUnpool(const Node& node) {
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> ks, node.GetInts("kernel_shape"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> st, node.GetInts("strides", std::vector<int64_t>(ks.size(), 1)));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> pads, node.GetInts("pads", std::vector<int64_t>(2 * ks.size(), 0)));
  const std::string where = node.Where();
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    const Tensor& ind = *in[1];
    Tensor& y = *out[0];
    const bool given = in.size() > 2 && in[2] != nullptr;
    const size_t r = x.shape.size(), n = r - 2;
    Shape u = x.shape;  // the unpooled shape (inference checked it and Y >= U)
    for (size_t i = 0; i < n; ++i)
      u[i + 2] = (x.shape[i + 2] - 1) * st[i] + ks[i] - (given ? 0 : pads[i] + pads[i + n]);
    const bool same = u == y.shape;
    int64_t nu = 1;
    for (int64_t d : u) nu *= d;
    const size_t es = DTypeSize(x.dtype);
    const int64_t nx = x.numel();
    if (y.numel() > 0) std::memset(y.data, 0, y.nbytes());  // all-zero bytes: 0 of every numeric type
    const int64_t* idx = ind.as<int64_t>();
    const char* src = static_cast<const char*>(x.data);
    char* dst = static_cast<char*>(y.data);
    for (int64_t i = 0; i < nx; ++i) {
      const int64_t j = idx[i];
      if (j < 0 || j >= nu)
        return Status::Error(where + ": index " + std::to_string(j) + " at position " + std::to_string(i) +
                             " of I is outside the " + std::to_string(nu) + " elements of the unpooled shape " + ShapeStr(u));
      int64_t t = j;
      if (!same) {  // U coordinates (row-major) -> flat offset in Y
        int64_t rem = j, stride = 1;
        t = 0;
        for (size_t d = r; d-- > 0;) {
          t += (rem % u[d]) * stride;
          rem /= u[d];
          stride *= y.shape[d];
        }
      }
      std::memcpy(dst + t * es, src + i * es, es);
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(MaxUnpool)

}  // namespace tare
