// Reference kernels of Softmax, LogSoftmax and Hardmax (semantics: runtime/ops/softmax.cc).
// The input is viewed as [outer, K, inner] (legacy_2d: [outer, K, 1] with K the flattened trailing
// block). For each (outer, inner) slice, in T:
//   max = x_0, then max = x_k when x_k > max, k increasing;
//   d_k = x_k - max (one rounding); e_k = exp(d_k) evaluated in double, rounded once to T;
//   sum = 0 + e_0 + e_1 + ... (k increasing);
//   Softmax: y_k = e_k / sum.  LogSoftmax: y_k = d_k - ls, ls = log(sum) in double rounded once.
// Slices are processed side by side over `inner` (each slice keeps its own order).
// Hardmax: best = 0; for k = 1.. : best = k when x_best is not NaN and (x_k > x_best or x_k is NaN);
// y = 1 at best, 0 elsewhere (exact; float16 compares the decoded values).
#include <cmath>
#include <cstring>

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/softmax_block.h"

namespace tare {
namespace {

/// The [outer, K, inner] view of a shape for `axis` (see the file comment).
void Split(const Shape& sh, int64_t axis_attr, bool legacy, int64_t* outer, int64_t* k, int64_t* inner) {
  const int64_t r = static_cast<int64_t>(sh.size());
  const int64_t axis = axis_attr < 0 ? axis_attr + r : axis_attr;
  *outer = *k = *inner = 1;
  for (int64_t i = 0; i < r; ++i) {
    const int64_t d = sh[static_cast<size_t>(i)];
    if (i < axis) *outer *= d;
    else if (i == axis || legacy) *k *= d;
    else *inner *= d;
  }
}

/// Hardmax of x into y (both [outer, k, inner] of U); `get` decodes an element, `one` is 1 in U.
template <class U, class Get>
void Hardmax(const U* x, U* y, int64_t outer, int64_t k, int64_t inner, U one, Get get) {
  std::memset(static_cast<void*>(y), 0, static_cast<size_t>(outer * k * inner) * sizeof(U));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      const int64_t base = o * k * inner + j;
      int64_t best = 0;
      double bv = get(x[base]);
      for (int64_t kk = 1; kk < k && !std::isnan(bv); ++kk) {
        const double v = get(x[base + kk * inner]);
        if (v > bv || std::isnan(v)) { best = kk; bv = v; }
      }
      y[base + best * inner] = one;
    }
}

}  // namespace

template <class T>
Result<KernelFn> MakeSoftmax(const Node& node) {
  TARE_ASSIGN_OR_RETURN(int64_t axis_attr, node.GetInt("axis", -1));
  TARE_ASSIGN_OR_RETURN(int64_t legacy, node.GetInt("legacy_2d", 0));
  if (node.op == "Hardmax")
    return KernelFn([axis_attr, legacy](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      int64_t outer, k, inner;
      Split(in[0]->shape, axis_attr, legacy != 0, &outer, &k, &inner);
      if (outer * k * inner == 0) return Status::Ok();
      switch (in[0]->dtype) {
        case DType::kFloat32:
          Hardmax<T>(in[0]->as<T>(), out[0]->as<T>(), outer, k, inner, T(1), [](T v) { return double(v); });
          break;
        case DType::kFloat64:
          Hardmax<double>(in[0]->as<double>(), out[0]->as<double>(), outer, k, inner, 1.0, [](double v) { return v; });
          break;
        case DType::kFloat16:
          Hardmax<uint16_t>(in[0]->as<uint16_t>(), out[0]->as<uint16_t>(), outer, k, inner, uint16_t{0x3c00},
                            [](uint16_t v) { return double(HalfToFloat(v)); });
          break;
        default: return Status::Error("Hardmax: unsupported dtype " + DTypeName(in[0]->dtype));
      }
      return Status::Ok();
    });
  const bool log = node.op == "LogSoftmax";
  return KernelFn([axis_attr, legacy, log](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    int64_t outer, k, inner;
    Split(in[0]->shape, axis_attr, legacy != 0, &outer, &k, &inner);
    if (outer * k * inner == 0) return Status::Ok();
    const T* x = in[0]->as<T>();
    T* y = out[0]->as<T>();
    SoftmaxBlock<T>(x, y, outer, k, inner, log);
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Softmax)

}  // namespace tare
