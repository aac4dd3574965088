// Elementwise binary ops with broadcasting; expected values computed by hand (arithmetic noted).
#include <cstdint>
#include <limits>

#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
Tensor I32(const Shape& shape, std::vector<double> v) { return Make(DType::kInt32, shape, std::move(v)); }
}  // namespace

TEST_CASE("Add, Sub, Mul, Div on equal shapes") {
  const Tensor a = F32({2, 2}, {1.5, -2, 3, 8}), b = F32({2, 2}, {0.5, 4, -0.25, 2});
  Check(NodeOf("Add"), {a, b}, {{{2, 2}, {2, 2, 2.75, 10}}});
  Check(NodeOf("Sub"), {a, b}, {{{2, 2}, {1, -6, 3.25, 6}}});
  Check(NodeOf("Mul"), {a, b}, {{{2, 2}, {0.75, -8, -0.75, 16}}});
  Check(NodeOf("Div"), {a, b}, {{{2, 2}, {3, -0.5, -12, 4}}});
  // 1/3 rounds once: ref gives float32(1/3), within the budget of the exact value.
  Check(NodeOf("Div"), {F32({1}, {1}), F32({1}, {3})}, {{{1}, {1.0 / 3.0}}});
  // Float division by zero is IEEE: +-inf, nan.
  Check(NodeOf("Div"), {F32({3}, {1, -1, 0}), F32({}, {0})}, {{{3}, {INFINITY, -INFINITY, NAN}}});
}

