// Reference kernels of RotaryEmbedding and Attention (semantics: runtime/ops/attention.cc), in T.
//   RotaryEmbedding, per head row x with cache rows c, s: y[i1] = (c[i] * x[i1]) - (s[i] * x[i2]),
//     y[i2] = (s[i] * x[i1]) + (c[i] * x[i2]) (each product rounded, then the sum); y[R:] copied.
//     A position id outside [0, P) is an error naming it.
//   Attention, per batch b, query head h (key/value head h / (Hq / Hkv)) and query i:
//     sc = sqrt(scale) evaluated in double (default scale 1 / sqrt(D), in double), rounded once to T;
//     q'_d = q_d * sc and k'_jd = k_jd * sc, each rounded (the spec's Q*sqrt(scale), K*sqrt(scale));
//     s_j = 0 + q'_0 k'_j0 + q'_1 k'_j1 + ... (d increasing, each product rounded), keys j in the
//       order of present_key (the P cached ones, then the new ones);
//     c_j = softcap * tanh(s_j / softcap) evaluated in double and rounded once (softcap > 0), else s_j;
//     bias_j = (causal and j > i + P ? -inf : 0), then -inf where a bool mask is false, or
//       bias_j + m_j (rounded) for a float mask; z_j = c_j + bias_j (rounded);
//     every bias_j == -inf (or no keys): p = 0 and the Y row is 0; else p = softmax(z) as
//       kernels/ref/softmax_block.h computes it (max, exp(z - max) in double rounded once, sum in j
//       order, then each e / sum);
//     Y[e] = 0 + p_0 v_0e + p_1 v_1e + ... (j increasing, each product rounded).
//   present_key / present_value are copies; qk_matmul_output is s, c, z or p (its mode).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/softmax_block.h"
#include "runtime/ops/attention.h"

namespace tare {
namespace {

template <class T>
Status RunRotary(const RotaryAttrs& a, const std::vector<const Tensor*>& in,
                 const std::vector<Tensor*>& out) {
  const Tensor& x = *in[0];
  const RotaryDims g = RotaryGeometry(x.shape, a);
  const int64_t half = g.r / 2;
  const T* xd = x.as<T>();
  const T* cd = in[1]->as<T>();
  const T* sd = in[2]->as<T>();
  const int64_t* pos = in.size() > 3 && in[3] ? in[3]->as<int64_t>() : nullptr;
  const int64_t rows = in[1]->shape[0];  // P with position_ids
  T* yd = out[0]->as<T>();
  for (int64_t b = 0; b < g.b; ++b)
    for (int64_t s = 0; s < g.s; ++s) {
      int64_t row = b * g.s + s;
      if (pos) {
        const int64_t p = pos[row];
        if (p < 0 || p >= rows)
          return Status::Error("position_ids[" + std::to_string(b) + ", " + std::to_string(s) + "] = " +
                               std::to_string(p) + " is outside [0, " + std::to_string(rows) +
                               ") (the rows of cos_cache)");
        row = p;
      }
      const T* c = cd + row * half;
      const T* sn = sd + row * half;
      for (int64_t h = 0; h < g.h; ++h) {
        const int64_t off = b * g.stride_b + h * g.stride_h + s * g.stride_s;
        const T* xr = xd + off;
        T* yr = yd + off;
        for (int64_t i = 0; i < half; ++i) {
          const int64_t i1 = a.interleaved ? 2 * i : i, i2 = a.interleaved ? 2 * i + 1 : i + half;
          const T x1 = xr[i1], x2 = xr[i2];
          const T cx1 = c[i] * x1, sx2 = sn[i] * x2, sx1 = sn[i] * x1, cx2 = c[i] * x2;
          yr[i1] = cx1 - sx2;
          yr[i2] = sx1 + cx2;
        }
        for (int64_t e = g.r; e < g.d; ++e) yr[e] = xr[e];
      }
    }
  return Status::Ok();
}

/// Strides (in elements) of a row X[b, h, s, :] of a (B, H, S, W) tensor stored as 4-D or as
/// 3-D (B, S, H * W).
struct RowStrides {
  int64_t b, h, s;
};
RowStrides Rows(bool three_d, int64_t heads, int64_t seq, int64_t width) {
  if (three_d) return {seq * heads * width, width, heads * width};
  return {heads * seq * width, seq * width, width};
}

/// The attention mask seen as (B, Hq, Sq, total): element strides, 0 along broadcast dims.
struct MaskView {
  const bool* bools = nullptr;
  const void* values = nullptr;  // T
  int64_t st[4] = {0, 0, 0, 0};
};
MaskView ViewMask(const Tensor* m) {
  MaskView v;
  if (!m) return v;
  if (m->dtype == DType::kBool) v.bools = m->as<bool>();
  else v.values = m->data;
  const size_t r = m->shape.size();
  int64_t stride = 1;
  for (size_t j = r; j-- > 0;) {
    v.st[4 - r + j] = m->shape[j] == 1 ? 0 : stride;
    stride *= m->shape[j];
  }
  return v;
}

/// One key/value head's keys scaled by sc and its values, past rows first (present order).
template <class T>
struct KvBlock {
  std::vector<T> k, v;
};

template <class T>
class AttentionRun {
 public:
  AttentionRun(const AttentionAttrs& a, const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out)
      : a_(a), in_(in), out_(out) {
    const Tensor* pk = in.size() > 4 ? in[4] : nullptr;
    g_ = AttentionGeometry(in[0]->shape, in[1]->shape, in[2]->shape, pk ? &pk->shape : nullptr, a);
    const double scale = a.has_scale ? a.scale : 1.0 / std::sqrt(static_cast<double>(g_.d));
    sc_ = static_cast<T>(std::sqrt(scale));
    mask_ = ViewMask(in.size() > 3 ? in[3] : nullptr);
  }

