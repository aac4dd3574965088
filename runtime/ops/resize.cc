// Resize (ONNX Resize-13): y samples X at transformed coordinates, every axis independently.
// Inputs: X (N-D, rank >= 1), roi (optional, float, [2*rank] = starts then ends; used only by
// tf_crop_and_resize), scales (optional, float, [rank], each > 0), sizes (optional, int64, [rank],
// each >= 0). Exactly one of scales/sizes is given; an empty scales or sizes tensor counts as
// absent (exporters write Resize(X, roi, [], sizes)). scales and sizes must be known at plan time.
// Output dims: sizes, or floor(in_dim * scale) evaluated in float32 as ONNX shape inference and
// onnxruntime do (the roi factor of the operator text is not applied, as in both of them).
// Attributes and defaults:
//   mode = "nearest" | "linear" (N-linear) | "cubic" (N-cubic, Keys kernel)
//   coordinate_transformation_mode = "half_pixel" (default) | "pytorch_half_pixel" |
//     "align_corners" | "asymmetric" | "tf_crop_and_resize" | "tf_half_pixel_for_nn" (Resize-11,
//     kept so Resize-11 models pass through: x_original = (x_resized + 0.5) / scale)
//   nearest_mode = "round_prefer_floor" (default) | "round_prefer_ceil" | "floor" | "ceil"
//   cubic_coeff_a = -0.75; exclude_outside = 0 (1: taps outside X get weight 0, the rest are
//   renormalized to sum 1); extrapolation_value = 0 (tf_crop_and_resize, x_original outside
//   [0, length_original - 1] on any axis).
// Coordinates (x_original) are computed in double for both `ref` and `ref64` from the float32
// scale as given (scale = out/in when sizes are given) and length_resized = the output dim (as the
// operator text and onnxruntime; the ONNX reference script uses in_dim * scale instead, which
// differs only for align_corners / tf_crop_and_resize with non-integral in_dim * scale).
// length_resized == 1 gives x_original = 0 for pytorch_half_pixel and align_corners.
// Sampling: nearest rounds x_original per nearest_mode (an integral x_original is exact) and clamps
// to [0, in-1]; linear uses taps floor(x), floor(x)+1 and cubic floor(x)-1 .. floor(x)+2, indices
// clamped to [0, in-1] (edge padding). Axes are combined as nested 1-D interpolations (the last
// axis innermost), as in the ONNX reference. Nearest accepts any dtype; linear/cubic need float.
#include <cmath>

#include "runtime/ops/specs.h"

