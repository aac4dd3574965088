// Conv (ONNX Conv-11): X (N, C, D1..Dn) with n = 1, 2 or 3 spatial dims, W (M, C/group, k1..kn),
// optional bias B (M). Y (N, M, O1..On) with
//   Y[n, m, o] = B[m] + sum over c in m's group, k of X[n, c, o*strides + k*dilations - pads_begin]
//                                                     * W[m, c - group_offset, k]
// where input positions outside [0, Di) are padding and contribute nothing.
// Attributes and defaults:
//   group=1 (C == group * W.shape[1], M % group == 0); kernel_shape (optional, must equal W's
//   spatial dims); strides=1..., dilations=1... (each >= 1); pads=[b1..bn, e1..en] (>= 0, default 0);
//   auto_pad=NOTSET | VALID (no padding) | SAME_UPPER | SAME_LOWER (O = ceil(D / stride), total
//   padding max(0, (O-1)*stride + (k-1)*dilation + 1 - D) split evenly, the odd element at the end
//   for SAME_UPPER and at the beginning for SAME_LOWER). pads and a non-NOTSET auto_pad may not
//   both be given (all-zero pads are tolerated).
// Output dims: O = floor((D + b + e - ((k-1)*dilation + 1)) / stride) + 1, which must be >= 1.
#include "runtime/ops/specs.h"

namespace tare {
Result<ConvWindow> ReadConvWindow(const InferContext& ctx, const Shape& w) {
  const size_t nsp = w.size() - 2;
  if (ctx.node.has("kernel_shape")) {
    TARE_ASSIGN_OR_RETURN(std::vector<int64_t> ks, ctx.node.GetInts("kernel_shape"));
    if (ks != std::vector<int64_t>(w.begin() + 2, w.end()))
      return ctx.Error("attribute 'kernel_shape' does not match W's spatial dims " + ShapeStr(w));
  }
  ConvWindow win;
  TARE_ASSIGN_OR_RETURN(win.strides, ctx.IntsAttr("strides", nsp, 1, 1));
  TARE_ASSIGN_OR_RETURN(win.dilations, ctx.IntsAttr("dilations", nsp, 1, 1));
  TARE_ASSIGN_OR_RETURN(win.pads, ctx.IntsAttr("pads", 2 * nsp, 0, 0));
  TARE_ASSIGN_OR_RETURN(win.auto_pad, ctx.node.GetString("auto_pad", "NOTSET"));
  const std::string& ap = win.auto_pad;
  if (ap != "NOTSET" && ap != "VALID" && ap != "SAME_UPPER" && ap != "SAME_LOWER")
    return ctx.Error("attribute 'auto_pad' must be NOTSET, VALID, SAME_UPPER or SAME_LOWER, got '" + ap + "'");
  return win;
}

Result<Shape> InferConvGeometry(const InferContext& ctx, size_t xi, size_t wi) {
  const Shape& x = ctx.in[xi].shape;
  const Shape& w = ctx.in[wi].shape;
  if (x.size() < 3 || x.size() > 5)
    return ctx.Error("X must have rank 3 to 5 (N, C and 1 to 3 spatial dims), got shape " + ShapeStr(x));
  if (w.size() != x.size())
    return ctx.Error("W must have the rank of X (" + std::to_string(x.size()) + "), got shape " + ShapeStr(w));
  const size_t nsp = x.size() - 2;
  TARE_ASSIGN_OR_RETURN(int64_t group, ctx.node.GetInt("group", 1));
  if (group < 1) return ctx.Error("attribute 'group' must be >= 1, got " + std::to_string(group));
  const int64_t C = x[1], M = w[0];
  if (static_cast<__int128>(w[1]) * group != C)
    return ctx.Error("X has " + std::to_string(C) + " channels but group * W.shape[1] = " + std::to_string(group) +
                     " * " + std::to_string(w[1]));
  if (M % group != 0)
    return ctx.Error("W.shape[0] = " + std::to_string(M) + " is not divisible by group " + std::to_string(group));
  for (size_t i = 0; i < nsp; ++i)
    if (w[2 + i] < 1) return ctx.Error("W has an empty spatial dim: shape " + ShapeStr(w));
  TARE_ASSIGN_OR_RETURN(ConvWindow win, ReadConvWindow(ctx, w));
  const std::vector<int64_t>& strides = win.strides;
  const std::vector<int64_t>& dilations = win.dilations;
  const std::vector<int64_t>& pads = win.pads;
  const std::string& auto_pad = win.auto_pad;
  if (auto_pad != "NOTSET") {
    for (int64_t p : pads)
      if (p != 0) return ctx.Error("attribute 'pads' cannot be used with auto_pad " + auto_pad);
  }
  Shape y = {x[0], M};
  for (size_t i = 0; i < nsp; ++i) {
    // Checked arithmetic: attribute values are <= 2^40, dims <= 2^40, so everything fits in 128 bits.
    const __int128 dk = static_cast<__int128>(w[2 + i] - 1) * dilations[i] + 1;
    if (dk > kMaxElements)
      return ctx.Error("dilated kernel extent along spatial axis " + std::to_string(i) + " exceeds 2^40");
    int64_t out;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out = (x[2 + i] + strides[i] - 1) / strides[i];
    } else {
      const __int128 padded = static_cast<__int128>(x[2 + i]) + pads[i] + pads[nsp + i];
      if (padded < dk)
        return ctx.Error("spatial axis " + std::to_string(i) + ": padded input size " + std::to_string(int64_t(padded)) +
                         " is smaller than the dilated kernel extent " + std::to_string(int64_t(dk)));
      out = static_cast<int64_t>((padded - dk) / strides[i] + 1);
    }
    if (out < 1)
      return ctx.Error("output spatial dim " + std::to_string(i) + " would be " + std::to_string(out) + " (input " +
                       ShapeStr(x) + ")");
    y.push_back(out);
  }
  return y;
}

/// Validates a Conv node and infers Y's shape.
Status InferConv(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 3));
  TARE_RETURN_IF_ERROR(ctx.ExpectFloat32({"X", "W", "B"}));
  TARE_ASSIGN_OR_RETURN(Shape y, InferConvGeometry(ctx, 0, 1));
  const int64_t M = ctx.in[1].shape[0];
  if (ctx.has(2) && (ctx.in[2].shape.size() != 1 || ctx.in[2].shape[0] != M))
    return ctx.Error("B must have shape [" + std::to_string(M) + "], got " + ShapeStr(ctx.in[2].shape));
  ctx.SetOut(0, DType::kFloat32, y);
  return Status::Ok();
}

}  // namespace tare
