// Cast (ONNX Cast-13): y has x's shape and the element type given by the required attribute `to`
// (an ONNX TensorProto.DataType code). Every numeric/bool type tare stores is accepted on both
// sides (float16/32/64, int8/16/32/64, uint8/16/32/64, bool); strings are not supported.
// Conversions (kernels/ref/cast.cc implements exactly these):
//   float -> float: round to nearest even (IEEE 754); overflow gives +-inf, NaN stays NaN.
//   float -> integer: truncation toward zero, as C++ does for in-range values; values beyond the
//     target range saturate to its min/max, NaN gives 0 (C++ leaves both undefined).
//   float -> bool: x != 0 (NaN gives true, like C++ and numpy).
//   integer/bool -> float: nearest representable value (exact when it fits).
//   integer -> integer: two's complement wrap-around (numpy astype); -> bool: x != 0; bool -> 0/1.
// CastLike (ONNX CastLike-15): the same conversion to the dtype of input 1 (target_type, whose
// values are not read); no attributes.
// Note: float32 values are held in the compute type, so on ref64 a cast to float32 keeps the
// double value (no rounding to fp32); ref rounds. The error budget covers the difference.
#include "runtime/ops/specs.h"

namespace tare {

Status InferCast(InferContext& ctx) {
  if (ctx.node.op == "CastLike") {
    TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
    for (size_t i = 0; i < 2; ++i)
      if (!ctx.has(i) || DTypeSize(ctx.in[i].dtype) == 0)
        return ctx.Error(std::string(i ? "input target_type" : "input") + " type " + DTypeName(ctx.in[i].dtype) +
                         " is not supported");
    ctx.SetOut(0, ctx.in[1].dtype, ctx.in[0].shape);
    return Status::Ok();
  }
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  if (!ctx.node.has("to")) return ctx.Error("attribute 'to' is required");
  TARE_ASSIGN_OR_RETURN(int64_t to, ctx.node.GetInt("to", 0));
  if (to < 0 || to > 64 || !DTypeIsValid(static_cast<int32_t>(to)))
    return ctx.Error("attribute 'to' = " + std::to_string(to) + " is not a supported type code");
  if (DTypeSize(ctx.in[0].dtype) == 0) return ctx.Error("input type " + DTypeName(ctx.in[0].dtype) + " is not supported");
  ctx.SetOut(0, static_cast<DType>(to), ctx.in[0].shape);
  return Status::Ok();
}

}  // namespace tare
