// Logical ops And, Or, Xor, Not on bool tensors; expected values by hand (truth tables).
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
Tensor B(const Shape& shape, std::vector<double> v) { return Make(DType::kBool, shape, std::move(v)); }
constexpr DType kB = DType::kBool;
}  // namespace

TEST_CASE("And, Or, Xor truth tables and broadcasting") {
  const Tensor a = B({4}, {0, 0, 1, 1}), b = B({4}, {0, 1, 0, 1});
  Check(NodeOf("And"), {a, b}, {{{4}, {0, 0, 0, 1}, kB}});
  Check(NodeOf("Or"), {a, b}, {{{4}, {0, 1, 1, 1}, kB}});
  Check(NodeOf("Xor"), {a, b}, {{{4}, {0, 1, 1, 0}, kB}});
  // [2,1] op [3] -> [2,3]: row i combines a[i] with b[j]
  const Tensor c = B({2, 1}, {0, 1}), d = B({3}, {1, 0, 1});
  Check(NodeOf("And"), {c, d}, {{{2, 3}, {0, 0, 0, 1, 0, 1}, kB}});
  Check(NodeOf("Or"), {c, d}, {{{2, 3}, {1, 0, 1, 1, 1, 1}, kB}});
  Check(NodeOf("Xor"), {c, d}, {{{2, 3}, {1, 0, 1, 0, 1, 0}, kB}});
  // legacy broadcast=1, axis=0: B [2] acts as [2,1] against A [2,2]
  Check(NodeOf("Or").Attr("broadcast", 1).Attr("axis", 0), {B({2, 2}, {0, 0, 0, 1}), B({2}, {1, 0})},
        {{{2, 2}, {1, 1, 0, 1}, kB}});
}

TEST_CASE("Not and rejections") {
  Check(NodeOf("Not"), {B({2, 2}, {0, 1, 1, 0})}, {{{2, 2}, {1, 0, 0, 1}, kB}});
  CheckFails(NodeOf("And"), {I64({1}, {1}), B({1}, {1})}, "must be bool");
  CheckFails(NodeOf("Not"), {F32({1}, {1})}, "must be bool");
  CheckFails(NodeOf("Xor"), {B({2}, {1, 0}), B({3}, {1, 0, 1})}, "cannot be broadcast");
}
