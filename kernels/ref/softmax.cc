// Reference kernels of Softmax and LogSoftmax (semantics: runtime/ops/softmax.cc).
// The input is viewed as [outer, K, inner] (legacy_2d: [outer, K, 1] with K the flattened trailing
// block). For each (outer, inner) slice, in T:
//   max = x_0, then max = x_k when x_k > max, k increasing;
//   d_k = x_k - max (one rounding); e_k = exp(d_k) evaluated in double, rounded once to T;
//   sum = 0 + e_0 + e_1 + ... (k increasing);
//   Softmax: y_k = e_k / sum.  LogSoftmax: y_k = d_k - ls, ls = log(sum) in double rounded once.
// Slices are processed side by side over `inner` (each slice keeps its own order).
#include <cmath>

#include "kernels/ref/ref_kernels.h"

namespace tare {

template <class T>
Result<KernelFn> MakeSoftmax(const Node& node) {
  TARE_ASSIGN_OR_RETURN(int64_t axis_attr, node.GetInt("axis", -1));
  TARE_ASSIGN_OR_RETURN(int64_t legacy, node.GetInt("legacy_2d", 0));
  const bool log = node.op == "LogSoftmax";
  return KernelFn([axis_attr, legacy, log](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Shape& sh = in[0]->shape;
    const int64_t r = static_cast<int64_t>(sh.size());
    const int64_t axis = axis_attr < 0 ? axis_attr + r : axis_attr;
    int64_t outer = 1, k = 1, inner = 1;
    for (int64_t i = 0; i < r; ++i) {
      const int64_t d = sh[static_cast<size_t>(i)];
      if (i < axis) outer *= d;
      else if (i == axis || legacy) k *= d;
      else inner *= d;
    }
    if (outer * k * inner == 0) return Status::Ok();
    const T* x = in[0]->as<T>();
    T* y = out[0]->as<T>();
    std::vector<T> mx(static_cast<size_t>(inner)), sum(static_cast<size_t>(inner));
    for (int64_t o = 0; o < outer; ++o) {
      const T* xo = x + o * k * inner;
      T* yo = y + o * k * inner;
      for (int64_t j = 0; j < inner; ++j) mx[j] = xo[j];
      for (int64_t kk = 1; kk < k; ++kk)
        for (int64_t j = 0; j < inner; ++j)
          if (xo[kk * inner + j] > mx[j]) mx[j] = xo[kk * inner + j];
      for (int64_t j = 0; j < inner; ++j) sum[j] = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        for (int64_t j = 0; j < inner; ++j) {
          const T d = xo[kk * inner + j] - mx[j];
          const T e = ViaDouble<T>([](double v) { return std::exp(v); }, d);
          sum[j] = sum[j] + e;
          if (!log) yo[kk * inner + j] = e;
        }
      if (log) {
        for (int64_t j = 0; j < inner; ++j) sum[j] = ViaDouble<T>([](double v) { return std::log(v); }, sum[j]);
        for (int64_t kk = 0; kk < k; ++kk)
          for (int64_t j = 0; j < inner; ++j) {
            const T d = xo[kk * inner + j] - mx[j];
            yo[kk * inner + j] = d - sum[j];
          }
      } else {
        for (int64_t kk = 0; kk < k; ++kk)
          for (int64_t j = 0; j < inner; ++j) yo[kk * inner + j] = yo[kk * inner + j] / sum[j];
      }
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Softmax)

}  // namespace tare
