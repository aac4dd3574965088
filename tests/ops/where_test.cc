// Where; expected values by hand (each output picks X or Y).
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
Tensor Of(DType t, const Shape& shape, std::vector<double> v) { return Make(t, shape, std::move(v)); }
Tensor B(const Shape& shape, std::vector<double> v) { return Make(DType::kBool, shape, std::move(v)); }
}  // namespace

TEST_CASE("Where selects with broadcasting of all three inputs") {
  Check(NodeOf("Where"), {B({2, 2}, {1, 0, 1, 1}), F32({2, 2}, {1, 2, 3, 4}), F32({2, 2}, {9, 8, 7, 6})},
        {{{2, 2}, {1, 8, 3, 4}}});
  // cond [2,1], X [1,3], Y scalar -> [2,3]: row 0 all Y, row 1 is X
  Check(NodeOf("Where"), {B({2, 1}, {0, 1}), F32({1, 3}, {1, 2, 3}), F32({}, {-1})}, {{{2, 3}, {-1, -1, -1, 1, 2, 3}}});
  // cond [3] against X [2,1], Y [2,3]
  Check(NodeOf("Where"), {B({3}, {1, 0, 1}), I64({2, 1}, {7, 8}), I64({2, 3}, {0, 1, 2, 3, 4, 5})},
        {{{2, 3}, {7, 1, 7, 8, 4, 8}, DType::kInt64}});
}

TEST_CASE("Where copies any dtype bit-exactly, rejects bad inputs") {
  Check(NodeOf("Where"), {B({2}, {0, 1}), Of(DType::kFloat16, {2}, {0.5, -0.25}), Of(DType::kFloat16, {2}, {3, 4})},
        {{{2}, {3, -0.25}, DType::kFloat16}});
  Check(NodeOf("Where"), {B({2}, {0, 1}), B({2}, {1, 0}), B({2}, {1, 1})}, {{{2}, {1, 0}, DType::kBool}});
  Check(NodeOf("Where"), {B({2}, {1, 0}), Of(DType::kUInt8, {2}, {1, 2}), Of(DType::kUInt8, {1}, {255})},
        {{{2}, {1, 255}, DType::kUInt8}});
  CheckFails(NodeOf("Where"), {F32({1}, {1}), F32({1}, {1}), F32({1}, {2})}, "condition must be bool");
  CheckFails(NodeOf("Where"), {B({1}, {1}), F32({1}, {1}), I64({1}, {2})}, "differs");
  CheckFails(NodeOf("Where"), {B({2}, {1, 0}), F32({3}, {1, 2, 3}), F32({1}, {2})}, "cannot be broadcast");
}
