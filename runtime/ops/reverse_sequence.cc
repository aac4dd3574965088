// ReverseSequence family: ReverseSequence (ONNX ReverseSequence-10). For each batch entry b, the
// first sequence_lens[b] steps along the time axis are reversed and the rest copied:
// y[.., t, ..] = x[.., len-1-t, ..] for t < len, x[.., t, ..] otherwise (b's slice).
// Inputs: input (any storable type, rank >= 2); sequence_lens (int64, or int32, 1-D of length
// input.shape[batch_axis], each in [0, input.shape[time_axis]]: checked here when known at plan
// time, else by the kernel). Attributes: batch_axis=1, time_axis=0 (one of them 0, the other 1).
#include "runtime/ops/specs.h"

namespace tare {

Status InferReverseSequence(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
  const ValueInfo& x = ctx.in[0];
  const ValueInfo& lens = ctx.in[1];
  if (DTypeSize(x.dtype) == 0) return ctx.Error("input type " + DTypeName(x.dtype) + " is not supported");
  if (x.shape.size() < 2) return ctx.Error("input must have rank >= 2, got shape " + ShapeStr(x.shape));
  TARE_ASSIGN_OR_RETURN(int64_t batch_axis, ctx.node.GetInt("batch_axis", 1));
  TARE_ASSIGN_OR_RETURN(int64_t time_axis, ctx.node.GetInt("time_axis", 0));
  if (!((batch_axis == 0 && time_axis == 1) || (batch_axis == 1 && time_axis == 0)))
    return ctx.Error("attributes batch_axis and time_axis must be 0 and 1 in some order, got " + std::to_string(batch_axis) +
                     " and " + std::to_string(time_axis));
  if (lens.dtype != DType::kInt64 && lens.dtype != DType::kInt32)
    return ctx.Error("input sequence_lens must be int64 (or int32), got " + DTypeName(lens.dtype));
  const int64_t batch = x.shape[batch_axis], steps = x.shape[time_axis];
  if (lens.shape.size() != 1 || lens.shape[0] != batch)
    return ctx.Error("input sequence_lens must be 1-D of length " + std::to_string(batch) + " (the batch dim), got shape " +
                     ShapeStr(lens.shape));
  if (lens.value)
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t v = ReadInt(*lens.value, b);
      if (v < 0 || v > steps)
        return ctx.Error("sequence_lens[" + std::to_string(b) + "] = " + std::to_string(v) + " is out of range [0, " +
                         std::to_string(steps) + "]");
    }
  ctx.SetOut(0, x.dtype, x.shape);
  return Status::Ok();
}

}  // namespace tare
