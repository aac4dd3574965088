// DeformConv (ONNX DeformConv-19; torchvision.ops.deform_conv2d): a 2-D convolution whose kernel
// taps are moved by learned offsets. X (N, C, H, W), W (M, C/group, kH, kW), offset (N,
// offset_group * kH * kW * 2, oH, oW), optional B (M), optional mask (N, offset_group * kH * kW,
// oH, oW). Y (N, M, oH, oW) with the output size of Conv-11 (no auto_pad):
//   oH = floor((H + pad_top + pad_bottom - ((kH - 1) * dil_h + 1)) / stride_h) + 1 (oW likewise).
// For output (n, m, oh, ow), kernel tap (i, j) and input channel c of m's group, with g = the
// offset group of c (C / offset_group consecutive channels each) and t = i * kW + j:
//   p_h = oh * stride_h - pad_top  + i * dil_h + offset[n, (g * kH * kW + t) * 2 + 0, oh, ow]
//   p_w = ow * stride_w - pad_left + j * dil_w + offset[n, (g * kH * kW + t) * 2 + 1, oh, ow]
//   v = bilinear sample of X[n, c] at the pixel position (p_h, p_w): the 4 taps floor(p) and
//       floor(p) + 1 per axis, weights (1 - f, f), taps outside [0, H) x [0, W) contribute 0
//   Y[n, m, oh, ow] = B[m] + sum over (c, i, j) of W[m, c - group offset, i, j] * mask[n, g * kH * kW + t, oh, ow] * v
// (no mask: 1; no B: 0). Attributes: dilations, group, kernel_shape (must equal W's), offset_group
// (>= 1, divides C), pads, strides, as Conv-11's (runtime/ops/conv.cc). Only 2-D inputs (4-D X)
// are supported; the N-D form of the text (and ONNX's reference, which is 2-D only too) is refused.
#include "runtime/ops/specs.h"

namespace tare {

/// Validates a DeformConv node and infers Y's shape (N, M, oH, oW).
Status InferDeformConv(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(3, 5));
  TARE_RETURN_IF_ERROR(ctx.ExpectFloat32({"X", "W", "offset", "B", "mask"}));
  const Shape& x = ctx.in[0].shape;
  if (x.size() != 4) return ctx.Error("X must be [N, C, H, W] (only 2-D deformable convolution is supported), got shape " + ShapeStr(x));
  if (ctx.node.has("auto_pad")) return ctx.Error("DeformConv has no attribute 'auto_pad' (use pads)");
  TARE_ASSIGN_OR_RETURN(Shape y, InferConvGeometry(ctx, 0, 1));
  const Shape& w = ctx.in[1].shape;
  TARE_ASSIGN_OR_RETURN(int64_t og, ctx.node.GetInt("offset_group", 1));
  if (og < 1 || x[1] % og != 0)
    return ctx.Error("attribute 'offset_group' = " + std::to_string(og) + " must be >= 1 and divide C = " + std::to_string(x[1]));
  const int64_t taps = w[2] * w[3];  // both <= 2^40 and their dilated extents fit the padded input
  if (static_cast<__int128>(taps) * og * 2 > kMaxElements) return ctx.Error("offset_group * kH * kW exceeds 2^40");
  const Shape want_off = {x[0], og * taps * 2, y[2], y[3]};
  if (ctx.in[2].shape != want_off)
    return ctx.Error("input offset must have shape " + ShapeStr(want_off) + " (N, offset_group * kH * kW * 2, oH, oW), got " +
                     ShapeStr(ctx.in[2].shape));
  if (ctx.has(3) && ctx.in[3].shape != Shape{w[0]})
    return ctx.Error("B must have shape [" + std::to_string(w[0]) + "], got " + ShapeStr(ctx.in[3].shape));
  const Shape want_mask = {x[0], og * taps, y[2], y[3]};
  if (ctx.has(4) && ctx.in[4].shape != want_mask)
    return ctx.Error("input mask must have shape " + ShapeStr(want_mask) + " (N, offset_group * kH * kW, oH, oW), got " +
                     ShapeStr(ctx.in[4].shape));
  ctx.SetOut(0, DType::kFloat32, y);
  return Status::Ok();
}

}  // namespace tare
