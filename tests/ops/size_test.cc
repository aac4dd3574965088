// Size; expected counts are products of the dims.
#include "tests/ops/op_test_util.h"

#include "runtime/exec/ref_kernel.h"

using namespace tare;
using namespace tare::test;

TEST_CASE("Size counts elements") {
  Check(NodeOf("Size"), {F32({3, 4, 5}, std::vector<double>(60, 1))}, {{{}, {60}, DType::kInt64}});  // 3*4*5
  Check(NodeOf("Size"), {F32({}, {2})}, {{{}, {1}, DType::kInt64}});
  Check(NodeOf("Size"), {Make(DType::kBool, {2, 0}, {})}, {{{}, {0}, DType::kInt64}});
  CheckFails(NodeOf("Size"), {F32({1}, {1}), F32({1}, {1})}, "expects 1 inputs");
}

TEST_CASE("Size reads only the input's shape") {
  Result<KernelFn> k = MakeRefKernel(NodeOf("Size"), DType::kFloat32);
  REQUIRE(k.ok());
  Tensor x = Tensor::View(DType::kFloat32, {2, 3}, nullptr);  // no data at all
  Tensor y = Tensor::Alloc(DType::kInt64, {}).value();
  REQUIRE((*k)({&x}, {&y}).ok());
  CHECK(*y.as<int64_t>() == 6);
}
