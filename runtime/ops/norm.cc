// Normalizations (BatchNormalization, InstanceNormalization, LayerNormalization: all inputs and
// outputs float32; LRN, MeanVarianceNormalization, LpNormalization: float32 or float64, y has x's
// shape and dtype).
//   BatchNormalization (ONNX BatchNormalization-15, inference mode): inputs X (N, C, D1..Dn), n >= 0,
//     scale, B, input_mean, input_var (each (C)); y = (x - mean[c]) / sqrt(var[c] + epsilon)
//     * scale[c] + B[c]. Attributes: epsilon=1e-5; momentum (ignored); training_mode=0 (1 is
//     rejected). Only output Y (the training outputs running_mean/var are rejected).
//   InstanceNormalization (ONNX InstanceNormalization-6): input (N, C, D1..Dn), n >= 1, scale (C),
//     B (C); per (n, c): mean and population variance over the spatial elements, then
//     y = (x - mean) / sqrt(var + epsilon) * scale[c] + B[c]. Attribute epsilon=1e-5.
//   LayerNormalization (ONNX LayerNormalization-17): X (rank r >= 1), Scale, optional B; over the
//     normalized block X[..., axis:] (K elements): Mean, Var (population), InvStdDev =
//     1 / sqrt(Var + epsilon), y = (x - Mean) * InvStdDev * Scale + B. Scale and B broadcast
//     to X.shape[axis:] (numpy rules; their dims aligned with axes before `axis` must be 1).
//     Attributes: axis=-1 (in [-r, r)), epsilon=1e-5, stash_type=1 (only 1, float32, is
//     supported). Optional outputs Mean and InvStdDev: float32, shape X.shape[:axis] + [1]*(r-axis).
//   GroupNormalization (ONNX GroupNormalization-21; -18): X (N, C, D1..Dn), n >= 0, scale and bias
//     of shape (C) (-21: per channel) or (num_groups) (-18: per group; the converter keeps the
//     model's, the shapes tell them apart, and they agree when num_groups == C); per (n, group of
//     C / num_groups consecutive channels): mean and population variance over the group's
//     channels and spatial elements, y = (x - mean) / sqrt(var + epsilon) * scale + bias.
//     Attributes: num_groups (required, >= 1, divides C), epsilon=1e-5, stash_type=1 (only 1).
//   RMSNormalization (ONNX RMSNormalization-23): X (rank r >= 1), scale broadcast to
//     X.shape[axis:] as LayerNormalization's; per normalized block of K elements:
//     y = x / sqrt(sum(x^2) / K + epsilon) * scale. Attributes: axis=-1, epsilon=1e-5,
//     stash_type=1 (only 1).
//   LRN (ONNX LRN-13): X (N, C, D1..Dn), n >= 0; across channels, with the window
//     [max(0, c - floor((size-1)/2)), min(C-1, c + ceil((size-1)/2))]:
//     y = x / (bias + alpha / size * sum_window x^2) ^ beta. Attributes: size (required, >= 1),
//     alpha=1e-4, beta=0.75, bias=1.
//   MeanVarianceNormalization (ONNX MeanVarianceNormalization-13, its function body): over the
//     dims in `axes` (default [0, 2, 3]; each in [-r, r), no duplicates): y = (x - mean) /
//     (sqrt(var) + 1e-9), var the population variance (the body's E[x^2] - E[x]^2, computed
//     two-pass; the 1e-9 keeps a constant slice at 0 instead of 0/0).
//   LpNormalization (ONNX LpNormalization-1): along `axis` (default -1, in [-r, r)):
//     y = x / ||x||_p with p (default 2) 1 or 2; an all-zero slice gives 0/0 = NaN.
// Mean and variance are two-pass: mean = (sum of x in index order) / K, then
// var = (sum of (x - mean)^2 in index order) / K.
#include <cmath>

#include "runtime/ops/specs.h"

