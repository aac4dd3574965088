// Attention family: RotaryEmbedding (ONNX RotaryEmbedding-23) and Attention (ONNX Attention-23),
// from the operators' text in ONNX's docs/Changelog.md. Tensors are float32 (float16 and bfloat16
// run through runtime/exec/narrow_float.h: computed in float, each output rounded once).
//
//   RotaryEmbedding: X of shape (B, H, S, D) (4-D) or (B, S, H * D) (3-D, attribute num_heads = H
//     required), cos_cache and sin_cache, optional position_ids (int64, (B, S)). Y has X's shape.
//     Attributes: interleaved (0 | 1, default 0), rotary_embedding_dim R (default 0: R = D; even,
//     <= D), num_heads (for 4-D X, when given, it must equal X's dim 1). With position_ids the
//     caches are (P, R / 2) and row position_ids[b, s] is used (each id in [0, P), checked when the
//     kernel runs); without, they are (B, S, R / 2) and row (b, s) is used. For every head row
//     x = X[b, h, s, :] with c = cos_cache row, s = sin_cache row, and i in [0, R / 2):
//       the pair (i1, i2) = (2i, 2i + 1) when interleaved, else (i, i + R / 2);
//       y[i1] = c[i] x[i1] - s[i] x[i2],  y[i2] = s[i] x[i1] + c[i] x[i2];
//     y[R:] = x[R:] (partial rotation leaves the rest of the head unchanged).
//
//   Attention: Q, K, V and optional attn_mask, past_key, past_value (inputs 0..5); outputs Y and
//     optional present_key, present_value, qk_matmul_output.
//     4-D: Q (B, Hq, Sq, D), K (B, Hkv, Skv, D), V (B, Hkv, Skv, Dv) (q_num_heads / kv_num_heads,
//     when given, must equal Hq / Hkv). 3-D: Q (B, Sq, Hq * D), K (B, Skv, Hkv * D),
//     V (B, Skv, Hkv * Dv) with both q_num_heads = Hq and kv_num_heads = Hkv required; heads are
//     consecutive blocks of the last dim. Hq must be a multiple of Hkv (group-query attention:
//     query head h reads key/value head h / (Hq / Hkv); Hq == Hkv is multi-head attention).
//     past_key (B, Hkv, P, D) and past_value (B, Hkv, P, Dv) come together (or neither: P = 0);
//     the keys and values attended are present_key = past_key ++ K and present_value =
//     past_value ++ V along the sequence axis (total = P + Skv keys; without a cache, present = K, V).
//     For query i and key j of head h:
//       s_ij = (q_i * sqrt(scale)) . (k_j * sqrt(scale)), scale = attribute or 1 / sqrt(D);
//       c_ij = softcap * tanh(s_ij / softcap) when softcap > 0, else s_ij;
//       bias_ij = (is_causal and j > i + P ? -inf : 0) + m_ij, with m the attn_mask broadcast
//         (numpy rules) to (B, Hq, Sq, total): a bool mask gives 0 where true and -inf where
//         false, a float mask its value; no mask gives 0. (The causal frontier is bottom-right
//         aligned by the cache: query i sees keys j <= i + P; for Sq != Skv without a cache that
//         is keys 0..i.) attn_mask's last dim must be total: the spec text broadcasts a dim of 1
//         while ONNX's reference pads a shorter mask with -inf, so tare refuses that form.
//       p_i = softmax_j(c_ij + bias_ij); a row whose bias is -inf for every key (fully masked)
//         gives p_i = 0, so Y's row is 0 (the spec text, not NaN);
//       Y[b, h, i, :] = sum_j p_ij V'[j, :] (Y is (B, Hq, Sq, Dv), or (B, Sq, Hq * Dv) for 3-D).
//     qk_matmul_output (B, Hq, Sq, total): s (qk_matmul_output_mode 0, default), c (1), c + bias
//     (2), p (3). softmax_precision may be FLOAT, FLOAT16, DOUBLE or BFLOAT16: tare computes the
//     whole op in its compute type (float on ref, double on ref64), which is at least float, as
//     it does every float16 op; a request of double on ref is computed in float (the op's error
//     budget covers it).
#include "runtime/ops/attention.h"

