// A node's error against ref64 as a share of its op's error budget (docs/NUMERICS.md, "Error
// budgets"; the constants are runtime/ops/specs.h's): the isolated mode of `tare compare` feeds one
// node ref64's inputs rounded to the backend's types and checks the backend's outputs against
// ref64's outputs on those same inputs, element by element:
//   |y - y64| <= units * eps * scale + floor
// with eps = 2^-24, units = steps * (c0 + cK * K) (at least 0.5, the final rounding to float32),
// K the node's reduction length (ReductionLength), steps the sequence length of a recurrent op
// (1 otherwise), scale per the op's budget (BudgetScale), and floor the smallest normal float32
// (a backend may flush subnormal results to zero). A float32 output equal to ref64's result
// rounded to float32 is within, also where that rounding overflows to inf or underflows to 0; and
// an op that squares its input (ReduceL2, ReduceSumSquare, the normalizations) is not checked where
// the largest |x| is beyond sqrt(FLT_MAX) or under sqrt(FLT_MIN) (float32's arithmetic, and ONNX's
// float32 reference, overflow or flush the squares there), nor a ReduceL2 output of 0 whose every
// square flushed. A float16 or bfloat16 output may also differ by
// one unit in its last place (both sides round to it once): 2^-10 |y64| (float16, plus 2^-24) or
// 2^-7 |y64| (bfloat16) are added to the bound. The ops tests (tests/ops/) check the same bound.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/ir/graph.h"

namespace tare {

/// What `scale` is in a node's budget.
enum class BudgetScale {
  kAbsOutput,  ///< |y64| (elementwise, softmax, normalizations, recurrent cells, exact ops)
  kAbsInputs,  ///< the op on the absolute values of its float inputs, on ref64: sum|w x| (+|b|) for
               ///< dots, sum|x| (or its mean) for sums; never below |y64|
  kMaxInput,   ///< max|x| over the first input (interpolation: Resize, GridSample, RoiAlign)
  /// Softmax: |y64| (1 + |x - max x| / units), the row's max over the softmax axis; LogSoftmax:
  /// its terms' magnitude |x - max x| + |log sum exp(x - max x)| (y cancels near 0). Its float32
  /// result rounds x - max x, so exp's argument carries an absolute error of |x - max x| eps / 2:
  /// a relative error that grows with the logits' spread, not with K.
  kSoftmaxSpread,
  /// LayerNormalization: the magnitude of each output's terms, (|x| + mean|x|) |Scale| / sd + |B|
  /// (mean|x| and sd = sqrt(var + epsilon) of the element's normalized block, in double: the mean's
  /// rounding scales with the mean of |x|, not with |mean|, which cancels; Scale and B
  /// with one value per block element or one in all, else |y64|): the float32 result rounds
  /// x - mean, which cancels near the mean, and adds B, which can cancel the rest.
  kNormTerms,
};

/// The kNormTerms scale of a LayerNormalization-17 (`inputs`: X, Scale, optional B as fed; attributes
/// axis and epsilon from `node`), one value per element of X; empty when X is not a float tensor
/// or Scale or B broadcast otherwise than one value per block element or one in all.
std::vector<double> NormTermScale(const Node& node, const std::vector<Tensor>& inputs);

/// How one node's budget is evaluated: the budget's scale and the inputs made absolute for
/// kAbsInputs (`abs_inputs[i]`: input i made |x| (1) or -|x| (2); integer inputs, sampling offsets
/// and the like stay as they are (0)), and whether the node's float attributes are made absolute.
/// ReduceLogSumExp takes kAbsInputs on |x| (at least max|x| and log K, its two terms), Gemm its
/// alpha and beta made absolute too.
/// Ops whose float32 result is an affine combination that can cancel take kAbsInputs too, so the
/// scale is the magnitude of the terms: BatchNormalization (inference) (|x| + |mean|) |scale| /
/// sqrt(var + eps) + |B| (mean as -|mean|), HardSigmoid clip(|alpha| |x| + |beta|, 0, 1), HardSwish
/// |x| clip(|x| / 6 + 1/2, 0, 1), and the
/// recurrent cells LSTM, GRU and RNN run on |X|, |W|, |R|, |B| and |initial states| (every gate's
/// pre-activation at least as large, no cancellation in the cell update: for LSTM the result
/// bounds |h| and |c| step by step, since sigmoid(|z|) >= sigmoid(z) and tanh(|z|) = |tanh z|).
struct BudgetPlan {
  BudgetScale scale = BudgetScale::kAbsOutput;
  std::vector<char> abs_inputs;
  bool abs_attrs = false;
  std::string no_budget;  ///< why this node's budget cannot be evaluated (e.g. Attention), else empty
};

/// The plan for `node` (its op's budget, runtime/ops/op_list.inc). `n_inputs` is the node's input count.
BudgetPlan PlanBudget(const Node& node, size_t n_inputs);

/// The reduction length K of `node` and, for recurrent ops (LSTM, GRU, RNN), the sequence length
/// `*steps` (1 otherwise), from its inputs' shapes (`inputs[i]`: the node's input i as fed; an
/// empty tensor for an omitted one). Ops whose K is not written out here (Einsum, DFT, STFT, Det,
/// the losses, ...) get the largest input's element count, an upper bound on any reduction.
double ReductionLength(const Node& node, const std::vector<Tensor>& inputs, double* steps);

/// One node's outputs checked against its budget.
struct BudgetCheck {
  bool evaluated = false;     ///< false: see `why`
  std::string why;            ///< why not evaluated (the plan's no_budget, a non-tensor output, ...)
  double k = 1;               ///< K used (ReductionLength)
  double units = 0;           ///< steps * (c0 + cK K), at least 0.5
  double ratio = 0;           ///< max over float outputs and elements of |y - y64| / bound (<= 1: within); +inf for
                              ///< a NaN on one side only or a differing integer/bool element
  int64_t worst_index = -1;   ///< the flat element index of `ratio` in `worst_output`
  std::string worst_output;   ///< the output name (Graph value name) of `ratio`
};

/// Checks `got` (a backend's outputs of `node`, in output order) against `want` (ref64's outputs
/// on the same inputs) with the bound above. `scale_run` is ref64's outputs on the inputs made
/// absolute (PlanBudget) when the plan's scale is kAbsInputs, else empty; `inputs` are the inputs
/// both were given. `graph` names the outputs. Errors: output counts or shapes that differ.
Result<BudgetCheck> CheckBudget(const Graph& graph, const Node& node, const std::vector<Tensor>& inputs,
                                const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                                const std::vector<Tensor>& scale_run);

}  // namespace tare
