// Cast (ONNX Cast-13, -19, -21): y has x's shape and the element type given by the required
// attribute `to` (an ONNX TensorProto.DataType code). Every type tare stores is accepted on both
// sides (float16/32/64, bfloat16, int8/16/32/64, uint8/16/32/64, bool, string; the float8 types
// and int4/uint4 of Cast-19/21, not to or from string).
// Conversions (kernels/ref/cast.cc implements exactly these):
//   float -> float: round to nearest even (IEEE 754); overflow gives +-inf, NaN stays NaN.
//   float -> integer: truncation toward zero, as C++ does for in-range values; values beyond the
//     target range saturate to its min/max, NaN gives 0 (C++ leaves both undefined).
//   float -> bool: x != 0 (NaN gives true, like C++ and numpy).
//   integer/bool -> float: nearest representable value (exact when it fits).
//   integer -> integer: two's complement wrap-around (numpy astype); -> bool: x != 0; bool -> 0/1.
//   -> bfloat16: to float32 (rounded to nearest even), then the upper 16 bits are kept
//     (truncation, as ONNX 1.12's Cast reference and test data do); bfloat16 -> any: exact via float.
//   number -> string: numpy's str() (what the ONNX test data hold): the shortest decimal digits that
//     read back as the same value of the source type, positional when 1e-4 <= |x| < 1e16
//     ("0.039187793", "100.0", "-0.0"), else scientific with a signed two-digit exponent ("1e-05",
//     "1.5e+16"); "nan", "inf", "-inf"; integers in decimal; bool "True"/"False".
//   string -> number: the text (ASCII spaces around it ignored) is an integer ("-12", "+7"), a
//     decimal or scientific number ("2.5", "1E8"), "INF"/"+INF"/"-INF"/"NaN"/"infinity" in any
//     case, or "true"/"false" in any case (1/0). Integers convert as int64 (uint64 beyond int64)
//     values, other numbers as the nearest double (float32: the nearest float32 to the text; text
//     beyond double's range gives +-inf, or +-0 when tiny) and then by the rules above. Anything else (ONNX: undefined behaviour) is an error at run time.
//   string -> string: a copy.
//   -> float8 (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ; Cast-19): round to nearest even; attribute
//     saturate (0 or 1, default 1) decides overflow and inf by the table of Cast-19/21
//     (runtime/ir/float8.h DoubleToFloat8); float8 -> any: its exact value, then the rules above.
//   -> int4 / uint4 (Cast-21): from float, truncation toward zero saturated to [-8, 7] / [0, 15]
//     (NaN 0) as for the other integers; from an integer, the low four bits (two's complement).
//     saturate has no effect on non-float8 outputs.
// CastLike (ONNX CastLike-15): the same conversion to the dtype of input 1 (target_type, whose
// values are not read); no attributes.
// Note: float32 values are held in the compute type, so on ref64 a cast to float32 keeps the
// double value (no rounding to fp32); ref rounds. The error budget covers the difference. For the
// same reason ref64 cannot tell a float32 input from a float64 one when printing: it prints a
// double that is exactly a float32 value with float32's shortest digits (so a float64 input like
// 0.100000001490116119384765625 prints "0.1" on ref64 and "0.10000000149011612" on ref).
#include "runtime/ops/specs.h"

namespace tare {
namespace {

bool Castable(DType t) { return DTypeSize(t) != 0 || t == DType::kString; }

}  // namespace

Status InferCast(InferContext& ctx) {
  if (ctx.node.op == "CastLike") {
    TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
    for (size_t i = 0; i < 2; ++i)
      if (!ctx.has(i) || !Castable(ctx.in[i].dtype))
        return ctx.Error(std::string(i ? "input target_type" : "input") + " type " + DTypeName(ctx.in[i].dtype) +
                         " is not supported");
    ctx.SetOut(0, ctx.in[1].dtype, ctx.in[0].shape);
    return Status::Ok();
  }
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  TARE_ASSIGN_OR_RETURN(int64_t saturate, ctx.node.GetInt("saturate", 1));
  if (saturate != 0 && saturate != 1) return ctx.Error("attribute 'saturate' must be 0 or 1, got " + std::to_string(saturate));
  if (!ctx.node.has("to")) return ctx.Error("attribute 'to' is required");
  TARE_ASSIGN_OR_RETURN(int64_t to, ctx.node.GetInt("to", 0));
  if (to < 0 || to > 64 || !DTypeIsValid(static_cast<int32_t>(to)))
    return ctx.Error("attribute 'to' = " + std::to_string(to) + " is not a supported type code");
  if (!Castable(ctx.in[0].dtype)) return ctx.Error("input type " + DTypeName(ctx.in[0].dtype) + " is not supported");
  ctx.SetOut(0, static_cast<DType>(to), ctx.in[0].shape);
  return Status::Ok();
}

}  // namespace tare
