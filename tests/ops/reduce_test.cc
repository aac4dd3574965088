// Reductions; expected values computed by hand (the sums are written out per case); the logs,
// square roots and log-sum-exps were evaluated with numpy (float64) and pasted.
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
  CheckFails(NodeOf("ReduceSum").Attr("axes", std::vector<int64_t>{0}), {X23(), I64({1}, {0})}, "both");
  CheckFails(NodeOf("ReduceSum"), {X23(), F32({1}, {1})}, "int64");
  CheckFails(NodeOf("ReduceMean").Attr("axes", std::vector<int64_t>{-3}), {X23()}, "out of range");
  CheckFails(NodeOf("ReduceMean"), {X23(), I64({1}, {0}), I64({1}, {0})}, "expects 1 to 2 inputs");
  CheckFails(NodeOf("ReduceMean"), {I64({2}, {1, 2})}, "float32 or float64 only");
  CheckFails(NodeOf("ReduceLogSumExp"), {Make(DType::kInt32, {2}, {1, 2})}, "not supported");
  CheckFails(NodeOf("ReduceProd"), {Make(DType::kUInt8, {2}, {1, 2})}, "not supported");
  CheckFails(NodeOf("ReduceL2"), {Make(DType::kInt32, {2}, {1, 2})}, "not supported");
  CheckFails(NodeOf("ReduceMin").Attr("axes", std::vector<int64_t>{1, 1}), {X23()}, "repeated");
  CheckFails(NodeOf("ReduceL1").Attr("axes", std::vector<int64_t>{2}), {X23()}, "out of range");
  CheckFails(NodeOf("ReduceMax").Attr("keepdims", int64_t{2}), {X23()}, "keepdims");
  CheckFails(NodeOf("ReduceMax").Attr("noop_with_empty_axes", int64_t{2}), {X23()}, "noop_with_empty_axes");
  CheckFails(NodeOf("ReduceMax").Attr("axes", std::vector<int64_t>{0}), {F32({}, {1})}, "scalar");
}

TEST_CASE("ReduceMin float, integer, NaN and empty extents") {
  // rows of X23: min(1,2,3) = 1, min(4,5,6) = 4; columns: 1, 2, 3.
  Check(NodeOf("ReduceMin").Attr("axes", std::vector<int64_t>{1}), {X23()}, {{{2, 1}, {1, 4}}});
  Check(NodeOf("ReduceMin").Attr("axes", std::vector<int64_t>{-2}).Attr("keepdims", int64_t{0}), {X23()}, {{{3}, {1, 2, 3}}});
  Check(NodeOf("ReduceMin").Attr("keepdims", int64_t{0}), {Make(DType::kInt8, {3}, {5, -128, 7})},
        {{{}, {-128}, DType::kInt8}});
  Check(NodeOf("ReduceMin").Attr("axes", std::vector<int64_t>{0}), {Make(DType::kUInt8, {2, 2}, {200, 3, 100, 255})},
        {{{1, 2}, {100, 3}, DType::kUInt8}});
  Check(NodeOf("ReduceMin"), {Make(DType::kFloat64, {2}, {0.5, -0.25})}, {{{1}, {-0.25}, DType::kFloat64}});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Check(NodeOf("ReduceMin").Attr("axes", std::vector<int64_t>{1}), {F32({2, 2}, {1, nan, 2, 3})}, {{{2, 1}, {nan, 2}}});
  Check(NodeOf("ReduceMin").Attr("axes", std::vector<int64_t>{1}), {F32({2, 0}, {})}, {{{2, 1}, {kInf, kInf}}});
  Check(NodeOf("ReduceMax").Attr("axes", std::vector<int64_t>{1}), {Make(DType::kUInt8, {1, 0}, {})},
        {{{1, 1}, {0}, DType::kUInt8}});
}

TEST_CASE("ReduceProd float and integer (wrap-around)") {
  // rows: 1*2*3 = 6, 4*5*6 = 120; all: 720; axes [0, 2] of 2x3x2: 1*2*7*8 = 112, 3*4*9*10 = 1080,
  // 5*6*11*12 = 3960.
  Check(NodeOf("ReduceProd").Attr("axes", std::vector<int64_t>{1}), {X23()}, {{{2, 1}, {6, 120}}}, 3);
  Check(NodeOf("ReduceProd").Attr("keepdims", int64_t{0}), {X23()}, {{{}, {720}}}, 6);
  Check(NodeOf("ReduceProd").Attr("axes", std::vector<int64_t>{0, 2}).Attr("keepdims", int64_t{0}), {X232()},
        {{{3}, {112, 1080, 3960}}}, 4);
  // int32: 65536 * 65536 = 2^32 wraps to 0; -3 * 7 = -21. Empty extent: 1.
  Check(NodeOf("ReduceProd").Attr("axes", std::vector<int64_t>{1}),
        {Make(DType::kInt32, {2, 2}, {65536, 65536, -3, 7})}, {{{2, 1}, {0, -21}, DType::kInt32}});
  Check(NodeOf("ReduceProd").Attr("axes", std::vector<int64_t>{0}), {F32({0, 2}, {})}, {{{1, 2}, {1, 1}}});
}

