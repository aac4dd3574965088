// RoiAlign family: RoiAlign (ONNX RoiAlign-16; RoiAlign-10 is RoiAlign-16 with
// coordinate_transformation_mode = "output_half_pixel"). Semantics of the ONNX reference and
// onnxruntime (Mask R-CNN RoIAlign):
// Y[r, c, ph, pw] pools X[batch_indices[r], c] over bin (ph, pw) of RoI r. With s = spatial_scale
// and off = 0.5 (half_pixel) or 0 (output_half_pixel), the RoI (x1, y1, x2, y2) maps to
// start = (x1 * s - off, y1 * s - off), size w = x2 * s - off - start_x, h likewise; output_half_pixel
// also raises w and h to at least 1. Bins are h / output_height by w / output_width. Each bin
// samples a grid of gh x gw points, gh = sampling_ratio if > 0 else ceil(h / output_height) (gw
// likewise), at y = start_y + ph * bin_h + (iy + 0.5) * bin_h / gh (x likewise). A point with
// y < -1, y > H, x < -1 or x > W samples 0; otherwise y, x are raised to >= 0, and bilinear
// interpolation uses y_low = floor(y), y_high = y_low + 1 (both H-1, and y = H-1, when
// y_low >= H-1), weights w1 = hy*hx, w2 = hy*lx, w3 = ly*hx, w4 = ly*lx (ly = y - y_low, hy = 1 - ly)
// on the pixels (y_low,x_low), (y_low,x_high), (y_high,x_low), (y_high,x_high).
// mode "avg": the mean of the sampled values over max(gh*gw, 1) points (0 when the grid is
// empty); mode "max": the max over the points of max(w1*v1, w2*v2, w3*v3, w4*v4) (onnxruntime and
// the ONNX reference; 0 when the grid is empty).
// Inputs: X (float32 [N, C, H, W]); rois (float32 [R, 4]); batch_indices (int64 [R], each in
// [0, N), checked at run time). Output Y (float32 [R, C, output_height, output_width]).
// Attributes: coordinate_transformation_mode = "half_pixel" (default) | "output_half_pixel";
// mode = "avg" (default) | "max"; output_height = 1, output_width = 1 (each >= 1);
// sampling_ratio = 0 (in [0, 1024]); spatial_scale = 1.0 (finite). An adaptive grid (sampling_ratio 0)
// larger than 1024 points per axis, or from a non-finite RoI, is a run-time error.
#include <cmath>

#include "runtime/ops/specs.h"

namespace tare {

Status InferRoiAlign(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(3, 3));
  TARE_RETURN_IF_ERROR(ctx.ExpectFloat32({"X", "rois"}));
  const Shape& x = ctx.in[0].shape;
  const Shape& rois = ctx.in[1].shape;
  const Shape& bi = ctx.in[2].shape;
  if (x.size() != 4) return ctx.Error("input X must be [N, C, H, W], got shape " + ShapeStr(x));
  if (rois.size() != 2 || rois[1] != 4) return ctx.Error("input rois must be [R, 4], got shape " + ShapeStr(rois));
  if (ctx.in[2].dtype != DType::kInt64)
    return ctx.Error("input batch_indices must be int64, got " + DTypeName(ctx.in[2].dtype));
  if (bi.size() != 1 || bi[0] != rois[0])
    return ctx.Error("input batch_indices must be [R] = [" + std::to_string(rois[0]) + "], got shape " + ShapeStr(bi));
  TARE_ASSIGN_OR_RETURN(std::string ctm, ctx.node.GetString("coordinate_transformation_mode", "half_pixel"));
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    return ctx.Error("attribute 'coordinate_transformation_mode' must be half_pixel or output_half_pixel, got '" + ctm + "'");
  TARE_ASSIGN_OR_RETURN(std::string mode, ctx.node.GetString("mode", "avg"));
  if (mode != "avg" && mode != "max") return ctx.Error("attribute 'mode' must be avg or max, got '" + mode + "'");
  TARE_ASSIGN_OR_RETURN(int64_t oh, ctx.node.GetInt("output_height", 1));
  TARE_ASSIGN_OR_RETURN(int64_t ow, ctx.node.GetInt("output_width", 1));
  TARE_ASSIGN_OR_RETURN(int64_t sr, ctx.node.GetInt("sampling_ratio", 0));
  TARE_ASSIGN_OR_RETURN(float scale, ctx.node.GetFloat("spatial_scale", 1.0f));
  if (oh < 1 || ow < 1 || oh > kMaxElements || ow > kMaxElements)
    return ctx.Error("attributes output_height and output_width must be >= 1, got " + std::to_string(oh) + " and " + std::to_string(ow));
  if (sr < 0 || sr > 1024) return ctx.Error("attribute 'sampling_ratio' must be in [0, 1024], got " + std::to_string(sr));
  if (!std::isfinite(scale)) return ctx.Error("attribute 'spatial_scale' must be finite");
  if (ctx.in[2].value) {
    const Tensor& t = *ctx.in[2].value;
    for (int64_t i = 0; i < t.numel(); ++i) {
      const int64_t b = ReadInt(t, i);
      if (b < 0 || b >= x[0])
        return ctx.Error("batch index " + std::to_string(b) + " (RoI " + std::to_string(i) + ") is out of range [0, " +
                         std::to_string(x[0] - 1) + "]");
    }
  }
  Shape y = {rois[0], x[1], oh, ow};
  TARE_RETURN_IF_ERROR(NumElements(y).status());
  ctx.SetOut(0, DType::kFloat32, y);
  return Status::Ok();
}

}  // namespace tare
