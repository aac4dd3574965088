// Scatter / ScatterElements / ScatterND; expected tensors from the examples of the ONNX operator
// documents and small cases worked by hand (reductions use values whose sums/products are exact).
#include "tests/ops/op_test_util.h"

#include "runtime/exec/ref_kernel.h"

using namespace tare;
using namespace tare::test;

TEST_CASE("ScatterElements and Scatter, ONNX examples") {
  const Tensor zeros = F32({3, 3}, std::vector<double>(9, 0));
  const Tensor ind = I64({2, 3}, {1, 0, 2, 0, 2, 1});
  const Tensor upd = F32({2, 3}, {1.0, 1.1, 1.2, 2.0, 2.1, 2.2});
  const std::vector<double> want = {2.0, 1.1, 0, 1.0, 0, 2.2, 0, 2.1, 1.2};
  Check(NodeOf("ScatterElements"), {zeros, ind, upd}, {{{3, 3}, want}});
  Check(NodeOf("Scatter"), {zeros, ind, upd}, {{{3, 3}, want}});
  const Tensor row = F32({1, 5}, {1, 2, 3, 4, 5});
  Check(NodeOf("ScatterElements").Attr("axis", 1), {row, I64({1, 2}, {1, 3}), F32({1, 2}, {1.1, 2.1})},
        {{{1, 5}, {1, 1.1, 3, 2.1, 5}}});
  // By hand: -3 is index 2 of 5.
  Check(NodeOf("ScatterElements").Attr("axis", 1), {row, Make(DType::kInt32, {1, 2}, {1, -3}), F32({1, 2}, {1.1, 2.1})},
        {{{1, 5}, {1, 1.1, 2.1, 4, 5}}});
}

TEST_CASE("ScatterElements reductions on duplicate indices") {
  const Tensor row = F32({1, 5}, {1, 2, 3, 4, 5});
  const Tensor dup = I64({1, 2}, {1, 1});
  // add: 2 + 1.5 + 2.25 = 5.75; mul: 2 * 2 * 3 = 12.
  Check(NodeOf("ScatterElements").Attr("axis", 1).Attr("reduction", "add"), {row, dup, F32({1, 2}, {1.5, 2.25})},
        {{{1, 5}, {1, 5.75, 3, 4, 5}}});
  Check(NodeOf("ScatterElements").Attr("axis", 1).Attr("reduction", "mul"), {row, dup, F32({1, 2}, {2, 3})},
        {{{1, 5}, {1, 12, 3, 4, 5}}});
  // "none": the last duplicate wins.
  Check(NodeOf("ScatterElements").Attr("axis", 1), {row, dup, F32({1, 2}, {7, 8})}, {{{1, 5}, {1, 8, 3, 4, 5}}});
  // max / min at [1, 1, 3] with [7, 0, 2]: max(2, 7, 0) = 7, max(4, 2) = 4; min(2, 7, 0) = 0, min(4, 2) = 2.
  const Tensor ind3 = I64({1, 3}, {1, 1, 3});
  const Tensor upd3 = I64({1, 3}, {7, 0, 2});
  const Tensor irow = I64({1, 5}, {1, 2, 3, 4, 5});
  Check(NodeOf("ScatterElements").Attr("axis", 1).Attr("reduction", "max"), {irow, ind3, upd3},
        {{{1, 5}, {1, 7, 3, 4, 5}, DType::kInt64}});
  Check(NodeOf("ScatterElements").Attr("axis", 1).Attr("reduction", "min"), {irow, ind3, upd3},
        {{{1, 5}, {1, 0, 3, 2, 5}, DType::kInt64}});
}

TEST_CASE("ScatterND elements, slices and reductions") {
  // ONNX example 1.
  Check(NodeOf("ScatterND"), {F32({8}, {1, 2, 3, 4, 5, 6, 7, 8}), I64({4, 1}, {4, 3, 1, 7}), F32({4}, {9, 10, 11, 12})},
        {{{8}, {1, 11, 3, 10, 9, 6, 7, 12}}});
  // By hand: slice update of row 1 of [[1,2],[3,4]]; element updates (0,1) = 5, (1,0) = 6.
  const Tensor m = F32({2, 2}, {1, 2, 3, 4});
  Check(NodeOf("ScatterND"), {m, I64({1, 1}, {1}), F32({1, 2}, {9, 8})}, {{{2, 2}, {1, 2, 9, 8}}});
  Check(NodeOf("ScatterND"), {m, I64({2, 2}, {0, 1, -1, 0}), F32({2}, {5, 6})}, {{{2, 2}, {1, 5, 6, 4}}});
  // By hand: [1,2,3] at [0, 0, 2] with [1,2,3]: add -> [1+1+2, 2, 3+3]; mul -> [1*1*2, 2, 3*3].
  const Tensor v = F32({3}, {1, 2, 3});
  const Tensor ind = I64({3, 1}, {0, 0, 2});
  Check(NodeOf("ScatterND").Attr("reduction", "add"), {v, ind, F32({3}, {1, 2, 3})}, {{{3}, {4, 2, 6}}});
  Check(NodeOf("ScatterND").Attr("reduction", "mul"), {v, ind, F32({3}, {1, 2, 3})}, {{{3}, {2, 2, 9}}});
  Check(NodeOf("ScatterND").Attr("reduction", "add"), {I64({3}, {1, 2, 3}), ind, I64({3}, {1, 2, 3})},
        {{{3}, {4, 2, 6}, DType::kInt64}});
}

TEST_CASE("Scatter family rejects bad indices, shapes and reductions") {
  const Tensor m = F32({2, 2}, {1, 2, 3, 4});
  CheckFails(NodeOf("ScatterElements"), {m, I64({1, 1}, {2}), F32({1, 1}, {0})}, "index 2 (position 0");
  CheckFails(NodeOf("ScatterElements"), {m, I64({1, 2}, {0, 0}), F32({2, 1}, {0, 0})}, "updates shape");
  CheckFails(NodeOf("ScatterElements").Attr("reduction", "sub"), {m, I64({1, 1}, {0}), F32({1, 1}, {0})}, "reduction");
  CheckFails(NodeOf("ScatterElements"), {m, I64({1, 1}, {0}), I64({1, 1}, {0})}, "updates type");
  CheckFails(NodeOf("ScatterElements").Attr("reduction", "add"),
             {Make(DType::kBool, {2}, {0, 1}), I64({1}, {0}), Make(DType::kBool, {1}, {1})}, "numeric");
  CheckFails(NodeOf("ScatterND"), {m, I64({1, 3}, {0, 0, 0}), F32({1}, {0})}, "indices.shape[-1]");
  CheckFails(NodeOf("ScatterND"), {m, I64({1, 1}, {0}), F32({1, 3}, {0, 0, 0})}, "updates shape");
  CheckFails(NodeOf("ScatterND"), {m, I64({1, 2}, {0, -3}), F32({1}, {0})}, "index -3");
}

TEST_CASE("ScatterND kernel checks indices known only at run time") {
  Result<KernelFn> k = MakeRefKernel(NodeOf("ScatterND"), DType::kFloat64);
  REQUIRE(k.ok());
  Tensor data = Make(DType::kFloat64, {3}, {1, 2, 3}), ind = I64({1, 1}, {3}), upd = Make(DType::kFloat64, {1}, {0});
  Tensor y = Tensor::Alloc(DType::kFloat64, {3}).value();
  Status s = (*k)({&data, &ind, &upd}, {&y});
  CHECK_FALSE(s.ok());
  CHECK(s.message().find("index 3") != std::string::npos);
}
