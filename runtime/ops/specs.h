// Shape-inference entry points of every op family, and the error budgets op_list.inc refers to.
#pragma once
#include "runtime/ops/op.h"

namespace tare {

// Error budgets (see ErrorBudget in op.h; eps = 2^-24).
/// Bit-exact: data movement, max/min, sign flips, comparisons.
constexpr ErrorBudget kBudgetExact{0, 0, "exact"};
/// One correctly rounded fp32 operation: |y - y64| <= 1 eps |y64| (plus rounding of inputs).
constexpr ErrorBudget kBudgetRounded{2, 0, "<= 2 eps |y| (one or two roundings)"};
/// Transcendental evaluated in double and rounded once in `ref`; fast backends may use
/// polynomial approximations: |y - y64| <= 8 eps |y| (+ input rounding amplified by the condition number).
constexpr ErrorBudget kBudgetTranscendental{8, 0, "<= 8 eps |y|"};
/// Dot product / convolution of length K: |y - y64| <= gamma_K sum|w x| + 2 eps |b|, gamma_K ~ K eps.
constexpr ErrorBudget kBudgetDot{2, 1, "<= (K + 2) eps sum|w x|  (gamma_K, K = reduction length)"};
/// Sum of K terms (average, reduce): |y - y64| <= gamma_K sum|x|.
constexpr ErrorBudget kBudgetSum{2, 1, "<= (K + 2) eps sum|x|"};
/// Softmax over K classes: max subtraction exact, K-term sum, exp in double: <= (K + 8) eps |y|.
constexpr ErrorBudget kBudgetSoftmax{8, 1, "<= (K + 8) eps |y|"};
/// Normalizations: mean/variance over K terms then an affine map: <= (2K + 8) eps |y|, where
/// LayerNormalization's |y| is the magnitude of its terms, (|x| + mean|x|) |Scale| / sd + |B|
/// (x - mean and + B cancel; compare/budget.h kNormTerms).
constexpr ErrorBudget kBudgetNorm{8, 2, "<= (2K + 8) eps |y|  (K = normalized extent; LayerNormalization: |y| as the terms' magnitude)"};
/// Recurrent cells over T steps with gate dots of length K = input + hidden size:
/// per-step gamma_K plus tanh/sigmoid rounding, amplified at most linearly in T (contractive cells).
constexpr ErrorBudget kBudgetRnn{16, 1, "<= T (K + 16) eps per step  (K = input+hidden size)"};
/// Attention (Attention-23): scores s_j = scale q.k_j (dots of length D = head size), a softmax
/// over the L keys, then y = sum_j p_j v_j. With A_j = scale sum_d |q_d k_jd|, a score (after the
/// sqrt(scale) roundings of q and k, the softcap and the mask addition, each rounded once) is off
/// by <= (D + 4) eps (A_j + |z_j|) <= (D + 4) eps M, M = max_j (A_j + |z_j|) over keys with p_j > 0;
/// the softmax turns score errors d_j into relative errors <= 2 max_j d_j of p and adds its own
/// (L + 8) eps; the final dot adds gamma_L sum_j p_j |v_j|. In all:
/// |y - y64| <= ((2L + 10) + 2 (D + 4) M) eps sum_j p_j |v_j| <= (2K + 16)(1 + M) eps sum_j p_j |v_j|
/// with K = max(D, L). Fully masked rows are exactly 0. (present_key/present_value: exact copies.)
constexpr ErrorBudget kBudgetAttention{16, 2,
                                       "<= (2K + 16)(1 + M) eps sum_j p_j |v_j|  (K = max(head size, keys), M = max "
                                       "score magnitude, see specs.h)"};
/// Interpolation: coordinates in double on every backend; each weight rounded to T once and the
/// weighted sum accumulated per axis (cubic: 4 terms, sum|w| <= 1.3 per axis): <= 32 eps max|x|.
constexpr ErrorBudget kBudgetResize{32, 0, "<= 32 eps max|x| (weights rounded once)"};

/// The sliding-window attributes of Conv-11 / ConvTranspose-11, validated: kernel_shape (if
/// given) equals W's spatial dims, strides and dilations >= 1, pads >= 0 (2 per spatial axis),
/// auto_pad one of NOTSET, VALID, SAME_UPPER, SAME_LOWER. Defined in runtime/ops/conv.cc.
struct ConvWindow {
  std::vector<int64_t> strides, dilations, pads;
  std::string auto_pad;
};
Result<ConvWindow> ReadConvWindow(const InferContext& ctx, const Shape& w);

/// Conv-11 geometry shared by Conv, ConvInteger and QLinearConv: checks ranks (3 to 5), group
/// against channels, kernel_shape, strides, dilations, pads and auto_pad of ctx.node for input X
/// (ctx.in[xi], N C D...) and weights W (ctx.in[wi], M C/group k...), and returns Y's shape
/// (N, M, O...). Defined in runtime/ops/conv.cc.
Result<Shape> InferConvGeometry(const InferContext& ctx, size_t xi, size_t wi);

/// Reads an element-type attribute (e.g. `output_datatype` of the window ops and MelWeightMatrix)
/// that must name a numeric type other than bfloat16; `dflt` when absent. Defined in
/// runtime/ops/window.cc.
Result<DType> NumericDTypeAttr(const InferContext& ctx, const char* name, int64_t dflt);

#define TARE_OP(name, family, budget, doc) Status Infer##family(InferContext& ctx);
#include "runtime/ops/op_list.inc"
#undef TARE_OP

}  // namespace tare
