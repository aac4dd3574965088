// Resize (ONNX Resize-19): y samples X at transformed coordinates, every axis independently.
// Inputs: X (N-D, rank >= 1), roi (optional, float, [2n] = starts then ends; used only by
// tf_crop_and_resize), scales (optional, float, [n], each > 0), sizes (optional, int64, [n],
// each >= 0), where n = len(axes) when the `axes` attribute is given (Resize-18: entries in
// [-rank, rank-1], negatives count from the back, no repeats; the other axes are not resized), else
// rank. Exactly one of scales/sizes is given; an empty scales or sizes tensor counts as absent
// (exporters write Resize(X, roi, [], sizes)). scales and sizes must be known at plan time.
// Output dims (runtime/ops/resize.h, ResizeGeometryOf): sizes, or floor(in_dim * scale) evaluated in
// float32 as ONNX shape inference and onnxruntime do (the roi factor of the operator text is not
// applied, as in both of them); with keep_aspect_ratio_policy not_larger / not_smaller (Resize-18,
// sizes only) one scale s = min / max of sizes[i] / in_dim over the listed axes, out = round(s *
// in_dim) (halves up; float32, as onnxruntime) and s is every listed axis's scale.
// Attributes and defaults:
//   mode = "nearest" | "linear" (N-linear) | "cubic" (N-cubic, Keys kernel)
//   coordinate_transformation_mode = "half_pixel" (default) | "half_pixel_symmetric" (Resize-19:
//     x_original = offset + (x_resized + 0.5) / scale - 0.5 with offset = length_original / 2 *
//     (1 - length_resized / (length_original * scale))) | "pytorch_half_pixel" | "align_corners" |
//     "asymmetric" | "tf_crop_and_resize" | "tf_half_pixel_for_nn" (Resize-11, kept so Resize-11
//     models pass through: x_original = (x_resized + 0.5) / scale)
//   nearest_mode = "round_prefer_floor" (default) | "round_prefer_ceil" | "floor" | "ceil"
//   cubic_coeff_a = -0.75; exclude_outside = 0 (1: taps outside X get weight 0, the rest are
//   renormalized to sum 1; cubic, and linear with antialias); extrapolation_value = 0
//   (tf_crop_and_resize, x_original outside [0, length_original - 1] on any axis).
//   antialias = 0 | 1 (Resize-18): linear/cubic on an axis with scale < 1 stretch their kernel by
//     1/scale (taps every input index j with |j - x_original| < support / scale, support 1 linear,
//     2 cubic; weight kernel(|j - x_original| * scale), all normalized to sum 1, then indices
//     clamped to the edge). No effect on axes with scale >= 1, nor for nearest.
//   keep_aspect_ratio_policy = "stretch" (default) | "not_larger" | "not_smaller" (Resize-18).
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

#include "runtime/ops/resize.h"
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

Result<ResizeForm> ReadResizeForm(const Node& node) {
  ResizeForm f;
  TARE_ASSIGN_OR_RETURN(f.axes, node.GetInts("axes", {}));
  TARE_ASSIGN_OR_RETURN(std::string policy, node.GetString("keep_aspect_ratio_policy", "stretch"));
  if (policy == "stretch") f.policy = ResizePolicy::kStretch;
  else if (policy == "not_larger") f.policy = ResizePolicy::kNotLarger;
  else if (policy == "not_smaller") f.policy = ResizePolicy::kNotSmaller;
  else
    return Status::Error("attribute 'keep_aspect_ratio_policy' must be one of stretch, not_larger, not_smaller, got '" +
                         policy + "'");
  return f;
}

