// Resize's geometry (ONNX Resize-19: axes, keep_aspect_ratio_policy, scales or sizes, roi), shared
// by shape inference (runtime/ops/resize.cc) and the reference kernel (kernels/ref/resize.cc), which
// must agree on the output dims and on the scale each axis's coordinate transformation divides by.
#pragma once
#include <cstdint>
#include <vector>

#include "runtime/ir/graph.h"

namespace tare {

/// keep_aspect_ratio_policy of Resize-18/19 (applies to `sizes` only; ignored with `scales`).
enum class ResizePolicy { kStretch, kNotLarger, kNotSmaller };

/// The Resize-18 attributes that decide which axes are resized and how `sizes` is read.
struct ResizeForm {
  std::vector<int64_t> axes;  ///< the `axes` attribute as written (negatives allowed); empty: every axis
  ResizePolicy policy = ResizePolicy::kStretch;
};

/// Reads `axes` and `keep_aspect_ratio_policy` of a Resize node (an empty `axes` list counts as
/// absent, as onnxruntime reads it). Errors (plain messages, the caller prefixes the node): a policy
/// other than stretch / not_larger / not_smaller.
Result<ResizeForm> ReadResizeForm(const Node& node);

/// Per axis of X (rank r): Y's dim, the scale of the coordinate transformation, the fractional
/// output length in * scale (half_pixel_symmetric's output_width) and the roi (start, end).
struct ResizeGeometry {
  Shape out;
  std::vector<double> scale, width, roi_start, roi_end;
};

/// The geometry of Resize-19 for X of shape `x` (rank >= 1) given `scales` (float, [n]) or `sizes`
/// (integer, [n]) — exactly one non-null — where n = len(axes), or r when `axes` is absent; `roi`
/// (float, [2n]: starts then ends) or nullptr (start 0, end 1). Axes not in `axes` keep their dim
/// with scale 1. With scales: out = floor(in * scale) in float32 (as ONNX shape inference and
/// onnxruntime; the roi factor of the operator text is not applied), scale as given. With sizes and
/// policy stretch: out = sizes[i], scale = out / in (1 when in == 0). With not_larger / not_smaller:
/// one float32 scale s = min / max over the listed axes with in > 0 of float(sizes[i]) / float(in),
/// out = roundf(s * in) (nearest, halves away from zero, evaluated in float32, as onnxruntime; the
/// ONNX reference rounds halves up in double) and scale s on every listed axis (0-length axes stay
/// 0). width = in * scale, or out when stretch sizes give it. Errors (plain messages): axes out of
/// [-r, r-1] or repeated; scales/sizes/roi of the wrong type or length; a scale not positive and
/// finite; a size < 0; an output dim over kMaxElements; a 0-length axis resized to a positive one.
Result<ResizeGeometry> ResizeGeometryOf(const ResizeForm& form, const Shape& x, const Tensor* roi, const Tensor* scales,
                                        const Tensor* sizes);

}  // namespace tare
