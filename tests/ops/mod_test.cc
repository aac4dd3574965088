// Mod (fmod=0: sign of the divisor, as Python's %; fmod=1: C fmod). Expected values by hand,
// cross-checked with numpy.mod / numpy.fmod.
#include <cstdint>

#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
Tensor Of(DType t, const Shape& shape, std::vector<double> v) { return Make(t, shape, std::move(v)); }
}  // namespace

TEST_CASE("integer Mod: divisor's sign (fmod=0) and dividend's sign (fmod=1)") {
  // -4 mod 3 = 2 (-4 = -2*3 + 2), 7 mod -3 = -2 (7 = -3*-3 - 2), -7 mod -3 = -1, 4 mod -3 = -2, 5 mod 5 = 0
  const Tensor a = Of(DType::kInt32, {5}, {-4, 7, -7, 4, 5}), b = Of(DType::kInt32, {5}, {3, -3, -3, -3, 5});
  Check(NodeOf("Mod"), {a, b}, {{{5}, {2, -2, -1, -2, 0}, DType::kInt32}});
  // C fmod truncates: -4 % 3 = -1, 7 % -3 = 1, -7 % -3 = -1, 4 % -3 = 1
  Check(NodeOf("Mod").Attr("fmod", 1), {a, b}, {{{5}, {-1, 1, -1, 1, 0}, DType::kInt32}});
  // INT_MIN mod -1 = 0 (no trap); int8 broadcast against a scalar: -128 mod 3 = 1 (-128 = -43*3 + 1)
  Check(NodeOf("Mod"), {Of(DType::kInt8, {3}, {-128, 127, -1}), Of(DType::kInt8, {}, {3})}, {{{3}, {1, 1, 2}, DType::kInt8}});
  Check(NodeOf("Mod"), {I64({2}, {INT64_MIN, 9}), I64({2}, {-1, -1})}, {{{2}, {0, 0}, DType::kInt64}});
  Check(NodeOf("Mod").Attr("fmod", 1), {I64({1}, {INT64_MIN}), I64({1}, {-1})}, {{{1}, {0}, DType::kInt64}});
  // unsigned: 250 mod 7 = 5 (7*35 = 245)
  Check(NodeOf("Mod"), {Of(DType::kUInt8, {2}, {250, 3}), Of(DType::kUInt8, {2}, {7, 4})}, {{{2}, {5, 3}, DType::kUInt8}});
  Check(NodeOf("Mod"), {Of(DType::kUInt64, {1}, {18446744073709549568.0}), Of(DType::kUInt64, {1}, {1000})},
        {{{1}, {568}, DType::kUInt64}});  // (2^64 - 2048) mod 1000 = 18446744073709549568 mod 1000 = 568
}

TEST_CASE("float Mod with fmod=1") {
  // fmod(-4.5, 2) = -0.5, fmod(5.5, -2) = 1.5, fmod(1, 0) = nan, fmod(3, inf) = 3
  Check(NodeOf("Mod").Attr("fmod", 1), {F32({4}, {-4.5, 5.5, 1, 3}), F32({4}, {2, -2, 0, INFINITY})},
        {{{4}, {-0.5, 1.5, NAN, 3}}});
  Check(NodeOf("Mod").Attr("fmod", 1), {Of(DType::kFloat16, {2}, {7.5, -7.5}), Of(DType::kFloat16, {1}, {2})},
        {{{2}, {1.5, -1.5}, DType::kFloat16}});
  Check(NodeOf("Mod").Attr("fmod", 1), {Of(DType::kFloat64, {1}, {10}), Of(DType::kFloat64, {1}, {3})},
        {{{1}, {1}, DType::kFloat64}});
}

TEST_CASE("Mod rejects a zero integer divisor, float with fmod=0, bad attributes") {
  CheckFails(NodeOf("Mod"), {I64({2}, {1, 2}), I64({2}, {1, 0})}, "division by zero");
  CheckFails(NodeOf("Mod"), {F32({1}, {1}), F32({1}, {2})}, "fmod must be 1");
  CheckFails(NodeOf("Mod").Attr("fmod", 2), {I64({1}, {1}), I64({1}, {2})}, "fmod must be 0 or 1");
  CheckFails(NodeOf("Mod"), {I64({1}, {1}), Of(DType::kInt32, {1}, {2})}, "differs");
}
