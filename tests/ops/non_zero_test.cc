// NonZero; expected coordinates listed by hand in row-major order.
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
const DType kI = DType::kInt64;
}

TEST_CASE("NonZero lists coordinates of non-zero elements") {
  // ONNX example [[1,0],[1,1]]: non-zeros at (0,0), (1,0), (1,1).
  Check(NodeOf("NonZero"), {Make(DType::kBool, {2, 2}, {1, 0, 1, 1})}, {{{2, 3}, {0, 1, 1, 0, 0, 1}, kI}});
  // -0.0 is zero, NaN is not: [0, -0, NaN, 2] -> 2, 3.
  Check(NodeOf("NonZero"), {F32({4}, {0, -0.0, NAN, 2})}, {{{1, 2}, {2, 3}, kI}});
  Check(NodeOf("NonZero"), {I64({2, 2}, {0, 0, 0, 0})}, {{{2, 0}, {}, kI}});
  // A scalar gives [0, count].
  Check(NodeOf("NonZero"), {F32({}, {5})}, {{{0, 1}, {}, kI}});
  Check(NodeOf("NonZero"), {Make(DType::kInt8, {}, {0})}, {{{0, 0}, {}, kI}});
}

TEST_CASE("NonZero rejects extra inputs") {
  CheckFails(NodeOf("NonZero"), {F32({1}, {1}), F32({1}, {1})}, "expects 1 inputs");
}