#include <cmath>
#include <string>

#include "runtime/ops/specs.h"

namespace tare {
namespace {

/// Reads an int attribute that must lie in [lo, hi].
Result<int64_t> IntIn(const Node& node, const char* name, int64_t dflt, int64_t lo, int64_t hi) {
  TARE_ASSIGN_OR_RETURN(int64_t v, node.GetInt(name, dflt));
  if (v < lo || v > hi)
    return Status::Error(node.Where() + ": attribute '" + name + "' must be in [" + std::to_string(lo) + ", " +
                         (hi == kMaxElements ? std::string("2^40") : std::to_string(hi)) + "], got " +
                         std::to_string(v));
  return v;
}

/// Reads a float attribute that must be finite and >= 0.
Result<double> NonNegative(const Node& node, const char* name, float dflt) {
  TARE_ASSIGN_OR_RETURN(float v, node.GetFloat(name, dflt));
  if (!(v >= 0) || std::isinf(v))
    return Status::Error(node.Where() + ": attribute '" + name + "' must be finite and >= 0, got " + std::to_string(v));
  return static_cast<double>(v);
}

std::string Dim(int64_t v) { return std::to_string(v); }

Status InferRotary(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(3, 4));
  TARE_RETURN_IF_ERROR(ctx.ExpectFloat32({"X", "cos_cache", "sin_cache"}));
  if (ctx.out.size() != 1) return ctx.Error("must have exactly 1 output (Y), got " + std::to_string(ctx.out.size()));
  TARE_ASSIGN_OR_RETURN(RotaryAttrs a, ReadRotaryAttrs(ctx.node));
  const Shape& x = ctx.in[0].shape;
  if (x.size() != 3 && x.size() != 4)
    return ctx.Error("input X must be (batch, num_heads, sequence, head_size) or (batch, sequence, hidden), got shape " +
                     ShapeStr(x));
  if (x.size() == 4 && a.num_heads != 0 && a.num_heads != x[1])
    return ctx.Error("attribute 'num_heads' = " + Dim(a.num_heads) + " does not match X's dim 1 (" + Dim(x[1]) +
                     ") of the 4-D input " + ShapeStr(x));
  if (x.size() == 3) {
    if (a.num_heads < 1) return ctx.Error("attribute 'num_heads' (>= 1) is required for the 3-D input X " + ShapeStr(x));
    if (x[2] % a.num_heads != 0)
      return ctx.Error("X's hidden size " + Dim(x[2]) + " is not a multiple of num_heads = " + Dim(a.num_heads));
  }
  const RotaryDims g = RotaryGeometry(x, a);
  if (a.rotary_dim > g.d)
    return ctx.Error("attribute 'rotary_embedding_dim' = " + Dim(a.rotary_dim) + " exceeds the head size " + Dim(g.d));
  if (g.r % 2 != 0)
    return ctx.Error("the rotated width must be even, got " + Dim(g.r) +
                     (a.rotary_dim ? " (rotary_embedding_dim)" : " (the head size)"));
  const bool pos = ctx.has(3);
  const Shape want = pos ? Shape{-1, g.r / 2} : Shape{g.b, g.s, g.r / 2};
  for (size_t i : {1, 2}) {
    const Shape& c = ctx.in[i].shape;
    bool ok = c.size() == want.size();
    for (size_t j = 0; ok && j < c.size(); ++j) ok = want[j] < 0 || c[j] == want[j];
    if (!ok)
      return ctx.Error(std::string("input ") + (i == 1 ? "cos_cache" : "sin_cache") + " must be " +
                       (pos ? "(max_position_id_plus_1, " + Dim(g.r / 2) + ") with position_ids"
                            : ShapeStr(want) + " (batch, sequence, rotated width / 2) without position_ids") +
                       ", got " + ShapeStr(c));
  }
  if (ctx.in[1].shape != ctx.in[2].shape)
    return ctx.Error("cos_cache " + ShapeStr(ctx.in[1].shape) + " and sin_cache " + ShapeStr(ctx.in[2].shape) +
                     " must have the same shape");
  if (pos) {
    if (ctx.in[3].dtype != DType::kInt64) return ctx.Error("input position_ids must be int64, got " + DTypeName(ctx.in[3].dtype));
    if (ctx.in[3].shape != Shape{g.b, g.s})
      return ctx.Error("input position_ids must be (batch, sequence) = " + ShapeStr(Shape{g.b, g.s}) + ", got " +
                       ShapeStr(ctx.in[3].shape));
  }
  ctx.SetOut(0, DType::kFloat32, x);
  return Status::Ok();
}

/// Checks that attn_mask's shape broadcasts (numpy rules, rank <= 4) to (B, Hq, Sq, total).
Status CheckMask(const InferContext& ctx, const AttentionDims& g) {
  const ValueInfo& m = ctx.in[3];
  if (m.dtype != DType::kBool && m.dtype != DType::kFloat32)
    return ctx.Error("input attn_mask must be bool or float32 (Q's type), got " + DTypeName(m.dtype));
  const Shape full = {g.b, g.hq, g.sq, g.total};
  const std::string want = "broadcastable to (batch, q_num_heads, q_sequence, total_sequence) = " + ShapeStr(full);
  if (m.shape.empty() || m.shape.size() > 4) return ctx.Error("input attn_mask must be " + want + ", got " + ShapeStr(m.shape));
  if (m.shape.back() != g.total)
    return ctx.Error("input attn_mask's last dim must be total_sequence_length = past + kv length = " + Dim(g.total) +
                     ", got " + ShapeStr(m.shape) + " (a last dim of 1 or a shorter mask is not accepted)");
  for (size_t j = 0; j < m.shape.size(); ++j) {
    const int64_t md = m.shape[j], fd = full[4 - m.shape.size() + j];
    if (md != 1 && md != fd) return ctx.Error("input attn_mask must be " + want + ", got " + ShapeStr(m.shape));
  }
  return Status::Ok();
}

/// Validates Q, K, V, past_key and past_value against each other and the heads attributes.
Status CheckAttentionShapes(const InferContext& ctx, const AttentionAttrs& a) {
  const Shape &q = ctx.in[0].shape, &k = ctx.in[1].shape, &v = ctx.in[2].shape;
  const std::string got = ": Q " + ShapeStr(q) + ", K " + ShapeStr(k) + ", V " + ShapeStr(v);
  if ((q.size() != 3 && q.size() != 4) || k.size() != q.size() || v.size() != q.size())
    return ctx.Error("Q, K and V must all be 4-D (batch, heads, sequence, head_size) or all 3-D (batch, sequence, "
                     "heads * head_size)" + got);
  if (k[0] != q[0] || v[0] != q[0]) return ctx.Error("Q, K and V must have the same batch size" + got);
  if (q.size() == 4) {
    if (k[2] != v[2]) return ctx.Error("K and V must have the same sequence length" + got);
    if (k[1] != v[1]) return ctx.Error("K and V must have the same number of heads" + got);
    if (k[3] != q[3]) return ctx.Error("Q and K must have the same head size" + got);
    if (a.q_heads != 0 && a.q_heads != q[1])
      return ctx.Error("attribute 'q_num_heads' = " + Dim(a.q_heads) + " does not match Q's dim 1" + got);
    if (a.kv_heads != 0 && a.kv_heads != k[1])
      return ctx.Error("attribute 'kv_num_heads' = " + Dim(a.kv_heads) + " does not match K's dim 1" + got);
  } else {
    if (a.q_heads < 1 || a.kv_heads < 1)
      return ctx.Error("attributes 'q_num_heads' and 'kv_num_heads' (>= 1) are required for 3-D Q, K, V" + got);
    if (k[1] != v[1]) return ctx.Error("K and V must have the same sequence length" + got);
    if (q[2] % a.q_heads != 0) return ctx.Error("Q's hidden size is not a multiple of q_num_heads = " + Dim(a.q_heads) + got);
    if (k[2] % a.kv_heads != 0 || v[2] % a.kv_heads != 0)
      return ctx.Error("K's and V's hidden sizes must be multiples of kv_num_heads = " + Dim(a.kv_heads) + got);
    if (k[2] / a.kv_heads != q[2] / a.q_heads)
      return ctx.Error("Q and K must have the same head size (hidden size / heads)" + got);
  }
  const AttentionDims g = AttentionGeometry(q, k, v, nullptr, a);
  if (g.hkv < 1 || g.hq % g.hkv != 0)
    return ctx.Error("q_num_heads (" + Dim(g.hq) + ") must be a multiple of kv_num_heads (" + Dim(g.hkv) + ")" + got);
  if (ctx.has(4) != ctx.has(5)) return ctx.Error("past_key and past_value must be given together");
  if (ctx.has(4)) {
    const Shape &pk = ctx.in[4].shape, &pv = ctx.in[5].shape;
    if (pk.size() != 4 || pk[0] != g.b || pk[1] != g.hkv || pk[3] != g.d)
      return ctx.Error("past_key must be (batch, kv_num_heads, past_sequence, head_size) = (" + Dim(g.b) + ", " +
                       Dim(g.hkv) + ", P, " + Dim(g.d) + "), got " + ShapeStr(pk));
    if (pv.size() != 4 || pv[0] != g.b || pv[1] != g.hkv || pv[2] != pk[2] || pv[3] != g.dv)
      return ctx.Error("past_value must be (batch, kv_num_heads, past_sequence, v_head_size) = (" + Dim(g.b) + ", " +
                       Dim(g.hkv) + ", " + Dim(pk[2]) + ", " + Dim(g.dv) + "), got " + ShapeStr(pv));
  }
  return Status::Ok();
}

Status InferAttentionOp(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(3, 6));
  TARE_RETURN_IF_ERROR(ctx.ExpectFloat32({"Q", "K", "V"}));
  for (size_t i : {4, 5})
    if (ctx.has(i) && ctx.in[i].dtype != DType::kFloat32)
      return ctx.Error(std::string("input ") + (i == 4 ? "past_key" : "past_value") + " must be float32 (Q's type), got " +
                       DTypeName(ctx.in[i].dtype));
  TARE_ASSIGN_OR_RETURN(AttentionAttrs a, ReadAttentionAttrs(ctx.node));
  TARE_RETURN_IF_ERROR(CheckAttentionShapes(ctx, a));
  const AttentionDims g =
      AttentionGeometry(ctx.in[0].shape, ctx.in[1].shape, ctx.in[2].shape, ctx.has(4) ? &ctx.in[4].shape : nullptr, a);
  if (ctx.has(3)) TARE_RETURN_IF_ERROR(CheckMask(ctx, g));
  if (ctx.out.size() > 4)
    return ctx.Error("has " + std::to_string(ctx.out.size()) +
                     " outputs; Attention-23 has at most 4 (Y, present_key, present_value, qk_matmul_output)");
  const Shape y = g.three_d ? Shape{g.b, g.sq, g.hq * g.dv} : Shape{g.b, g.hq, g.sq, g.dv};
  const Shape outs[] = {y, {g.b, g.hkv, g.total, g.d}, {g.b, g.hkv, g.total, g.dv}, {g.b, g.hq, g.sq, g.total}};
  for (size_t i = 0; i < ctx.out.size(); ++i) {
    Result<int64_t> n = NumElements(outs[i]);
    if (!n.ok()) return ctx.Error("output " + std::to_string(i) + " of shape " + ShapeStr(outs[i]) + ": " + n.status().message());
    ctx.SetOut(i, DType::kFloat32, outs[i]);
  }
  return Status::Ok();
}

}  // namespace

