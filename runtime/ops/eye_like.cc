// EyeLike family: EyeLike (ONNX EyeLike-9). y is a 2-D tensor of the input's shape [N, M] with
// ones on diagonal k (y[i, i + k] = 1) and zeros elsewhere; the input's values are not read.
// Input: a 2-D tensor of any numeric or bool type. Attributes: dtype (optional; y's element type,
// default the input's type; any numeric type or bool), k=0 (any value: diagonals outside the
// matrix leave y all zeros).
#include "runtime/ops/specs.h"

namespace tare {

Status InferEyeLike(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  const ValueInfo& x = ctx.in[0];
  if (DTypeSize(x.dtype) == 0) return ctx.Error("input type " + DTypeName(x.dtype) + " is not supported");
  if (x.shape.size() != 2) return ctx.Error("input must be 2-D, got shape " + ShapeStr(x.shape));
  DType out = x.dtype;
  if (ctx.node.has("dtype")) {
    TARE_ASSIGN_OR_RETURN(int64_t code, ctx.node.GetInt("dtype", 0));
    if (code < 0 || code > 64 || !DTypeIsValid(static_cast<int32_t>(code)) ||
        code == static_cast<int64_t>(DType::kString) || code == static_cast<int64_t>(DType::kBFloat16))
      return ctx.Error("attribute 'dtype' = " + std::to_string(code) + " is not a supported element type");
    out = static_cast<DType>(code);
  }
  TARE_RETURN_IF_ERROR(ctx.node.GetInt("k", 0).status());
  ctx.SetOut(0, out, x.shape);
  return Status::Ok();
}

}  // namespace tare
