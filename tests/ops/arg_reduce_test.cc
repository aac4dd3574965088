// ArgMax / ArgMin; expected indices found by hand (each case lists the values compared).
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
const DType kI = DType::kInt64;
}

TEST_CASE("ArgMax axis, keepdims and select_last_index") {
  // [[2,1],[3,10]]: column maxima are in row 1 for both columns (ONNX example).
  Check(NodeOf("ArgMax"), {F32({2, 2}, {2, 1, 3, 10})}, {{{1, 2}, {1, 1}, kI}});
  // Row maxima along axis 1: row 0 -> 2 at 0, row 1 -> 10 at 1.
  Check(NodeOf("ArgMax").Attr("axis", 1).Attr("keepdims", 0), {F32({2, 2}, {2, 1, 3, 10})}, {{{2}, {0, 1}, kI}});
  // Ties [[2,2],[3,10]] along axis 1: first occurrence -> 0, last -> 1.
  Check(NodeOf("ArgMax").Attr("axis", 1), {F32({2, 2}, {2, 2, 3, 10})}, {{{2, 1}, {0, 1}, kI}});
  Check(NodeOf("ArgMax").Attr("axis", 1).Attr("select_last_index", 1), {F32({2, 2}, {2, 2, 3, 10})},
        {{{2, 1}, {1, 1}, kI}});
  // 3-D [2,2,2] along axis 1: pairs (x[a,0,c], x[a,1,c]) = (1,4) (5,2) | (7,7) (0,-1) -> 1 0 | 0 0.
  Check(NodeOf("ArgMax").Attr("axis", 1).Attr("keepdims", 0), {F32({2, 2, 2}, {1, 5, 4, 2, 7, 0, 7, -1})},
        {{{2, 2}, {1, 0, 0, 0}, kI}});
}

TEST_CASE("ArgMin, negative axis, integers and NaN") {
  // Row minima of [[2,1],[3,10]]: 1 at 1, 3 at 0.
  Check(NodeOf("ArgMin").Attr("axis", -1), {F32({2, 2}, {2, 1, 3, 10})}, {{{2, 1}, {1, 0}, kI}});
  Check(NodeOf("ArgMin"), {I64({3}, {5, -3, 9})}, {{{1}, {1}, kI}});
  // Ties [4, 1, 1]: first -> 1, last -> 2.
  Check(NodeOf("ArgMin").Attr("select_last_index", 1), {Make(DType::kInt32, {3}, {4, 1, 1})}, {{{1}, {2}, kI}});
  // NaN wins for both (like numpy): [1, NaN, 3] -> 1.
  Check(NodeOf("ArgMax"), {F32({3}, {1, NAN, 3})}, {{{1}, {1}, kI}});
  Check(NodeOf("ArgMin"), {F32({3}, {1, NAN, 3})}, {{{1}, {1}, kI}});
  // float16 and uint8 inputs: max of [0.5, -2, 3] is at 2.
  Check(NodeOf("ArgMax").Attr("keepdims", 0), {Make(DType::kFloat16, {3}, {0.5, -2, 3})}, {{{}, {2}, kI}});
  Check(NodeOf("ArgMax").Attr("keepdims", 0), {Make(DType::kUInt8, {3}, {200, 7, 255})}, {{{}, {2}, kI}});
}

TEST_CASE("ArgMax/ArgMin reject bad attributes and inputs") {
  CheckFails(NodeOf("ArgMax").Attr("axis", 2), {F32({2, 2}, {1, 2, 3, 4})}, "out of range");
  CheckFails(NodeOf("ArgMax").Attr("select_last_index", 2), {F32({2}, {1, 2})}, "select_last_index");
  CheckFails(NodeOf("ArgMin").Attr("keepdims", 3), {F32({2}, {1, 2})}, "keepdims");
  CheckFails(NodeOf("ArgMin"), {Make(DType::kBool, {2}, {1, 0})}, "not supported");
  CheckFails(NodeOf("ArgMin"), {F32({}, {1})}, "rank >= 1");
  CheckFails(NodeOf("ArgMax").Attr("axis", 1), {F32({2, 0}, {})}, "size 0");
}