Result<RotaryAttrs> ReadRotaryAttrs(const Node& node) {
  RotaryAttrs a;
  TARE_ASSIGN_OR_RETURN(int64_t inter, IntIn(node, "interleaved", 0, 0, 1));
  TARE_ASSIGN_OR_RETURN(a.rotary_dim, IntIn(node, "rotary_embedding_dim", 0, 0, kMaxElements));
  TARE_ASSIGN_OR_RETURN(a.num_heads, IntIn(node, "num_heads", 0, 0, kMaxElements));
  a.interleaved = inter != 0;
  return a;
}

RotaryDims RotaryGeometry(const Shape& x, const RotaryAttrs& a) {
  RotaryDims g;
  g.b = x[0];
  if (x.size() == 4) {
    g.h = x[1], g.s = x[2], g.d = x[3];
    g.stride_s = g.d, g.stride_h = g.s * g.d, g.stride_b = g.h * g.s * g.d;
  } else {
    g.s = x[1], g.h = a.num_heads, g.d = a.num_heads > 0 ? x[2] / a.num_heads : 0;
    g.stride_h = g.d, g.stride_s = x[2], g.stride_b = g.s * x[2];
  }
  g.r = a.rotary_dim != 0 ? a.rotary_dim : g.d;
  return g;
}

