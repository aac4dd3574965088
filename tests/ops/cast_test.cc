// Cast: expected values by hand (C++/numpy conversion rules, with tare's defined saturation and NaN
// handling for float -> integer). Integer wrap-around values were cross-checked with numpy astype;
// float16 roundings with np.float16.
#include <cmath>
#include <limits>

#include "tests/ops/op_test_util.h"

#include <string>

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
  CheckFails(CastTo(DType::kUndefined), {F32({1}, {1})}, "not a supported type code");
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

namespace {

Tensor Str(const Shape& shape, const std::vector<std::string>& v) {
  Tensor t = Tensor::Alloc(DType::kString, shape).value();
  for (size_t i = 0; i < v.size(); ++i) t.as<std::string>()[i] = v[i];
  return t;
}

/// Runs the node on ref64 and ref and checks the string output.
void CheckStr(const Node& node, const std::vector<Tensor>& in, const std::vector<std::string>& expected) {
  for (DType c : {DType::kFloat64, DType::kFloat32}) {
    auto r = Run(node, in, c);
    REQUIRE(r.ok());
    const Tensor& y = (*r)[0];
    REQUIRE(y.dtype == DType::kString);
    CHECK(y.shape == in[0].shape);
    REQUIRE(y.numel() == static_cast<int64_t>(expected.size()));
    for (size_t i = 0; i < expected.size(); ++i) CHECK(y.as<std::string>()[i] == expected[i]);
  }
}

}  // namespace

TEST_CASE("Cast number -> string prints numpy's str()") {
  // Expected: /usr/bin/python3, str(np.float32(x)) for each x (shortest round-trip digits of
  // float32; positional for 1e-4 <= |x| < 1e16; float32(1e-4) = 9.99999974e-05 is below 1e-4).
  CheckStr(CastTo(DType::kString),
           {F32({14}, {0.1, 100, 1e-5, 1.5e16, -0.0, kNaN, kInf, -kInf, 0.039187793, 1e16, 123456789, 1e-4, 1e15,
                       3.4028235e38})},
           {"0.1", "100.0", "1e-05", "1.5e+16", "-0.0", "nan", "inf", "-inf", "0.039187793", "1e+16", "123456790.0",
            "1e-04", "1000000000000000.0", "3.4028235e+38"});
  // float64 (str(np.float64(x))): 1/3 is not a float32 value, so ref64 prints all its digits too.
  CheckStr(CastTo(DType::kString), {Make(DType::kFloat64, {3}, {1.0 / 3, 1e100, 2.5})},
           {"0.3333333333333333", "1e+100", "2.5"});
  // float16 (str(np.float16(x))): 65504 -> "65500.0", float16(1e-7) -> "1e-07".
  CheckStr(CastTo(DType::kString), {Make(DType::kFloat16, {4}, {0.1, 65504, 1e-7, 0.5})}, {"0.1", "65500.0", "1e-07", "0.5"});
  // bfloat16 0x3DCC = 0.099609375: "0.1" reads back as 0x3DCD (float32 0x3DCCCCCD rounds up), while
  // "0.0996" (float32 0x3DCBFB16) rounds to 0x3DCC: the shortest text is "0.0996".
  CheckStr(CastTo(DType::kString), {Make(DType::kBFloat16, {2}, {0.099609375, 256})}, {"0.0996", "256.0"});
  CheckStr(CastTo(DType::kString), {I64({3}, {-12, 0, 9223372036854775807})}, {"-12", "0", "9223372036854775807"});
  CheckStr(CastTo(DType::kString), {Make(DType::kUInt8, {1}, {255})}, {"255"});
  CheckStr(CastTo(DType::kString), {Make(DType::kBool, {2}, {1, 0})}, {"True", "False"});
  CheckStr(CastTo(DType::kString), {Str({2}, {"x", ""})}, {"x", ""});
  CheckStr(NodeOf("CastLike"), {F32({2}, {0.25, -3}), Str({1}, {"like"})}, {"0.25", "-3.0"});
}

TEST_CASE("Cast string -> number parses numbers, INF/NaN in any case, true/false") {
  // float32: the nearest float32 to the text (Check compares within 2 eps of the decimal value).
  Check(CastTo(DType::kFloat32), {Str({9}, {"3.14", "1E8", "-2.5e-3", "+INF", "inf", "-INF", "NaN", " 7 ", "+1.5"})},
        {{{9}, {3.14, 1e8, -2.5e-3, kInf, kInf, -kInf, kNaN, 7, 1.5}}});
  Check(CastTo(DType::kFloat64), {Str({2}, {"0.1", "-1e-300"})}, {{{2}, {0.1, -1e-300}, DType::kFloat64}});
  // Beyond double's range: +-inf, or +-0 when tiny; beyond float32's range: +-inf.
  Check(CastTo(DType::kFloat64), {Str({3}, {"1e400", "-1e-400", "-1e999"})}, {{{3}, {kInf, -0.0, -kInf}, DType::kFloat64}});
  // On ref (float32 held as float) 1e39 overflows to inf; ref64 keeps float32 values as doubles.
  auto big = Run(CastTo(DType::kFloat32), {Str({2}, {"1e39", "-1e39"})}, DType::kFloat32);
  REQUIRE(big.ok());
  CHECK(ReadDouble((*big)[0], 0) == kInf);
  CHECK(ReadDouble((*big)[0], 1) == -kInf);
  // Integers: integer text exactly; other numbers truncate toward zero (and saturate) as floats do.
  Check(CastTo(DType::kInt32), {Str({6}, {"12", "-7", "100.5", "1e3", "true", "3000000000"})},
        {{{6}, {12, -7, 100, 1000, 1, -1294967296}, DType::kInt32}});  // 3e9 is an integer: wraps (3e9 - 2^32)
  Check(CastTo(DType::kUInt64), {Str({1}, {"18446744073709551615"})}, {{{1}, {18446744073709551615.0}, DType::kUInt64}});
  Check(CastTo(DType::kBool), {Str({4}, {"0", "2", "False", "TRUE"})}, {{{4}, {0, 1, 0, 1}, DType::kBool}});
  Check(NodeOf("CastLike"), {Str({1}, {"-0.5"}), F32({1}, {0})}, {{{1}, {-0.5}}});
  for (DType c : {DType::kFloat64, DType::kFloat32}) {
    auto r = Run(CastTo(DType::kFloat32), {Str({2}, {"1", "hello"})}, c);
    REQUIRE(!r.ok());
    CHECK(r.status().message().find("cannot parse 'hello'") != std::string::npos);
  }
}

