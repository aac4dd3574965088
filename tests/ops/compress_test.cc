// Compress; expected tensors selected by hand (ONNX examples on x = [[1,2],[3,4],[5,6]]).
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
Tensor X() { return F32({3, 2}, {1, 2, 3, 4, 5, 6}); }
Tensor Cond(const std::vector<double>& v) { return Make(DType::kBool, {static_cast<int64_t>(v.size())}, v); }
}  // namespace

TEST_CASE("Compress along an axis and flattened") {
  Check(NodeOf("Compress").Attr("axis", 0), {X(), Cond({0, 1, 1})}, {{{2, 2}, {3, 4, 5, 6}}});
  Check(NodeOf("Compress").Attr("axis", 1), {X(), Cond({0, 1})}, {{{3, 1}, {2, 4, 6}}});
  Check(NodeOf("Compress").Attr("axis", -1), {X(), Cond({0, 1})}, {{{3, 1}, {2, 4, 6}}});
  // Flattened [1..6] with a shorter condition: positions 1 and 4 -> [2, 5].
  Check(NodeOf("Compress"), {X(), Cond({0, 1, 0, 0, 1})}, {{{2}, {2, 5}}});
  // A longer condition is fine while its extra entries are false.
  Check(NodeOf("Compress").Attr("axis", 0), {X(), Cond({1, 0, 0, 0})}, {{{1, 2}, {1, 2}}});
  Check(NodeOf("Compress").Attr("axis", 0), {I64({3}, {7, 8, 9}), Cond({0, 0, 0})}, {{{0}, {}, DType::kInt64}});
}

TEST_CASE("Compress rejects bad conditions and axes") {
  CheckFails(NodeOf("Compress").Attr("axis", 0), {X(), Cond({0, 0, 0, 1})}, "is true");
  CheckFails(NodeOf("Compress").Attr("axis", 0), {X(), I64({3}, {0, 1, 1})}, "bool");
  CheckFails(NodeOf("Compress").Attr("axis", 2), {X(), Cond({1})}, "out of range");
  CheckFails(NodeOf("Compress").Attr("axis", 0), {F32({}, {1}), Cond({1})}, "scalar");
}
