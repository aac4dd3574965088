// Dft family: DFT and STFT (ONNX DFT-17, STFT-17). Complex values are a trailing dimension of 2
// (real, imaginary); real signals have a trailing dimension of 1.
//
// DFT: input x [batch, s1, ..., sN, c] (rank >= 3, c = 1 real or 2 complex, N >= 1), y of x's shape
// with the `axis` dimension replaced by m and the last by 2:
//   y[..., k, ..., :] = sum_{j < min(n, L)} x[..., j, ..., :] * exp(-+2 pi i j k / L),  k < m,
// where n = x.shape[axis], L = dft_length (default n; the signal is truncated to or zero-padded up
// to L), the sign is - for the forward transform and + for inverse=1 (which also divides by L),
// and m = L, or L/2 + 1 (floor) when onesided=1.
// Inputs: x (float16, float32 or float64); dft_length (optional int32/int64 scalar, known at plan
// time, >= 1). Attributes: axis=1 in [1, rank-2] (negative values count from the end: -2 is the
// last signal dimension), inverse=0 and onesided=0 (0 or 1). Errors: onesided=1 with a complex
// input, with inverse=1 (ONNX leaves these undefined) or with an empty signal (L = 0).
//
// STFT: signal [batch, len, c] (c = 1 or 2), y [batch, frames, m, 2]: frame f is the DFT of length
// L of signal[b, f * step + j, :] * window[j], j < L, with frames = (len - L) / step + 1 (floor)
// and m = L, or L/2 + 1 when onesided=1 (the default).
// Inputs: signal (float16/float32/float64); frame_step (int32/int64 scalar >= 1, known at plan
// time); window (optional, rank 1, signal's dtype; real); frame_length (optional int32/int64 scalar
// >= 1, known at plan time). L = frame_length, else the window's length; when both are given they
// must agree; one of them is required; L <= len. Attribute onesided=1 (0 or 1); onesided=1 with a
// complex signal is an error. Values: see kernels/ref/dft.cc.
#include "runtime/ops/specs.h"

namespace tare {
namespace {

Status CheckFlag(const InferContext& ctx, const char* name, int64_t dflt, int64_t* v) {
  TARE_ASSIGN_OR_RETURN(*v, ctx.node.GetInt(name, dflt));
  if (*v != 0 && *v != 1)
    return ctx.Error(std::string("attribute '") + name + "' must be 0 or 1, got " + std::to_string(*v));
  return Status::Ok();
}

bool IsSupportedFloat(DType t) { return t == DType::kFloat16 || t == DType::kFloat32 || t == DType::kFloat64; }

/// A known integer scalar input (int32/int64, exactly one value) that must be >= 1.
Result<int64_t> PositiveScalar(const InferContext& ctx, size_t i, const char* what) {
  if (ctx.in[i].dtype != DType::kInt32 && ctx.in[i].dtype != DType::kInt64)
    return ctx.Error(std::string("input ") + what + " must be int32 or int64, got " + DTypeName(ctx.in[i].dtype));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> v, ctx.KnownInts(i, what));
  if (v.size() != 1)
    return ctx.Error(std::string("input ") + what + " must hold exactly one value, got " + std::to_string(v.size()));
  if (v[0] < 1 || v[0] > kMaxElements)
    return ctx.Error(std::string("input ") + what + " = " + std::to_string(v[0]) + " is out of range [1, 2^40]");
  return v[0];
}

Status InferDftOp(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 2));
  const ValueInfo& x = ctx.in[0];
  if (!IsSupportedFloat(x.dtype))
    return ctx.Error("input type " + DTypeName(x.dtype) + " is not supported (float16, float32, float64)");
  const int64_t r = static_cast<int64_t>(x.shape.size());
  if (r < 3)
    return ctx.Error("input must have rank >= 3 ([batch, signal dims..., 1 or 2]), got shape " + ShapeStr(x.shape));
  const int64_t c = x.shape[r - 1];
  if (c != 1 && c != 2)
    return ctx.Error("the last dimension of the input must be 1 (real) or 2 (complex), got shape " + ShapeStr(x.shape));
  TARE_ASSIGN_OR_RETURN(int64_t axis, ctx.node.GetInt("axis", 1));
  const int64_t a = axis < 0 ? axis + r : axis;
  if (a < 1 || a > r - 2)
    return ctx.Error("attribute 'axis' = " + std::to_string(axis) + " must name a signal dimension (1 to " +
                     std::to_string(r - 2) + ") of input shape " + ShapeStr(x.shape));
  int64_t inverse = 0, onesided = 0;
  TARE_RETURN_IF_ERROR(CheckFlag(ctx, "inverse", 0, &inverse));
  TARE_RETURN_IF_ERROR(CheckFlag(ctx, "onesided", 0, &onesided));
  if (onesided && c == 2) return ctx.Error("onesided=1 needs a real input (last dimension 1), got a complex one");
  if (onesided && inverse) return ctx.Error("onesided=1 with inverse=1 is not supported");
  int64_t len = x.shape[a];
  if (ctx.has(1)) {
    TARE_ASSIGN_OR_RETURN(len, PositiveScalar(ctx, 1, "dft_length"));
  }
  if (onesided && len == 0) return ctx.Error("onesided=1 needs a non-empty signal along axis " + std::to_string(a));
  Shape y = x.shape;
  y[a] = onesided ? len / 2 + 1 : len;
  y[r - 1] = 2;
  TARE_RETURN_IF_ERROR(NumElements(y).status());
  ctx.SetOut(0, x.dtype, y);
  return Status::Ok();
}