Result<AttentionAttrs> ReadAttentionAttrs(const Node& node) {
  AttentionAttrs a;
  TARE_ASSIGN_OR_RETURN(int64_t causal, IntIn(node, "is_causal", 0, 0, 1));
  TARE_ASSIGN_OR_RETURN(a.q_heads, IntIn(node, "q_num_heads", 0, 0, kMaxElements));
  TARE_ASSIGN_OR_RETURN(a.kv_heads, IntIn(node, "kv_num_heads", 0, 0, kMaxElements));
  TARE_ASSIGN_OR_RETURN(int64_t mode, IntIn(node, "qk_matmul_output_mode", 0, 0, 3));
  a.causal = causal != 0;
  a.qk_mode = static_cast<int>(mode);
  a.has_scale = node.has("scale");
  if (a.has_scale) {
    TARE_ASSIGN_OR_RETURN(a.scale, NonNegative(node, "scale", 0));
  }
  TARE_ASSIGN_OR_RETURN(a.softcap, NonNegative(node, "softcap", 0));
  if (node.has("softmax_precision")) {
    TARE_ASSIGN_OR_RETURN(int64_t p, node.GetInt("softmax_precision", 1));
    if (p != 1 && p != 10 && p != 11 && p != 16)  // TensorProto FLOAT, FLOAT16, DOUBLE, BFLOAT16
      return Status::Error(node.Where() +
                           ": attribute 'softmax_precision' must be a floating-point TensorProto type (1 float, 10 "
                           "float16, 11 double, 16 bfloat16), got " + std::to_string(p));
  }
  return a;
}

AttentionDims AttentionGeometry(const Shape& q, const Shape& k, const Shape& v, const Shape* past_key,
                                const AttentionAttrs& a) {
  AttentionDims g;
  g.three_d = q.size() == 3;
  g.b = q[0];
  if (g.three_d) {
    g.hq = a.q_heads, g.hkv = a.kv_heads, g.sq = q[1], g.skv = k[1];
    g.d = a.q_heads > 0 ? q[2] / a.q_heads : 0;
    g.dv = a.kv_heads > 0 ? v[2] / a.kv_heads : 0;
  } else {
    g.hq = q[1], g.hkv = k[1], g.sq = q[2], g.skv = k[2], g.d = q[3], g.dv = v[3];
  }
  g.past = past_key ? (*past_key)[2] : 0;
  g.total = g.past + g.skv;
  return g;
}

Status InferAttention(InferContext& ctx) {
  if (ctx.node.op == "RotaryEmbedding") return InferRotary(ctx);
  return InferAttentionOp(ctx);
}

}  // namespace tare
