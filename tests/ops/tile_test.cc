// Tile; expected tensors written out by hand (numpy.tile semantics).
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

TEST_CASE("Tile repeats every axis") {
  Check(NodeOf("Tile"), {F32({2, 2}, {1, 2, 3, 4}), I64({2}, {2, 2})},
        {{{4, 4}, {1, 2, 1, 2, 3, 4, 3, 4, 1, 2, 1, 2, 3, 4, 3, 4}}});
  // [[[1,2]],[[3,4]]] x [1,3,1]: each [a,b] row is repeated 3 times in place.
  Check(NodeOf("Tile"), {I64({2, 1, 2}, {1, 2, 3, 4}), I64({3}, {1, 3, 1})},
        {{{2, 3, 2}, {1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4}, DType::kInt64}});
  Check(NodeOf("Tile"), {Make(DType::kBool, {2}, {1, 0}), I64({1}, {3})}, {{{6}, {1, 0, 1, 0, 1, 0}, DType::kBool}});
  Check(NodeOf("Tile"), {F32({3}, {1, 2, 3}), I64({1}, {0})}, {{{0}, {}}});
  Check(NodeOf("Tile"), {F32({}, {7}), I64({0}, {})}, {{{}, {7}}});
}

TEST_CASE("Tile rejects bad repeats") {
  CheckFails(NodeOf("Tile"), {F32({2}, {1, 2}), I64({2}, {1, 1})}, "must have 1 values");
  CheckFails(NodeOf("Tile"), {F32({2}, {1, 2}), I64({1}, {-1})}, ">= 0");
  CheckFails(NodeOf("Tile"), {F32({2}, {1, 2}), I64({}, {2})}, "1-D");
  CheckFails(NodeOf("Tile"), {F32({2}, {1, 2}), I64({1}, {int64_t(1) << 40})}, "too");
}