namespace tare {
namespace {

/// Reads `epsilon` (default 1e-5), which must be finite and >= 0.
Status CheckEpsilon(const InferContext& ctx) {
  TARE_ASSIGN_OR_RETURN(float eps, ctx.node.GetFloat("epsilon", 1e-5f));
  if (!(eps >= 0) || eps > 3.4e38f) return ctx.Error("attribute 'epsilon' must be finite and >= 0, got " + std::to_string(eps));
  return Status::Ok();
}

/// Shape inference of LRN, MeanVarianceNormalization and LpNormalization.
Status InferElementwiseNorm(InferContext& ctx) {
  const std::string& op = ctx.node.op;
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  const ValueInfo& x = ctx.in[0];
  if (x.dtype != DType::kFloat32 && x.dtype != DType::kFloat64)
    return ctx.Error("input must be float32 or float64, got " + DTypeName(x.dtype));
  const int64_t r = static_cast<int64_t>(x.shape.size());
  if (op == "LRN") {
    if (r < 2) return ctx.Error("X must have rank >= 2 (N, C, ...), got shape " + ShapeStr(x.shape));
    if (!ctx.node.has("size")) return ctx.Error("attribute 'size' is required");
    TARE_ASSIGN_OR_RETURN(int64_t size, ctx.node.GetInt("size", 1));
    if (size < 1) return ctx.Error("attribute 'size' must be >= 1, got " + std::to_string(size));
    for (const char* a : {"alpha", "beta", "bias"}) {
      TARE_ASSIGN_OR_RETURN(float v, ctx.node.GetFloat(a, 0.0f));
      if (!std::isfinite(v)) return ctx.Error(std::string("attribute '") + a + "' must be finite");
    }
  } else if (op == "MeanVarianceNormalization") {
    TARE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.node.GetInts("axes", {0, 2, 3}));
    std::vector<bool> seen(static_cast<size_t>(r), false);
    for (int64_t a : axes) {
      TARE_ASSIGN_OR_RETURN(int64_t n, NormalizeAxis(a, r, ctx, "axis in 'axes'"));
      if (seen[static_cast<size_t>(n)]) return ctx.Error("axis " + std::to_string(a) + " is repeated in 'axes'");
      seen[static_cast<size_t>(n)] = true;
    }
  } else {  // LpNormalization
    if (r < 1) return ctx.Error("input must have rank >= 1, got a scalar");
    TARE_ASSIGN_OR_RETURN(int64_t axis, ctx.node.GetInt("axis", -1));
    TARE_RETURN_IF_ERROR(NormalizeAxis(axis, r, ctx, "attribute 'axis'").status());
    TARE_ASSIGN_OR_RETURN(int64_t p, ctx.node.GetInt("p", 2));
    if (p != 1 && p != 2) return ctx.Error("attribute 'p' must be 1 or 2, got " + std::to_string(p));
  }
  ctx.SetOut(0, x.dtype, x.shape);
  return Status::Ok();
}

}  // namespace

