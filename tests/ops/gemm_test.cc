// Gemm: expected values computed by hand (arithmetic in the comments); the K = 16 case with numpy
// (A @ B.T + C in float64, /usr/bin/python3) on small-integer inputs made by Seq below.
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {


// A = [[1,2,3],[4,5,6]], B = [[1,2],[3,4],[5,6]]:
// A*B = [[1+6+15, 2+8+18], [4+15+30, 8+20+36]] = [[22, 28], [49, 64]].
Tensor MatA() { return F32({2, 3}, {1, 2, 3, 4, 5, 6}); }
Tensor MatAt() { return F32({3, 2}, {1, 4, 2, 5, 3, 6}); }
Tensor MatB() { return F32({3, 2}, {1, 2, 3, 4, 5, 6}); }
Tensor MatBt() { return F32({2, 3}, {1, 3, 5, 2, 4, 6}); }

}  // namespace

TEST_CASE("Gemm plain and with transposes") {
  const Expect ab{{2, 2}, {22, 28, 49, 64}};
  Check(NodeOf("Gemm"), {MatA(), MatB()}, {ab}, 3);
  Check(NodeOf("Gemm").Attr("transA", int64_t{1}), {MatAt(), MatB()}, {ab}, 3);
  Check(NodeOf("Gemm").Attr("transB", int64_t{1}), {MatA(), MatBt()}, {ab}, 3);
  Check(NodeOf("Gemm").Attr("transA", int64_t{1}).Attr("transB", int64_t{1}), {MatAt(), MatBt()}, {ab}, 3);
}

TEST_CASE("Gemm alpha, beta and C broadcast") {
  // alpha 2, beta 0.5, scalar C 10: 2*AB + 5.
  Check(NodeOf("Gemm").Attr("alpha", 2.0).Attr("beta", 0.5), {MatA(), MatB(), F32({}, {10})},
        {{{2, 2}, {49, 61, 103, 133}}}, 3);
  // Row C [1, 2] (shape (2) and (1, 2)): [[23, 30], [50, 66]].
  Check(NodeOf("Gemm"), {MatA(), MatB(), F32({2}, {1, 2})}, {{{2, 2}, {23, 30, 50, 66}}}, 3);
  Check(NodeOf("Gemm"), {MatA(), MatB(), F32({1, 2}, {1, 2})}, {{{2, 2}, {23, 30, 50, 66}}}, 3);
  // Column C [[10], [20]]: [[32, 38], [69, 84]].
  Check(NodeOf("Gemm"), {MatA(), MatB(), F32({2, 1}, {10, 20})}, {{{2, 2}, {32, 38, 69, 84}}}, 3);
  // Full C, beta -1: AB - C.
  Check(NodeOf("Gemm").Attr("beta", -1.0), {MatA(), MatB(), F32({2, 2}, {2, 8, 9, 4})}, {{{2, 2}, {20, 20, 40, 60}}}, 3);
  // Shape (1) C and alpha 0.5 (exact in binary): 0.5*AB + 1 = [[12, 15], [25.5, 33]].
  Check(NodeOf("Gemm").Attr("alpha", 0.5), {MatA(), MatB(), F32({1}, {1})}, {{{2, 2}, {12, 15, 25.5, 33}}}, 3);
  // Non-exact values: alpha = float32(0.1), C = float32(0.3): y = alpha * 22 + 0.3 etc.
  const double a = 0.100000001490116119384765625, c = 0.300000011920928955078125;
  Check(NodeOf("Gemm").Attr("alpha", 0.1), {MatA(), MatB(), F32({}, {0.3})},
        {{{2, 2}, {a * 22 + c, a * 28 + c, a * 49 + c, a * 64 + c}}}, 3);
}

TEST_CASE("Gemm K = 16 with transA, transB and a row C (numpy)") {
  // A is Seq((3,16), 5, 9), stored transposed (transA); B is Seq((4,16), 7, 9, 2) (transB form);
  // C = Seq((4,), 1, 4). numpy: A @ B.T + C.
  const Tensor a = Seq({3, 16}, 5, 9);
  std::vector<double> at(48);
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 16; ++k) at[static_cast<size_t>(k * 3 + i)] = ReadDouble(a, i * 16 + k);
  Check(NodeOf("Gemm").Attr("transA", int64_t{1}).Attr("transB", int64_t{1}),
        {F32({16, 3}, at), Seq({4, 16}, 7, 9, 2), Seq({4}, 1, 4)},
        {{{3, 4}, {-22, -37, 2, 5, -56, 0, -52, 22, 0, -35, -16, -33}}}, 16, 1);
}

TEST_CASE("Gemm rejects malformed nodes") {
  CheckFails(NodeOf("Gemm"), {MatA(), MatA()}, "inner dims");
  CheckFails(NodeOf("Gemm"), {MatA(), MatB(), F32({3}, {1, 2, 3})}, "cannot be broadcast");
  CheckFails(NodeOf("Gemm"), {MatA(), MatB(), F32({1, 2, 2}, {1, 2, 3, 4})}, "cannot be broadcast");
  CheckFails(NodeOf("Gemm"), {F32({1, 2, 3}, {1, 2, 3, 4, 5, 6}), MatB()}, "A must be 2-D");
  CheckFails(NodeOf("Gemm"), {MatA(), I64({3, 2}, {1, 2, 3, 4, 5, 6})}, "float32");
  CheckFails(NodeOf("Gemm"), {MatA()}, "inputs");
}
