// Unique; expected values from numpy 1.24 (np.unique(x, True, True, True[, axis=...]) on the
// inputs below, outputs flattened), the sorted=0 cases reordered by first occurrence by hand.
#include <cmath>

#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
const DType kI = DType::kInt64;
}

TEST_CASE("Unique without axis, sorted and in order of first occurrence") {
  // numpy: [[-2, 0, 1, 3], [2, 6, 1, 0], [3, 2, 0, 2, 3, 3, 1], [1, 1, 2, 3]]
  const Tensor x = Make(DType::kInt32, {7}, {3, 1, -2, 1, 3, 3, 0});
  Check(NodeOf("Unique", 4), {x},
        {{{4}, {-2, 0, 1, 3}, DType::kInt32}, {{4}, {2, 6, 1, 0}, kI}, {{7}, {3, 2, 0, 2, 3, 3, 1}, kI}, {{4}, {1, 1, 2, 3}, kI}});
  Check(NodeOf("Unique", 4).Attr("sorted", 0), {x},
        {{{4}, {3, 1, -2, 0}, DType::kInt32}, {{4}, {0, 1, 2, 6}, kI}, {{7}, {0, 1, 2, 1, 0, 0, 3}, kI}, {{4}, {3, 2, 1, 1}, kI}});
  // ONNX example 2 (a 2-D input is flattened).
  Check(NodeOf("Unique", 4), {F32({2, 2}, {1, 3, 2, 3})},
        {{{3}, {1, 2, 3}}, {{3}, {0, 2, 1}, kI}, {{4}, {0, 2, 1, 2}, kI}, {{3}, {1, 1, 2}, kI}});
}

TEST_CASE("Unique: -0 equals 0, NaN last, optional outputs, empty input") {
  // numpy: [[-0.0, 1.0, 2.0, nan], [2, 1, 0, 4], [2, 1, 0, 0, 3, 1], [2, 2, 1, 1]]
  const Tensor x = F32({3, 2}, {2, 1, -0.0, 0, NAN, 1});
  Check(NodeOf("Unique", 4), {x},
        {{{4}, {-0.0, 1, 2, NAN}}, {{4}, {2, 1, 0, 4}, kI}, {{6}, {2, 1, 0, 0, 3, 1}, kI}, {{4}, {2, 2, 1, 1}, kI}});
  Result<std::vector<Tensor>> r = Run(NodeOf("Unique", 4), {x}, DType::kFloat32);
  REQUIRE(r.ok());
  CHECK(std::signbit((*r)[0].as<float>()[0]));  // the first occurrence's bits (-0)
  Check(NodeOf("Unique", 1), {x}, {{{4}, {-0.0, 1, 2, NAN}}});
  Check(NodeOf("Unique", 4), {F32({0}, {})}, {{{0}, {}}, {{0}, {}, kI}, {{0}, {}, kI}, {{0}, {}, kI}});
}

TEST_CASE("Unique along an axis") {
  // numpy axis=1 on [[1,2,1,2],[0,5,0,4]]: Y [[1,2,2],[0,4,5]], [0,3,1], [0,2,0,1], [2,1,1]
  const Tensor x = I64({2, 4}, {1, 2, 1, 2, 0, 5, 0, 4});
  Check(NodeOf("Unique", 4).Attr("axis", 1), {x},
        {{{2, 3}, {1, 2, 2, 0, 4, 5}, kI}, {{3}, {0, 3, 1}, kI}, {{4}, {0, 2, 0, 1}, kI}, {{3}, {2, 1, 1}, kI}});
  // sorted=0: groups by first occurrence: slices 0, 1, 3.
  Check(NodeOf("Unique", 4).Attr("axis", -1).Attr("sorted", 0), {x},
        {{{2, 3}, {1, 2, 2, 0, 5, 4}, kI}, {{3}, {0, 1, 3}, kI}, {{4}, {0, 1, 0, 2}, kI}, {{3}, {2, 1, 1}, kI}});
  // numpy axis=0 on a [3, 2, 2] input: Y [[[0,2],[0,2]],[[1,0],[1,0]]], [1, 0], [1, 0, 1], [1, 2]
  Check(NodeOf("Unique", 4).Attr("axis", 0), {F32({3, 2, 2}, {1, 0, 1, 0, 0, 2, 0, 2, 1, 0, 1, 0})},
        {{{2, 2, 2}, {0, 2, 0, 2, 1, 0, 1, 0}}, {{2}, {1, 0}, kI}, {{3}, {1, 0, 1}, kI}, {{2}, {1, 2}, kI}});
}

TEST_CASE("Unique rejects bad attributes and types") {
  CheckFails(NodeOf("Unique", 4).Attr("axis", 2), {F32({2, 2}, {1, 2, 3, 4})}, "out of range");
  CheckFails(NodeOf("Unique", 4).Attr("axis", 0), {F32({}, {1})}, "scalar");
  CheckFails(NodeOf("Unique", 4).Attr("sorted", 2), {F32({2}, {1, 2})}, "sorted");
  CheckFails(NodeOf("Unique", 4), {Make(DType::kBool, {2}, {1, 0})}, "not supported");
}
