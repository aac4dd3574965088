// ConvTranspose (ONNX ConvTranspose-11): X (N, C, D1..Dn) with n = 1, 2 or 3 spatial dims,
// W (C, M/group, k1..kn), optional bias B (M). Each input element scatters into the output:
//   Y[n, m, i*strides + k*dilations - pads_begin] += X[n, c, i] * W[c, m - group_offset, k]
// for c in m's group; then Y += B[m]. Output positions outside [0, O) are dropped.
// Attributes and defaults:
//   group=1 (C % group == 0, M = group * W.shape[1]); kernel_shape (optional, must equal W's
//   spatial dims); strides=1..., dilations=1... (>= 1); pads=[b1..bn, e1..en] (>= 0, default 0);
//   output_padding=0... (0 <= op < max(stride, dilation)); output_shape (optional: n values, or
//   n + 2 with N and M first); auto_pad=NOTSET | VALID | SAME_UPPER | SAME_LOWER.
// Output dims, with full = stride*(D-1) + output_padding + (k-1)*dilation + 1:
//   output_shape given: O = output_shape; SAME_*: O = D * stride; VALID: O = full;
//   NOTSET: O = full - b - e (must be >= 1).
// For output_shape and SAME_*, pads come from total = full - O as in the ONNX document:
// SAME_UPPER: b = total/2, e = total - b; otherwise b = total - total/2, e = total/2. A negative
// total (O larger than full) is taken as 0, so the extra outputs are at the end and hold only the
// bias (this matches the ONNX test test_convtranspose_output_shape). pads is ignored when
// output_shape is given, and must be all zero with a non-NOTSET auto_pad.
#include <algorithm>

#include "runtime/ops/specs.h"

namespace tare {
/// Validates a ConvTranspose node and infers Y's shape.
Status InferConvTranspose(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 3));
  TARE_RETURN_IF_ERROR(ctx.ExpectFloat32({"X", "W", "B"}));
  const Shape& x = ctx.in[0].shape;
  const Shape& w = ctx.in[1].shape;
  if (x.size() < 3 || x.size() > 5)
    return ctx.Error("X must have rank 3 to 5 (N, C and 1 to 3 spatial dims), got shape " + ShapeStr(x));
  if (w.size() != x.size())
    return ctx.Error("W must have the rank of X (" + std::to_string(x.size()) + "), got shape " + ShapeStr(w));
  const size_t nsp = x.size() - 2;
  TARE_ASSIGN_OR_RETURN(int64_t group, ctx.node.GetInt("group", 1));
  if (group < 1) return ctx.Error("attribute 'group' must be >= 1, got " + std::to_string(group));
  const int64_t C = x[1];
  if (w[0] != C)
    return ctx.Error("W.shape[0] must equal X's channel count " + std::to_string(C) + ", got W shape " + ShapeStr(w));
  if (C % group != 0)
    return ctx.Error("X's channel count " + std::to_string(C) + " is not divisible by group " + std::to_string(group));
  const __int128 M128 = static_cast<__int128>(w[1]) * group;
  if (M128 > kMaxElements) return ctx.Error("output channel count group * W.shape[1] exceeds 2^40");
  const int64_t M = static_cast<int64_t>(M128);
  if (ctx.has(2) && (ctx.in[2].shape.size() != 1 || ctx.in[2].shape[0] != M))
    return ctx.Error("B must have shape [" + std::to_string(M) + "], got " + ShapeStr(ctx.in[2].shape));
  for (size_t i = 0; i < nsp; ++i) {
    if (w[2 + i] < 1) return ctx.Error("W has an empty spatial dim: shape " + ShapeStr(w));
    if (x[2 + i] < 1) return ctx.Error("X has an empty spatial dim: shape " + ShapeStr(x));
  }
  TARE_ASSIGN_OR_RETURN(ConvWindow win, ReadConvWindow(ctx, w));
  const std::vector<int64_t>& strides = win.strides;
  const std::vector<int64_t>& dilations = win.dilations;
  std::vector<int64_t> pads = win.pads;
  const std::string auto_pad = win.auto_pad;
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> out_pad, ctx.IntsAttr("output_padding", nsp, 0, 0));
  std::vector<int64_t> out_shape;
  const bool has_out_shape = ctx.node.has("output_shape");
  if (has_out_shape) {
    TARE_ASSIGN_OR_RETURN(out_shape, ctx.node.GetInts("output_shape"));
    if (out_shape.size() == nsp + 2) {
      if (out_shape[0] != x[0] || out_shape[1] != M)
        return ctx.Error("attribute 'output_shape' with N and M must start with " + std::to_string(x[0]) + ", " +
                         std::to_string(M));
      out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
    }
    if (out_shape.size() != nsp)
      return ctx.Error("attribute 'output_shape' must have " + std::to_string(nsp) + " values");
    for (int64_t o : out_shape)
      if (o < 1 || o > kMaxElements) return ctx.Error("attribute 'output_shape' values must be in [1, 2^40]");
  } else if (auto_pad != "NOTSET") {
    for (int64_t p : pads)
      if (p != 0) return ctx.Error("attribute 'pads' cannot be used with auto_pad " + auto_pad);
  }
  Shape y = {x[0], M};
  for (size_t i = 0; i < nsp; ++i) {
    if (out_pad[i] >= std::max(strides[i], dilations[i]))
      return ctx.Error("output_padding[" + std::to_string(i) + "] = " + std::to_string(out_pad[i]) +
                       " must be less than the stride or the dilation");
    // Checked arithmetic: every term is <= 2^40, so the sums fit easily in 128 bits.
    const __int128 full = static_cast<__int128>(strides[i]) * (x[2 + i] - 1) + out_pad[i] +
                          static_cast<__int128>(w[2 + i] - 1) * dilations[i] + 1;
    if (full > kMaxElements) return ctx.Error("output spatial dim " + std::to_string(i) + " exceeds 2^40");
    __int128 out;
    if (has_out_shape) out = out_shape[i];
    else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") out = static_cast<__int128>(x[2 + i]) * strides[i];
    else if (auto_pad == "VALID") out = full;
    else out = full - pads[i] - pads[nsp + i];
    if (out < 1 || out > kMaxElements)
      return ctx.Error("output spatial dim " + std::to_string(i) + " would be " + std::to_string(int64_t(out)) +
                       " (input " + ShapeStr(x) + ")");
    y.push_back(static_cast<int64_t>(out));
  }
  ctx.SetOut(0, DType::kFloat32, y);
  return Status::Ok();
}

}  // namespace tare
