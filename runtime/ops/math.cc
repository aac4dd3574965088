// Elementwise math ops (ONNX Sign-13, Ceil-13, Floor-13, Round-11, Sin-7, Cos-7, Tan-7, Asin-7,
// Acos-7, Atan-7, Sinh-9, Cosh-9, Asinh-9, Acosh-9, Atanh-9, Softplus-1, Softsign-1,
// ThresholdedRelu-10, Shrink-9, Celu-12, IsNaN-13, IsInf-10): y has X's shape; y has X's dtype
// except IsNaN and IsInf, whose y is bool. X is float16, float32 or float64 (Sign: also any
// integer type). Out-of-domain inputs give NaN (Asin(2), Acosh(0.5)); NaN propagates.
//   Round: to the nearest integer, halves to even (2.5 -> 2, -1.5 -> -2); Sign: -1, 0 or 1 (NaN
//   stays NaN); Softplus: ln(1 + e^x); Softsign: x / (1 + |x|).
//   ThresholdedRelu: x > alpha ? x : 0; attribute alpha (float, default 1.0).
//   Shrink: x < -lambd ? x + bias : x > lambd ? x - bias : 0; bias (float, default 0.0),
//     lambd (float, default 0.5).
//   Celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)); alpha (float, default 1.0, nonzero).
//   Gelu (ONNX Gelu-20): approximate = "none" (default): 0.5 x (1 + erf(x / sqrt 2)); "tanh":
//     0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))). Mish (ONNX Mish-18): x tanh(ln(1 + e^x)).
//   IsNaN / IsInf (ONNX IsNaN-20, IsInf-20) also read the float8 types (runtime/ir/float8.h: only
//     E5M2 has infinities).
//   IsInf: true for +inf when detect_positive (int, default 1), for -inf when detect_negative
//     (int, default 1); both attributes 0 or 1.
#include "runtime/ir/float8.h"
#include "runtime/ops/elementwise.h"
#include "runtime/ops/specs.h"

namespace tare {

Status InferMath(InferContext& ctx) {
  const std::string& op = ctx.node.op;
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  const DType t = ctx.in[0].dtype;
  const bool test = op == "IsNaN" || op == "IsInf";  // IsNaN/IsInf-20 also take the float8 types
  if (!(DTypeIsFloat(t) || (op == "Sign" && DTypeIsInteger(t)) || (test && DTypeIsFloat8(t))))
    return ctx.Error("input X type " + DTypeName(t) + " is not supported (float16, float32, float64" +
                     (op == "Sign" ? ", or an integer type)" : ")"));
  if (op == "Celu") {
    TARE_ASSIGN_OR_RETURN(float alpha, ctx.node.GetFloat("alpha", 1.0f));
    if (alpha == 0.0f) return ctx.Error("attribute alpha must be nonzero");
  }
  if (op == "Gelu") {
    TARE_ASSIGN_OR_RETURN(std::string approximate, ctx.node.GetString("approximate", "none"));
    if (approximate != "none" && approximate != "tanh")
      return ctx.Error("attribute approximate must be \"none\" or \"tanh\", got \"" + approximate + "\"");
  }
  if (op == "IsInf") {
    for (const char* a : {"detect_negative", "detect_positive"}) {
      TARE_ASSIGN_OR_RETURN(int64_t v, ctx.node.GetInt(a, 1));
      if (v != 0 && v != 1) return ctx.Error(std::string("attribute ") + a + " must be 0 or 1, got " + std::to_string(v));
    }
  }
  const bool to_bool = op == "IsNaN" || op == "IsInf";
  ctx.SetOut(0, to_bool ? DType::kBool : t, ctx.in[0].shape);
  return Status::Ok();
}

}  // namespace tare
