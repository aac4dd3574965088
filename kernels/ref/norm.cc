// Reference kernels of BatchNormalization, InstanceNormalization, LayerNormalization (semantics:
// runtime/ops/norm.cc). Every operation below is one rounding in T, in the order written:
//   BatchNormalization, per channel c: den = sqrt(var[c] + eps); per element:
//     y = (((x - mean[c]) / den) * scale[c]) + B[c].
//   InstanceNormalization, per (n, c) over its K spatial elements:
//     mean = (0 + x0 + x1 + ... ) / K; var = (0 + (x0 - mean)^2 + ...) / K (index order);
//     den = sqrt(var + eps); y = (((x - mean) / den) * scale[c]) + B[c].
//   LayerNormalization, per normalized block of K elements: mean and var as above;
//     inv = 1 / sqrt(var + eps) (sqrt rounded, then the division); y = (((x - mean) * inv) *
//     scale[k]) + B[k] (no B: the addition is skipped). Outputs Mean = mean, InvStdDev = inv.
// sqrt is correctly rounded in T (the same value as sqrt in double rounded once).
#include <cmath>

#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// Two-pass mean and population variance of x[0..n), sums in index order (NaN when n == 0).
template <class T>
void MeanVar(const T* x, int64_t n, T* mean, T* var) {
  T acc = 0;
  for (int64_t i = 0; i < n; ++i) acc = acc + x[i];
  const T m = acc / static_cast<T>(n);
  T acc2 = 0;
  for (int64_t i = 0; i < n; ++i) {
    const T d = x[i] - m;
    acc2 = acc2 + d * d;
  }
  *mean = m;
  *var = acc2 / static_cast<T>(n);
}

/// Expands a Scale/B tensor (broadcastable to the normalized dims `dims`) to one value per
/// element of the normalized block, in row-major order.
template <class T>
std::vector<T> ExpandToBlock(const Tensor& s, const Shape& dims) {
  int64_t k = 1;
  for (int64_t d : dims) k *= d;
  // Stride of s along each normalized dim (0 where s broadcasts or lacks the dim).
  std::vector<int64_t> stride(dims.size(), 0);
  int64_t st = 1;
  for (size_t j = 0; j < s.shape.size() && j < dims.size(); ++j) {
    const size_t sd = s.shape.size() - 1 - j, xd = dims.size() - 1 - j;
    if (s.shape[sd] != 1) stride[xd] = st;
    st *= s.shape[sd];
  }
  std::vector<T> out(static_cast<size_t>(k));
  std::vector<int64_t> pos(dims.size(), 0);
  const T* v = s.as<T>();
  for (int64_t i = 0; i < k; ++i) {
    int64_t off = 0;
    for (size_t j = 0; j < dims.size(); ++j) off += pos[j] * stride[j];
    out[static_cast<size_t>(i)] = v[off];
    for (size_t j = dims.size(); j-- > 0;) {
      if (++pos[j] < dims[j]) break;
      pos[j] = 0;
    }
  }
  return out;
}

}  // namespace

template <class T>
Result<KernelFn> MakeNorm(const Node& node) {
  TARE_ASSIGN_OR_RETURN(float eps_f, node.GetFloat("epsilon", 1e-5f));
  const T eps = static_cast<T>(eps_f);
  if (node.op == "LayerNormalization") {
    TARE_ASSIGN_OR_RETURN(int64_t axis_attr, node.GetInt("axis", -1));
    return KernelFn([eps, axis_attr](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      const Tensor& xt = *in[0];
      const int64_t r = static_cast<int64_t>(xt.shape.size());
      const int64_t axis = axis_attr < 0 ? axis_attr + r : axis_attr;
      const Shape dims(xt.shape.begin() + axis, xt.shape.end());
      int64_t k = 1, rows = 1;
      for (int64_t d : dims) k *= d;
      for (int64_t i = 0; i < axis; ++i) rows *= xt.shape[static_cast<size_t>(i)];
      const std::vector<T> scale = ExpandToBlock<T>(*in[1], dims);
      const bool has_b = in.size() > 2 && in[2];
      const std::vector<T> bias = has_b ? ExpandToBlock<T>(*in[2], dims) : std::vector<T>();
      const T* x = xt.as<T>();
      T* y = out[0]->as<T>();
      T* mean_out = out.size() > 1 && out[1] ? out[1]->as<T>() : nullptr;
      T* inv_out = out.size() > 2 && out[2] ? out[2]->as<T>() : nullptr;
      // K == 0: Mean and InvStdDev come out as NaN (0 / 0), Y is empty.
      for (int64_t row = 0; row < rows; ++row) {
        const T* xr = x + row * k;
        T* yr = y + row * k;
        T mean, var;
        MeanVar(xr, k, &mean, &var);
        const T den = std::sqrt(static_cast<T>(var + eps));
        const T inv = T(1) / den;
        for (int64_t i = 0; i < k; ++i) {
          T v = (xr[i] - mean) * inv;
          v = v * scale[static_cast<size_t>(i)];
          yr[i] = has_b ? static_cast<T>(v + bias[static_cast<size_t>(i)]) : v;
        }
        if (mean_out) mean_out[row] = mean;
        if (inv_out) inv_out[row] = inv;
      }
      return Status::Ok();
    });
  }
  const bool bn = node.op == "BatchNormalization";
  return KernelFn([eps, bn](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& xt = *in[0];
    const int64_t n = xt.shape[0], c_count = xt.shape[1];
    int64_t k = 1;  // elements per (n, c)
    for (size_t i = 2; i < xt.shape.size(); ++i) k *= xt.shape[i];
    const T* x = xt.as<T>();
    const T* scale = in[1]->as<T>();
    const T* b = in[2]->as<T>();
    T* y = out[0]->as<T>();
    if (k == 0) return Status::Ok();
    for (int64_t ni = 0; ni < n; ++ni) {
      for (int64_t c = 0; c < c_count; ++c) {
        const int64_t off = (ni * c_count + c) * k;
        T mean, var;
        if (bn) {
          mean = in[3]->as<T>()[c];
          var = in[4]->as<T>()[c];
        } else {
          MeanVar(x + off, k, &mean, &var);
        }
        const T den = std::sqrt(static_cast<T>(var + eps));
        const T sc = scale[c], bc = b[c];
        for (int64_t i = 0; i < k; ++i) {
          T v = (x[off + i] - mean) / den;
          v = v * sc;
          y[off + i] = v + bc;
        }
      }
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Norm)

}  // namespace tare
