// Comparisons Equal, Greater, Less, GreaterOrEqual, LessOrEqual; expected values by hand.
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
constexpr DType kB = DType::kBool;
}  // namespace

TEST_CASE("comparisons on float32 with broadcasting and NaN") {
  // A [2,3] against B [3] = {2, 2, nan}: any comparison with NaN is false
  const Tensor a = F32({2, 3}, {1, 2, 3, 4, 2, NAN}), b = F32({3}, {2, 2, NAN});
  Check(NodeOf("Equal"), {a, b}, {{{2, 3}, {0, 1, 0, 0, 1, 0}, kB}});
  Check(NodeOf("Greater"), {a, b}, {{{2, 3}, {0, 0, 0, 1, 0, 0}, kB}});
  Check(NodeOf("Less"), {a, b}, {{{2, 3}, {1, 0, 0, 0, 0, 0}, kB}});
  Check(NodeOf("GreaterOrEqual"), {a, b}, {{{2, 3}, {0, 1, 0, 1, 1, 0}, kB}});
  Check(NodeOf("LessOrEqual"), {a, b}, {{{2, 3}, {1, 1, 0, 0, 1, 0}, kB}});
  // both sides broadcast: [2,1] vs [1,2] -> y[i][j] = a[i] > b[j]
  Check(NodeOf("Greater"), {F32({2, 1}, {1, 3}), F32({1, 2}, {2, 0})}, {{{2, 2}, {0, 1, 1, 1}, kB}});
}

TEST_CASE("comparisons on integer, float16, float64 and bool tensors") {
  Check(NodeOf("Equal"), {Make(DType::kInt32, {3}, {1, -2, 3}), Make(DType::kInt32, {1}, {-2})}, {{{3}, {0, 1, 0}, kB}});
  // int64 values beyond 2^53 compare exactly: 2^60 + 1 > 2^60
  Check(NodeOf("Greater"), {I64({2}, {(int64_t(1) << 60) + 1, 5}), I64({2}, {int64_t(1) << 60, 5})}, {{{2}, {1, 0}, kB}});
  Check(NodeOf("Less"), {Make(DType::kUInt8, {3}, {0, 200, 255}), Make(DType::kUInt8, {3}, {1, 100, 255})}, {{{3}, {1, 0, 0}, kB}});
  Check(NodeOf("LessOrEqual"), {Make(DType::kUInt64, {2}, {1, 3}), Make(DType::kUInt64, {2}, {1, 2})}, {{{2}, {1, 0}, kB}});
  Check(NodeOf("GreaterOrEqual"), {Make(DType::kInt8, {2}, {-128, 5}), Make(DType::kInt8, {2}, {-127, 5})}, {{{2}, {0, 1}, kB}});
  Check(NodeOf("GreaterOrEqual"), {Make(DType::kFloat16, {3}, {0.5, -1, 2}), Make(DType::kFloat16, {3}, {0.25, -1, 3})},
        {{{3}, {1, 1, 0}, kB}});
  Check(NodeOf("Less"), {Make(DType::kFloat64, {2}, {0.1, 1}), Make(DType::kFloat64, {2}, {0.2, 1})}, {{{2}, {1, 0}, kB}});
  Check(NodeOf("Equal"), {Make(kB, {4}, {0, 0, 1, 1}), Make(kB, {4}, {0, 1, 0, 1})}, {{{4}, {1, 0, 0, 1}, kB}});
}

TEST_CASE("comparisons: legacy broadcast and rejections") {
  // broadcast=1, axis=0: B [2] acts as [2,1] against A [2,2]
  Check(NodeOf("Greater").Attr("broadcast", 1).Attr("axis", 0), {F32({2, 2}, {1, 5, 1, 5}), F32({2}, {2, 4})},
        {{{2, 2}, {0, 1, 0, 1}, kB}});
  CheckFails(NodeOf("Greater"), {Make(kB, {1}, {1}), Make(kB, {1}, {0})}, "not supported");
  CheckFails(NodeOf("Equal"), {F32({1}, {1}), I64({1}, {1})}, "differs");
  CheckFails(NodeOf("Less"), {F32({2}, {1, 2}), F32({3}, {1, 2, 3})}, "cannot be broadcast");
  CheckFails(NodeOf("Equal"), {F32({1}, {1})}, "expects 2 inputs");
}
