// Pooling (ONNX MaxPool-12, AveragePool-11, LpPool-18 (-11, -2, -1), GlobalAveragePool-1, GlobalMaxPool-1).
// X is (N, C, D1..Dn) with n = 1, 2 or 3 spatial dims; Y is (N, C, O1..On). Along spatial axis i,
// output position o reads the window taps p = o*strides[i] - pads_begin[i] + j*dilations[i],
// j in [0, kernel_shape[i]); taps outside [0, Di) are padding and are skipped.
//   MaxPool: y = max over the window's taps (NaN propagates; ties keep the first tap in row-major
//     window order). Optional output Indices (int64, Y's shape): the flat index of that tap in X,
//     row-major (storage_order=0) or, over the spatial dims, column-major (storage_order=1):
//     (n*C + c) * prod(D) + d1 + D1*(d2 + D2*d3). X may be float32, int8 or uint8.
//   AveragePool: y = (sum of the in-input taps in row-major window order) / count, where count is
//     the number of in-input taps (count_include_pad=0) or the number of taps inside the padded
//     extent [-pads_begin, Di + pads_end) (count_include_pad=1; taps of a ceil_mode window that
//     run past the end padding are not counted, as ONNX Runtime and PyTorch do).
//   LpPool: y = (sum of |x|^p over the in-input taps, row-major window order) ^ (1/p); padding
//     contributes zeros (|0|^p = 0), so only the in-input taps are summed. X is float32 (float16 and
//     bfloat16 are computed in float). Attribute p=2 (an integer >= 1; LpPool-1's float p is
//     rewritten by the converter when it is integral). LpPool-11 has no ceil_mode and dilations;
//     their defaults (0, 1) give its semantics.
//   Global*: the window is the whole spatial extent; Y is (N, C, 1, ..., 1).
// Attributes and defaults: kernel_shape (required, n values >= 1); strides=1..., dilations=1...
// (each >= 1; dilations also accepted by AveragePool, as in AveragePool-19); pads=[b1..bn, e1..en]
// (>= 0, default 0); auto_pad=NOTSET | VALID | SAME_UPPER | SAME_LOWER (not together with
// non-zero pads); ceil_mode=0; storage_order=0 (MaxPool); count_include_pad=0 (AveragePool); p=2 (LpPool).
// Output dims, with ek = (k-1)*dilation + 1 (the ONNX doc's formulas):
//   NOTSET: O = floor((D + b + e - ek) / stride) + 1, or with ceil_mode=1
//           O = ceil((D + b + e - ek) / stride) + 1, minus one when that last window would start
//           in the end padding ((O-1)*stride >= D + b; ONNX-19 doc, ORT, PyTorch).
//   VALID: O = ceil((D - ek + 1) / stride), no padding (ceil_mode has no effect).
//   SAME_*: O = ceil(D / stride); total padding max(0, (O-1)*stride + ek - D), split evenly with
//           the odd element at the end (SAME_UPPER) or at the beginning (SAME_LOWER).
// Every window must contain at least one input tap (else an error: e.g. pads >= kernel extent).
#include <algorithm>

#include "runtime/ops/specs.h"