TEST_CASE("ReduceSumSquare, ReduceL1, ReduceL2") {
  // rows of X23: 1+4+9 = 14, 16+25+36 = 77.
  Check(NodeOf("ReduceSumSquare").Attr("axes", std::vector<int64_t>{1}), {X23()}, {{{2, 1}, {14, 77}}}, 3);
  Check(NodeOf("ReduceSumSquare").Attr("keepdims", int64_t{0}), {Make(DType::kInt32, {2}, {-3, 4})},
        {{{}, {25}, DType::kInt32}});
  // |-1|+2+|-3| = 6, 4+|-5|+6 = 15; columns: 5, 7, 9.
  Tensor xs = F32({2, 3}, {-1, 2, -3, 4, -5, 6});
  Check(NodeOf("ReduceL1").Attr("axes", std::vector<int64_t>{-1}), {xs}, {{{2, 1}, {6, 15}}}, 3);
  Check(NodeOf("ReduceL1").Attr("axes", std::vector<int64_t>{0}).Attr("keepdims", int64_t{0}),
        {I64({2, 3}, {-1, 2, -3, 4, -5, 6})}, {{{3}, {5, 7, 9}, DType::kInt64}});
  // sqrt(9+16) = 5, sqrt(25+144) = 13; all: sqrt(194) = 13.92838827718412 (numpy).
  Tensor xl = F32({2, 2}, {3, 4, 5, 12});
  Check(NodeOf("ReduceL2").Attr("axes", std::vector<int64_t>{1}).Attr("keepdims", int64_t{0}), {xl}, {{{2}, {5, 13}}}, 2);
  Check(NodeOf("ReduceL2"), {xl}, {{{1, 1}, {13.92838827718412}}}, 4);
  Check(NodeOf("ReduceL2"), {Make(DType::kFloat64, {2}, {-6, 8})}, {{{1}, {10}, DType::kFloat64}}, 2);
}

TEST_CASE("ReduceLogSum and ReduceLogSumExp") {
  // log(6) = 1.791759469228055, log(15) = 2.70805020110221, log(21) = 3.044522437723423 (numpy).
  Check(NodeOf("ReduceLogSum").Attr("axes", std::vector<int64_t>{1}), {X23()},
        {{{2, 1}, {1.791759469228055, 2.70805020110221}}}, 3);
  Check(NodeOf("ReduceLogSum").Attr("keepdims", int64_t{0}), {X23()}, {{{}, {3.044522437723423}}}, 6);
  // Empty extent: log(0) = -inf.
  Check(NodeOf("ReduceLogSum").Attr("axes", std::vector<int64_t>{1}), {F32({1, 0}, {})}, {{{1, 1}, {-kInf}}});
  // log(e^1 + e^2 + e^3) = 3.40760596444438, log(e^4 + e^5 + e^6) = 6.40760596444438 (numpy).
  Check(NodeOf("ReduceLogSumExp").Attr("axes", std::vector<int64_t>{1}), {X23()},
        {{{2, 1}, {3.40760596444438, 6.40760596444438}}}, 3);
  Check(NodeOf("ReduceLogSumExp").Attr("axes", std::vector<int64_t>{1}).Attr("keepdims", int64_t{0}),
        {Make(DType::kFloat64, {2, 3}, {1, 2, 3, 4, 5, 6})}, {{{2}, {3.40760596444438, 6.40760596444438}, DType::kFloat64}}, 3);
  // Max subtracted: 1000 + log 2 = 1000.6931471805599 (no overflow); all -inf gives -inf; empty: -inf;
  // +inf gives +inf.
  Check(NodeOf("ReduceLogSumExp").Attr("axes", std::vector<int64_t>{1}), {F32({1, 2}, {1000, 1000})},
        {{{1, 1}, {1000.6931471805599}}}, 2);
  Check(NodeOf("ReduceLogSumExp").Attr("axes", std::vector<int64_t>{1}), {F32({2, 2}, {-kInf, -kInf, kInf, 0})},
        {{{2, 1}, {-kInf, kInf}}});
  Check(NodeOf("ReduceLogSumExp").Attr("axes", std::vector<int64_t>{0}), {F32({0, 1}, {})}, {{{1, 1}, {-kInf}}});
}

TEST_CASE("Reduce*-18: axes as input 1, noop_with_empty_axes, float16 computed in float") {
  // X23 = [[1, 2, 3], [4, 5, 6]]: means of the columns 2.5, 3.5, 4.5; sums 5, 7, 9 (hand-computed).
  Check(NodeOf("ReduceMean"), {X23(), I64({1}, {0})}, {{{1, 3}, {2.5, 3.5, 4.5}}});
  Check(NodeOf("ReduceSum").Attr("axes", std::vector<int64_t>{0}), {X23()}, {{{1, 3}, {5, 7, 9}}});
  Check(NodeOf("ReduceMax").Attr("noop_with_empty_axes", int64_t{1}), {X23(), I64({0}, {})}, {{{2, 3}, {1, 2, 3, 4, 5, 6}}});
  Check(NodeOf("ReduceMax").Attr("noop_with_empty_axes", int64_t{1}), {X23()}, {{{2, 3}, {1, 2, 3, 4, 5, 6}}});
  // ReduceL2 of float16 [1, 2]: sqrt(5) = 2.2360679..., rounded once to float16: 1145 * 2^-9.
  Check(NodeOf("ReduceL2").Attr("keepdims", int64_t{0}), {Make(DType::kFloat16, {2}, {1, 2})},
        {{{}, {2.236328125}, DType::kFloat16}});
}
