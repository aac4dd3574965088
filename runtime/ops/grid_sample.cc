// GridSample family: GridSample (ONNX GridSample-16, which follows torch.nn.functional.grid_sample;
// the test data of the ONNX backend suite comes from PyTorch).
// Y[n, c, h, w] samples X[n, c] at the point grid[n, h, w] = (gx, gy), normalized to [-1, 1]:
// gx = -1 is the left edge of X and +1 the right edge (align_corners=0: the outer edges of the
// corner pixels; align_corners=1: the centers of the corner pixels). Pixel coordinates (double):
//   align_corners=1: x = (gx + 1) / 2 * (W - 1);  align_corners=0: x = ((gx + 1) * W - 1) / 2
// (and y likewise with gy and H). Modes:
//   bilinear: taps floor(x), floor(x)+1 (and in y), weights (1 - fx, fx) x (1 - fy, fy);
//   nearest: the pixel at (nearbyint(x), nearbyint(y)) (round half to even, as PyTorch);
//   bicubic: taps floor(x)-1 .. floor(x)+2 with the Keys cubic kernel, A = -0.75.
// Padding, for points or taps outside X: zeros (outside taps contribute 0); border (coordinates
// clamped to [0, W-1]); reflection (coordinates reflected at the borders: at the corner pixel
// centers when align_corners=1, at the outer edges when 0, then clamped to [0, W-1]). As in
// PyTorch, bilinear and nearest apply the padding to the sampling point, bicubic to each of its
// 16 taps. A NaN coordinate samples nothing (0); so does an infinite one, except that bilinear and
// nearest with border padding clamp it to the edge.
// Inputs: X (float32, [N, C, H, W]); grid (float32, [N, H_out, W_out, 2]). Output Y (float32,
// [N, C, H_out, W_out]). Attributes: mode = "bilinear" (default) | "nearest" | "bicubic" (also
// "linear" / "cubic", the GridSample-20 names); padding_mode = "zeros" (default) | "border" |
// "reflection"; align_corners in {0 (default), 1}. Only 4-D (2 spatial axes) inputs are supported.
#include "runtime/ops/specs.h"

namespace tare {

Status InferGridSample(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
  TARE_RETURN_IF_ERROR(ctx.ExpectFloat32({"X", "grid"}));
  const Shape& x = ctx.in[0].shape;
  const Shape& g = ctx.in[1].shape;
  if (x.size() != 4) return ctx.Error("input X must be [N, C, H, W] (only 2-D sampling is supported), got shape " + ShapeStr(x));
  if (g.size() != 4 || g[3] != 2) return ctx.Error("input grid must be [N, H_out, W_out, 2], got shape " + ShapeStr(g));
  if (g[0] != x[0]) return ctx.Error("grid batch " + std::to_string(g[0]) + " does not match X batch " + std::to_string(x[0]));
  TARE_ASSIGN_OR_RETURN(std::string mode, ctx.node.GetString("mode", "bilinear"));
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic" && mode != "linear" && mode != "cubic")
    return ctx.Error("attribute 'mode' must be bilinear, nearest or bicubic, got '" + mode + "'");
  TARE_ASSIGN_OR_RETURN(std::string pad, ctx.node.GetString("padding_mode", "zeros"));
  if (pad != "zeros" && pad != "border" && pad != "reflection")
    return ctx.Error("attribute 'padding_mode' must be zeros, border or reflection, got '" + pad + "'");
  TARE_ASSIGN_OR_RETURN(int64_t align, ctx.node.GetInt("align_corners", 0));
  if (align != 0 && align != 1) return ctx.Error("attribute 'align_corners' must be 0 or 1, got " + std::to_string(align));
  Shape y = {x[0], x[1], g[1], g[2]};
  TARE_RETURN_IF_ERROR(NumElements(y).status());
  ctx.SetOut(0, DType::kFloat32, y);
  return Status::Ok();
}

}  // namespace tare
