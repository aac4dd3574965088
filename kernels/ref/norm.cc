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
//   GroupNormalization, per (n, group) over its K = C / num_groups * spatial elements: mean and
//     var as above; den = sqrt(var + eps); y = (((x - mean) / den) * scale) + bias, scale and bias
//     of the channel (or of the group, -18's per-group form).
//   RMSNormalization, per normalized block of K elements: ms = (0 + x0^2 + x1^2 + ...) / K (each
//     square rounded, index order); inv = 1 / sqrt(ms + eps); y = (x * inv) * scale[k].
//   LRN, per (n, c, spatial position): acc = 0 + x_lo^2 + ... + x_hi^2 (channels increasing, each
//     square rounded); base = bias + (coef * acc) with coef = alpha / size rounded once to T;
//     den = pow(base, beta) in double rounded once; y = x / den.
//   MeanVarianceNormalization, per group of elements sharing the kept (non-`axes`) indices, its
//     K elements in row-major order: mean and var as above; den = sqrt(var) + 1e-9 (1e-9 rounded
//     to T); y = (x - mean) / den.
//   LpNormalization, per slice along axis: acc = 0 + |x_0| + ... (p=1) or 0 + x_0^2 + ... (p=2,
//     each square rounded, then norm = sqrt(acc)); y = x / norm.
// The last three accept float32 (in T) and float64 (always double) tensors.
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

/// LRN over x (N, C, S...) with the attributes of the file comment.
template <class U>
void Lrn(const Tensor& xt, Tensor& yt, int64_t size, double alpha, double beta, double bias) {
  const int64_t n = xt.shape[0], c_count = xt.shape[1];
  int64_t s = 1;
  for (size_t i = 2; i < xt.shape.size(); ++i) s *= xt.shape[i];
  const U* x = xt.as<U>();
  U* y = yt.as<U>();
  const U coef = static_cast<U>(alpha / static_cast<double>(size));
  const U b = static_cast<U>(bias);
  const int64_t before = (size - 1) / 2, after = size / 2;  // floor and ceil of (size-1)/2
  std::vector<U> acc(static_cast<size_t>(s));
  for (int64_t ni = 0; ni < n; ++ni)
    for (int64_t c = 0; c < c_count; ++c) {
      const int64_t lo = c - before < 0 ? 0 : c - before;
      const int64_t hi = c + after > c_count - 1 ? c_count - 1 : c + after;
      for (int64_t j = 0; j < s; ++j) acc[static_cast<size_t>(j)] = 0;
      for (int64_t i = lo; i <= hi; ++i) {
        const U* xi = x + (ni * c_count + i) * s;
        for (int64_t j = 0; j < s; ++j) acc[static_cast<size_t>(j)] = acc[static_cast<size_t>(j)] + xi[j] * xi[j];
      }
      const int64_t off = (ni * c_count + c) * s;
      for (int64_t j = 0; j < s; ++j) {
        const U base = b + coef * acc[static_cast<size_t>(j)];
        const U den = static_cast<U>(std::pow(static_cast<double>(base), beta));
        y[off + j] = x[off + j] / den;
      }
    }
}

/// MeanVarianceNormalization of x over the dims flagged in `red`.
template <class U>
void Mvn(const Tensor& xt, Tensor& yt, const std::vector<bool>& red) {
  const size_t r = xt.shape.size();
  const int64_t total = xt.numel();
  if (total == 0) return;
  // Group (output-of-reduction) index of every element, via the strides of the kept dims.
  std::vector<int64_t> gstride(r, 0), pos(r, 0);
  int64_t groups = 1;
  for (size_t i = r; i-- > 0;)
    if (!red[i]) { gstride[i] = groups; groups *= xt.shape[i]; }
  std::vector<int64_t> gid(static_cast<size_t>(total));
  int64_t g = 0;
  for (int64_t e = 0; e < total; ++e) {
    gid[static_cast<size_t>(e)] = g;
    for (size_t i = r; i-- > 0;) {
      g += gstride[i];
      if (++pos[i] < xt.shape[i]) break;
      g -= gstride[i] * xt.shape[i];
      pos[i] = 0;
    }
  }
  const int64_t k = total / groups;
  const U* x = xt.as<U>();
  U* y = yt.as<U>();
  std::vector<U> mean(static_cast<size_t>(groups), U(0)), var(static_cast<size_t>(groups), U(0));
  for (int64_t e = 0; e < total; ++e) mean[gid[e]] = mean[gid[e]] + x[e];
  for (U& m : mean) m = m / static_cast<U>(k);
  for (int64_t e = 0; e < total; ++e) {
    const U d = x[e] - mean[gid[e]];
    var[gid[e]] = var[gid[e]] + d * d;
  }
  const U tiny = static_cast<U>(1e-9);
  for (U& v : var) v = static_cast<U>(std::sqrt(v / static_cast<U>(k)) + tiny);  // now the denominator
  for (int64_t e = 0; e < total; ++e) y[e] = (x[e] - mean[gid[e]]) / var[gid[e]];
}

