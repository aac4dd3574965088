// TopK; expected values and indices found by hand (sorting each line).
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
const DType kI = DType::kInt64;
}

TEST_CASE("TopK largest and smallest along the last axis") {
  // ONNX example: rows 0..3, 4..7, 8..11; the 3 largest of each row, best first.
  Check(NodeOf("TopK", 2).Attr("axis", 1), {F32({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}), I64({1}, {3})},
        {{{3, 3}, {3, 2, 1, 7, 6, 5, 11, 10, 9}}, {{3, 3}, {3, 2, 1, 3, 2, 1, 3, 2, 1}, kI}});
  // Smallest 3: the last row [11,10,9,8] gives 8@3, 9@2, 10@1.
  Check(NodeOf("TopK", 2).Attr("largest", 0), {F32({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 11, 10, 9, 8}), I64({1}, {3})},
        {{{3, 3}, {0, 1, 2, 4, 5, 6, 8, 9, 10}}, {{3, 3}, {0, 1, 2, 0, 1, 2, 3, 2, 1}, kI}});
}

TEST_CASE("TopK ties, NaN, inner axis, k = 0, integer data") {
  // Ties go to the lower index: [1,3,3,2,3] -> 3@1, 3@2, 3@4.
  Check(NodeOf("TopK", 2), {F32({5}, {1, 3, 3, 2, 3}), I64({1}, {3})}, {{{3}, {3, 3, 3}}, {{3}, {1, 2, 4}, kI}});
  Check(NodeOf("TopK", 2).Attr("largest", 0), {F32({3}, {2, 1, 1}), I64({1}, {2})}, {{{2}, {1, 1}}, {{2}, {1, 2}, kI}});
  // NaN is above every number: largest -> NaN@1 then 3@2; smallest -> 1@0, 3@2.
  Check(NodeOf("TopK", 2), {F32({3}, {1, NAN, 3}), I64({1}, {2})}, {{{2}, {NAN, 3}}, {{2}, {1, 2}, kI}});
  Check(NodeOf("TopK", 2).Attr("largest", 0), {F32({3}, {1, NAN, 3}), I64({1}, {2})}, {{{2}, {1, 3}}, {{2}, {0, 2}, kI}});
  // Axis 0 of [[1,6],[5,2],[3,4]]: column 0 -> 5@1, 3@2; column 1 -> 6@0, 4@2.
  Check(NodeOf("TopK", 2).Attr("axis", 0), {F32({3, 2}, {1, 6, 5, 2, 3, 4}), I64({1}, {2})},
        {{{2, 2}, {5, 6, 3, 4}}, {{2, 2}, {1, 0, 2, 2}, kI}});
  Check(NodeOf("TopK", 2), {F32({2, 3}, {1, 2, 3, 4, 5, 6}), I64({1}, {0})}, {{{2, 0}, {}}, {{2, 0}, {}, kI}});
  Check(NodeOf("TopK", 2).Attr("sorted", 0), {Make(DType::kInt32, {4}, {-5, 7, 0, 7}), I64({1}, {2})},
        {{{2}, {7, 7}, DType::kInt32}, {{2}, {1, 3}, kI}});
}

TEST_CASE("TopK rejects bad k, axis and types") {
  CheckFails(NodeOf("TopK", 2), {F32({3}, {1, 2, 3}), I64({1}, {4})}, "out of range");
  CheckFails(NodeOf("TopK", 2), {F32({3}, {1, 2, 3}), I64({1}, {-1})}, "out of range");
  CheckFails(NodeOf("TopK", 2), {F32({3}, {1, 2, 3}), I64({2}, {1, 1})}, "exactly one value");
  CheckFails(NodeOf("TopK", 2).Attr("axis", 1), {F32({3}, {1, 2, 3}), I64({1}, {1})}, "out of range");
  CheckFails(NodeOf("TopK", 2).Attr("largest", 2), {F32({3}, {1, 2, 3}), I64({1}, {1})}, "largest");
  CheckFails(NodeOf("TopK", 2), {Make(DType::kBool, {2}, {1, 0}), I64({1}, {1})}, "not supported");
}