TEST_CASE("Cast float <-> bfloat16 (truncation of the float32 bits)") {
  // float32(0.1) = 0x3DCCCCCD -> bfloat16 0x3DCC = 0.099609375 (truncated, not rounded up to 0x3DCD);
  // -2.5 and 1 are exact; 3.0e38 = 0x7F61B1E6 -> 0x7F61 = 2.9908203e38 (= 0x7F61 << 16 as float32).
  Check(CastTo(DType::kBFloat16), {F32({4}, {0.1, -2.5, 1, kInf})}, {{{4}, {0.099609375, -2.5, 1, kInf}, DType::kBFloat16}});
  for (DType c : {DType::kFloat64, DType::kFloat32}) {  // NaN stays NaN (Check compares bfloat16 exactly)
    auto r = Run(CastTo(DType::kBFloat16), {F32({1}, {kNaN})}, c);
    REQUIRE(r.ok());
    CHECK(std::isnan(ReadDouble((*r)[0], 0)));
  }
  Check(CastTo(DType::kBFloat16), {F32({1}, {3.0e38})}, {{{1}, {0x1.c2p+127}, DType::kBFloat16}});
  // bfloat16 -> float32 / int32 is exact (values built from exactly representable bfloat16 numbers).
  Check(CastTo(DType::kFloat32), {Make(DType::kBFloat16, {3}, {0.099609375, -3, 256})}, {{{3}, {0.099609375, -3, 256}}});
  Check(CastTo(DType::kInt32), {Make(DType::kBFloat16, {2}, {-2.5, 7.5})}, {{{2}, {-2, 7}, DType::kInt32}});
  Check(NodeOf("CastLike"), {F32({1}, {0.1}), Make(DType::kBFloat16, {1}, {0})}, {{{1}, {0.099609375}, DType::kBFloat16}});
}

TEST_CASE("Cast to float8 rounds to nearest even and saturates as Cast-19's table") {
  // E4M3FN: largest 448 = 1.75 * 2^8; 464 is the tie between 448 and 480 (mantissa 110 even: 448);
  // 465 rounds to 480, past 448; smallest subnormal 2^-9; 2^-10 ties 0 and 2^-9 (to 0, the even
  // code); 3 * 2^-10 ties 2^-9 (code 1) and 2^-8 (code 2): 2^-8.
  const double s = std::ldexp(1.0, -9);
  Check(CastTo(DType::kFloat8E4M3FN), {F32({9}, {448, 464, 465, 1e9, -kInf, kNaN, s, s / 2, 1.5 * s})},
        {{{9}, {448, 448, 448, 448, -448, kNaN, s, 0, 2 * s}, DType::kFloat8E4M3FN}});
  // Without saturate an overflow and inf are NaN (E4M3FN has no inf) ...
  Check(CastTo(DType::kFloat8E4M3FN).Attr("saturate", int64_t(0)), {F32({3}, {465, kInf, 448})},
        {{{3}, {kNaN, kNaN, 448}, DType::kFloat8E4M3FN}});
  // ... and +-inf for E5M2 (largest 57344 = 1.75 * 2^15; 61440 ties 57344 and 65536: odd mantissa 11,
  // so it rounds up, past the largest value).
  Check(CastTo(DType::kFloat8E5M2).Attr("saturate", int64_t(0)), {F32({4}, {61440, 1e6, -kInf, 57344})},
        {{{4}, {kInf, kInf, -kInf, 57344}, DType::kFloat8E5M2}});
  // E4M3FNUZ: largest 240 = 1.875 * 2^7, bias 8 (smallest subnormal 2^-10).
  Check(CastTo(DType::kFloat8E4M3FNUZ), {F32({4}, {240, 250, kNaN, std::ldexp(1.0, -10)})},
        {{{4}, {240, 240, kNaN, std::ldexp(1.0, -10)}, DType::kFloat8E4M3FNUZ}});
}

TEST_CASE("Cast to int4 / uint4: integers keep the low four bits, floats truncate and saturate") {
  Check(CastTo(DType::kInt4), {I64({4}, {9, -9, 7, 16})}, {{{4}, {-7, 7, 7, 0}, DType::kInt4}});
  Check(CastTo(DType::kUInt4), {I64({3}, {17, -1, 15})}, {{{3}, {1, 15, 15}, DType::kUInt4}});
  Check(CastTo(DType::kInt4), {F32({4}, {-7.9, 8.5, -20, 2.5})}, {{{4}, {-7, 7, -8, 2}, DType::kInt4}});
  CheckFails(CastTo(DType::kFloat8E5M2).Attr("saturate", int64_t(2)), {F32({1}, {1})}, "'saturate' must be 0 or 1");
}
