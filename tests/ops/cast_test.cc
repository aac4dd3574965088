// Cast: expected values by hand (C++/numpy conversion rules, with tare's defined saturation and NaN
// handling for float -> integer). Integer wrap-around values were cross-checked with numpy astype;
// float16 roundings with np.float16.
#include <cmath>
#include <limits>

#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
/// A Cast node to dtype `to`.
NodeOf CastTo(DType to) { return NodeOf("Cast").Attr("to", static_cast<int64_t>(to)); }
const double kNaN = std::nan(""), kInf = INFINITY;
}  // namespace

TEST_CASE("Cast float -> integer truncates toward zero, saturates, maps NaN to 0") {
  Check(CastTo(DType::kInt32), {F32({9}, {1.9, -1.9, 0.5, -0.5, 3, kNaN, 1e10, -1e10, kInf})},
        {{{9}, {1, -1, 0, 0, 3, 0, 2147483647, -2147483648.0, 2147483647}, DType::kInt32}});
  Check(CastTo(DType::kUInt8), {F32({5}, {-1, -0.5, 255.9, 300, 7.7})}, {{{5}, {0, 0, 255, 255, 7}, DType::kUInt8}});
  Check(CastTo(DType::kInt8), {F32({3}, {-128.9, 127.9, -kInf})}, {{{3}, {-128, 127, -128}, DType::kInt8}});
  // 2^32 is exact in float32; +-1e19 lie beyond int64's range (~9.22e18).
  Check(CastTo(DType::kInt64), {F32({4}, {4294967296.0, -3.99, 1e19, -1e19})},
        {{{4}, {4294967296.0, -3, 9223372036854775807.0, -9223372036854775808.0}, DType::kInt64}});
  Check(CastTo(DType::kInt64), {Make(DType::kFloat64, {1}, {9.2e18})}, {{{1}, {9.2e18}, DType::kInt64}});
}

TEST_CASE("Cast to and from bool") {
  // x != 0; NaN != 0 is true.
  Check(CastTo(DType::kBool), {F32({5}, {0, -0.0, 2, kNaN, -0.1})}, {{{5}, {0, 0, 1, 1, 1}, DType::kBool}});
  Check(CastTo(DType::kBool), {I64({3}, {0, 5, -1})}, {{{3}, {0, 1, 1}, DType::kBool}});
  Check(CastTo(DType::kFloat32), {Make(DType::kBool, {2}, {1, 0})}, {{{2}, {1, 0}}});
  Check(CastTo(DType::kInt32), {Make(DType::kBool, {2}, {0, 1})}, {{{2}, {0, 1}, DType::kInt32}});
  Check(CastTo(DType::kFloat16), {Make(DType::kBool, {2}, {0, 1})}, {{{2}, {0, 1}, DType::kFloat16}});
}

TEST_CASE("Cast integer -> integer wraps (two's complement)") {
  // numpy: [300,-129,128,-1].astype(int8) = [44,127,-128,-1]; [-1,256,65537].astype(uint8) = [255,0,1].
  Check(CastTo(DType::kInt8), {I64({4}, {300, -129, 128, -1})}, {{{4}, {44, 127, -128, -1}, DType::kInt8}});
  Check(CastTo(DType::kUInt8), {I64({3}, {-1, 256, 65537})}, {{{3}, {255, 0, 1}, DType::kUInt8}});
  Check(CastTo(DType::kInt64), {Make(DType::kInt32, {2}, {-7, 2147483647})}, {{{2}, {-7, 2147483647}, DType::kInt64}});
  // 2^32 + 5 -> int32 keeps the low 32 bits: 5; 2^31 -> -2^31.
  Check(CastTo(DType::kInt32), {I64({2}, {4294967301, 2147483648})}, {{{2}, {5, -2147483648.0}, DType::kInt32}});
  Check(CastTo(DType::kInt16), {Make(DType::kUInt8, {1}, {200})}, {{{1}, {200}, DType::kInt16}});
}

