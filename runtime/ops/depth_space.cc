// DepthSpace family: DepthToSpace and SpaceToDepth. Pure data movement on 4-D [N, C, H, W] tensors
// of any storable type; attribute blocksize=b (required, >= 1).
//   DepthToSpace (ONNX DepthToSpace-13; -11 is the same, -1 has only DCR): C divisible by b*b;
//     y is [N, C/(b*b), H*b, W*b] with y[n, c, h*b + i, w*b + j] = x[n, ch, h, w] where
//     ch = (i*b + j) * C/(b*b) + c for mode="DCR" (default) and ch = c*b*b + i*b + j for "CRD".
//   SpaceToDepth (ONNX SpaceToDepth-13; -1 is the same): H and W divisible by b; y is
//     [N, C*b*b, H/b, W/b] with y[n, (i*b + j)*C + c, h, w] = x[n, c, h*b + i, w*b + j].
#include "runtime/ops/specs.h"

namespace tare {

Status InferDepthSpace(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  const ValueInfo& x = ctx.in[0];
  if (DTypeSize(x.dtype) == 0) return ctx.Error("input type " + DTypeName(x.dtype) + " is not supported");
  if (x.shape.size() != 4) return ctx.Error("input must be 4-D [N, C, H, W], got shape " + ShapeStr(x.shape));
  if (!ctx.node.has("blocksize")) return ctx.Error("attribute 'blocksize' is required");
  TARE_ASSIGN_OR_RETURN(int64_t b, ctx.node.GetInt("blocksize", 0));
  if (b < 1 || b > (int64_t(1) << 20)) return ctx.Error("attribute 'blocksize' must be >= 1, got " + std::to_string(b));
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  Shape y;
  if (ctx.node.op == "DepthToSpace") {
    TARE_ASSIGN_OR_RETURN(std::string mode, ctx.node.GetString("mode", "DCR"));
    if (mode != "DCR" && mode != "CRD") return ctx.Error("attribute 'mode' must be DCR or CRD, got '" + mode + "'");
    if (c % (b * b) != 0)
      return ctx.Error("channels (" + std::to_string(c) + ") must be divisible by blocksize^2 (" + std::to_string(b * b) + ")");
    y = {n, c / (b * b), h * b, w * b};
  } else {
    if (h % b != 0 || w % b != 0)
      return ctx.Error("height and width (" + std::to_string(h) + ", " + std::to_string(w) +
                       ") must be divisible by blocksize (" + std::to_string(b) + ")");
    y = {n, c * b * b, h / b, w / b};
  }
  if (!NumElements(y).ok()) return ctx.Error("output shape " + ShapeStr(y) + " is too large");
  ctx.SetOut(0, x.dtype, y);
  return Status::Ok();
}

}  // namespace tare
