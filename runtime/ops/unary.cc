// Elementwise unary ops (ONNX, see op_list.inc for the opset of each): y has x's shape and dtype.
// Attributes and defaults:
//   LeakyRelu alpha=0.01; Elu alpha=1; Selu alpha=1.67326319217681884765625,
//   gamma=1.05070102214813232421875; HardSigmoid alpha=0.2, beta=0.5.
//   Clip: optional inputs min (1) and max (2), scalars of x's dtype (Clip-11+; converters turn
//   Clip-6's attributes into inputs); y = Min(max, Max(x, min)): NaN passes, min > max gives max.
//   An absent bound is unbounded: +-inf stay, as in onnx.reference and torch.clamp (Clip-13's text
//   says numeric_limits lowest() and max(), which ONNX Runtime follows; docs/NUMERICS.md).
//   Relu: np.maximum(x, 0) (ONNX Relu-14): NaN passes, -0 gives +0. Dropout: inference only; optional output mask (bool, all true).
//   Identity also passes sequences, optionals and string tensors through (Identity-16).
#include "runtime/ir/float8.h"
#include "runtime/ops/specs.h"

namespace tare {

Status InferUnary(InferContext& ctx) {
  const std::string& op = ctx.node.op;
  int max_in = op == "Clip" ? 3 : op == "Dropout" ? 3 : 1;
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, max_in));
  const ValueInfo& x = ctx.in[0];
  if (op == "Identity" && (x.kind != ValueKind::kTensor || x.dtype == DType::kString)) {
    // Identity-16 passes sequences and optionals (and strings) through unchanged.
    ctx.SetOutByKernel(0, x.kind, x.dtype);
    return Status::Ok();
  }
  // Float math runs in the compute type T, which holds float32 values; float16/float64 tensors
  // would be misread, so only float32 is accepted for it. Identity and Dropout copy any type.
  const bool copy_any = op == "Identity" || op == "Dropout";
  const bool int_ok = op == "Abs" || op == "Neg" || op == "Relu" || op == "Clip";
  const bool is_int = x.dtype != DType::kBool && x.dtype != DType::kUndefined && !DTypeIsFloat(x.dtype) &&
                      x.dtype != DType::kBFloat16 && !DTypeIsFloat8(x.dtype) && x.dtype != DType::kString;
  if (!(x.dtype == DType::kFloat32 || (int_ok && is_int) || (copy_any && DTypeSize(x.dtype) > 0)))
    return ctx.Error("input type " + DTypeName(x.dtype) + " is not supported");
  if (op == "Clip") {
    for (size_t i = 1; i < 3; ++i) {
      if (!ctx.has(i)) continue;
      TARE_ASSIGN_OR_RETURN(int64_t n, NumElements(ctx.in[i].shape));
      if (n != 1) return ctx.Error(std::string(i == 1 ? "min" : "max") + " must be a scalar, got shape " + ShapeStr(ctx.in[i].shape));
    }
  }
  if (op == "Dropout" && ctx.has(2)) {
    // training_mode = true would drop random elements: tare implements inference only.
    TARE_ASSIGN_OR_RETURN(const Tensor* training, ctx.Known(2, "training_mode"));
    if (training->numel() != 1) return ctx.Error("training_mode must be a scalar");
    if (ReadInt(*training, 0) != 0) {
      // Training with ratio 0 keeps every element (deterministic); any other ratio is random.
      double ratio = 0.5;
      if (ctx.has(1)) {
        TARE_ASSIGN_OR_RETURN(const Tensor* r, ctx.Known(1, "ratio"));
        if (r->numel() != 1) return ctx.Error("ratio must be a scalar");
        ratio = ReadDouble(*r, 0);
      }
      if (ratio != 0.0) return ctx.Error("training_mode = true is not supported (inference only)");
    }
  }
  ctx.SetOut(0, x.dtype, x.shape);
  if (op == "Dropout") ctx.SetOut(1, DType::kBool, x.shape);
  return Status::Ok();
}

}  // namespace tare