  void Run() {
    const int64_t rep = g_.hq / g_.hkv;
    KvBlock<T> kv;
    for (int64_t b = 0; b < g_.b; ++b)
      for (int64_t hk = 0; hk < g_.hkv; ++hk) {
        Gather(b, hk, &kv);
        for (int64_t h = hk * rep; h < (hk + 1) * rep; ++h)
          for (int64_t i = 0; i < g_.sq; ++i) Query(b, h, i, kv);
      }
  }

 private:
  /// Copies rows [0, n) of a (B, Hkv, n, w) block of `src` (strides rs) into dst rows from `at`,
  /// multiplied by `mul` when `scaled`, and into `present` (B, Hkv, total, w) when given.
  void CopyRows(const T* src, RowStrides rs, int64_t b, int64_t hk, int64_t n, int64_t w, int64_t at, bool scaled,
                std::vector<T>* dst, Tensor* present) const {
    T* pres = present ? present->as<T>() + ((b * g_.hkv + hk) * g_.total + at) * w : nullptr;
    for (int64_t j = 0; j < n; ++j) {
      const T* row = src + b * rs.b + hk * rs.h + j * rs.s;
      for (int64_t e = 0; e < w; ++e) {
        (*dst)[static_cast<size_t>((at + j) * w + e)] = scaled ? static_cast<T>(row[e] * sc_) : row[e];
        if (pres) pres[j * w + e] = row[e];
      }
    }
  }

  void Gather(int64_t b, int64_t hk, KvBlock<T>* kv) const {
    kv->k.assign(static_cast<size_t>(g_.total * g_.d), T(0));
    kv->v.assign(static_cast<size_t>(g_.total * g_.dv), T(0));
    Tensor* pk_out = out_.size() > 1 ? out_[1] : nullptr;
    Tensor* pv_out = out_.size() > 2 ? out_[2] : nullptr;
    if (g_.past > 0) {
      CopyRows(in_[4]->as<T>(), Rows(false, g_.hkv, g_.past, g_.d), b, hk, g_.past, g_.d, 0, true, &kv->k, pk_out);
      CopyRows(in_[5]->as<T>(), Rows(false, g_.hkv, g_.past, g_.dv), b, hk, g_.past, g_.dv, 0, false, &kv->v, pv_out);
    }
    CopyRows(in_[1]->as<T>(), Rows(g_.three_d, g_.hkv, g_.skv, g_.d), b, hk, g_.skv, g_.d, g_.past, true, &kv->k, pk_out);
    CopyRows(in_[2]->as<T>(), Rows(g_.three_d, g_.hkv, g_.skv, g_.dv), b, hk, g_.skv, g_.dv, g_.past, false, &kv->v,
             pv_out);
  }

