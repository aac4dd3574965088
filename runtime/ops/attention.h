// The attributes and geometry of the Attention family (RotaryEmbedding-23, Attention-23), read and
// validated once here and shared by shape inference (runtime/ops/attention.cc) and the reference
// kernels (kernels/ref/attention.cc), so both see the same numbers. Semantics: runtime/ops/attention.cc.
#pragma once
#include <cstdint>

#include "runtime/ir/graph.h"

namespace tare {

/// RotaryEmbedding-23's attributes: interleaved in {0, 1} (default 0), rotary_embedding_dim >= 0
/// (default 0: the whole head), num_heads >= 0 (default 0: absent; required for 3-D X).
/// Errors name the node and the attribute.
struct RotaryAttrs {
  bool interleaved = false;
  int64_t rotary_dim = 0;
  int64_t num_heads = 0;
};
Result<RotaryAttrs> ReadRotaryAttrs(const Node& node);

/// RotaryEmbedding-23's view of X: batch B, heads H, sequence S, head size D, rotated width R
/// (even, <= D), and the strides (in elements) of a head's row X[b, h, s, :] in X's layout
/// ((B, H, S, D) for 4-D X, (B, S, H * D) for 3-D X).
struct RotaryDims {
  int64_t b = 0, h = 0, s = 0, d = 0, r = 0;
  int64_t stride_b = 0, stride_h = 0, stride_s = 0;
};
/// The dims of X of shape `x` (rank 3 or 4) under `a`, without validation (shape inference
/// validates them first: see InferAttention).
RotaryDims RotaryGeometry(const Shape& x, const RotaryAttrs& a);

/// Attention-23's attributes: is_causal in {0, 1}; q_num_heads, kv_num_heads (0 when absent;
/// required for 3-D inputs, >= 1); scale (absent: 1 / sqrt(head_size); else finite and >= 0);
/// softcap (finite, >= 0; 0 = none); qk_matmul_output_mode in 0..3; softmax_precision (absent,
/// or one of FLOAT, FLOAT16, DOUBLE, BFLOAT16: tare computes the softmax in its compute type in
/// every case, see attention.cc). Errors name the node and the attribute.
struct AttentionAttrs {
  bool causal = false;
  int64_t q_heads = 0, kv_heads = 0;
  bool has_scale = false;
  double scale = 0;
  double softcap = 0;
  int qk_mode = 0;
};
Result<AttentionAttrs> ReadAttentionAttrs(const Node& node);

/// Attention-23's dimensions: batch B, query heads Hq, key/value heads Hkv, query length Sq,
/// new key length Skv, cached length P (past_key's dim 2, 0 without a cache), total = P + Skv,
/// head size D (Q, K) and Dv (V); three_d for 3-D Q/K/V ((B, S, heads * size)). Strides of a
/// query/key/value row X[b, h, s, :] in the input's layout are derived from these.
struct AttentionDims {
  bool three_d = false;
  int64_t b = 0, hq = 0, hkv = 0, sq = 0, skv = 0, past = 0, total = 0, d = 0, dv = 0;
};
/// The dims of shapes q, k, v (and past_key's, or nullptr) under `a`, without validation.
AttentionDims AttentionGeometry(const Shape& q, const Shape& k, const Shape& v, const Shape* past_key,
                                const AttentionAttrs& a);

}  // namespace tare
