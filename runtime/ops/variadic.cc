// Variadic elementwise ops (ONNX Min-13, Max-13, Mean-13, Sum-13): 1 to N inputs of one dtype,
// multidirectional (numpy) broadcasting of all of them; y has the broadcast shape and that dtype.
// No attributes.
//   Min/Max: elementwise minimum/maximum; float16/32/64 and every integer type. A NaN operand
//     makes the result NaN (as numpy.minimum/maximum).
//   Sum: x0 + x1 + ... ; Mean: Sum / N. Float types only (float16, float32, float64).
//   Order: y = x0, then y = op(y, x_i) for i = 1..N-1 in input order, each step rounded to the
//   storage type; Mean divides the final sum by N (one more rounding).
#include "runtime/ops/elementwise.h"
#include "runtime/ops/specs.h"

namespace tare {

Status InferVariadic(InferContext& ctx) {
  const std::string& op = ctx.node.op;
  const int n = static_cast<int>(ctx.in.size());
  if (n < 1) return ctx.Error("expects at least 1 input, got 0");
  const bool minmax = op == "Min" || op == "Max";
  const DType t = ctx.in[0].dtype;
  if (!(DTypeIsFloat(t) || (minmax && DTypeIsInteger(t))))
    return ctx.Error("input 0 type " + DTypeName(t) + " is not supported (" +
                     (minmax ? "a float or integer type)" : "float16, float32, float64)"));
  Shape shape = ctx.in[0].shape;
  for (int i = 0; i < n; ++i) {
    if (!ctx.in[i].present) return ctx.Error("input " + std::to_string(i) + " is missing");
    if (ctx.in[i].dtype != t)
      return ctx.Error("input " + std::to_string(i) + " type " + DTypeName(ctx.in[i].dtype) +
                       " differs from input 0 type " + DTypeName(t));
    Result<Shape> s = BroadcastShapes(shape, ctx.in[i].shape);
    if (!s.ok()) return ctx.Error("input " + std::to_string(i) + ": " + s.status().message());
    shape = *s;
  }
  ctx.SetOut(0, t, shape);
  return Status::Ok();
}

}  // namespace tare
