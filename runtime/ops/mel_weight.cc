// MelWeight family: MelWeightMatrix (ONNX MelWeightMatrix-17). y, shape [dft_length/2 + 1,
// num_mel_bins] (floor), holds num_mel_bins triangular filters on the mel scale
// mel(f) = 2595 log10(1 + f / 700), each with peak 1, following the ONNX definition (its reference
// implementation, which is also onnxruntime's):
//   P = num_mel_bins + 2 points, mel_step = (mel(upper) - mel(lower)) / P,
//   bin[p] = floor((dft_length + 1) * hz(mel(lower) + p * mel_step) / sample_rate), p < P,
//   with hz(m) = 700 (10^(m / 2595) - 1) (the inverse of mel);
//   filter i uses left = bin[i], center = bin[i+1], right = bin[i+2]:
//     if center == left: y[center, i] = 1, else y[j, i] = (j - left) / (center - left) for j in [left, center];
//     y[j, i] = (right - j) / (right - center) for j in [center, right)  (when right > center);
//   every other element is 0. Rows outside the matrix (a bin >= dft_length/2 + 1, e.g. for an
//   upper edge above the Nyquist frequency) are dropped.
// Inputs: num_mel_bins, dft_length, sample_rate (int32/int64 scalars, >= 1); lower_edge_hertz,
// upper_edge_hertz (float16/float32/float64 scalars, finite, 0 <= lower <= upper). All five must be
// known when shape inference runs (at plan time, or at run time in the session's dynamic mode).
// Attribute output_datatype=1 (float32; any numeric type except bfloat16; integer outputs truncate
// toward zero). Values: see kernels/ref/mel_weight.cc.
#include <cmath>

#include "runtime/ops/specs.h"

namespace tare {

Status InferMelWeight(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(5, 5));
  const char* names[5] = {"num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz", "upper_edge_hertz"};
  int64_t ints[3];
  for (size_t i = 0; i < 3; ++i) {
    if (ctx.in[i].dtype != DType::kInt32 && ctx.in[i].dtype != DType::kInt64)
      return ctx.Error(std::string("input ") + names[i] + " must be int32 or int64, got " + DTypeName(ctx.in[i].dtype));
    TARE_ASSIGN_OR_RETURN(std::vector<int64_t> v, ctx.KnownInts(i, names[i]));
    if (v.size() != 1)
      return ctx.Error(std::string("input ") + names[i] + " must hold exactly one value, got " +
                       std::to_string(v.size()));
    if (v[0] < 1 || v[0] > kMaxElements)
      return ctx.Error(std::string("input ") + names[i] + " = " + std::to_string(v[0]) + " is out of range [1, 2^40]");
    ints[i] = v[0];
  }
  double edges[2];
  for (size_t i = 3; i < 5; ++i) {
    if (!DTypeIsFloat(ctx.in[i].dtype))
      return ctx.Error(std::string("input ") + names[i] + " must be float16, float32 or float64, got " +
                       DTypeName(ctx.in[i].dtype));
    TARE_ASSIGN_OR_RETURN(const Tensor* t, ctx.Known(i, names[i]));
    if (t->numel() != 1 || t->shape.size() > 1)
      return ctx.Error(std::string("input ") + names[i] + " must be a scalar, got shape " + ShapeStr(t->shape));
    edges[i - 3] = ReadDouble(*t, 0);
  }
  if (!std::isfinite(edges[0]) || !std::isfinite(edges[1]) || edges[0] < 0 || edges[1] < edges[0])
    return ctx.Error("the edges must be finite with 0 <= lower_edge_hertz <= upper_edge_hertz, got " +
                     std::to_string(edges[0]) + " and " + std::to_string(edges[1]));
  TARE_ASSIGN_OR_RETURN(const DType out, NumericDTypeAttr(ctx, "output_datatype", 1));
  const Shape y = {ints[1] / 2 + 1, ints[0]};
  TARE_RETURN_IF_ERROR(NumElements(y).status());
  ctx.SetOut(0, out, y);
  return Status::Ok();
}

}  // namespace tare