TEST_CASE("broadcasting: scalar, per-channel, trailing, both sides") {
  // scalar operand on either side
  Check(NodeOf("Add"), {F32({2, 3}, {0, 1, 2, 3, 4, 5}), F32({}, {10})}, {{{2, 3}, {10, 11, 12, 13, 14, 15}}});
  Check(NodeOf("Sub"), {F32({1}, {10}), F32({2, 2}, {1, 2, 3, 4})}, {{{2, 2}, {9, 8, 7, 6}}});
  // per-channel bias [2,1,1] against [1,2,2,2]: channel 0 gets +100, channel 1 gets +200
  Check(NodeOf("Add"), {F32({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), F32({2, 1, 1}, {100, 200})},
        {{{1, 2, 2, 2}, {101, 102, 103, 104, 205, 206, 207, 208}}});
  // per-channel scale [1,2,1,1] with batch 2: [2,2,1,2] * [1,2,1,1]
  Check(NodeOf("Mul"), {F32({2, 2, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), F32({1, 2, 1, 1}, {2, -1})},
        {{{2, 2, 1, 2}, {2, 4, -3, -4, 10, 12, -7, -8}}});
  // trailing vector [3] against [2,3]
  Check(NodeOf("Mul"), {F32({2, 3}, {1, 2, 3, 4, 5, 6}), F32({3}, {1, 10, 100})},
        {{{2, 3}, {1, 20, 300, 4, 50, 600}}});
  // both sides broadcast: [3,1] - [1,4] -> [3,4], y[i][j] = a[i] - b[j]
  Check(NodeOf("Sub"), {F32({3, 1}, {10, 20, 30}), F32({1, 4}, {1, 2, 3, 4})},
        {{{3, 4}, {9, 8, 7, 6, 19, 18, 17, 16, 29, 28, 27, 26}}});
  // rank and middle broadcast: [2,1,3] + [2,1] -> [2,2,3], y[i][j][k] = a[i][k] + b[j]
  Check(NodeOf("Add"), {F32({2, 1, 3}, {0, 1, 2, 3, 4, 5}), F32({2, 1}, {10, 20})},
        {{{2, 2, 3}, {10, 11, 12, 20, 21, 22, 13, 14, 15, 23, 24, 25}}});
  // [2,3,2] / [2,1,2]: y[i][j][k] = a[i][j][k] / b[i][k]
  Check(NodeOf("Div"), {F32({2, 3, 2}, {2, 4, 6, 8, 10, 12, 1, 2, 3, 4, 5, 6}), F32({2, 1, 2}, {2, 4, 1, 0.5})},
        {{{2, 3, 2}, {1, 1, 3, 2, 5, 3, 1, 4, 3, 8, 5, 12}}});
  // size-0 dims broadcast against 1
  Check(NodeOf("Add"), {F32({0, 3}, {}), F32({1, 3}, {1, 2, 3})}, {{{0, 3}, {}}});
}

TEST_CASE("integer arithmetic: int64 and int32, wrap-around, truncating Div") {
  const int64_t big = std::numeric_limits<int64_t>::max(), small = std::numeric_limits<int64_t>::min();
  Check(NodeOf("Add"), {I64({3}, {1, -5, big}), I64({3}, {2, 3, 1})},
        {{{3}, {3, -2, static_cast<double>(small)}, DType::kInt64}});  // max + 1 wraps to min
  Check(NodeOf("Sub"), {I64({2}, {1, small}), I64({}, {3})}, {{{2}, {-2, static_cast<double>(big - 2)}, DType::kInt64}});
  Check(NodeOf("Mul"), {I64({2, 1}, {3, -4}), I64({3}, {1, 2, 1000000000000})},
        {{{2, 3}, {3, 6, 3000000000000, -4, -8, -4000000000000}, DType::kInt64}});
  // truncation toward zero: 7/2 = 3, -7/2 = -3, 7/-2 = -3, -7/-2 = 3; min / -1 wraps to min
  Check(NodeOf("Div"), {I64({5}, {7, -7, 7, -7, small}), I64({5}, {2, 2, -2, -2, -1})},
        {{{5}, {3, -3, -3, 3, static_cast<double>(small)}, DType::kInt64}});
  Check(NodeOf("Div"), {I32({2, 2}, {9, -9, 100, 1}), I32({2}, {4, 3})}, {{{2, 2}, {2, -3, 25, 0}, DType::kInt32}});
  // int32 wraps at 2^31: 2147483647 + 1 = -2147483648
  Check(NodeOf("Add"), {I32({1}, {2147483647}), I32({1}, {1})}, {{{1}, {-2147483648.0}, DType::kInt32}});
}

TEST_CASE("integer division by zero is an error, not a crash") {
  CheckFails(NodeOf("Div"), {I64({3}, {1, 2, 3}), I64({3}, {1, 0, 2})}, "division by zero");
  CheckFails(NodeOf("Div"), {I32({2}, {1, 2}), I32({}, {0})}, "Div");
}

TEST_CASE("PRelu with per-channel and scalar slope") {
  // X [1,2,1,3], slope [2,1,1]: channel 0 slope 0.5, channel 1 slope -2; x >= 0 passes through
  Check(NodeOf("PRelu"), {F32({1, 2, 1, 3}, {-2, 0, 3, -1.5, 4, -0.25}), F32({2, 1, 1}, {0.5, -2})},
        {{{1, 2, 1, 3}, {-1, 0, 3, 3, 4, 0.5}}});
  Check(NodeOf("PRelu"), {F32({3}, {-4, 1, -0.5}), F32({1}, {0.25})}, {{{3}, {-1, 1, -0.125}}});
  Check(NodeOf("PRelu"), {I64({2}, {-3, 5}), I64({}, {2})}, {{{2}, {-6, 5}, DType::kInt64}});
  // slope must broadcast to X's shape, not beyond it
  CheckFails(NodeOf("PRelu"), {F32({2}, {1, 2}), F32({2, 2}, {1, 2, 3, 4})}, "unidirectionally");
  CheckFails(NodeOf("PRelu"), {F32({1, 2, 1, 3}, {1, 2, 3, 4, 5, 6}), F32({2}, {1, 2})}, "cannot be broadcast");
}

TEST_CASE("Pow: float base with float and integer exponents, integer base") {
  // 4^0.5 = 2, 2^-1 = 0.5, 2^0.5 = sqrt(2), (-8)^(1/3 as float) = nan (negative base, non-integer)
  Check(NodeOf("Pow"), {F32({4}, {4, 2, 2, -8}), F32({4}, {0.5, -1, 0.5, 0.5})},
        {{{4}, {2, 0.5, 1.4142135623730951, NAN}}});
  // float base, int64 exponent broadcast: 2^3 = 8, (-3)^3 = -27, 0.5^3 = 0.125
  Check(NodeOf("Pow"), {F32({3}, {2, -3, 0.5}), I64({}, {3})}, {{{3}, {8, -27, 0.125}}});
  // float base, int32 exponents per row: [2,1]^[1,2] -> 1.5^0 = 1, 1.5^2 = 2.25, 10^0 = 1, 10^2 = 100
  Check(NodeOf("Pow"), {F32({2, 1}, {1.5, 10}), I32({2}, {0, 2})}, {{{2, 2}, {1, 2.25, 1, 100}}});
  // int64 base, int64 exponent: exact; negative exponents truncate 1/x^k toward zero
  Check(NodeOf("Pow"), {I64({6}, {3, -2, 2, 1, -1, 7}), I64({6}, {4, 3, -1, -5, -3, 0})},
        {{{6}, {81, -8, 0, 1, -1, 1}, DType::kInt64}});
  // 3^39 = 4052555153018976267 exceeds 2^53 but is exact in int64
  Check(NodeOf("Pow"), {I64({1}, {3}), I64({1}, {39})}, {{{1}, {4052555153018976267.0}, DType::kInt64}});
  // int32 base, float exponent: trunc(10^0.5 = 3.16..) = 3, trunc(2^-1) = 0, 5^2 = 25
  Check(NodeOf("Pow"), {I32({3}, {10, 2, 5}), F32({3}, {0.5, -1, 2})}, {{{3}, {3, 0, 25}, DType::kInt32}});
  CheckFails(NodeOf("Pow"), {I64({1}, {0}), I64({1}, {-1})}, "negative");
  CheckFails(NodeOf("Pow"), {I32({1}, {10}), F32({1}, {20})}, "out of the range");
}

TEST_CASE("binary ops reject mismatched types and shapes") {
  CheckFails(NodeOf("Add"), {F32({2}, {1, 2}), I64({2}, {1, 2})}, "differs");
  CheckFails(NodeOf("Mul"), {F32({2, 3}, {1, 2, 3, 4, 5, 6}), F32({4}, {1, 2, 3, 4})}, "cannot be broadcast");
  CheckFails(NodeOf("Sub"), {Make(DType::kBool, {1}, {1}), Make(DType::kBool, {1}, {0})}, "not supported");
  CheckFails(NodeOf("Add"), {F32({1}, {1})}, "expects 2 inputs");
}

namespace {
Tensor Of(DType t, const Shape& shape, std::vector<double> v) { return Make(t, shape, std::move(v)); }
}  // namespace

TEST_CASE("small integer types wrap around without overflow in the promotion") {
  // uint8 (mod 256): 250 + 10 = 260 -> 4; 3 - 5 = -2 -> 254; 16 - 17 -> 255; 200 / 7 = 28 (truncated)
  const Tensor a = Of(DType::kUInt8, {4}, {250, 3, 16, 200}), b = Of(DType::kUInt8, {4}, {10, 5, 17, 7});
  Check(NodeOf("Add"), {a, b}, {{{4}, {4, 8, 33, 207}, DType::kUInt8}});
  Check(NodeOf("Sub"), {a, b}, {{{4}, {240, 254, 255, 193}, DType::kUInt8}});
  Check(NodeOf("Mul"), {a, b}, {{{4}, {196, 15, 16, 120}, DType::kUInt8}});  // 2500%256=196, 272%256=16, 1400%256=120
  Check(NodeOf("Div"), {a, b}, {{{4}, {25, 0, 0, 28}, DType::kUInt8}});
  // uint16: 65535 * 65535 = 2^32 - 2^17 + 1 = 1 (mod 2^16) — overflows int if promoted naively
  Check(NodeOf("Mul"), {Of(DType::kUInt16, {1}, {65535}), Of(DType::kUInt16, {1}, {65535})},
        {{{1}, {1}, DType::kUInt16}});
  // int8: 127 + 1 = -128; -128 / -1 wraps to -128; int16: 300 * 300 = 90000 - 65536 = 24464
  Check(NodeOf("Add"), {Of(DType::kInt8, {1}, {127}), Of(DType::kInt8, {1}, {1})}, {{{1}, {-128}, DType::kInt8}});
  Check(NodeOf("Div"), {Of(DType::kInt8, {2}, {-128, -7}), Of(DType::kInt8, {2}, {-1, 2})},
        {{{2}, {-128, -3}, DType::kInt8}});
  Check(NodeOf("Mul"), {Of(DType::kInt16, {1}, {300}), Of(DType::kInt16, {1}, {300})}, {{{1}, {24464}, DType::kInt16}});
  // uint32 / uint64: 0 - 1 = 2^32 - 1; (2^64 - 2^11) + 2^11 = 2^64 = 0
  Check(NodeOf("Sub"), {Of(DType::kUInt32, {1}, {0}), Of(DType::kUInt32, {1}, {1})}, {{{1}, {4294967295.0}, DType::kUInt32}});
  Check(NodeOf("Add"), {Of(DType::kUInt64, {1}, {18446744073709549568.0}), Of(DType::kUInt64, {1}, {2048})},
        {{{1}, {0}, DType::kUInt64}});
  CheckFails(NodeOf("Div"), {Of(DType::kUInt8, {2}, {1, 2}), Of(DType::kUInt8, {1}, {0})}, "division by zero");
  // PRelu on integers: int32 slope 3 on -2 -> -6; unsigned x is never negative
  Check(NodeOf("PRelu"), {Of(DType::kInt32, {2}, {-2, 5}), Of(DType::kInt32, {1}, {3})}, {{{2}, {-6, 5}, DType::kInt32}});
  Check(NodeOf("PRelu"), {Of(DType::kUInt32, {2}, {7, 0}), Of(DType::kUInt32, {1}, {3})}, {{{2}, {7, 0}, DType::kUInt32}});
}

TEST_CASE("float64 and float16 tensors keep their dtype") {
  // float64 stays float64 on both backends: 0.5 + 0.25 = 0.75, 1 / 4 = 0.25
  Check(NodeOf("Add"), {Of(DType::kFloat64, {2}, {0.5, 1}), Of(DType::kFloat64, {2}, {0.25, 2})},
        {{{2}, {0.75, 3}, DType::kFloat64}});
  Check(NodeOf("Div"), {Of(DType::kFloat64, {1}, {1}), Of(DType::kFloat64, {1}, {4})}, {{{1}, {0.25}, DType::kFloat64}});
  // float16 rounds once to half, ties to even: 1 + 2^-11 is halfway between 1 and 1 + 2^-10 -> 1;
  // (1 + 2^-10) + 2^-11 is halfway between 1 + 2^-10 and 1 + 2^-9 -> 1 + 2^-9 (even mantissa)
  Check(NodeOf("Add"), {Of(DType::kFloat16, {2}, {1, 1 + 0x1p-10}), Of(DType::kFloat16, {1}, {0x1p-11})},
        {{{2}, {1, 1 + 0x1p-9}, DType::kFloat16}});
  // 1/3 in half = 1365/4096 = 0.333251953125 (numpy: float16(1)/float16(3)); 3 * -2 = -6
  Check(NodeOf("Div"), {Of(DType::kFloat16, {1}, {1}), Of(DType::kFloat16, {1}, {3})},
        {{{1}, {0.333251953125}, DType::kFloat16}});
  Check(NodeOf("Mul"), {Of(DType::kFloat16, {1}, {3}), Of(DType::kFloat16, {1}, {-2})}, {{{1}, {-6}, DType::kFloat16}});
  // PRelu float16: -2 * 0.25 = -0.5
  Check(NodeOf("PRelu"), {Of(DType::kFloat16, {2}, {-2, 2}), Of(DType::kFloat16, {1}, {0.25})},
        {{{2}, {-0.5, 2}, DType::kFloat16}});
}

TEST_CASE("Pow with unsigned and float16 operands") {
  // float base, uint32/uint64 exponents: 2^10 = 1024, 3^0 = 1, 0.5^3 = 0.125
  Check(NodeOf("Pow"), {F32({3}, {2, 3, 0.5}), Of(DType::kUInt32, {3}, {10, 0, 3})}, {{{3}, {1024, 1, 0.125}}});
  Check(NodeOf("Pow"), {F32({2}, {2, -1}), Of(DType::kUInt64, {2}, {4, 3})}, {{{2}, {16, -1}}});
  // int64 base, uint8 exponent: 3^4 = 81; 2^63 wraps to INT64_MIN
  Check(NodeOf("Pow"), {I64({2}, {3, 2}), Of(DType::kUInt8, {2}, {4, 63})},
        {{{2}, {81, -9223372036854775808.0}, DType::kInt64}});
  // float16 base: 3^2 = 9, 2^0.5 rounded once to half = 1.4140625 (numpy: float16(sqrt(2)))
  Check(NodeOf("Pow"), {Of(DType::kFloat16, {2}, {3, 2}), Of(DType::kFloat16, {2}, {2, 0.5})},
        {{{2}, {9, 1.4140625}, DType::kFloat16}});
  CheckFails(NodeOf("Pow"), {Of(DType::kUInt8, {1}, {2}), Of(DType::kUInt8, {1}, {2})}, "not supported");
}

TEST_CASE("legacy broadcast attributes of opsets 1-6") {
  // broadcast=1, axis=1: B [3] acts as [1,3,1] against A [2,3,2]: y[i][j][k] = A + B[j]
  Check(NodeOf("Add").Attr("broadcast", 1).Attr("axis", 1),
        {F32({2, 3, 2}, {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1}), F32({3}, {10, 20, 30})},
        {{{2, 3, 2}, {10, 10, 20, 20, 30, 30, 11, 11, 21, 21, 31, 31}}});
  // axis=0: B [2] acts as [2,1] against A [2,3]
  Check(NodeOf("Mul").Attr("broadcast", 1).Attr("axis", 0), {F32({2, 3}, {1, 2, 3, 4, 5, 6}), F32({2}, {2, -1})},
        {{{2, 3}, {2, 4, 6, -4, -5, -6}}});
  // default axis = suffix matching: B [3] against A [2,3]; B [1,1] (one element) acts as a scalar
  Check(NodeOf("Sub").Attr("broadcast", 1), {F32({2, 3}, {1, 2, 3, 4, 5, 6}), F32({3}, {1, 1, 1})},
        {{{2, 3}, {0, 1, 2, 3, 4, 5}}});
  Check(NodeOf("Div").Attr("broadcast", 1).Attr("axis", 1), {F32({2, 2}, {2, 4, 6, 8}), F32({1, 1}, {2})},
        {{{2, 2}, {1, 2, 3, 4}}});
  // broadcast=0: equal shapes only
  Check(NodeOf("Add").Attr("broadcast", 0), {F32({2}, {1, 2}), F32({2}, {3, 4})}, {{{2}, {4, 6}}});
  CheckFails(NodeOf("Add").Attr("broadcast", 0), {F32({2, 2}, {1, 2, 3, 4}), F32({2}, {3, 4})}, "must equal");
  CheckFails(NodeOf("Add").Attr("broadcast", 1).Attr("axis", 0), {F32({2, 3}, {1, 2, 3, 4, 5, 6}), F32({3}, {1, 2, 3})},
             "differs from A's dim 0");
  CheckFails(NodeOf("Add").Attr("broadcast", 1).Attr("axis", 2), {F32({2, 3}, {1, 2, 3, 4, 5, 6}), F32({3}, {1, 2, 3})},
             "does not fit");
  CheckFails(NodeOf("Add").Attr("broadcast", 2), {F32({2}, {1, 2}), F32({2}, {3, 4})}, "broadcast must be 0 or 1");
  CheckFails(NodeOf("Add").Attr("broadcast", "yes"), {F32({2}, {1, 2}), F32({2}, {3, 4})}, "broadcast");
}