namespace tare {
namespace {


/// Reads a 0/1 INT attribute.
Result<int64_t> Flag(const InferContext& ctx, const char* name) {
  TARE_ASSIGN_OR_RETURN(int64_t v, ctx.node.GetInt(name, 0));
  if (v != 0 && v != 1)
    return ctx.Error(std::string("attribute '") + name + "' must be 0 or 1, got " + std::to_string(v));
  return v;
}

/// Whether the window starting at `t` (k taps, `d` apart) has a tap in [0, D).
bool HasTap(int64_t t, int64_t k, int64_t d, int64_t D) {
  if (t >= D) return false;
  if (t >= 0) return true;
  const int64_t j0 = (-t + d - 1) / d;  // first tap at or after 0
  return j0 < k && t + j0 * d < D;
}

}  // namespace

Status InferPool(InferContext& ctx) {
  const std::string& op = ctx.node.op;
  const bool is_max = op == "MaxPool" || op == "GlobalMaxPool";
  const bool global = op == "GlobalMaxPool" || op == "GlobalAveragePool";
  const bool is_lp = op == "LpPool";
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  const ValueInfo& xi = ctx.in[0];
  const bool int_ok = op == "MaxPool" && (xi.dtype == DType::kInt8 || xi.dtype == DType::kUInt8);
  if (xi.dtype != DType::kFloat32 && !int_ok)
    return ctx.Error("input X must be float32" + std::string(op == "MaxPool" ? ", int8 or uint8" : "") + ", got " +
                     DTypeName(xi.dtype));
  const Shape& x = xi.shape;
  if (x.size() < 3 || x.size() > 5)
    return ctx.Error("X must have rank 3 to 5 (N, C and 1 to 3 spatial dims), got shape " + ShapeStr(x));
  const size_t nsp = x.size() - 2;
  for (size_t i = 0; i < nsp; ++i)
    if (x[2 + i] < 1) return ctx.Error("X has an empty spatial dim: shape " + ShapeStr(x));
  Shape y = {x[0], x[1]};
  if (global) {
    y.resize(x.size(), 1);
    ctx.SetOut(0, xi.dtype, y);
    return Status::Ok();
  }
  if (!ctx.node.has("kernel_shape")) return ctx.Error("attribute 'kernel_shape' is required");
  const int64_t kMaxAttr = int64_t(1) << 30;
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> ks, ctx.IntsAttr("kernel_shape", nsp, 1, 1, kMaxAttr));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, ctx.IntsAttr("strides", nsp, 1, 1, kMaxAttr));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> dil, ctx.IntsAttr("dilations", nsp, 1, 1, kMaxAttr));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ctx.IntsAttr("pads", 2 * nsp, 0, 0, kMaxElements));
  TARE_ASSIGN_OR_RETURN(std::string auto_pad, ctx.node.GetString("auto_pad", "NOTSET"));
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    return ctx.Error("attribute 'auto_pad' must be NOTSET, VALID, SAME_UPPER or SAME_LOWER, got '" + auto_pad + "'");
  if (auto_pad != "NOTSET")
    for (int64_t p : pads)
      if (p != 0) return ctx.Error("attribute 'pads' cannot be used with auto_pad " + auto_pad);
  TARE_ASSIGN_OR_RETURN(int64_t ceil_mode, Flag(ctx, "ceil_mode"));
  if (!is_lp) TARE_RETURN_IF_ERROR(Flag(ctx, is_max ? "storage_order" : "count_include_pad").status());
  if (is_lp) {
    TARE_ASSIGN_OR_RETURN(int64_t p, ctx.node.GetInt("p", 2));
    if (p < 1) return ctx.Error("attribute 'p' must be an integer >= 1, got " + std::to_string(p));
  }
  for (size_t i = 0; i < nsp; ++i) {
    const int64_t D = x[2 + i], s = strides[i];
    const int64_t ek = (ks[i] - 1) * dil[i] + 1;  // < 2^60: both factors <= 2^30
    int64_t b = pads[i], e = pads[nsp + i], out;
    const std::string axis = "spatial axis " + std::to_string(i);
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out = (D + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + ek - D);
      b = auto_pad == "SAME_UPPER" ? total / 2 : (total + 1) / 2;
      e = total - b;
    } else {
      if (D + b + e < ek)
        return ctx.Error(axis + ": padded input size " + std::to_string(D + b + e) +
                         " is smaller than the dilated kernel extent " + std::to_string(ek));
      const int64_t span = D + b + e - ek;
      out = (auto_pad == "NOTSET" && ceil_mode ? (span + s - 1) / s : span / s) + 1;
      if (auto_pad == "NOTSET" && ceil_mode && (out - 1) * s >= D + b) --out;
    }
    // Every window needs an input tap. Windows starting in [0, D) have one (tap 0); when the input
    // is at least one dilation step wide, emptiness is monotone in the start, so the first and last
    // windows decide; otherwise (D < dilation) each window is checked.
    if (D < dil[i] && out > (int64_t(1) << 24))
      return ctx.Error(axis + ": more than 2^24 windows with a dilation larger than the input");
    for (int64_t o = 0; o < out; o = (D >= dil[i] && o + 1 < out - 1) ? out - 1 : o + 1)
      if (!HasTap(o * s - b, ks[i], dil[i], D))
        return ctx.Error(axis + ": the pooling window of output position " + std::to_string(o) +
                         " lies entirely in the padding (pads too large for kernel_shape)");
    y.push_back(out);
  }
  ctx.SetOut(0, xi.dtype, y);
  if (op == "MaxPool") ctx.SetOut(1, DType::kInt64, y);
  return Status::Ok();
}

}  // namespace tare
