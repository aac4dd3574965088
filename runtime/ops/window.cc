// Window family: HannWindow, HammingWindow, BlackmanWindow (ONNX HannWindow-17, HammingWindow-17,
// BlackmanWindow-17). y (shape [size]) is the generalized cosine window
//   y[n] = a0 - a1 cos(2 pi n / D) + a2 cos(4 pi n / D),  n = 0 .. size-1,
// with D = size (periodic=1, the default) or size - 1 (periodic=0, symmetric window), and
//   Hann:     a0 = 1/2,   a1 = 1/2,   a2 = 0
//   Hamming:  a0 = 25/46, a1 = 21/46, a2 = 0     (the ONNX definition, not the rounded 0.54/0.46)
//   Blackman: a0 = 0.42,  a1 = 0.5,   a2 = 0.08.
// A symmetric window of size 1 (D = 0) is [a0 - a1 + a2] (the value at n = 0), like a periodic one.
// (The ONNX test data was generated with pi ~ 3.1415; tare uses the true pi, which stays within the
// suite's rtol 1e-3.)
// Input: size, a scalar (or 1-element) int32 or int64 tensor, known at plan time (it gives y's
// length), in [0, 2^40]. Attributes: periodic=1 (0 or 1), output_datatype=1 (float32; any numeric
// ONNX type except bfloat16; integer outputs truncate toward zero).
// Values: see kernels/ref/window.cc.
#include "runtime/ops/specs.h"

namespace tare {

Result<DType> NumericDTypeAttr(const InferContext& ctx, const char* name, int64_t dflt) {
  TARE_ASSIGN_OR_RETURN(int64_t code, ctx.node.GetInt(name, dflt));
  const DType out = static_cast<DType>(code);
  if (code < 0 || code > 64 || !DTypeIsValid(static_cast<int32_t>(code)) || out == DType::kBool ||
      out == DType::kString || out == DType::kBFloat16)
    return ctx.Error(std::string("attribute '") + name + "' = " + std::to_string(code) +
                     " is not supported (a numeric type other than bfloat16)");
  return out;
}

Status InferWindow(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  const DType st = ctx.in[0].dtype;
  if (st != DType::kInt32 && st != DType::kInt64)
    return ctx.Error("input size must be int32 or int64, got " + DTypeName(st));
  TARE_ASSIGN_OR_RETURN(int64_t periodic, ctx.node.GetInt("periodic", 1));
  if (periodic != 0 && periodic != 1)
    return ctx.Error("attribute 'periodic' must be 0 or 1, got " + std::to_string(periodic));
  TARE_ASSIGN_OR_RETURN(const DType out, NumericDTypeAttr(ctx, "output_datatype", 1));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> size, ctx.KnownInts(0, "size"));
  if (size.size() != 1) return ctx.Error("input size must hold exactly one value, got " + std::to_string(size.size()));
  if (size[0] < 0 || size[0] > kMaxElements)
    return ctx.Error("input size = " + std::to_string(size[0]) + " is out of range [0, 2^40]");
  ctx.SetOut(0, out, {size[0]});
  return Status::Ok();
}

}  // namespace tare
