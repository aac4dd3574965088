// BitShift on unsigned types; expected values by hand (binary arithmetic noted).
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
Tensor Of(DType t, const Shape& shape, std::vector<double> v) { return Make(t, shape, std::move(v)); }
}  // namespace

TEST_CASE("BitShift LEFT and RIGHT, bits shifted out are lost") {
  // uint8: 16 << 1 = 32, 200 << 1 = 400 - 256 = 144, 1 << 7 = 128, 1 << 8 = 0 (shift >= width)
  Check(NodeOf("BitShift").Attr("direction", "LEFT"), {Of(DType::kUInt8, {4}, {16, 200, 1, 1}), Of(DType::kUInt8, {4}, {1, 1, 7, 8})},
        {{{4}, {32, 144, 128, 0}, DType::kUInt8}});
  // 16 >> 1 = 8, 200 >> 3 = 25, 255 >> 7 = 1, 255 >> 9 = 0
  Check(NodeOf("BitShift").Attr("direction", "RIGHT"), {Of(DType::kUInt8, {4}, {16, 200, 255, 255}), Of(DType::kUInt8, {4}, {1, 3, 7, 9})},
        {{{4}, {8, 25, 1, 0}, DType::kUInt8}});
  // uint16 65535 << 4 = 0xFFF0 = 65520; uint32 broadcast of a scalar shift: {1, 3} << 31
  Check(NodeOf("BitShift").Attr("direction", "LEFT"), {Of(DType::kUInt16, {1}, {65535}), Of(DType::kUInt16, {1}, {4})},
        {{{1}, {65520}, DType::kUInt16}});
  Check(NodeOf("BitShift").Attr("direction", "LEFT"), {Of(DType::kUInt32, {2}, {1, 3}), Of(DType::kUInt32, {}, {31})},
        {{{2}, {2147483648.0, 2147483648.0}, DType::kUInt32}});
  // uint64: 1 << 63 = 2^63; 2^63 >> 62 = 2; [2,1] >> [2]: y[i][j] = x[i] >> s[j]
  Check(NodeOf("BitShift").Attr("direction", "LEFT"), {Of(DType::kUInt64, {1}, {1}), Of(DType::kUInt64, {1}, {63})},
        {{{1}, {9223372036854775808.0}, DType::kUInt64}});
  Check(NodeOf("BitShift").Attr("direction", "RIGHT"), {Of(DType::kUInt64, {2, 1}, {9223372036854775808.0, 12}), Of(DType::kUInt64, {2}, {62, 2})},
        {{{2, 2}, {2, 2305843009213693952.0, 0, 3}, DType::kUInt64}});
}

TEST_CASE("BitShift rejects signed types and bad directions") {
  CheckFails(NodeOf("BitShift").Attr("direction", "LEFT"), {I64({1}, {1}), I64({1}, {1})}, "not supported");
  CheckFails(NodeOf("BitShift"), {Of(DType::kUInt8, {1}, {1}), Of(DType::kUInt8, {1}, {1})}, "direction is required");
  CheckFails(NodeOf("BitShift").Attr("direction", "UP"), {Of(DType::kUInt8, {1}, {1}), Of(DType::kUInt8, {1}, {1})},
             "\"LEFT\" or \"RIGHT\"");
  CheckFails(NodeOf("BitShift").Attr("direction", "LEFT"), {Of(DType::kUInt8, {1}, {1}), Of(DType::kUInt16, {1}, {1})},
             "differs");
}
