// CumSum; expected values are running sums written out by hand.
#include "tests/ops/op_test_util.h"

#include "runtime/exec/ref_kernel.h"

using namespace tare;
using namespace tare::test;

TEST_CASE("CumSum exclusive and reverse on 1-D") {
  const Tensor x = F32({5}, {1, 2, 3, 4, 5});
  const Tensor ax = Make(DType::kInt32, {}, {0});
  Check(NodeOf("CumSum"), {x, ax}, {{{5}, {1, 3, 6, 10, 15}}}, 5, 15);        // 1, 1+2, 1+2+3, ...
  Check(NodeOf("CumSum").Attr("exclusive", 1), {x, ax}, {{{5}, {0, 1, 3, 6, 10}}}, 5, 15);
  Check(NodeOf("CumSum").Attr("reverse", 1), {x, ax}, {{{5}, {15, 14, 12, 9, 5}}}, 5, 15);  // 5, 5+4, ...
  Check(NodeOf("CumSum").Attr("reverse", 1).Attr("exclusive", 1), {x, ax}, {{{5}, {14, 12, 9, 5, 0}}}, 5, 15);
}

TEST_CASE("CumSum on 2-D axes, integer data, float64 data") {
  const Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  // axis 0: second row becomes [1+4, 2+5, 3+6]; axis 1 (= -1): [1, 1+2, 1+2+3], [4, 4+5, 4+5+6].
  Check(NodeOf("CumSum"), {x, I64({}, {0})}, {{{2, 3}, {1, 2, 3, 5, 7, 9}}}, 2, 9);
  Check(NodeOf("CumSum"), {x, I64({1}, {-1})}, {{{2, 3}, {1, 3, 6, 4, 9, 15}}}, 3, 15);
  Check(NodeOf("CumSum").Attr("reverse", 1), {I64({2, 2}, {1, -2, 3, 4}), I64({}, {1})},
        {{{2, 2}, {-1, -2, 7, 4}, DType::kInt64}});  // [1 + -2, -2], [3 + 4, 4]
  Check(NodeOf("CumSum"), {Make(DType::kFloat64, {3}, {0.5, 0.25, -1}), I64({}, {0})},
        {{{3}, {0.5, 0.75, -0.25}, DType::kFloat64}}, 3, 1.75);
}

TEST_CASE("CumSum rejects bad axis and attributes") {
  const Tensor x = F32({2, 2}, {1, 2, 3, 4});
  CheckFails(NodeOf("CumSum"), {x, I64({}, {2})}, "out of range");
  CheckFails(NodeOf("CumSum"), {x, F32({}, {0})}, "int32 or int64");
  CheckFails(NodeOf("CumSum"), {x, I64({2}, {0, 1})}, "scalar");
  CheckFails(NodeOf("CumSum").Attr("exclusive", 2), {x, I64({}, {0})}, "exclusive");
  CheckFails(NodeOf("CumSum"), {Make(DType::kBool, {2}, {1, 0}), I64({}, {0})}, "not supported");
}

TEST_CASE("CumSum kernel checks an axis known only at run time") {
  Result<KernelFn> k = MakeRefKernel(NodeOf("CumSum"), DType::kFloat64);
  REQUIRE(k.ok());
  Tensor x = Make(DType::kFloat64, {2}, {1, 2}), ax = I64({}, {-3}), y = Tensor::Alloc(DType::kFloat64, {2}).value();
  Status s = (*k)({&x, &ax}, {&y});
  CHECK_FALSE(s.ok());
  CHECK(s.message().find("axis -3") != std::string::npos);
}
