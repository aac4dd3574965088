// Reductions; expected values computed by hand (the sums are written out per case).
#include <limits>

#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
// x[2,3] = [[1,2,3],[4,5,6]]
Tensor X23() { return F32({2, 3}, {1, 2, 3, 4, 5, 6}); }
// x[2,3,2] = 1..12, x[i,j,k] = 1 + 6i + 2j + k
Tensor X232() { return F32({2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}); }
const double kInf = std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("ReduceSum axes input, keepdims, negative axes") {
  // rows: 1+2+3 = 6, 4+5+6 = 15; columns: 1+4 = 5, 2+5 = 7, 3+6 = 9; all: 21.
  Check(NodeOf("ReduceSum"), {X23(), I64({1}, {1})}, {{{2, 1}, {6, 15}}}, 3);
  Check(NodeOf("ReduceSum").Attr("keepdims", int64_t{0}), {X23(), I64({1}, {1})}, {{{2}, {6, 15}}}, 3);
  Check(NodeOf("ReduceSum"), {X23(), I64({1}, {-2})}, {{{1, 3}, {5, 7, 9}}}, 2);
  Check(NodeOf("ReduceSum"), {X23()}, {{{1, 1}, {21}}}, 6);
  Check(NodeOf("ReduceSum").Attr("keepdims", int64_t{0}), {X23()}, {{{}, {21}}}, 6);
  Check(NodeOf("ReduceSum"), {X23(), I64({0}, {})}, {{{1, 1}, {21}}}, 6);
  // Non-adjacent axes [0, 2] of 2x3x2: j=0: 1+2+7+8 = 18; j=1: 3+4+9+10 = 26; j=2: 5+6+11+12 = 34.
  Check(NodeOf("ReduceSum"), {X232(), I64({2}, {0, -1})}, {{{1, 3, 1}, {18, 26, 34}}}, 4);
  // Axis 1 only, keepdims 0: [1+3+5, 2+4+6, 7+9+11, 8+10+12] = [9, 12, 27, 30].
  Check(NodeOf("ReduceSum").Attr("keepdims", int64_t{0}), {X232(), I64({1}, {1})}, {{{2, 2}, {9, 12, 27, 30}}}, 3);
}

TEST_CASE("ReduceSum noop_with_empty_axes, integers, empty extents") {
  Check(NodeOf("ReduceSum").Attr("noop_with_empty_axes", int64_t{1}), {X23()}, {{{2, 3}, {1, 2, 3, 4, 5, 6}}});
  Check(NodeOf("ReduceSum").Attr("noop_with_empty_axes", int64_t{1}), {X23(), I64({0}, {})},
        {{{2, 3}, {1, 2, 3, 4, 5, 6}}});
  // With axes given, noop_with_empty_axes has no effect.
  Check(NodeOf("ReduceSum").Attr("noop_with_empty_axes", int64_t{1}), {X23(), I64({1}, {0})}, {{{1, 3}, {5, 7, 9}}}, 2);
  Check(NodeOf("ReduceSum"), {I64({2, 2}, {1, -7, 1000000000000, 3}), I64({1}, {0})},
        {{{1, 2}, {1000000000001, -4}, DType::kInt64}});
  Check(NodeOf("ReduceSum").Attr("keepdims", int64_t{0}), {Make(DType::kInt32, {3}, {5, -2, 10})},
        {{{}, {13}, DType::kInt32}});
  // Summing an empty extent gives 0.
  Check(NodeOf("ReduceSum"), {F32({2, 0}, {}), I64({1}, {1})}, {{{2, 1}, {0, 0}}});
}

TEST_CASE("ReduceMean axes attribute, keepdims, negative axes") {
  // rows: 6/3 = 2, 15/3 = 5; columns: 5/2, 7/2, 9/2; all: 21/6 = 3.5.
  Check(NodeOf("ReduceMean").Attr("axes", std::vector<int64_t>{-1}), {X23()}, {{{2, 1}, {2, 5}}}, 3);
  Check(NodeOf("ReduceMean").Attr("axes", std::vector<int64_t>{0}).Attr("keepdims", int64_t{0}), {X23()},
        {{{3}, {2.5, 3.5, 4.5}}}, 2);
  Check(NodeOf("ReduceMean"), {X23()}, {{{1, 1}, {3.5}}}, 6);
  // axes [0, 2] of 2x3x2: 18/4, 26/4, 34/4.
  Check(NodeOf("ReduceMean").Attr("axes", std::vector<int64_t>{2, 0}).Attr("keepdims", int64_t{0}), {X232()},
        {{{3}, {4.5, 6.5, 8.5}}}, 4);
}

TEST_CASE("ReduceMax float and integer, NaN and empty extents") {
  // axes [0, 2] of 2x3x2: max(1,2,7,8) = 8, 10, 12; rows of X23: 3, 6.
  Check(NodeOf("ReduceMax").Attr("axes", std::vector<int64_t>{0, 2}), {X232()}, {{{1, 3, 1}, {8, 10, 12}}});
  Check(NodeOf("ReduceMax").Attr("axes", std::vector<int64_t>{1}).Attr("keepdims", int64_t{0}),
        {F32({2, 3}, {-3, -1, -2, -9, -8, -7})}, {{{2}, {-1, -7}}});
  Check(NodeOf("ReduceMax").Attr("keepdims", int64_t{0}), {I64({3}, {-5, 40, 7})}, {{{}, {40}, DType::kInt64}});
  Check(NodeOf("ReduceMax").Attr("axes", std::vector<int64_t>{0}), {Make(DType::kInt32, {2, 2}, {1, -4, -3, 2})},
        {{{1, 2}, {1, 2}, DType::kInt32}});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Check(NodeOf("ReduceMax").Attr("axes", std::vector<int64_t>{1}), {F32({2, 2}, {nan, 1, 2, 3})}, {{{2, 1}, {nan, 3}}});
  Check(NodeOf("ReduceMax").Attr("axes", std::vector<int64_t>{1}), {F32({2, 0}, {})}, {{{2, 1}, {-kInf, -kInf}}});
}

TEST_CASE("Reductions reject what they cannot compute") {
  CheckFails(NodeOf("ReduceSum"), {X23(), I64({1}, {2})}, "out of range");
  CheckFails(NodeOf("ReduceSum"), {X23(), I64({2}, {1, -1})}, "repeated");
  CheckFails(NodeOf("ReduceSum").Attr("axes", std::vector<int64_t>{0}), {X23()}, "input 1");
  CheckFails(NodeOf("ReduceSum"), {X23(), F32({1}, {1})}, "int64");
  CheckFails(NodeOf("ReduceMean").Attr("axes", std::vector<int64_t>{-3}), {X23()}, "out of range");
  CheckFails(NodeOf("ReduceMean"), {X23(), I64({1}, {0})}, "expects 1 inputs");
  CheckFails(NodeOf("ReduceMean"), {I64({2}, {1, 2})}, "must be float32");
  CheckFails(NodeOf("ReduceMax").Attr("keepdims", int64_t{2}), {X23()}, "keepdims");
  CheckFails(NodeOf("ReduceMax").Attr("noop_with_empty_axes", int64_t{1}), {X23()}, "only defined for ReduceSum");
  CheckFails(NodeOf("ReduceMax").Attr("axes", std::vector<int64_t>{0}), {F32({}, {1})}, "scalar");
}
