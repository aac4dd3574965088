// Reference kernels of GatherND and GatherElements (semantics: runtime/ops/gather_nd.cc). Pure
// data movement (exact, any dtype). Every index is checked before it is used; an out-of-range
// index is a run-time error naming its value and position.
#include <cstring>

#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

using Ins = std::vector<const Tensor*>;
using Outs = std::vector<Tensor*>;

/// Index p of an int32/int64 tensor checked against an axis of size dim; negative counts from the end.
Result<int64_t> Index(const Tensor& ind, int64_t p, int64_t dim, const char* op) {
  const int64_t v = ind.dtype == DType::kInt32 ? ind.as<int32_t>()[p] : ind.as<int64_t>()[p];
  if (v < -dim || v >= dim)
    return Status::Error(std::string(op) + ": index " + std::to_string(v) + " (position " + std::to_string(p) +
                         " of indices) is out of range [" + std::to_string(-dim) + ", " + std::to_string(dim - 1) + "]");
  return v < 0 ? v + dim : v;
}

/// Product of dims [from, to) of s.
int64_t Prod(const Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t d = from; d < to; ++d) p *= s[d];
  return p;
}

/// GatherND: for each batch and each index tuple, one contiguous slice of data is copied.
Status GatherND(const Tensor& data, const Tensor& ind, Tensor& y, int64_t b) {
  const size_t r = data.shape.size(), q = ind.shape.size();
  const size_t bd = static_cast<size_t>(b);
  const int64_t m = ind.shape[q - 1];
  const int64_t batches = Prod(data.shape, 0, bd), tuples = Prod(ind.shape, bd, q - 1);
  const int64_t per_batch = Prod(data.shape, bd, r), slice = Prod(data.shape, bd + m, r);
  const int64_t es = static_cast<int64_t>(DTypeSize(data.dtype));
  const char* src = static_cast<const char*>(data.data);
  char* dst = static_cast<char*>(y.data);
  for (int64_t n = 0; n < batches; ++n)
    for (int64_t t = 0; t < tuples; ++t) {
      const int64_t tuple = n * tuples + t;
      int64_t off = 0;
      for (int64_t j = 0; j < m; ++j) {
        TARE_ASSIGN_OR_RETURN(int64_t v, Index(ind, tuple * m + j, data.shape[bd + j], "GatherND"));
        off = off * data.shape[bd + j] + v;
      }
      off = n * per_batch + off * slice;
      if (slice) std::memcpy(dst + tuple * slice * es, src + off * es, static_cast<size_t>(slice * es));
    }
  return Status::Ok();
}

/// GatherElements: y[p] = data[p with p[axis] = indices[p]], p in row-major order of indices.
Status GatherElements(const Tensor& data, const Tensor& ind, Tensor& y, size_t axis) {
  const size_t r = data.shape.size();
  const int64_t n = ind.numel();
  const size_t es = DTypeSize(data.dtype);
  std::vector<int64_t> stride(r, 1), coord(r, 0);
  for (size_t d = r - 1; d > 0; --d) stride[d - 1] = stride[d] * data.shape[d];
  const char* src = static_cast<const char*>(data.data);
  char* dst = static_cast<char*>(y.data);
  for (int64_t p = 0; p < n; ++p) {
    TARE_ASSIGN_OR_RETURN(int64_t v, Index(ind, p, data.shape[axis], "GatherElements"));
    int64_t off = 0;
    for (size_t d = 0; d < r; ++d) off += (d == axis ? v : coord[d]) * stride[d];
    std::memcpy(dst + p * static_cast<int64_t>(es), src + off * static_cast<int64_t>(es), es);
    for (size_t d = r; d-- > 0;) {  // advance the row-major coordinate of indices
      if (++coord[d] < ind.shape[d]) break;
      coord[d] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace

template <class T>
Result<KernelFn> MakeGatherNd(const Node& node) {
  if (node.op == "GatherND") {
    TARE_ASSIGN_OR_RETURN(int64_t b, node.GetInt("batch_dims", 0));
    return KernelFn([b](const Ins& in, const Outs& out) { return GatherND(*in[0], *in[1], *out[0], b); });
  }
  TARE_ASSIGN_OR_RETURN(int64_t axis, node.GetInt("axis", 0));
  return KernelFn([axis](const Ins& in, const Outs& out) {
    const int64_t r = static_cast<int64_t>(in[0]->shape.size());
    return GatherElements(*in[0], *in[1], *out[0], static_cast<size_t>(axis < 0 ? axis + r : axis));
  });
}

TARE_INSTANTIATE_REF(GatherNd)

}  // namespace tare