Status InferNorm(InferContext& ctx) {
  const std::string& op = ctx.node.op;
  if (op == "LRN" || op == "MeanVarianceNormalization" || op == "LpNormalization") return InferElementwiseNorm(ctx);
  TARE_RETURN_IF_ERROR(CheckEpsilon(ctx));
  if (op == "GroupNormalization") {
    TARE_RETURN_IF_ERROR(ctx.ExpectInputs(3, 3));
    TARE_RETURN_IF_ERROR(ctx.ExpectFloat32({"X", "scale", "bias"}));
    const Shape& x = ctx.in[0].shape;
    if (x.size() < 2) return ctx.Error("X must have rank >= 2 (N, C, ...), got shape " + ShapeStr(x));
    if (!ctx.node.has("num_groups")) return ctx.Error("attribute 'num_groups' is required");
    TARE_ASSIGN_OR_RETURN(int64_t groups, ctx.node.GetInt("num_groups", 0));
    TARE_ASSIGN_OR_RETURN(int64_t stash, ctx.node.GetInt("stash_type", 1));
    if (stash != 1) return ctx.Error("attribute 'stash_type' must be 1 (float32), got " + std::to_string(stash));
    if (groups < 1 || x[1] % groups != 0)
      return ctx.Error("attribute 'num_groups' = " + std::to_string(groups) + " must be >= 1 and divide C = " +
                       std::to_string(x[1]));
    for (size_t i : {1, 2})
      if (ctx.in[i].shape != Shape{x[1]} && ctx.in[i].shape != Shape{groups})
        return ctx.Error(std::string("input ") + (i == 1 ? "scale" : "bias") + " must have shape [" + std::to_string(x[1]) +
                         "] (per channel, GroupNormalization-21) or [" + std::to_string(groups) +
                         "] (per group, -18), got " + ShapeStr(ctx.in[i].shape));
    ctx.SetOut(0, DType::kFloat32, x);
    return Status::Ok();
  }
  if (op == "LayerNormalization" || op == "RMSNormalization") {
    const bool rms = op == "RMSNormalization";
    TARE_RETURN_IF_ERROR(rms ? ctx.ExpectInputs(2, 2) : ctx.ExpectInputs(2, 3));
    const char* names[] = {"X", rms ? "scale" : "Scale", "B"};
    TARE_RETURN_IF_ERROR(ctx.ExpectFloat32({names[0], names[1], names[2]}));
    const Shape& x = ctx.in[0].shape;
    const int64_t r = static_cast<int64_t>(x.size());
    if (r < 1) return ctx.Error("X must have rank >= 1, got a scalar");
    TARE_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.node.GetInt("axis", -1));
    TARE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, r, ctx, "attribute 'axis'"));
    TARE_ASSIGN_OR_RETURN(int64_t stash, ctx.node.GetInt("stash_type", 1));
    if (stash != 1) return ctx.Error("attribute 'stash_type' must be 1 (float32), got " + std::to_string(stash));
    for (size_t i = 1; i < 3; ++i) {
      if (!ctx.has(i)) continue;
      const Shape& s = ctx.in[i].shape;
      bool ok = s.size() <= x.size();
      for (size_t j = 0; ok && j < s.size(); ++j) {
        const size_t xd = x.size() - s.size() + j;  // X dim aligned with s[j]
        const int64_t sd = s[j];
        ok = sd == 1 || (sd == x[xd] && static_cast<int64_t>(xd) >= axis);
      }
      if (!ok)
        return ctx.Error(std::string("input ") + names[i] + " of shape " + ShapeStr(s) +
                         " does not broadcast to the normalized shape of X " + ShapeStr(x) + " from axis " +
                         std::to_string(axis));
    }
    ctx.SetOut(0, DType::kFloat32, x);
    if (rms) return Status::Ok();
    Shape stat(x.begin(), x.begin() + axis);
    stat.resize(x.size(), 1);
    ctx.SetOut(1, DType::kFloat32, stat);
    ctx.SetOut(2, DType::kFloat32, stat);
    return Status::Ok();
  }
  const bool bn = op == "BatchNormalization";
  TARE_RETURN_IF_ERROR(bn ? ctx.ExpectInputs(5, 5) : ctx.ExpectInputs(3, 3));
  const char* bn_names[] = {"X", "scale", "B", "input_mean", "input_var"};
  const char* in_names[] = {"input", "scale", "B"};
  const size_t n_in = bn ? 5 : 3;
  TARE_RETURN_IF_ERROR(bn ? ctx.ExpectFloat32({bn_names[0], bn_names[1], bn_names[2], bn_names[3], bn_names[4]})
                          : ctx.ExpectFloat32({in_names[0], in_names[1], in_names[2]}));
  const Shape& x = ctx.in[0].shape;
  if (x.size() < (bn ? 2u : 3u))
    return ctx.Error(std::string(bn ? "X" : "input") + " must have rank >= " + (bn ? "2" : "3") +
                     " (N, C" + (bn ? ", ..." : ", D1, ...") + "), got shape " + ShapeStr(x));
  for (size_t i = 1; i < n_in; ++i)
    if (ctx.in[i].shape != Shape{x[1]})
      return ctx.Error(std::string("input ") + (bn ? bn_names[i] : in_names[i]) + " must have shape [" +
                       std::to_string(x[1]) + "] (the channel count), got " + ShapeStr(ctx.in[i].shape));
  if (bn) {
    TARE_ASSIGN_OR_RETURN(int64_t training, ctx.node.GetInt("training_mode", 0));
    if (training != 0)
      return ctx.Error("attribute 'training_mode' must be 0 (inference), got " + std::to_string(training));
    for (size_t i = 1; i < ctx.node.outputs.size(); ++i)
      if (ctx.node.outputs[i] >= 0)
        return ctx.Error("output " + std::to_string(i) + " (training statistics) is not supported in inference mode");
  }
  ctx.SetOut(0, DType::kFloat32, x);
  return Status::Ok();
}

}  // namespace tare
