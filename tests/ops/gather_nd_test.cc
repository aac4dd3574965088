// GatherND / GatherElements; expected tensors from the examples of the ONNX operator documents
// (and small cases worked by hand, noted where they appear).
#include "tests/ops/op_test_util.h"

#include "runtime/exec/ref_kernel.h"

using namespace tare;
using namespace tare::test;

namespace {
const DType i32 = DType::kInt32;
Tensor Cube() { return Make(i32, {2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}); }  // [[[0,1],[2,3]],[[4,5],[6,7]]]
}  // namespace

TEST_CASE("GatherND examples 1-5 of the ONNX document") {
  Check(NodeOf("GatherND"), {Make(i32, {2, 2}, {0, 1, 2, 3}), I64({2, 2}, {0, 0, 1, 1})}, {{{2}, {0, 3}, i32}});
  Check(NodeOf("GatherND"), {Make(i32, {2, 2}, {0, 1, 2, 3}), I64({2, 1}, {1, 0})}, {{{2, 2}, {2, 3, 0, 1}, i32}});
  Check(NodeOf("GatherND"), {Cube(), I64({2, 2}, {0, 1, 1, 0})}, {{{2, 2}, {2, 3, 4, 5}, i32}});
  Check(NodeOf("GatherND"), {Cube(), I64({2, 1, 2}, {0, 1, 1, 0})}, {{{2, 1, 2}, {2, 3, 4, 5}, i32}});
  Check(NodeOf("GatherND").Attr("batch_dims", 1), {Cube(), I64({2, 1}, {1, 0})}, {{{2, 2}, {2, 3, 4, 5}, i32}});
  // By hand: negative indices count from the end: (-1, 0) -> data[1][0] = 2 of [[0,1],[2,3]].
  Check(NodeOf("GatherND"), {F32({2, 2}, {0, 1, 2, 3}), I64({1, 2}, {-1, 0})}, {{{1}, {2}}});
}

TEST_CASE("GatherElements examples and negative indices") {
  Check(NodeOf("GatherElements").Attr("axis", 1), {F32({2, 2}, {1, 2, 3, 4}), I64({2, 2}, {0, 0, 1, 0})},
        {{{2, 2}, {1, 1, 4, 3}}});
  const Tensor d = F32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Check(NodeOf("GatherElements"), {d, I64({2, 3}, {1, 2, 0, 2, 0, 0})}, {{{2, 3}, {4, 8, 3, 7, 2, 3}}});
  // By hand: -1 -> row 2, -2 -> row 1 (axis 0): [[7,5,3],[4,2,3]].
  Check(NodeOf("GatherElements"), {d, Make(i32, {2, 3}, {-1, -2, 0, -2, 0, 0})}, {{{2, 3}, {7, 5, 3, 4, 2, 3}}});
  // By hand: indices narrower than data on the other axis: [[0],[2]] along axis 1 -> [[1],[6]].
  Check(NodeOf("GatherElements").Attr("axis", 1), {d, I64({2, 1}, {0, 2})}, {{{2, 1}, {1, 6}}});
}

TEST_CASE("GatherND / GatherElements reject bad indices and shapes") {
  CheckFails(NodeOf("GatherND"), {Cube(), I64({1, 2}, {0, 2})}, "index 2 (position 1");
  CheckFails(NodeOf("GatherND"), {Cube(), I64({1, 4}, {0, 0, 0, 0})}, "indices.shape[-1]");
  CheckFails(NodeOf("GatherND").Attr("batch_dims", 2), {Cube(), I64({2, 1}, {0, 0})}, "batch_dims");
  CheckFails(NodeOf("GatherND").Attr("batch_dims", 1), {Cube(), I64({3, 1}, {0, 0, 0})}, "batch dim 0");
  CheckFails(NodeOf("GatherND"), {Cube(), F32({1, 1}, {0})}, "int64 or int32");
  CheckFails(NodeOf("GatherElements"), {F32({2, 2}, {1, 2, 3, 4}), I64({1, 2}, {0, -3})}, "index -3");
  CheckFails(NodeOf("GatherElements"), {F32({2, 2}, {1, 2, 3, 4}), I64({2}, {0, 1})}, "same rank");
  CheckFails(NodeOf("GatherElements"), {F32({2, 2}, {1, 2, 3, 4}), I64({2, 3}, {0, 0, 0, 0, 0, 0})}, "exceeds");
}

TEST_CASE("GatherND kernel checks indices known only at run time") {
  Result<KernelFn> k = MakeRefKernel(NodeOf("GatherND"), DType::kFloat32);
  REQUIRE(k.ok());
  Tensor data = Make(i32, {2, 2}, {0, 1, 2, 3}), ind = I64({1, 2}, {1, 5});
  Tensor y = Tensor::Alloc(i32, {1}).value();
  Status s = (*k)({&data, &ind}, {&y});
  CHECK_FALSE(s.ok());
  CHECK(s.message().find("index 5") != std::string::npos);
}
