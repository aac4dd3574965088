// Conv: expected values computed by hand (arithmetic in the comments) or, for the two larger
// cases, with PyTorch float64 conv2d/conv3d in /usr/bin/python3 (inputs are small integers made by
// Seq below, so every value is exact in float32 too).
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {


/// x[r, c] = 4r + c on a 4x4 plane.
Tensor Iota4x4() {
  std::vector<double> v(16);
  for (int i = 0; i < 16; ++i) v[static_cast<size_t>(i)] = i;
  return F32({1, 1, 4, 4}, v);
}

Tensor X3() { return F32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}); }
Tensor Ones3x3() { return F32({1, 1, 3, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 1}); }

}  // namespace

TEST_CASE("Conv 2-D basic, with and without bias") {
  // y[0,0] = 1*1 + 2*2 + 4*3 + 5*4 = 37; y[0,1] = 2+6+15+24 = 47; y[1,0] = 4+10+21+32 = 67;
  // y[1,1] = 5+12+24+36 = 77.
  const Tensor w = F32({1, 1, 2, 2}, {1, 2, 3, 4});
  Check(NodeOf("Conv"), {X3(), w}, {{{1, 1, 2, 2}, {37, 47, 67, 77}}}, 4);
  Check(NodeOf("Conv").Attr("kernel_shape", std::vector<int64_t>{2, 2}), {X3(), w, F32({1}, {0.5})},
        {{{1, 1, 2, 2}, {37.5, 47.5, 67.5, 77.5}}}, 4);
}

TEST_CASE("Conv strides with symmetric pads") {
  // 4x4 iota, 3x3 ones, pads 1, stride 2: out 2x2 = window sums over rows/cols {-1..1, 1..3}:
  // rows 0-1 x cols 0-1: 0+1+4+5 = 10; rows 0-1 x cols 1-3: 1+2+3+5+6+7 = 24;
  // rows 1-3 x cols 0-1: 4+5+8+9+12+13 = 51; rows 1-3 x cols 1-3: 5+6+7+9+10+11+13+14+15 = 90.
  Check(NodeOf("Conv").Attr("pads", std::vector<int64_t>{1, 1, 1, 1}).Attr("strides", std::vector<int64_t>{2, 2}),
        {Iota4x4(), Ones3x3()}, {{{1, 1, 2, 2}, {10, 24, 51, 90}}}, 9);
}

TEST_CASE("Conv asymmetric pads") {
  // pads [top=1, left=0, bottom=0, right=1], 2x2 ones on 1..9: out 3x3, y[oh,ow] sums rows
  // {oh-1, oh} and cols {ow, ow+1} inside the input:
  // row 0: 1+2=3, 2+3=5, 3;  row 1: 1+2+4+5=12, 2+3+5+6=16, 3+6=9;  row 2: 24, 28, 6+9=15.
  Check(NodeOf("Conv").Attr("pads", std::vector<int64_t>{1, 0, 0, 1}),
        {X3(), F32({1, 1, 2, 2}, {1, 1, 1, 1})}, {{{1, 1, 3, 3}, {3, 5, 3, 12, 16, 9, 24, 28, 15}}}, 4);
}

TEST_CASE("Conv dilations") {
  // x[r,c] = 4r + c, W = [[1,2],[3,4]] dilated by 2: y[i,j] = x[i,j] + 2x[i,j+2] + 3x[i+2,j] + 4x[i+2,j+2]
  // y[0,0] = 0 + 4 + 24 + 40 = 68; moving one column adds 1+2+3+4 = 10, one row adds 40.
  Check(NodeOf("Conv").Attr("dilations", std::vector<int64_t>{2, 2}), {Iota4x4(), F32({1, 1, 2, 2}, {1, 2, 3, 4})},
        {{{1, 1, 2, 2}, {68, 78, 108, 118}}}, 4);
}