Status InferStft(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 4));
  const ValueInfo& s = ctx.in[0];
  if (!IsSupportedFloat(s.dtype))
    return ctx.Error("signal type " + DTypeName(s.dtype) + " is not supported (float16, float32, float64)");
  if (s.shape.size() != 3 || (s.shape[2] != 1 && s.shape[2] != 2))
    return ctx.Error("signal must have shape [batch, length, 1 or 2], got " + ShapeStr(s.shape));
  int64_t onesided = 1;
  TARE_RETURN_IF_ERROR(CheckFlag(ctx, "onesided", 1, &onesided));
  if (onesided && s.shape[2] == 2)
    return ctx.Error("onesided=1 (the default) needs a real signal (last dimension 1), got a complex one");
  TARE_ASSIGN_OR_RETURN(int64_t step, PositiveScalar(ctx, 1, "frame_step"));
  int64_t len = -1;
  if (ctx.has(2)) {
    const ValueInfo& w = ctx.in[2];
    if (w.dtype != s.dtype)
      return ctx.Error("window has type " + DTypeName(w.dtype) + ", expected " + DTypeName(s.dtype) + " like signal");
    if (w.shape.size() != 1) return ctx.Error("window must be 1-D, got shape " + ShapeStr(w.shape));
    len = w.shape[0];
  }
  if (ctx.has(3)) {
    TARE_ASSIGN_OR_RETURN(int64_t fl, PositiveScalar(ctx, 3, "frame_length"));
    if (len >= 0 && fl != len)
      return ctx.Error("frame_length = " + std::to_string(fl) + " differs from the window's length " +
                       std::to_string(len));
    len = fl;
  }
  if (len < 0) return ctx.Error("one of window and frame_length is required");
  if (len < 1) return ctx.Error("the window must not be empty");
  if (len > s.shape[1])
    return ctx.Error("the frame length " + std::to_string(len) + " exceeds the signal length " +
                     std::to_string(s.shape[1]));
  const int64_t frames = (s.shape[1] - len) / step + 1;
  Shape y = {s.shape[0], frames, onesided ? len / 2 + 1 : len, 2};
  TARE_RETURN_IF_ERROR(NumElements(y).status());
  ctx.SetOut(0, s.dtype, y);
  return Status::Ok();
}

}  // namespace

Status InferDft(InferContext& ctx) {
  if (ctx.node.op == "STFT") return InferStft(ctx);
  return InferDftOp(ctx);
}

}  // namespace tare
