// Det; expected values computed by hand (cofactor expansion) and cross-checked with numpy.linalg.det
// on the same float32 inputs (numpy: 24.000000000000004, [-2.0000000000000004, -1.0, 0.0],
// 73.09375000000004; the inputs are dyadic, so the exact determinants are 24, -2, -1, 0, 73.09375).
// The ref-vs-ref64 scale passed to Check is the product of the rows' 1-norms (a bound on |det|
// and on the size of the LU intermediates), K = M.
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

TEST_CASE("Det of single and batched matrices") {
  // 2*(3*4 - 2*1) - (-1)*(1*4 - 2*0) + 0 = 24.
  Check(NodeOf("Det"), {F32({3, 3}, {2, -1, 0, 1, 3, 2, 0, 1, 4})}, {{{}, {24}}}, 3, 3 * 6 * 5);
  // [[1,2],[3,4]] -> -2; [[0,1],[1,0]] -> -1 (needs a pivot swap); [[1,2],[2,4]] -> 0 (singular).
  Check(NodeOf("Det"), {F32({3, 2, 2}, {1, 2, 3, 4, 0, 1, 1, 0, 1, 2, 2, 4})}, {{{3}, {-2, -1, 0}}}, 2, 3 * 7);
  Check(NodeOf("Det"), {F32({1, 3, 1, 2, 2}, {1, 2, 3, 4, 0, 1, 1, 0, 1, 2, 2, 4})}, {{{1, 3, 1}, {-2, -1, 0}}}, 2, 3 * 7);
  Check(NodeOf("Det"),
        {F32({4, 4}, {0.5, 1.25, -2, 3, 1, 0, 0.75, -1, 2, -3, 1, 0.5, -1, 2, 4, 1})}, {{{}, {73.09375}}}, 4,
        6.75 * 2.75 * 6.5 * 8);
}

TEST_CASE("Det edge cases: 1x1, 0x0, all-zero column, NaN, empty batch") {
  Check(NodeOf("Det"), {F32({2, 1, 1}, {-3.5, 7})}, {{{2}, {-3.5, 7}}});
  Check(NodeOf("Det"), {F32({0, 0}, {})}, {{{}, {1}}});  // empty product
  Check(NodeOf("Det"), {F32({2, 2}, {0, 1, 0, 2})}, {{{}, {0}}});
  Check(NodeOf("Det"), {F32({2, 2}, {1, NAN, 0, 0})}, {{{}, {NAN}}});
  Check(NodeOf("Det"), {F32({0, 3, 3}, {})}, {{{0}, {}}});
}

TEST_CASE("Det rejects bad shapes and types") {
  CheckFails(NodeOf("Det"), {F32({3}, {1, 2, 3})}, "rank >= 2");
  CheckFails(NodeOf("Det"), {F32({2, 3}, {1, 2, 3, 4, 5, 6})}, "square");
  CheckFails(NodeOf("Det"), {I64({2, 2}, {1, 2, 3, 4})}, "float32");
}
