// GridSample family: GridSample (ONNX GridSample-16 and -20, which follow
// torch.nn.functional.grid_sample; the test data of the ONNX backend suite comes from PyTorch) and
// AffineGrid (ONNX AffineGrid-20, torch.nn.functional.affine_grid).
//
// GridSample. Y[n, c, h, w] samples X[n, c] at the point grid[n, h, w] = (gx, gy), normalized to
// [-1, 1] (volumetric form: Y[n, c, d, h, w] at grid[n, d, h, w] = (gx, gy, gz); the grid lists the
// coordinates innermost axis first): gx = -1 is the left edge of X and +1 the right edge
// (align_corners=0: the outer edges of the corner pixels; align_corners=1: the centers of the
// corner pixels). Pixel coordinates (double):
//   align_corners=1: x = (gx + 1) / 2 * (W - 1);  align_corners=0: x = ((gx + 1) * W - 1) / 2
// (and y, z likewise with gy and H, gz and D). Modes:
//   bilinear: taps floor(x), floor(x)+1 (and in y), weights (1 - fx, fx) x (1 - fy, fy);
//     volumetric: the 8 taps of the trilinear cell, weights (1 - fx, fx) x (1 - fy, fy) x (1 - fz, fz);
//   nearest: the pixel at (nearbyint(x), nearbyint(y)[, nearbyint(z)]) (round half to even, as
//     PyTorch and GridSample-20's text);
//   bicubic: taps floor(x)-1 .. floor(x)+2 with the Keys cubic kernel, A = -0.75; volumetric:
//     the 64 taps of the tricubic neighbourhood (GridSample-20's "N-cubic"), weights wx * wy * wz.
// Padding, for points or taps outside X: zeros (outside taps contribute 0); border (coordinates
// clamped to [0, W-1]); reflection (coordinates reflected at the borders: at the corner pixel
// centers when align_corners=1, at the outer edges when 0, then clamped to [0, W-1]). As in
// PyTorch, bilinear and nearest apply the padding to the sampling point, bicubic to each of its
// 16 (volumetric: 64) taps. A NaN coordinate samples nothing (0); so does an infinite one, except that bilinear and
// nearest with border padding clamp it to the edge.
// Inputs: X (float32, [N, C, H, W] or [N, C, D, H, W]); grid (float32, [N, H_out, W_out, 2] or
// [N, D_out, H_out, W_out, 3]). Output Y (float32, [N, C, H_out, W_out] or [N, C, D_out, H_out,
// W_out]). Attributes: mode = "bilinear" (default) | "nearest" | "bicubic" (also "linear" /
// "cubic", the GridSample-20 names); padding_mode = "zeros" (default) | "border" | "reflection";
// align_corners in {0 (default), 1}. Refused: other ranks (1 or more than 3 spatial axes). Cubic
// on the 5-D form follows GridSample-20's text (N-cubic) and ONNX's reference; PyTorch and ONNX
// Runtime 1.30 run cubic only on 4-D inputs.
//
// AffineGrid. Inputs theta (float32, [N, 2, 3] or [N, 3, 4]) and size (int64, [4] = (N, C, H, W) or
// [5] = (N, C, D, H, W), known at plan time); output grid (float32, [N, H, W, 2] or
// [N, D, H, W, 3]): grid[n, h, w] = theta[n] . (x_w, y_h, 1) (3-D: (x_w, y_h, z_d, 1)), where the
// base coordinate of index i along an axis of L pixels is
//   align_corners=0: (2 i + 1 - L) / L (pixel centers, -1 and 1 the outer edges);
//   align_corners=1: -1 + 2 i / (L - 1) (corner pixel centers at -1 and 1), -1 when L == 1.
// Attribute align_corners in {0 (default), 1}. size's N must match theta's; C is not used.
#include "runtime/ops/specs.h"

