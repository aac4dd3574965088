// Reference kernel of Einsum (semantics and summation order: runtime/ops/einsum.cc, which has
// validated the equation against the shapes). Each input dim gets a label id (letters 0..51 in
// ASCII order, "..." dims 52 + their right-aligned position); an input's stride for a label is
// the sum of the strides of its dims with that label (so a repeated label walks the diagonal)
// and 0 where the dim is 1 (broadcast). Per output element (row-major), acc = 0, then for the
// summed labels in row-major order: term = in0 * in1 * ... (left to right), acc = acc + term.
// float32 computes in T, float64 in double; integers wrap around (two's complement).
#include <algorithm>
#include <string>
#include <type_traits>

#include "kernels/ref/einsum_plan.h"
#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// Arithmetic type of U: itself for floats; for integers unsigned (wrap-around) and at least as
/// wide as unsigned int (so narrow types never multiply as signed int).
template <class U, bool = std::is_integral_v<U>>
struct Arith { using type = U; };
template <class U>
struct Arith<U, true> {
  using type = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, std::make_unsigned_t<U>>;
};

/// Runs the plan on element type U.
template <class U>
void Contract(const EinsumPlan& p, const std::vector<const Tensor*>& in, Tensor& yt) {
  using A = typename Arith<U>::type;
  const size_t m = in.size();
  // Loop labels: output labels then summed ones; stride of each input per loop label.
  std::vector<int> loop = p.out;
  loop.insert(loop.end(), p.summed.begin(), p.summed.end());
  const size_t nl = loop.size(), no = p.out.size();
  std::vector<std::vector<int64_t>> stride(m, std::vector<int64_t>(nl, 0));
  for (size_t i = 0; i < m; ++i) {
    const Shape& sh = in[i]->shape;
    int64_t st = 1;
    for (size_t j = sh.size(); j-- > 0;) {
      if (sh[j] != 1)
        for (size_t l = 0; l < nl; ++l)
          if (loop[l] == p.labels[i][j]) stride[i][l] += st;
      st *= sh[j];
    }
  }
  std::vector<int64_t> dims(nl);
  int64_t inner = 1;
  for (size_t l = 0; l < nl; ++l) {
    dims[l] = p.size[static_cast<size_t>(loop[l])];
    if (l >= no) inner *= dims[l];
  }
  U* y = yt.as<U>();
  const int64_t n_out = yt.numel();
  std::vector<int64_t> pos(nl, 0), off(m, 0);
  for (int64_t o = 0; o < n_out; ++o) {
    A acc = 0;
    for (int64_t s = 0; s < inner; ++s) {
      A term = static_cast<A>(in[0]->as<U>()[off[0]]);
      for (size_t i = 1; i < m; ++i) term = static_cast<A>(term * static_cast<A>(in[i]->as<U>()[off[i]]));
      acc = static_cast<A>(acc + term);
      // Advance the odometer (summed labels, then output labels once they wrap).
      for (size_t l = nl; l-- > 0;) {
        for (size_t i = 0; i < m; ++i) off[i] += stride[i][l];
        if (++pos[l] < dims[l]) break;
        for (size_t i = 0; i < m; ++i) off[i] -= stride[i][l] * dims[l];
        pos[l] = 0;
        if (l == 0) break;
      }
    }
    y[o] = static_cast<U>(acc);
    if (inner == 0) {  // nothing summed: advance the output labels alone
      for (size_t l = no; l-- > 0;) {
        for (size_t i = 0; i < m; ++i) off[i] += stride[i][l];
        if (++pos[l] < dims[l]) break;
        for (size_t i = 0; i < m; ++i) off[i] -= stride[i][l] * dims[l];
        pos[l] = 0;
      }
    }
  }
}

}  // namespace

template <class T>
Result<KernelFn> MakeEinsum(const Node& node) {
  TARE_ASSIGN_OR_RETURN(std::string eq, node.GetString("equation", ""));
  const std::string where = node.Where();
  return KernelFn([eq, where](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    std::vector<Shape> shapes;
    for (const Tensor* t : in) shapes.push_back(t->shape);
    const EinsumPlan p = MakeEinsumPlan(eq, shapes);
    Tensor& y = *out[0];
    switch (in[0]->dtype) {
      case DType::kFloat32: Contract<T>(p, in, y); break;
      case DType::kFloat64: Contract<double>(p, in, y); break;
      case DType::kInt8: Contract<int8_t>(p, in, y); break;
      case DType::kInt16: Contract<int16_t>(p, in, y); break;
      case DType::kInt32: Contract<int32_t>(p, in, y); break;
      case DType::kInt64: Contract<int64_t>(p, in, y); break;
      case DType::kUInt8: Contract<uint8_t>(p, in, y); break;
      case DType::kUInt16: Contract<uint16_t>(p, in, y); break;
      case DType::kUInt32: Contract<uint32_t>(p, in, y); break;
      case DType::kUInt64: Contract<uint64_t>(p, in, y); break;
      default: return Status::Error(where + ": unsupported dtype " + DTypeName(in[0]->dtype));
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Einsum)

}  // namespace tare
