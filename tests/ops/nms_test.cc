// NonMaxSuppression; selections worked out by hand. Boxes (corners [y1, x1, y2, x2]):
//   b0 = [0, 0, 1, 1]; b1 = [0, 0.1, 1, 1.1] (IoU with b0: 0.9 / 1.1 = 0.818); b2 = [0, 2, 1, 3]
//   (disjoint from all); b3 = [1, 1, 0, 0] (b0 with flipped corners: IoU 1 with b0, 0.818 with b1).
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
const DType kI = DType::kInt64;
Tensor Boxes() { return F32({1, 4, 4}, {0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, 2, 1, 3, 1, 1, 0, 0}); }
Tensor CenterBoxes() { return F32({1, 4, 4}, {0.5, 0.5, 1, 1, 0.6, 0.5, 1, 1, 2.5, 0.5, 1, 1, 0.5, 0.5, 1, 1}); }
Tensor Scores() { return F32({1, 1, 4}, {0.9, 0.8, 0.7, 0.95}); }
Tensor F1(double v) { return F32({1}, {v}); }
}  // namespace

TEST_CASE("NonMaxSuppression selects greedily by score") {
  // Order b3 (0.95), b0, b1, b2: b3 kept; b0 (IoU 1) and b1 (0.818) suppressed at 0.5; b2 kept.
  Check(NodeOf("NonMaxSuppression"), {Boxes(), Scores(), I64({1}, {10}), F1(0.5)}, {{{2, 3}, {0, 0, 3, 0, 0, 2}, kI}});
  // The same boxes in center format [x_c, y_c, w, h].
  Check(NodeOf("NonMaxSuppression").Attr("center_point_box", 1), {CenterBoxes(), Scores(), I64({1}, {10}), F1(0.5)},
        {{{2, 3}, {0, 0, 3, 0, 0, 2}, kI}});
  // IoU threshold 0.9: only b0 (IoU 1 with b3) is suppressed.
  Check(NodeOf("NonMaxSuppression"), {Boxes(), Scores(), I64({1}, {10}), F1(0.9)},
        {{{3, 3}, {0, 0, 3, 0, 0, 1, 0, 0, 2}, kI}});
  // At most one box per class; score threshold 0.75 drops b2 (0.7).
  Check(NodeOf("NonMaxSuppression"), {Boxes(), Scores(), I64({1}, {1}), F1(0.5)}, {{{1, 3}, {0, 0, 3}, kI}});
  Check(NodeOf("NonMaxSuppression"), {Boxes(), Scores(), I64({1}, {10}), F1(0.5), F1(0.75)}, {{{1, 3}, {0, 0, 3}, kI}});
  // max_output_boxes_per_class absent (0): nothing is selected.
  Check(NodeOf("NonMaxSuppression"), {Boxes(), Scores()}, {{{0, 3}, {}, kI}});
}

TEST_CASE("NonMaxSuppression over two classes and two batches, equal scores") {
  // Class 1 scores [0.5, 0.6, 0.6, 0.1]: b1 and b2 tie, lower index first: b1 kept, b2 kept
  // (disjoint), b0 and b3 suppressed by b1 (IoU 0.818).
  const Tensor scores = F32({1, 2, 4}, {0.9, 0.8, 0.7, 0.95, 0.5, 0.6, 0.6, 0.1});
  Check(NodeOf("NonMaxSuppression"), {Boxes(), scores, I64({1}, {3}), F1(0.5)},
        {{{4, 3}, {0, 0, 3, 0, 0, 2, 0, 1, 1, 0, 1, 2}, kI}});
  // iou_threshold absent (0): any overlap suppresses. Batch 0 scores [NaN, 0.5, 0.4]: the NaN box
  // is never selected, b1 then b2 (disjoint) are. Batch 1 [0.3, 0.2, 0.1]: b0 suppresses b1, b2 kept.
  const Tensor boxes2 = F32({2, 3, 4}, {0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, 2, 1, 3, 0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, 2, 1, 3});
  const Tensor scores2 = F32({2, 1, 3}, {NAN, 0.5, 0.4, 0.3, 0.2, 0.1});
  Check(NodeOf("NonMaxSuppression"), {boxes2, scores2, I64({}, {5})},
        {{{4, 3}, {0, 0, 1, 0, 0, 2, 1, 0, 0, 1, 0, 2}, kI}});
}

TEST_CASE("NonMaxSuppression rejects bad inputs") {
  CheckFails(NodeOf("NonMaxSuppression"), {F32({1, 4, 3}, std::vector<double>(12, 0)), Scores()}, "[B, S, 4]");
  CheckFails(NodeOf("NonMaxSuppression"), {Boxes(), F32({1, 1, 3}, {1, 2, 3})}, "do not match");
  CheckFails(NodeOf("NonMaxSuppression"), {Boxes(), Scores(), I64({1}, {1}), F1(1.5)}, "[0, 1]");
  CheckFails(NodeOf("NonMaxSuppression"), {Boxes(), Scores(), F1(1)}, "int64");
  CheckFails(NodeOf("NonMaxSuppression"), {Boxes(), Scores(), I64({2}, {1, 2})}, "exactly one value");
  CheckFails(NodeOf("NonMaxSuppression").Attr("center_point_box", 2), {Boxes(), Scores()}, "center_point_box");
}