TEST_CASE("Cast integer -> float and float <-> float") {
  Check(CastTo(DType::kFloat32), {I64({3}, {3, -2, 16777216})}, {{{3}, {3, -2, 16777216}}});
  Check(CastTo(DType::kFloat64), {Make(DType::kInt8, {2}, {-128, 127})}, {{{2}, {-128, 127}, DType::kFloat64}});
  // float32(0.1) widens exactly to 0.100000001490116119384765625.
  Check(CastTo(DType::kFloat64), {F32({2}, {0.1, 3})}, {{{2}, {0.100000001490116119384765625, 3}, DType::kFloat64}});
  // float64 0.1 -> float32: ref rounds to 0.100000001490116..., within the 2-eps budget of 0.1.
  Check(CastTo(DType::kFloat32), {Make(DType::kFloat64, {1}, {0.1})}, {{{1}, {0.1}}});
  Check(CastTo(DType::kFloat32), {F32({2}, {1.5, -kInf})}, {{{2}, {1.5, -kInf}}});  // identity cast
}

TEST_CASE("Cast float16 rounding (nearest even) and decoding") {
  // 65504 = max half; 65519 < midpoint 65520 -> 65504; 65520 -> inf; 1e-8 < 2^-25 -> 0;
  // 2^-24 = min subnormal; 1 + 2^-11 is a tie -> 1 (even); 1 + 3*2^-11 tie -> 1 + 2^-9 (even);
  // 1.5 * 2^-24 tie between 2^-24 and 2^-23 -> 2^-23 (even mantissa 2).
  const double t = std::ldexp(1.0, -24);
  Check(CastTo(DType::kFloat16),
        {F32({11}, {1, 65504, 65519, 65520, -65520, 1e-8, t, 1 + std::ldexp(1.0, -11), 1 + 3 * std::ldexp(1.0, -11), 1.5 * t, kNaN})},
        {{{11}, {1, 65504, 65504, kInf, -kInf, 0, t, 1, 1 + std::ldexp(1.0, -9), 2 * t, kNaN}, DType::kFloat16}});
  Check(CastTo(DType::kFloat32), {Make(DType::kFloat16, {3}, {0.5, -2, 65504})}, {{{3}, {0.5, -2, 65504}}});
  Check(CastTo(DType::kInt32), {Make(DType::kFloat16, {2}, {2.5, -2.5})}, {{{2}, {2, -2}, DType::kInt32}});
  Check(CastTo(DType::kFloat16), {I64({2}, {2049, 70000})}, {{{2}, {2048, kInf}, DType::kFloat16}});  // 2049 tie -> 2048
}

TEST_CASE("Cast rejects bad or missing 'to'") {
  CheckFails(NodeOf("Cast"), {F32({1}, {1})}, "'to' is required");
  CheckFails(CastTo(DType::kString), {F32({1}, {1})}, "not a supported type code");
  CheckFails(NodeOf("Cast").Attr("to", int64_t(99)), {F32({1}, {1})}, "not a supported type code");
  CheckFails(NodeOf("Cast").Attr("to", 1.0), {F32({1}, {1})}, "should be int");
}

TEST_CASE("CastLike takes the dtype of its second input") {
  // Same conversions as Cast: truncation toward zero to int32; the like tensor's values are unused.
  Check(NodeOf("CastLike"), {F32({3}, {1.9, -1.9, 300}), Make(DType::kInt32, {1}, {0})},
        {{{3}, {1, -1, 300}, DType::kInt32}});
  Check(NodeOf("CastLike"), {F32({2}, {0.5, 65520}), Make(DType::kFloat16, {2, 2}, {0, 0, 0, 0})},
        {{{2}, {0.5, kInf}, DType::kFloat16}});
  Check(NodeOf("CastLike"), {I64({2}, {-1, 256}), Make(DType::kUInt8, {}, {7})}, {{{2}, {255, 0}, DType::kUInt8}});
  Check(NodeOf("CastLike"), {Make(DType::kFloat64, {1}, {0.25}), F32({1}, {0})}, {{{1}, {0.25}}});
  CheckFails(NodeOf("CastLike"), {F32({1}, {1})}, "expects 2 inputs");
}