namespace tare {
namespace {

Status CheckAlign(const InferContext& ctx) {
  TARE_ASSIGN_OR_RETURN(int64_t align, ctx.node.GetInt("align_corners", 0));
  if (align != 0 && align != 1) return ctx.Error("attribute 'align_corners' must be 0 or 1, got " + std::to_string(align));
  return Status::Ok();
}

/// AffineGrid-20: theta [N, 2, 3] / [N, 3, 4] and the known size (N, C, H, W) / (N, C, D, H, W).
Status InferAffineGrid(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
  TARE_RETURN_IF_ERROR(ctx.ExpectFloat32({"theta"}));
  TARE_RETURN_IF_ERROR(CheckAlign(ctx));
  const Shape& t = ctx.in[0].shape;
  if (t.size() != 3 || !((t[1] == 2 && t[2] == 3) || (t[1] == 3 && t[2] == 4)))
    return ctx.Error("input theta must be [N, 2, 3] (2-D) or [N, 3, 4] (3-D), got shape " + ShapeStr(t));
  const size_t nsp = static_cast<size_t>(t[1]);
  if (ctx.in[1].shape.size() != 1 || ctx.in[1].shape[0] != static_cast<int64_t>(nsp + 2))
    return ctx.Error("input size must be 1-D with " + std::to_string(nsp + 2) + " values (" +
                     (nsp == 2 ? "N, C, H, W" : "N, C, D, H, W") + ") for theta of shape " + ShapeStr(t) + ", got shape " +
                     ShapeStr(ctx.in[1].shape));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> size, ctx.KnownInts(1, "size"));
  for (int64_t v : size)
    if (v < 0 || v > kMaxElements) return ctx.Error("input size values must be in [0, 2^40], got " + std::to_string(v));
  if (size[0] != t[0])
    return ctx.Error("size's N = " + std::to_string(size[0]) + " does not match theta's batch " + std::to_string(t[0]));
  Shape y = {t[0]};
  y.insert(y.end(), size.begin() + 2, size.end());
  y.push_back(static_cast<int64_t>(nsp));
  const Status size_ok = NumElements(y).status();
  if (!size_ok.ok()) return ctx.Error("output grid: " + size_ok.message());
  ctx.SetOut(0, DType::kFloat32, y);
  return Status::Ok();
}

}  // namespace

Status InferGridSample(InferContext& ctx) {
  if (ctx.node.op == "AffineGrid") return InferAffineGrid(ctx);
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
  TARE_RETURN_IF_ERROR(ctx.ExpectFloat32({"X", "grid"}));
  const Shape& x = ctx.in[0].shape;
  const Shape& g = ctx.in[1].shape;
  if (x.size() != 4 && x.size() != 5)
    return ctx.Error("input X must be [N, C, H, W] or [N, C, D, H, W] (2 or 3 spatial axes are supported), got shape " +
                     ShapeStr(x));
  const int64_t nsp = static_cast<int64_t>(x.size()) - 2;
  if (g.size() != x.size() || g.back() != nsp)
    return ctx.Error(std::string("input grid must be ") +
                     (nsp == 2 ? "[N, H_out, W_out, 2]" : "[N, D_out, H_out, W_out, 3]") + " for X of shape " +
                     ShapeStr(x) + ", got shape " + ShapeStr(g));
  if (g[0] != x[0]) return ctx.Error("grid batch " + std::to_string(g[0]) + " does not match X batch " + std::to_string(x[0]));
  TARE_ASSIGN_OR_RETURN(std::string mode, ctx.node.GetString("mode", "bilinear"));
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic" && mode != "linear" && mode != "cubic")
    return ctx.Error("attribute 'mode' must be bilinear, nearest or bicubic, got '" + mode + "'");
  TARE_ASSIGN_OR_RETURN(std::string pad, ctx.node.GetString("padding_mode", "zeros"));
  if (pad != "zeros" && pad != "border" && pad != "reflection")
    return ctx.Error("attribute 'padding_mode' must be zeros, border or reflection, got '" + pad + "'");
  TARE_RETURN_IF_ERROR(CheckAlign(ctx));
  Shape y = {x[0], x[1]};
  y.insert(y.end(), g.begin() + 1, g.end() - 1);
  const Status size_ok = NumElements(y).status();
  if (!size_ok.ok()) return ctx.Error("output Y: " + size_ok.message());
  ctx.SetOut(0, DType::kFloat32, y);
  return Status::Ok();
}

}  // namespace tare