  /// bias_j of query i of head h in batch b (see the file comment).
  T Bias(int64_t b, int64_t h, int64_t i, int64_t j) const {
    const T ninf = -std::numeric_limits<T>::infinity();
    T bias = a_.causal && j > i + g_.past ? ninf : T(0);
    if (!mask_.bools && !mask_.values) return bias;
    const int64_t at = b * mask_.st[0] + h * mask_.st[1] + i * mask_.st[2] + j * mask_.st[3];
    if (mask_.bools) return mask_.bools[at] ? bias : ninf;
    return bias + static_cast<const T*>(mask_.values)[at];
  }

  void Query(int64_t b, int64_t h, int64_t i, const KvBlock<T>& kv) {
    const size_t total = static_cast<size_t>(g_.total);
    s_.resize(total), c_.resize(total), z_.resize(total), p_.resize(total), q_.resize(static_cast<size_t>(g_.d));
    const RowStrides qs = Rows(g_.three_d, g_.hq, g_.sq, g_.d);
    const T* qrow = in_[0]->as<T>() + b * qs.b + h * qs.h + i * qs.s;
    for (int64_t e = 0; e < g_.d; ++e) q_[static_cast<size_t>(e)] = qrow[e] * sc_;
    bool dead = true;
    for (size_t j = 0; j < total; ++j) {
      const T* krow = kv.k.data() + j * static_cast<size_t>(g_.d);
      T acc = T(0);
      for (int64_t e = 0; e < g_.d; ++e) acc = acc + static_cast<T>(q_[static_cast<size_t>(e)] * krow[e]);
      s_[j] = acc;
      c_[j] = a_.softcap > 0 ? static_cast<T>(a_.softcap * std::tanh(static_cast<double>(acc) / a_.softcap)) : acc;
      const T bias = Bias(b, h, i, static_cast<int64_t>(j));
      dead = dead && std::isinf(bias) && bias < 0;
      z_[j] = c_[j] + bias;
    }
    if (dead) std::fill(p_.begin(), p_.end(), T(0));
    else SoftmaxBlock<T>(z_.data(), p_.data(), 1, g_.total, 1, false);
    const RowStrides ys = Rows(g_.three_d, g_.hq, g_.sq, g_.dv);
    T* yrow = out_[0]->as<T>() + b * ys.b + h * ys.h + i * ys.s;
    for (int64_t e = 0; e < g_.dv; ++e) {
      T acc = T(0);
      if (!dead)
        for (size_t j = 0; j < total; ++j) acc = acc + static_cast<T>(p_[j] * kv.v[j * static_cast<size_t>(g_.dv) + e]);
      yrow[e] = acc;
    }
    Tensor* qk = out_.size() > 3 ? out_[3] : nullptr;
    if (!qk) return;
    const std::vector<T>* src[] = {&s_, &c_, &z_, &p_};
    T* qrow_out = qk->as<T>() + ((b * g_.hq + h) * g_.sq + i) * g_.total;
    std::copy(src[a_.qk_mode]->begin(), src[a_.qk_mode]->end(), qrow_out);
  }

  const AttentionAttrs& a_;
  const std::vector<const Tensor*>& in_;
  const std::vector<Tensor*>& out_;
  AttentionDims g_;
  T sc_;
  MaskView mask_;
  std::vector<T> q_, s_, c_, z_, p_;  // per query row: scaled query, scores, capped, biased, probabilities
};

}  // namespace

template <class T>
Result<KernelFn> MakeAttention(const Node& node) {
  if (node.op == "RotaryEmbedding") {
    TARE_ASSIGN_OR_RETURN(RotaryAttrs a, ReadRotaryAttrs(node));
    return KernelFn([a](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      return RunRotary<T>(a, in, out);
    });
  }
  TARE_ASSIGN_OR_RETURN(AttentionAttrs a, ReadAttentionAttrs(node));
  return KernelFn([a](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    AttentionRun<T>(a, in, out).Run();
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Attention)

}  // namespace tare
