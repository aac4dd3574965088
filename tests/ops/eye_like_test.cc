// EyeLike; expected matrices written out by hand (ones at (i, i + k)).
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

TEST_CASE("EyeLike with dtype and k") {
  const DType i32 = DType::kInt32;
  Check(NodeOf("EyeLike"), {Make(i32, {3, 4}, std::vector<double>(12, 7))},
        {{{3, 4}, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}, i32}});
  Check(NodeOf("EyeLike").Attr("dtype", 1).Attr("k", 1), {Make(i32, {3, 3}, std::vector<double>(9, 0))},
        {{{3, 3}, {0, 1, 0, 0, 0, 1, 0, 0, 0}}});
  // k = -1 on [3, 2]: (1, 0) and (2, 1).
  Check(NodeOf("EyeLike").Attr("dtype", 11).Attr("k", -1), {F32({3, 2}, {1, 2, 3, 4, 5, 6})},
        {{{3, 2}, {0, 0, 1, 0, 0, 1}, DType::kFloat64}});
  Check(NodeOf("EyeLike").Attr("dtype", 9), {F32({2, 2}, {1, 2, 3, 4})}, {{{2, 2}, {1, 0, 0, 1}, DType::kBool}});
  Check(NodeOf("EyeLike").Attr("k", 10), {F32({2, 2}, {1, 2, 3, 4})}, {{{2, 2}, {0, 0, 0, 0}}});
  Check(NodeOf("EyeLike").Attr("k", INT64_MIN), {F32({2, 2}, {1, 2, 3, 4})}, {{{2, 2}, {0, 0, 0, 0}}});
  Check(NodeOf("EyeLike").Attr("dtype", 10), {F32({1, 2}, {1, 2})}, {{{1, 2}, {1, 0}, DType::kFloat16}});
}

TEST_CASE("EyeLike rejects bad rank and dtype") {
  CheckFails(NodeOf("EyeLike"), {F32({2}, {1, 2})}, "2-D");
  CheckFails(NodeOf("EyeLike").Attr("dtype", 8), {F32({2, 2}, {1, 2, 3, 4})}, "dtype");
  CheckFails(NodeOf("EyeLike").Attr("dtype", 99), {F32({2, 2}, {1, 2, 3, 4})}, "dtype");
}