Result<ResizeGeometry> ResizeGeometryOf(const ResizeForm& form, const Shape& x, const Tensor* roi, const Tensor* scales,
                                        const Tensor* sizes) {
  const int64_t rank = static_cast<int64_t>(x.size());
  const size_t r = x.size();
  // The resized axes, normalized; n = how many entries scales / sizes / roi's halves have.
  std::vector<int64_t> axes;
  if (form.axes.empty()) {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  } else {
    std::vector<char> seen(r, 0);
    for (int64_t a : form.axes) {
      if (a < -rank || a >= rank)
        return Status::Error("attribute 'axes' value " + std::to_string(a) + " is out of range [" +
                             std::to_string(-rank) + ", " + std::to_string(rank - 1) + "]");
      const int64_t d = a < 0 ? a + rank : a;
      if (seen[static_cast<size_t>(d)]) return Status::Error("attribute 'axes' repeats axis " + std::to_string(d));
      seen[static_cast<size_t>(d)] = 1;
      axes.push_back(d);
    }
  }
  const int64_t n = static_cast<int64_t>(axes.size());
  const std::string per = form.axes.empty() ? " (rank of X)" : " (length of 'axes')";
  ResizeGeometry g;
  g.out = x;
  g.scale.assign(r, 1.0);
  g.width.resize(r);
  for (size_t d = 0; d < r; ++d) g.width[d] = static_cast<double>(x[d]);
  g.roi_start.assign(r, 0.0);
  g.roi_end.assign(r, 1.0);
  if ((scales == nullptr) == (sizes == nullptr)) return Status::Error("give exactly one of 'scales' and 'sizes'");
  if (scales) {
    if (!DTypeIsFloat(scales->dtype)) return Status::Error("input 'scales' must be float, got " + DTypeName(scales->dtype));
    if (scales->shape != Shape{n})
      return Status::Error("input 'scales' must have shape [" + std::to_string(n) + "]" + per + ", got " +
                           ShapeStr(scales->shape));
    for (int64_t i = 0; i < n; ++i) {
      const size_t d = static_cast<size_t>(axes[static_cast<size_t>(i)]);
      const float scale = static_cast<float>(ReadDouble(*scales, i));
      if (!(scale > 0) || !std::isfinite(scale))
        return Status::Error("scales[" + std::to_string(i) + "] must be positive and finite, got " + std::to_string(scale));
      const float dim = std::floor(static_cast<float>(x[d]) * scale);  // float32, as ONNX/onnxruntime
      if (!(dim <= static_cast<float>(kMaxElements)))
        return Status::Error("scales[" + std::to_string(i) + "] makes output dim " + std::to_string(d) + " too large");
      g.out[d] = static_cast<int64_t>(dim);
      g.scale[d] = ReadDouble(*scales, i);
      g.width[d] = static_cast<double>(x[d]) * g.scale[d];
    }
  } else {
    if (DTypeIsFloat(sizes->dtype) || sizes->dtype == DType::kBool)
      return Status::Error("input 'sizes' must be an integer tensor, got " + DTypeName(sizes->dtype));
    if (sizes->shape != Shape{n})
      return Status::Error("input 'sizes' must have shape [" + std::to_string(n) + "]" + per + ", got " +
                           ShapeStr(sizes->shape));
    std::vector<int64_t> sz(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      sz[static_cast<size_t>(i)] = ReadInt(*sizes, i);
      if (sz[static_cast<size_t>(i)] < 0)
        return Status::Error("sizes[" + std::to_string(i) + "] must be >= 0, got " + std::to_string(sz[static_cast<size_t>(i)]));
    }
    if (form.policy == ResizePolicy::kStretch) {
      for (int64_t i = 0; i < n; ++i) {
        const size_t d = static_cast<size_t>(axes[static_cast<size_t>(i)]);
        g.out[d] = sz[static_cast<size_t>(i)];
        g.scale[d] = x[d] > 0 ? static_cast<double>(g.out[d]) / static_cast<double>(x[d]) : 1.0;
        g.width[d] = static_cast<double>(g.out[d]);
      }
    } else {
      // One float32 scale for every listed axis (as onnxruntime computes it); 0-length axes take no part.
      const bool larger = form.policy == ResizePolicy::kNotSmaller;
      float s = 0;
      bool any = false;
      for (int64_t i = 0; i < n; ++i) {
        const size_t d = static_cast<size_t>(axes[static_cast<size_t>(i)]);
        if (x[d] == 0) continue;
        const float ratio = static_cast<float>(sz[static_cast<size_t>(i)]) / static_cast<float>(x[d]);
        if (!any || (larger ? ratio > s : ratio < s)) s = ratio;
        any = true;
      }
      for (int64_t i = 0; i < n && any; ++i) {
        const size_t d = static_cast<size_t>(axes[static_cast<size_t>(i)]);
        if (x[d] == 0) continue;
        const float dim = std::round(s * static_cast<float>(x[d]));  // halves away from zero (up: dim >= 0)
        if (!(dim <= static_cast<float>(kMaxElements)))
          return Status::Error("sizes with keep_aspect_ratio_policy make output dim " + std::to_string(d) + " too large");
        g.out[d] = static_cast<int64_t>(dim);
        g.scale[d] = s > 0 ? static_cast<double>(s) : 1.0;  // s == 0: every listed dim is 0 (nothing computed)
        g.width[d] = static_cast<double>(x[d]) * static_cast<double>(s);
      }
    }
  }
  if (roi) {
    if (!DTypeIsFloat(roi->dtype)) return Status::Error("input 'roi' must be float, got " + DTypeName(roi->dtype));
    if (roi->shape != Shape{2 * n})
      return Status::Error("input 'roi' must have shape [" + std::to_string(2 * n) + "] (2 * " +
                           (form.axes.empty() ? "rank of X" : "length of 'axes'") + "), got " + ShapeStr(roi->shape));
    for (int64_t i = 0; i < n; ++i) {
      const size_t d = static_cast<size_t>(axes[static_cast<size_t>(i)]);
      g.roi_start[d] = ReadDouble(*roi, i);
      g.roi_end[d] = ReadDouble(*roi, n + i);
    }
  }
  for (size_t d = 0; d < r; ++d)
    if (x[d] == 0 && g.out[d] > 0)
      return Status::Error("cannot resize axis " + std::to_string(d) + " of length 0 to length " + std::to_string(g.out[d]));
  return g;
}

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
                                  {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
                                   "asymmetric", "tf_crop_and_resize", "tf_half_pixel_for_nn"}));
  TARE_RETURN_IF_ERROR(
      CheckOneOf(ctx, "nearest_mode", nearest, {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}));
  if (exclude != 0 && exclude != 1)
    return ctx.Error("attribute 'exclude_outside' must be 0 or 1, got " + std::to_string(exclude));
  TARE_ASSIGN_OR_RETURN(int64_t antialias, node.GetInt("antialias", 0));
  if (antialias != 0 && antialias != 1)
    return ctx.Error("attribute 'antialias' must be 0 or 1, got " + std::to_string(antialias));
  Result<ResizeForm> form = ReadResizeForm(node);
  if (!form.ok()) return ctx.Error(form.status().message());
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
  if (crop && !ctx.has(1))
    return ctx.Error("input 'roi' is required by coordinate_transformation_mode tf_crop_and_resize");
  auto non_empty = [&](size_t i) {
    if (!ctx.has(i)) return false;
    Result<int64_t> n = NumElements(ctx.in[i].shape);
    return !n.ok() || *n != 0;
  };
  const bool has_scales = non_empty(2), has_sizes = non_empty(3);
  if (has_scales == has_sizes)
    return ctx.Error(has_scales ? "give either 'scales' or 'sizes', not both" : "one of 'scales' or 'sizes' is required");
  // roi: only its type and shape are checked here (its values may come at run time).
  if (crop && !DTypeIsFloat(ctx.in[1].dtype))
    return ctx.Error("input 'roi' must be float, got " + DTypeName(ctx.in[1].dtype));
  const Tensor* scales = nullptr;
  const Tensor* sizes = nullptr;
  if (has_scales) {
    TARE_ASSIGN_OR_RETURN(scales, ctx.Known(2, "scales"));
  } else {
    TARE_ASSIGN_OR_RETURN(sizes, ctx.Known(3, "sizes"));
  }
  Result<ResizeGeometry> g = ResizeGeometryOf(*form, x.shape, nullptr, scales, sizes);
  if (!g.ok()) return ctx.Error(g.status().message());
  if (crop) {
    const int64_t n = form->axes.empty() ? rank : static_cast<int64_t>(form->axes.size());
    if (ctx.in[1].shape != Shape{2 * n})
      return ctx.Error("input 'roi' must have shape [" + std::to_string(2 * n) + "] (2 * " +
                       (form->axes.empty() ? "rank of X" : "length of 'axes'") + "), got " + ShapeStr(ctx.in[1].shape));
  }
  ctx.SetOut(0, x.dtype, g->out);
  return Status::Ok();
}

}  // namespace tare
