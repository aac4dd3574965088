// OneHot; expected tensors written out by hand (on where the new axis index equals the index).
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

TEST_CASE("OneHot default axis, negative and out-of-range indices") {
  const Tensor v01 = F32({2}, {0, 1});
  // depth 3: 0 -> [1,0,0]; 2 -> [0,0,1]; -1 -> 2; 5 and -4 are out of range -> all off.
  Check(NodeOf("OneHot"), {I64({5}, {0, 2, -1, 5, -4}), F32({}, {3}), v01},
        {{{5, 3}, {1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0}}});
  // int32 values [off=2, on=5] give an int32 y; float indices truncate (1.7 -> 1).
  Check(NodeOf("OneHot"), {F32({2}, {1.7, 0}), I64({}, {2}), Make(DType::kInt32, {2}, {2, 5})},
        {{{2, 2}, {2, 5, 5, 2}, DType::kInt32}});
}

TEST_CASE("OneHot with an axis") {
  const Tensor v01 = F32({2}, {0, 1});
  // axis 0: y[j, i] = (idx[i] == j) for idx = [1, 0], depth 3.
  Check(NodeOf("OneHot").Attr("axis", 0), {I64({2}, {1, 0}), F32({}, {3}), v01}, {{{3, 2}, {0, 1, 1, 0, 0, 0}}});
  // idx [[1,2],[0,1]], axis 1 (= -2): y[a, j, b] = (idx[a,b] == j):
  // a=0: j0 [0,0] j1 [1,0] j2 [0,1]; a=1: j0 [1,0] j1 [0,1] j2 [0,0].
  const std::vector<double> want = {0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0};
  Check(NodeOf("OneHot").Attr("axis", 1), {I64({2, 2}, {1, 2, 0, 1}), F32({1}, {3}), v01}, {{{2, 3, 2}, want}});
  Check(NodeOf("OneHot").Attr("axis", -2), {I64({2, 2}, {1, 2, 0, 1}), I64({}, {3}), v01}, {{{2, 3, 2}, want}});
}

TEST_CASE("OneHot rejects bad depth, values and axis") {
  const Tensor v01 = F32({2}, {0, 1});
  CheckFails(NodeOf("OneHot"), {I64({1}, {0}), F32({}, {2.5}), v01}, "positive integer");
  CheckFails(NodeOf("OneHot"), {I64({1}, {0}), I64({}, {0}), v01}, "positive integer");
  CheckFails(NodeOf("OneHot"), {I64({1}, {0}), I64({}, {3}), F32({3}, {0, 1, 2})}, "2 elements");
  CheckFails(NodeOf("OneHot").Attr("axis", 2), {I64({1}, {0}), I64({}, {3}), v01}, "out of range");
  CheckFails(NodeOf("OneHot"), {I64({1}, {0}), I64({2}, {3, 3}), v01}, "one value");
}
