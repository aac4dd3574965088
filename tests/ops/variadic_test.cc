// Variadic Min, Max, Sum, Mean; expected values by hand (arithmetic noted).
#include <cmath>

#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
Tensor Of(DType t, const Shape& shape, std::vector<double> v) { return Make(t, shape, std::move(v)); }
}  // namespace

TEST_CASE("Min, Max, Sum, Mean over three broadcast inputs") {
  // x0 [3] = {3, 2, 1}, x1 [2,1] = {1, 4}, x2 scalar 2 -> [2,3]
  const Tensor x0 = F32({3}, {3, 2, 1}), x1 = F32({2, 1}, {1, 4}), x2 = F32({}, {2});
  Check(NodeOf("Max"), {x0, x1, x2}, {{{2, 3}, {3, 2, 2, 4, 4, 4}}});
  Check(NodeOf("Min"), {x0, x1, x2}, {{{2, 3}, {1, 1, 1, 2, 2, 1}}});
  // row 0: 3+1+2 = 6, 2+1+2 = 5, 1+1+2 = 4; row 1: 3+4+2 = 9, 8, 7
  Check(NodeOf("Sum"), {x0, x1, x2}, {{{2, 3}, {6, 5, 4, 9, 8, 7}}}, 3);
  Check(NodeOf("Mean"), {x0, x1, x2}, {{{2, 3}, {2, 5.0 / 3, 4.0 / 3, 3, 8.0 / 3, 7.0 / 3}}}, 3);
  // the final shape may come from a later input: [3] and [3] then [2,3]
  Check(NodeOf("Sum"), {F32({3}, {1, 2, 3}), F32({3}, {1, 1, 1}), F32({2, 3}, {0, 0, 0, 10, 10, 10})},
        {{{2, 3}, {2, 3, 4, 12, 13, 14}}}, 3);
}

TEST_CASE("one input is copied; Mean of one input is itself") {
  Check(NodeOf("Max"), {F32({2}, {-1, 5})}, {{{2}, {-1, 5}}});
  Check(NodeOf("Sum"), {F32({2}, {-1, 5})}, {{{2}, {-1, 5}}});
  Check(NodeOf("Mean"), {F32({2}, {-1, 5})}, {{{2}, {-1, 5}}});
}

TEST_CASE("Min and Max: integer types exactly, NaN propagates") {
  Check(NodeOf("Max"), {Of(DType::kInt8, {3}, {-128, 5, 0}), Of(DType::kInt8, {3}, {127, -5, 0})},
        {{{3}, {127, 5, 0}, DType::kInt8}});
  Check(NodeOf("Min"), {Of(DType::kUInt64, {2}, {1, 18446744073709549568.0}), Of(DType::kUInt64, {2}, {2, 3})},
        {{{2}, {1, 3}, DType::kUInt64}});
  Check(NodeOf("Min"), {I64({2}, {(int64_t(1) << 60) + 1, 0}), I64({2}, {int64_t(1) << 60, -1})},
        {{{2}, {std::ldexp(1.0, 60), -1}, DType::kInt64}});
  Check(NodeOf("Max"), {F32({3}, {NAN, 1, 2}), F32({3}, {0, NAN, 1})}, {{{3}, {NAN, NAN, 2}}});
  Check(NodeOf("Min"), {Of(DType::kFloat16, {2}, {0.5, -2}), Of(DType::kFloat16, {2}, {0.25, 3})},
        {{{2}, {0.25, -2}, DType::kFloat16}});
}

TEST_CASE("Sum and Mean in float16 and float64") {
  // float16 steps round to half: (1 + 2^-11) -> 1 (tie to even), then 1 + 2^-11 -> 1 again;
  // exact arithmetic would give 1 + 2^-10, so this checks the documented per-step rounding.
  Check(NodeOf("Sum"), {Of(DType::kFloat16, {1}, {1}), Of(DType::kFloat16, {1}, {0x1p-11}), Of(DType::kFloat16, {1}, {0x1p-11})},
        {{{1}, {1}, DType::kFloat16}}, 3);
  // Mean float16: (1 + 2) / 2 = 1.5
  Check(NodeOf("Mean"), {Of(DType::kFloat16, {1}, {1}), Of(DType::kFloat16, {1}, {2})}, {{{1}, {1.5}, DType::kFloat16}}, 2);
  Check(NodeOf("Mean"), {Of(DType::kFloat64, {2}, {1, 0.5}), Of(DType::kFloat64, {2}, {2, 0.25})},
        {{{2}, {1.5, 0.375}, DType::kFloat64}}, 2);
}

TEST_CASE("variadic ops reject what they cannot compute") {
  CheckFails(NodeOf("Sum"), {I64({1}, {1}), I64({1}, {2})}, "not supported");
  CheckFails(NodeOf("Max"), {F32({1}, {1}), I64({1}, {2})}, "differs");
  CheckFails(NodeOf("Min"), {F32({2}, {1, 2}), F32({3}, {1, 2, 3})}, "cannot be broadcast");
  CheckFails(NodeOf("Mean"), {Make(DType::kBool, {1}, {1})}, "not supported");
  CheckFails(NodeOf("Sum"), {F32({1}, {1}), Tensor(), F32({1}, {2})}, "input 1 is missing");
}
