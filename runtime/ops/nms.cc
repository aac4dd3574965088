// Nms family: NonMaxSuppression (ONNX NonMaxSuppression-11; -10 is the same op).
// Greedy non-maximum suppression per batch and class: boxes are visited by descending score
// (equal scores: lower box index first); a box is selected unless its IoU with a box already
// selected for that batch and class is > iou_threshold; at most max_output_boxes_per_class boxes
// are selected per batch and class. Boxes whose score is not > score_threshold (when given) and
// boxes with a NaN score are never selected. IoU details: kernels/ref/nms.cc.
// Inputs: boxes (float32 [B, S, 4]: [y1, x1, y2, x2] any diagonal corner pair when
// center_point_box=0, [x_center, y_center, width, height] when 1); scores (float32 [B, C, S]);
// max_output_boxes_per_class (optional int64, one element, default 0 = select nothing; negative
// counts as 0); iou_threshold (optional float32, one element in [0, 1], default 0); score_threshold
// (optional float32, one element). Attribute center_point_box in {0, 1} (default 0).
// Output selected_indices (int64 [num_selected, 3]): rows (batch, class, box), ordered by batch,
// then class, then selection order. num_selected depends on the data, so every input must be
// known when shape inference runs (at plan time, or at run time in the session's dynamic mode).
#include <vector>

#include "runtime/ops/data_dependent.h"
#include "runtime/ops/specs.h"

namespace tare {

namespace {

/// Checks that optional input i is a one-element tensor of dtype `want`.
Status CheckScalarInput(const InferContext& ctx, size_t i, DType want, const char* what) {
  if (!ctx.has(i)) return Status::Ok();
  if (ctx.in[i].dtype != want)
    return ctx.Error(std::string("input ") + what + " must be " + DTypeName(want) + ", got " + DTypeName(ctx.in[i].dtype));
  Result<int64_t> n = NumElements(ctx.in[i].shape);
  if (!n.ok() || *n != 1)
    return ctx.Error(std::string("input ") + what + " must hold exactly one value, got shape " + ShapeStr(ctx.in[i].shape));
  return Status::Ok();
}

}  // namespace

Status InferNms(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 5));
  TARE_RETURN_IF_ERROR(ctx.ExpectFloat32({"boxes", "scores"}));
  const Shape& bs = ctx.in[0].shape;
  const Shape& ss = ctx.in[1].shape;
  if (bs.size() != 3 || bs[2] != 4) return ctx.Error("input boxes must be [B, S, 4], got shape " + ShapeStr(bs));
  if (ss.size() != 3) return ctx.Error("input scores must be [B, C, S], got shape " + ShapeStr(ss));
  if (ss[0] != bs[0] || ss[2] != bs[1])
    return ctx.Error("scores " + ShapeStr(ss) + " do not match boxes " + ShapeStr(bs) + " (expected [B, C, S] for boxes [B, S, 4])");
  TARE_ASSIGN_OR_RETURN(int64_t center, ctx.node.GetInt("center_point_box", 0));
  if (center != 0 && center != 1)
    return ctx.Error("attribute 'center_point_box' must be 0 or 1, got " + std::to_string(center));
  TARE_RETURN_IF_ERROR(CheckScalarInput(ctx, 2, DType::kInt64, "max_output_boxes_per_class"));
  TARE_RETURN_IF_ERROR(CheckScalarInput(ctx, 3, DType::kFloat32, "iou_threshold"));
  TARE_RETURN_IF_ERROR(CheckScalarInput(ctx, 4, DType::kFloat32, "score_threshold"));
  int64_t max_out = 0;
  double iou = 0, score = 0;
  if (ctx.has(2)) {
    TARE_ASSIGN_OR_RETURN(const Tensor* t, ctx.Known(2, "max_output_boxes_per_class"));
    max_out = ReadInt(*t, 0);
  }
  if (ctx.has(3)) {
    TARE_ASSIGN_OR_RETURN(const Tensor* t, ctx.Known(3, "iou_threshold"));
    iou = ReadDouble(*t, 0);
    if (!(iou >= 0 && iou <= 1)) return ctx.Error("iou_threshold must be in [0, 1], got " + std::to_string(iou));
  }
  if (ctx.has(4)) {
    TARE_ASSIGN_OR_RETURN(const Tensor* t, ctx.Known(4, "score_threshold"));
    score = ReadDouble(*t, 0);
  }
  TARE_ASSIGN_OR_RETURN(const Tensor* boxes, ctx.Known(0, "boxes"));
  TARE_ASSIGN_OR_RETURN(const Tensor* scores, ctx.Known(1, "scores"));
  std::vector<int64_t> sel;
  NmsSelect(*boxes, *scores, max_out, iou, ctx.has(4), score, center != 0, &sel);
  ctx.SetOut(0, DType::kInt64, {static_cast<int64_t>(sel.size() / 3), 3});
  return Status::Ok();
}

}  // namespace tare
