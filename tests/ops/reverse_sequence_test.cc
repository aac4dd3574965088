// ReverseSequence; expected tensors from the two examples of the ONNX operator document.
#include "tests/ops/op_test_util.h"

#include "runtime/exec/ref_kernel.h"

using namespace tare;
using namespace tare::test;

TEST_CASE("ReverseSequence with time first and batch first") {
  // Example 1: time_axis 0, batch_axis 1, lens [4,3,2,1]: column b reverses its first lens[b] rows.
  Check(NodeOf("ReverseSequence").Attr("time_axis", 0).Attr("batch_axis", 1),
        {F32({4, 4}, {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15}), I64({4}, {4, 3, 2, 1})},
        {{{4, 4}, {3, 6, 9, 12, 2, 5, 8, 13, 1, 4, 10, 14, 0, 7, 11, 15}}});
  // Example 2: batch_axis 0, time_axis 1, lens [1,2,3,4]: row b reverses its first lens[b] entries.
  Check(NodeOf("ReverseSequence").Attr("time_axis", 1).Attr("batch_axis", 0),
        {F32({4, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}), I64({4}, {1, 2, 3, 4})},
        {{{4, 4}, {0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11, 15, 14, 13, 12}}});
  // Inner dims move as blocks: [T=2, B=1, 2], lens [2] swaps the two steps; lens 0 keeps them.
  Check(NodeOf("ReverseSequence"), {I64({2, 1, 2}, {1, 2, 3, 4}), I64({1}, {2})}, {{{2, 1, 2}, {3, 4, 1, 2}, DType::kInt64}});
  Check(NodeOf("ReverseSequence"), {I64({2, 1, 2}, {1, 2, 3, 4}), I64({1}, {0})}, {{{2, 1, 2}, {1, 2, 3, 4}, DType::kInt64}});
}

TEST_CASE("ReverseSequence rejects bad lengths and axes") {
  const Tensor x = F32({2, 2}, {1, 2, 3, 4});
  CheckFails(NodeOf("ReverseSequence"), {x, I64({2}, {3, 1})}, "out of range");
  CheckFails(NodeOf("ReverseSequence"), {x, I64({3}, {1, 1, 1})}, "length 2");
  CheckFails(NodeOf("ReverseSequence").Attr("batch_axis", 0), {x, I64({2}, {1, 1})}, "0 and 1");
  CheckFails(NodeOf("ReverseSequence"), {F32({2}, {1, 2}), I64({2}, {1, 1})}, "rank >= 2");
  CheckFails(NodeOf("ReverseSequence"), {x, F32({2}, {1, 1})}, "int64");
}

TEST_CASE("ReverseSequence kernel checks lengths known only at run time") {
  Result<KernelFn> k = MakeRefKernel(NodeOf("ReverseSequence"), DType::kFloat64);
  REQUIRE(k.ok());
  Tensor x = Make(DType::kFloat64, {2, 2}, {1, 2, 3, 4}), lens = I64({2}, {1, -1});
  Tensor y = Tensor::Alloc(DType::kFloat64, {2, 2}).value();
  Status s = (*k)({&x, &lens}, {&y});
  CHECK_FALSE(s.ok());
  CHECK(s.message().find("sequence_lens[1] = -1") != std::string::npos);
}