TEST_CASE("Conv groups and bias") {
  // group 2: oc0 = 1*c0 + 10*c1 = [1+30, 2+40]; oc1 = 100*c2 + 1000*c3 = [500+7000, 600+8000]; + [1, -1].
  const Tensor x = F32({1, 4, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  Check(NodeOf("Conv").Attr("group", int64_t{2}), {x, F32({2, 2, 1, 1}, {1, 10, 100, 1000}), F32({2}, {1, -1})},
        {{{1, 2, 1, 2}, {32, 43, 7499, 8599}}}, 2);
}

TEST_CASE("Conv 1-D depthwise with channel multiplier 2") {
  // group = C = 2, M = 4, pads 1. c0 = [1,2,3,4] padded [0,1,2,3,4,0]; c1 = [1,-1,2,-2] padded [0,1,-1,2,-2,0].
  // oc0 = [1,1,1]*c0: 0+1+2=3, 1+2+3=6, 2+3+4=9, 3+4+0=7
  // oc1 = [1,0,-1]*c0: 0-2=-2, 1-3=-2, 2-4=-2, 3-0=3
  // oc2 = [1,1,1]*c1: 0+1-1=0, 1-1+2=2, -1+2-2=-1, 2-2+0=0
  // oc3 = [2,0,0]*c1: 0, 2, -2, 4
  const Tensor x = F32({1, 2, 4}, {1, 2, 3, 4, 1, -1, 2, -2});
  const Tensor w = F32({4, 1, 3}, {1, 1, 1, 1, 0, -1, 1, 1, 1, 2, 0, 0});
  Check(NodeOf("Conv").Attr("group", int64_t{2}).Attr("pads", std::vector<int64_t>{1, 1}), {x, w},
        {{{1, 4, 4}, {3, 6, 9, 7, -2, -2, -2, 3, 0, 2, -1, 0, 0, 2, -2, 4}}}, 3);
}

TEST_CASE("Conv auto_pad SAME_UPPER, SAME_LOWER, VALID") {
  // 1-D x = [1,2,3,4], w = [1,10]: out 4, total padding 3*1 + 2 - 4 = 1.
  // SAME_UPPER pads at the end: y[i] = x[i] + 10x[i+1] = 21, 32, 43, 4.
  // SAME_LOWER pads at the start: y[i] = x[i-1] + 10x[i] = 10, 21, 32, 43.
  const Tensor x = F32({1, 1, 4}, {1, 2, 3, 4});
  const Tensor w = F32({1, 1, 2}, {1, 10});
  Check(NodeOf("Conv").Attr("auto_pad", "SAME_UPPER"), {x, w}, {{{1, 1, 4}, {21, 32, 43, 4}}}, 2);
  Check(NodeOf("Conv").Attr("auto_pad", "SAME_LOWER"), {x, w}, {{{1, 1, 4}, {10, 21, 32, 43}}}, 2);
  Check(NodeOf("Conv").Attr("auto_pad", "VALID"), {x, w}, {{{1, 1, 3}, {21, 32, 43}}}, 2);
  // 2-D, stride 2, 3x3 ones on the 4x4 iota: out ceil(4/2) = 2, total padding 1*2 + 3 - 4 = 1.
  // SAME_UPPER (begin 0): windows rows/cols {0..2, 2..3}: 45, 39, 66, 50 (e.g. 8+9+10+12+13+14 = 66).
  // SAME_LOWER (begin 1): windows {-1..1, 1..3}: as in the symmetric-pads case, 10, 24, 51, 90.
  const auto s2 = std::vector<int64_t>{2, 2};
  Check(NodeOf("Conv").Attr("auto_pad", "SAME_UPPER").Attr("strides", s2), {Iota4x4(), Ones3x3()},
        {{{1, 1, 2, 2}, {45, 39, 66, 50}}}, 9);
  Check(NodeOf("Conv").Attr("auto_pad", "SAME_LOWER").Attr("strides", s2), {Iota4x4(), Ones3x3()},
        {{{1, 1, 2, 2}, {10, 24, 51, 90}}}, 9);
}

TEST_CASE("Conv 3-D small case") {
  // 2x2x2 ones kernel over 1..8: one output 36 (+ bias 4 = 40).
  const Tensor x = F32({1, 1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  const Tensor w = F32({1, 1, 2, 2, 2}, {1, 1, 1, 1, 1, 1, 1, 1});
  Check(NodeOf("Conv"), {x, w, F32({1}, {4})}, {{{1, 1, 1, 1, 1}, {40}}}, 8);
}

TEST_CASE("Conv 2-D, 2 channels in, 5 out (channel blocks), pads 1, bias (PyTorch)") {
  // torch.nn.functional.conv2d(x, w, b, padding=1) in float64 on Seq inputs.
  Check(NodeOf("Conv").Attr("pads", std::vector<int64_t>{1, 1, 1, 1}),
        {Seq({1, 2, 4, 5}, 7, 11), Seq({5, 2, 3, 3}, 5, 7, 1), Seq({5}, 3, 5)},
        {{{1, 5, 4, 5}, {41,  20,  -10, -7,  0,   -20, 46,  -24, 38,  -25, -46, 59,  0,   -26, -1,  -34, -7,
                         38,  -27, 16,  3,   41,  -24, 32,  1,   -44, 52,  -2,  -1,  -10, -44, 2,   47,  -40,
                         37,  3,   -32, 38,  -13, -6,  -33, 36,  -15, -11, 11,  -45, -31, 57,  -31, 49,  -19,
                         -53, 68,  -31, -21, 42,  -34, -16, 24,  -19, -29, -13, 27,  -21, 40,  1,   -53, 23,
                         0,   1,   53,  -47, -4,  39,  -32, 23,  -3,  -37, 17,  1,   -16, -39, 15,  -8,  -13,
                         35,  -45, -30, 40,  -24, 22,  -25, -32, 27,  -20, 13,  30,  -28, -9,  30}}},
        18, 1);
}

TEST_CASE("Conv 3-D, groups, strides, dilations, asymmetric pads (PyTorch)") {
  // torch conv3d(pad(x, D (0,1), H (1,0), W (1,1)), w, b, stride=(1,2,1), dilation=(2,1,1), groups=2).
  Check(NodeOf("Conv")
            .Attr("group", int64_t{2})
            .Attr("strides", std::vector<int64_t>{1, 2, 1})
            .Attr("dilations", std::vector<int64_t>{2, 1, 1})
            .Attr("pads", std::vector<int64_t>{0, 1, 1, 1, 0, 1}),
        {Seq({1, 4, 3, 4, 4}, 5, 9), Seq({4, 2, 2, 2, 3}, 3, 5, 2), Seq({4}, 1, 4)},
        {{{1, 4, 2, 2, 4}, {-10, 4,  -6,  10,  6,  -27, 17, -18, 1,  2,   -16, 8,   8,  8,   4,  -16,
                            11,  -10, 9,  2,   -24, 6,  -16, 13, 1,   -7,  3,   -2, 6,   -21, -3, -15,
                            -4,  1,   -3, 6,   -13, -17, 23, -19, 3,  4,   -19, 12,  10, -14, 17, -28,
                            14,  -13, 5,  7,   -20, 24,  -20, -2, 4,  -10, 13,  -12, -8, 7,   -23, 7}}},
        24, 1);
}

TEST_CASE("Conv rejects malformed nodes") {
  const Tensor w = F32({1, 1, 2, 2}, {1, 2, 3, 4});
  CheckFails(NodeOf("Conv"), {F32({1, 2, 3, 3}, std::vector<double>(18, 1)), w}, "channels");
  CheckFails(NodeOf("Conv").Attr("group", int64_t{2}), {F32({1, 2, 3, 3}, std::vector<double>(18, 1)), w},
             "not divisible");
  CheckFails(NodeOf("Conv"), {X3(), w, F32({2}, {1, 2})}, "B must have shape");
  CheckFails(NodeOf("Conv"), {F32({1, 1, 1, 1}, {1}), w}, "smaller than the dilated kernel");
  CheckFails(NodeOf("Conv").Attr("pads", std::vector<int64_t>{-1, 0, 0, 0}), {X3(), w}, "pads");
  CheckFails(NodeOf("Conv").Attr("pads", std::vector<int64_t>{1, 1}), {X3(), w}, "must have 4 values");
  CheckFails(NodeOf("Conv").Attr("strides", std::vector<int64_t>{0, 1}), {X3(), w}, "strides");
  CheckFails(NodeOf("Conv").Attr("auto_pad", "SAME"), {X3(), w}, "auto_pad");
  CheckFails(NodeOf("Conv").Attr("kernel_shape", std::vector<int64_t>{3, 3}), {X3(), w}, "kernel_shape");
  CheckFails(NodeOf("Conv").Attr("auto_pad", "VALID").Attr("pads", std::vector<int64_t>{1, 1, 1, 1}), {X3(), w},
             "cannot be used");
  CheckFails(NodeOf("Conv"), {F32({1, 3}, {1, 2, 3}), F32({1, 3}, {1, 2, 3})}, "rank 3 to 5");
  CheckFails(NodeOf("Conv"), {X3(), F32({1, 1, 2}, {1, 2})}, "rank of X");
  CheckFails(NodeOf("Conv"), {X3(), I64({1, 1, 1, 1}, {1})}, "float32");
}