namespace tare {
namespace {

Status CheckOneOf(const InferContext& ctx, const char* attr, const std::string& v,
                  std::initializer_list<const char*> allowed) {
  std::string list;
  for (const char* a : allowed) {
    if (v == a) return Status::Ok();
    list += list.empty() ? a : std::string(", ") + a;
  }
  return ctx.Error(std::string("attribute '") + attr + "' must be one of " + list + ", got '" + v + "'");
}

}  // namespace

Status InferResize(InferContext& ctx) {
  const Node& node = ctx.node;
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 4));
  const ValueInfo& x = ctx.in[0];
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0) return ctx.Error("input X must have rank >= 1");
  TARE_ASSIGN_OR_RETURN(std::string mode, node.GetString("mode", "nearest"));
  TARE_ASSIGN_OR_RETURN(std::string ctm, node.GetString("coordinate_transformation_mode", "half_pixel"));
  TARE_ASSIGN_OR_RETURN(std::string nearest, node.GetString("nearest_mode", "round_prefer_floor"));
  TARE_ASSIGN_OR_RETURN(int64_t exclude, node.GetInt("exclude_outside", 0));
  TARE_ASSIGN_OR_RETURN(float cubic_a, node.GetFloat("cubic_coeff_a", -0.75f));
  TARE_ASSIGN_OR_RETURN(float extrapolation, node.GetFloat("extrapolation_value", 0.0f));
  TARE_RETURN_IF_ERROR(CheckOneOf(ctx, "mode", mode, {"nearest", "linear", "cubic"}));
  TARE_RETURN_IF_ERROR(CheckOneOf(ctx, "coordinate_transformation_mode", ctm,
                                  {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                   "tf_crop_and_resize", "tf_half_pixel_for_nn"}));  // not half_pixel_symmetric (Resize-19)
  TARE_RETURN_IF_ERROR(
      CheckOneOf(ctx, "nearest_mode", nearest, {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}));
  if (exclude != 0 && exclude != 1)
    return ctx.Error("attribute 'exclude_outside' must be 0 or 1, got " + std::to_string(exclude));
  // Resize-18/19 forms tare does not compute yet: refused by name rather than resized without them.
  TARE_ASSIGN_OR_RETURN(int64_t antialias, node.GetInt("antialias", 0));
  TARE_ASSIGN_OR_RETURN(std::string policy, node.GetString("keep_aspect_ratio_policy", "stretch"));
  if (antialias != 0 && mode != "nearest")
    return ctx.Error("attribute 'antialias' = 1 (Resize-18) is not supported");
  if (policy != "stretch")
    return ctx.Error("attribute 'keep_aspect_ratio_policy' = '" + policy + "' (Resize-18) is not supported; only 'stretch'");
  if (node.has("axes")) return ctx.Error("attribute 'axes' (Resize-18) is not supported; give scales or sizes for every axis");
  if (!std::isfinite(cubic_a)) return ctx.Error("attribute 'cubic_coeff_a' must be finite");
  if (mode != "nearest" && x.dtype != DType::kFloat32 && x.dtype != DType::kFloat64)
    return ctx.Error("mode '" + mode + "' needs a float32 or float64 X, got " + DTypeName(x.dtype));
  if (DTypeSize(x.dtype) == 0) return ctx.Error("input X type " + DTypeName(x.dtype) + " is not supported");
  const bool crop = ctm == "tf_crop_and_resize";
  if (crop && !DTypeIsFloat(x.dtype) && x.dtype != DType::kBool) {
    // The extrapolation value is converted to X's integer type: it must fit.
    const bool is_signed = x.dtype == DType::kInt8 || x.dtype == DType::kInt16 || x.dtype == DType::kInt32 ||
                           x.dtype == DType::kInt64;
    const double bits = 8.0 * static_cast<double>(DTypeSize(x.dtype));
    const double lo = is_signed ? -std::ldexp(1.0, static_cast<int>(bits) - 1) : 0.0;
    const double hi = std::ldexp(1.0, static_cast<int>(bits) - (is_signed ? 1 : 0));
    const double t = std::trunc(static_cast<double>(extrapolation));
    if (!(t >= lo && t < hi))
      return ctx.Error("attribute 'extrapolation_value' " + std::to_string(extrapolation) +
                       " does not fit X's type " + DTypeName(x.dtype));
  }
  if (crop) {
    if (!ctx.has(1)) return ctx.Error("input 'roi' is required by coordinate_transformation_mode tf_crop_and_resize");
    if (!DTypeIsFloat(ctx.in[1].dtype)) return ctx.Error("input 'roi' must be float, got " + DTypeName(ctx.in[1].dtype));
    if (ctx.in[1].shape != Shape{2 * rank})
      return ctx.Error("input 'roi' must have shape [" + std::to_string(2 * rank) + "] (2 * rank of X), got " +
                       ShapeStr(ctx.in[1].shape));
  }
  auto non_empty = [&](size_t i) {
    if (!ctx.has(i)) return false;
    Result<int64_t> n = NumElements(ctx.in[i].shape);
    return !n.ok() || *n != 0;
  };
  const bool has_scales = non_empty(2), has_sizes = non_empty(3);
  if (has_scales == has_sizes)
    return ctx.Error(has_scales ? "give either 'scales' or 'sizes', not both" : "one of 'scales' or 'sizes' is required");
  Shape out(static_cast<size_t>(rank));
  if (has_scales) {
    TARE_ASSIGN_OR_RETURN(const Tensor* s, ctx.Known(2, "scales"));
    if (!DTypeIsFloat(s->dtype)) return ctx.Error("input 'scales' must be float, got " + DTypeName(s->dtype));
    if (s->shape != Shape{rank})
      return ctx.Error("input 'scales' must have shape [" + std::to_string(rank) + "], got " + ShapeStr(s->shape));
    for (int64_t d = 0; d < rank; ++d) {
      const float scale = static_cast<float>(ReadDouble(*s, d));
      if (!(scale > 0) || !std::isfinite(scale))
        return ctx.Error("scales[" + std::to_string(d) + "] must be positive and finite, got " + std::to_string(scale));
      const float dim = std::floor(static_cast<float>(x.shape[d]) * scale);  // float32, as ONNX/onnxruntime
      if (!(dim <= static_cast<float>(kMaxElements)))
        return ctx.Error("scales[" + std::to_string(d) + "] makes output dim " + std::to_string(d) + " too large");
      out[d] = static_cast<int64_t>(dim);
    }
  } else {
    TARE_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ctx.KnownInts(3, "sizes"));
    if (static_cast<int64_t>(sizes.size()) != rank || ctx.in[3].shape.size() != 1)
      return ctx.Error("input 'sizes' must have shape [" + std::to_string(rank) + "], got " + ShapeStr(ctx.in[3].shape));
    for (int64_t d = 0; d < rank; ++d) {
      if (sizes[d] < 0) return ctx.Error("sizes[" + std::to_string(d) + "] must be >= 0, got " + std::to_string(sizes[d]));
      out[d] = sizes[d];
    }
  }
  for (int64_t d = 0; d < rank; ++d)
    if (x.shape[d] == 0 && out[d] > 0)
      return ctx.Error("cannot resize axis " + std::to_string(d) + " of length 0 to length " + std::to_string(out[d]));
  ctx.SetOut(0, x.dtype, out);
  return Status::Ok();
}

}  // namespace tare
