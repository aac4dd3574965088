// Trilu; expected matrices written out by hand from x = [[1,2,3],[4,5,6],[7,8,9]].
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
Tensor X() { return I64({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}); }
const DType kI = DType::kInt64;
}  // namespace

TEST_CASE("Trilu upper with k") {
  Check(NodeOf("Trilu"), {X()}, {{{3, 3}, {1, 2, 3, 0, 5, 6, 0, 0, 9}, kI}});
  Check(NodeOf("Trilu"), {X(), I64({}, {1})}, {{{3, 3}, {0, 2, 3, 0, 0, 6, 0, 0, 0}, kI}});
  Check(NodeOf("Trilu"), {X(), I64({}, {-1})}, {{{3, 3}, {1, 2, 3, 4, 5, 6, 0, 8, 9}, kI}});
  Check(NodeOf("Trilu"), {X(), I64({}, {5})}, {{{3, 3}, {0, 0, 0, 0, 0, 0, 0, 0, 0}, kI}});
  Check(NodeOf("Trilu"), {X(), I64({}, {-100})}, {{{3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, kI}});
}

TEST_CASE("Trilu lower, batches, non-square and float data") {
  Check(NodeOf("Trilu").Attr("upper", 0), {X()}, {{{3, 3}, {1, 0, 0, 4, 5, 0, 7, 8, 9}, kI}});
  Check(NodeOf("Trilu").Attr("upper", 0), {X(), I64({}, {-1})}, {{{3, 3}, {0, 0, 0, 4, 0, 0, 7, 8, 0}, kI}});
  Check(NodeOf("Trilu").Attr("upper", 0), {X(), I64({}, {INT64_MAX})}, {{{3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, kI}});
  // Two [2,3] matrices 1..6 and 7..12, lower: [[1,0,0],[4,5,0]] and [[7,0,0],[10,11,0]].
  Check(NodeOf("Trilu").Attr("upper", 0), {F32({2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})},
        {{{2, 2, 3}, {1, 0, 0, 4, 5, 0, 7, 0, 0, 10, 11, 0}}});
  Check(NodeOf("Trilu"), {F32({3, 0, 5}, {})}, {{{3, 0, 5}, {}}});
}

TEST_CASE("Trilu rejects bad rank, k and upper") {
  CheckFails(NodeOf("Trilu"), {I64({3}, {1, 2, 3})}, "rank >= 2");
  CheckFails(NodeOf("Trilu"), {X(), F32({}, {1})}, "integer");
  CheckFails(NodeOf("Trilu"), {X(), I64({2}, {1, 1})}, "scalar");
  CheckFails(NodeOf("Trilu").Attr("upper", 2), {X()}, "upper");
}
