// Optimizer family: Adagrad, Adam, Momentum (ONNX ai.onnx.preview.training Adagrad-1, Adam-1,
// Momentum-1): one training step for k tensors, applied to each tensor independently.
// Inputs: R (learning rate: float32/float64, one value), T (update count: int64, one value), then
// X_1..X_k, G_1..G_k (gradients) and the states: H_1..H_k (Adagrad: accumulated squared
// gradients), V_1..V_k then H_1..H_k (Adam: averaged gradients and squared gradients), V_1..V_k
// (Momentum: momenta). Outputs: X_new_1..k followed by the new states in the same order (any of
// them may be omitted, trailing ones by leaving them out of the node's output list). Every X_i is
// float32 or float64; G_i and its states have X_i's dtype and shape (tare does not broadcast
// them); each output has X_i's dtype and shape.
// With g = norm_coefficient * X + G, elementwise:
//   Adagrad: r = R / (1 + T decay_factor); H' = H + g g; X' = X - r g / (sqrt(H') + epsilon).
//     Attributes decay_factor=0, epsilon=1e-6, norm_coefficient=0.
//   Adam: V' = alpha V + (1 - alpha) g; H' = beta H + (1 - beta) g g;
//     r = T > 0 ? R sqrt(1 - beta^T) / (1 - alpha^T) : R;
//     X' = (1 - norm_coefficient_post) (X - r V' / (sqrt(H') + epsilon)).
//     Attributes alpha=0.9, beta=0.999, epsilon=1e-6, norm_coefficient=0, norm_coefficient_post=0.
//   Momentum: b = T > 0 ? beta : 1; V' = alpha V + b g; X' = X - R V' (mode "standard") or
//     X' = X - R (g + alpha V') (mode "nesterov").
//     Attributes alpha, beta, mode and norm_coefficient are all required.
// Values: see kernels/ref/optimizer.cc.
#include <string>
#include <vector>

#include "runtime/ops/specs.h"

namespace tare {

Status InferOptimizer(InferContext& ctx) {
  const std::string& op = ctx.node.op;
  const int64_t states = op == "Adam" ? 2 : 1;
  const int64_t per = 2 + states;  // X, G and the states
  const int64_t n_in = static_cast<int64_t>(ctx.in.size());
  for (int64_t i = 0; i < n_in; ++i)
    if (!ctx.has(static_cast<size_t>(i)))
      return ctx.Error("input " + std::to_string(i) + " is missing (all inputs are required)");
  if (n_in < 2 + per || (n_in - 2) % per != 0)
    return ctx.Error("expected R, T and " + std::to_string(per) + " tensors per optimized tensor, got " +
                     std::to_string(n_in) + " inputs");
  const int64_t k = (n_in - 2) / per;
  if (static_cast<int64_t>(ctx.out.size()) > (1 + states) * k)
    return ctx.Error("expected at most " + std::to_string((1 + states) * k) + " outputs for " + std::to_string(k) +
                     " optimized tensors, got " + std::to_string(ctx.out.size()));
  const ValueInfo& r = ctx.in[0];
  const ValueInfo& t = ctx.in[1];
  if (r.dtype != DType::kFloat32 && r.dtype != DType::kFloat64)
    return ctx.Error("input R must be float32 or float64, got " + DTypeName(r.dtype));
  TARE_ASSIGN_OR_RETURN(int64_t rn, NumElements(r.shape));
  if (rn != 1) return ctx.Error("input R must hold exactly one value, got shape " + ShapeStr(r.shape));
  if (t.dtype != DType::kInt64) return ctx.Error("input T must be int64, got " + DTypeName(t.dtype));
  TARE_ASSIGN_OR_RETURN(int64_t tn, NumElements(t.shape));
  if (tn != 1) return ctx.Error("input T must hold exactly one value, got shape " + ShapeStr(t.shape));
  if (op == "Momentum") {
    for (const char* a : {"alpha", "beta", "mode", "norm_coefficient"})
      if (!ctx.node.has(a)) return ctx.Error(std::string("attribute '") + a + "' is required");
    TARE_ASSIGN_OR_RETURN(std::string mode, ctx.node.GetString("mode", ""));
    if (mode != "standard" && mode != "nesterov")
      return ctx.Error("attribute 'mode' must be 'standard' or 'nesterov', got '" + mode + "'");
    for (const char* a : {"alpha", "beta", "norm_coefficient"}) TARE_RETURN_IF_ERROR(ctx.node.GetFloat(a, 0).status());
  } else if (op == "Adagrad") {
    for (const char* a : {"decay_factor", "epsilon", "norm_coefficient"})
      TARE_RETURN_IF_ERROR(ctx.node.GetFloat(a, 0).status());
  } else {
    for (const char* a : {"alpha", "beta", "epsilon", "norm_coefficient", "norm_coefficient_post"})
      TARE_RETURN_IF_ERROR(ctx.node.GetFloat(a, 0).status());
  }
  // Names of the inputs that follow X_i (for messages).
  const std::vector<std::string> names = op == "Adam"      ? std::vector<std::string>{"G", "V", "H"}
                                         : op == "Adagrad" ? std::vector<std::string>{"G", "H"}
                                                           : std::vector<std::string>{"G", "V"};
  for (int64_t i = 0; i < k; ++i) {
    const ValueInfo& x = ctx.in[static_cast<size_t>(2 + i)];
    const std::string xi = "X_" + std::to_string(i + 1);
    if (x.dtype != DType::kFloat32 && x.dtype != DType::kFloat64)
      return ctx.Error("input " + xi + " must be float32 or float64, got " + DTypeName(x.dtype));
    for (int64_t j = 1; j < per; ++j) {
      const ValueInfo& v = ctx.in[static_cast<size_t>(2 + j * k + i)];
      const std::string name = names[static_cast<size_t>(j - 1)] + "_" + std::to_string(i + 1);
      if (v.dtype != x.dtype || v.shape != x.shape)
        return ctx.Error("input " + name + " (" + DTypeName(v.dtype) + " " + ShapeStr(v.shape) + ") must have " + xi +
                         "'s type and shape (" + DTypeName(x.dtype) + " " + ShapeStr(x.shape) + ")");
    }
    for (int64_t j = 0; j <= states; ++j) ctx.SetOut(static_cast<size_t>(j * k + i), x.dtype, x.shape);
  }
  return Status::Ok();
}

}  // namespace tare