/// LpNormalization of x along `axis` (p = 1 or 2).
template <class U>
void LpNorm(const Tensor& xt, Tensor& yt, int64_t axis, int64_t p) {
  int64_t outer = 1, k = 1, inner = 1;
  for (size_t i = 0; i < xt.shape.size(); ++i) {
    const int64_t d = xt.shape[i];
    if (static_cast<int64_t>(i) < axis) outer *= d;
    else if (static_cast<int64_t>(i) == axis) k = d;
    else inner *= d;
  }
  const U* x = xt.as<U>();
  U* y = yt.as<U>();
  std::vector<U> acc(static_cast<size_t>(inner));
  for (int64_t o = 0; o < outer; ++o) {
    const U* xo = x + o * k * inner;
    U* yo = y + o * k * inner;
    for (U& a : acc) a = 0;
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < inner; ++j) {
        const U v = xo[kk * inner + j];
        acc[j] = acc[j] + (p == 1 ? std::fabs(v) : static_cast<U>(v * v));
      }
    if (p == 2)
      for (U& a : acc) a = std::sqrt(a);
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < inner; ++j) yo[kk * inner + j] = xo[kk * inner + j] / acc[j];
  }
}

/// Kernels of LRN, MeanVarianceNormalization, LpNormalization (float32 in T, float64 in double).
template <class T>
Result<KernelFn> MakeElementwiseNorm(const Node& node) {
  const std::string op = node.op;
  TARE_ASSIGN_OR_RETURN(int64_t size, node.GetInt("size", 1));
  TARE_ASSIGN_OR_RETURN(float alpha, node.GetFloat("alpha", 1e-4f));
  TARE_ASSIGN_OR_RETURN(float beta, node.GetFloat("beta", 0.75f));
  TARE_ASSIGN_OR_RETURN(float bias, node.GetFloat("bias", 1.0f));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, node.GetInts("axes", {0, 2, 3}));
  TARE_ASSIGN_OR_RETURN(int64_t axis_attr, node.GetInt("axis", -1));
  TARE_ASSIGN_OR_RETURN(int64_t p, node.GetInt("p", 2));
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    Tensor& y = *out[0];
    const int64_t r = static_cast<int64_t>(x.shape.size());
    auto run = [&](auto zero) {
      using U = decltype(zero);
      if (op == "LRN") {
        Lrn<U>(x, y, size, alpha, beta, bias);
      } else if (op == "MeanVarianceNormalization") {
        std::vector<bool> red(static_cast<size_t>(r), false);
        for (int64_t a : axes) red[static_cast<size_t>(a < 0 ? a + r : a)] = true;
        Mvn<U>(x, y, red);
      } else {
        LpNorm<U>(x, y, axis_attr < 0 ? axis_attr + r : axis_attr, p);
      }
    };
    if (x.dtype == DType::kFloat64) run(0.0);
    else run(T(0));
    return Status::Ok();
  });
}

}  // namespace

template <class T>
Result<KernelFn> MakeNorm(const Node& node) {
  if (node.op == "LRN" || node.op == "MeanVarianceNormalization" || node.op == "LpNormalization")
    return MakeElementwiseNorm<T>(node);
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
  if (node.op == "GroupNormalization") {
    TARE_ASSIGN_OR_RETURN(int64_t groups, node.GetInt("num_groups", 1));
    return KernelFn([eps, groups](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      const Tensor& xt = *in[0];
      const int64_t n = xt.shape[0], c_count = xt.shape[1], per = c_count / groups;
      int64_t k = 1;  // elements per (n, c)
      for (size_t i = 2; i < xt.shape.size(); ++i) k *= xt.shape[i];
      const bool per_group = in[1]->numel() != c_count;  // GroupNormalization-18's [num_groups]
      const T* x = xt.as<T>();
      const T* scale = in[1]->as<T>();
      const T* b = in[2]->as<T>();
      T* y = out[0]->as<T>();
      for (int64_t ni = 0; ni < n; ++ni) {
        for (int64_t g = 0; g < groups; ++g) {
          const int64_t off = (ni * c_count + g * per) * k;
          T mean, var;
          MeanVar(x + off, per * k, &mean, &var);
          const T den = std::sqrt(static_cast<T>(var + eps));
          for (int64_t c = g * per; c < (g + 1) * per; ++c) {
            const T sc = scale[per_group ? g : c], bc = b[per_group ? g : c];
            const int64_t base = (ni * c_count + c) * k;
            for (int64_t i = 0; i < k; ++i) {
              T v = (x[base + i] - mean) / den;
              v = v * sc;
              y[base + i] = v + bc;
            }
          }
        }
      }
      return Status::Ok();
    });
  }
  if (node.op == "RMSNormalization") {
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
      const T* x = xt.as<T>();
      T* y = out[0]->as<T>();
      for (int64_t row = 0; row < rows; ++row) {
        const T* xr = x + row * k;
        T acc = 0;
        for (int64_t i = 0; i < k; ++i) acc = acc + static_cast<T>(xr[i] * xr[i]);
        const T ms = acc / static_cast<T>(k);
        const T inv = T(1) / std::sqrt(static_cast<T>(ms + eps));
        for (int64_t i = 0; i < k; ++i) y[row * k + i] = static_cast<T>(xr[i] * inv) * scale[static_cast<size_t>(i)];
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
