// ConvTranspose: expected values computed by hand (arithmetic in the comments) or, for the two
// larger cases, with PyTorch float64 conv_transpose2d/3d in /usr/bin/python3 (full result, then
// numpy zero-extension by output_padding, cropping by pads and the bias); inputs are small
// integers made by Seq below, so every value is exact in float32 too.
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {


using Ints = std::vector<int64_t>;
Tensor X1() { return F32({1, 1, 3}, {1, 2, 3}); }
Tensor W2() { return F32({1, 1, 2}, {1, 10}); }
Tensor W3() { return F32({1, 1, 3}, {1, 10, 100}); }

}  // namespace

TEST_CASE("ConvTranspose 2-D basic, two output channels") {
  // X = 0..8 (3x3). Channel 0: 3x3 ones, y = sums of X over 3x3 windows ending at (oh, ow):
  // rows of X convolved with [1,1,1]: r0 -> 0 1 3 3 2, r1 -> 3 7 12 9 5, r2 -> 6 13 21 15 8;
  // output rows: r0, r0+r1, r0+r1+r2, r1+r2, r2. Channel 1: kernel with a single 1 at the
  // centre, y = X shifted by (1, 1) in a 5x5 frame of zeros.
  std::vector<double> x(9), w(18, 0);
  for (int i = 0; i < 9; ++i) x[static_cast<size_t>(i)] = i;
  for (int i = 0; i < 9; ++i) w[static_cast<size_t>(i)] = 1;
  w[9 + 4] = 1;
  Check(NodeOf("ConvTranspose"), {F32({1, 1, 3, 3}, x), F32({1, 2, 3, 3}, w)},
        {{{1, 2, 5, 5}, {0, 1, 3,  3,  2,  3, 8,  15, 12, 7, 9, 21, 36, 27, 15, 9, 20, 33, 24, 13, 6, 13, 21, 15, 8,
                         0, 0, 0,  0,  0,  0, 0,  1,  2,  0, 0, 3,  4,  5,  0,  0, 6,  7,  8,  0,  0, 0,  0,  0,  0}}},
        9);
}

TEST_CASE("ConvTranspose stride 2, output_padding, pads, bias") {
  // 1-D x = [1,2,3], w = [1,10], stride 2: x_i lands at 2i, 2i+1: full = [1,10,2,20,3,30].
  const Ints s2 = {2};
  Check(NodeOf("ConvTranspose").Attr("strides", s2), {X1(), W2()}, {{{1, 1, 6}, {1, 10, 2, 20, 3, 30}}}, 1);
  // output_padding 1 appends one position (no contribution) ; bias 0.5 everywhere.
  Check(NodeOf("ConvTranspose").Attr("strides", s2).Attr("output_padding", Ints{1}), {X1(), W2(), F32({1}, {0.5})},
        {{{1, 1, 7}, {1.5, 10.5, 2.5, 20.5, 3.5, 30.5, 0.5}}}, 1);
  // pads [1, 2] crop one position at the start and two at the end: [10, 2, 20].
  Check(NodeOf("ConvTranspose").Attr("strides", s2).Attr("pads", Ints{1, 2}), {X1(), W2()}, {{{1, 1, 3}, {10, 2, 20}}}, 1);
  // 2-D: X = [[1,2],[3,4]], W = [[1,2],[3,4]], stride 2: each x[i,j]*W fills block (2i.., 2j..);
  // output_padding [1, 0] adds a zero row.
  Check(NodeOf("ConvTranspose").Attr("strides", Ints{2, 2}).Attr("output_padding", Ints{1, 0}),
        {F32({1, 1, 2, 2}, {1, 2, 3, 4}), F32({1, 1, 2, 2}, {1, 2, 3, 4})},
        {{{1, 1, 5, 4}, {1, 2, 2, 4, 3, 4, 6, 8, 3, 6, 4, 8, 9, 12, 12, 16, 0, 0, 0, 0}}}, 1);
}

TEST_CASE("ConvTranspose output_shape and auto_pad") {
  // x = [1,2,3], w = [1,10,100], stride 2: x_i lands at 2i..2i+2:
  // full (size 7) = [1, 10, 100+2, 20, 200+3, 30, 300].
  const Ints s2 = {2};
  Check(NodeOf("ConvTranspose").Attr("strides", s2), {X1(), W3()}, {{{1, 1, 7}, {1, 10, 102, 20, 203, 30, 300}}}, 1);
  // output_shape [5]: total padding 2 -> begin 1, end 1.
  Check(NodeOf("ConvTranspose").Attr("strides", s2).Attr("output_shape", Ints{5}), {X1(), W3()},
        {{{1, 1, 5}, {10, 102, 20, 203, 30}}}, 1);
  // output_shape [6] (NOTSET): total 1 -> begin = 1 - 1/2 = 1, end 0.
  Check(NodeOf("ConvTranspose").Attr("strides", s2).Attr("output_shape", Ints{6}), {X1(), W3()},
        {{{1, 1, 6}, {10, 102, 20, 203, 30, 300}}}, 1);
  // output_shape given as (N, M, O) behaves the same.
  Check(NodeOf("ConvTranspose").Attr("strides", s2).Attr("output_shape", Ints{1, 1, 6}), {X1(), W3()},
        {{{1, 1, 6}, {10, 102, 20, 203, 30, 300}}}, 1);
  // SAME_UPPER: O = 3 * 2 = 6, total 1 -> begin 1/2 = 0 (the extra is cropped at the end).
  Check(NodeOf("ConvTranspose").Attr("strides", s2).Attr("auto_pad", "SAME_UPPER"), {X1(), W3()},
        {{{1, 1, 6}, {1, 10, 102, 20, 203, 30}}}, 1);
  // SAME_LOWER: begin 1 - 1/2 = 1.
  Check(NodeOf("ConvTranspose").Attr("strides", s2).Attr("auto_pad", "SAME_LOWER"), {X1(), W3()},
        {{{1, 1, 6}, {10, 102, 20, 203, 30, 300}}}, 1);
  // output_shape [8] > full 7: total -1 is taken as 0, the extra position is at the end (bias only).
  Check(NodeOf("ConvTranspose").Attr("strides", s2).Attr("output_shape", Ints{8}), {X1(), W3(), F32({1}, {1})},
        {{{1, 1, 8}, {2, 11, 103, 21, 204, 31, 301, 1}}}, 1);
  // pads are ignored when output_shape is given.
  Check(NodeOf("ConvTranspose").Attr("strides", s2).Attr("output_shape", Ints{5}).Attr("pads", Ints{3, 3}),
        {X1(), W3()}, {{{1, 1, 5}, {10, 102, 20, 203, 30}}}, 1);
  // VALID: no padding, the full result.
  Check(NodeOf("ConvTranspose").Attr("strides", s2).Attr("auto_pad", "VALID"), {X1(), W3()},
        {{{1, 1, 7}, {1, 10, 102, 20, 203, 30, 300}}}, 1);
}

TEST_CASE("ConvTranspose dilations, groups, channel sums") {
  // dilation 2, x = [1,2,3], w = [1,10]: x_i lands at i and i+2: [1, 2, 3+10, 20, 30].
  Check(NodeOf("ConvTranspose").Attr("dilations", Ints{2}), {X1(), W2()}, {{{1, 1, 5}, {1, 2, 13, 20, 30}}}, 1);
  // group 2, W (2,1,2): c0=[1,2] with [1,10] -> [1, 10+2, 20]; c1=[3,4] with [100,1000] -> [300, 3400, 4000].
  const Tensor x2 = F32({1, 2, 2}, {1, 2, 3, 4});
  Check(NodeOf("ConvTranspose").Attr("group", int64_t{2}), {x2, F32({2, 1, 2}, {1, 10, 100, 1000})},
        {{{1, 2, 3}, {1, 12, 20, 300, 3400, 4000}}}, 1);
  // group 2, W (2,2,1) (M = 4): c0 -> oc0 *2, oc1 *3; c1 -> oc2 *5, oc3 *7.
  Check(NodeOf("ConvTranspose").Attr("group", int64_t{2}), {x2, F32({2, 2, 1}, {2, 3, 5, 7})},
        {{{1, 4, 2}, {2, 4, 3, 6, 15, 20, 21, 28}}}, 1);
  // group 1, W (2,1,1) = [1, 10]: y = c0 + 10 c1 = [31, 42].
  Check(NodeOf("ConvTranspose"), {x2, F32({2, 1, 1}, {1, 10})}, {{{1, 1, 2}, {31, 42}}}, 2);
}

TEST_CASE("ConvTranspose 2-D groups, strides, dilations, asymmetric pads, output_padding (PyTorch)") {
  Check(NodeOf("ConvTranspose")
            .Attr("group", int64_t{2})
            .Attr("strides", Ints{2, 3})
            .Attr("dilations", Ints{1, 2})
            .Attr("pads", Ints{1, 0, 0, 2})
            .Attr("output_padding", Ints{1, 1}),
        {Seq({1, 4, 2, 2}, 3, 7), Seq({4, 1, 2, 3}, 5, 7, 3), F32({2}, {0.5, -1})},
        {{{1, 2, 4, 7}, {3.5,  0.5, 5.5, -5.5, 7.5, -1.5, 0.5, 2.5, 0.5, -5.5, -5.5, 7.5, 2.5, 0.5,
                         6.5,  0.5, -1.5, -9.5, -9.5, -1.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5,
                         -1,   -1,  3,   -7,   -7,  6,    -1,  5,   -1,  6,    -7,   -7,  3,   -1,
                         1,    -1,  2,   -5,   -11, 5,    -1,  -1,  -1,  -1,   -1,   -1,  -1,  -1}}},
        2, 1);
}

TEST_CASE("ConvTranspose 3-D, stride (1,2,2) (PyTorch)") {
  Check(NodeOf("ConvTranspose").Attr("strides", Ints{1, 2, 2}), {Seq({1, 2, 1, 2, 2}, 3, 5), Seq({2, 1, 2, 2, 2}, 7, 5, 1)},
        {{{1, 1, 2, 4, 4}, {2,  -2, -1, -3, 4, 0, 0,  -2, 1, 1, -2, 0,  1, 1, -3, -1,
                            -4, 2,  6,  -1, -2, 4, -3, 0, -4, 1, 6, -2, 1, 1, 0,  -3}}},
        2, 1);
}

TEST_CASE("ConvTranspose rejects malformed nodes") {
  CheckFails(NodeOf("ConvTranspose"), {X1(), F32({2, 1, 2}, {1, 2, 3, 4})}, "W.shape[0]");
  CheckFails(NodeOf("ConvTranspose").Attr("group", int64_t{2}), {F32({1, 3, 1}, {1, 2, 3}), F32({3, 1, 1}, {1, 2, 3})},
             "not divisible");
  CheckFails(NodeOf("ConvTranspose").Attr("strides", Ints{2}).Attr("output_padding", Ints{2}), {X1(), W2()},
             "output_padding");
  CheckFails(NodeOf("ConvTranspose"), {X1(), W2(), F32({2}, {1, 2})}, "B must have shape");
  CheckFails(NodeOf("ConvTranspose").Attr("output_shape", Ints{4, 4}), {X1(), W2()}, "output_shape");
  CheckFails(NodeOf("ConvTranspose").Attr("pads", Ints{3, 2}), {X1(), W2()}, "would be");
  CheckFails(NodeOf("ConvTranspose").Attr("auto_pad", "SAME_UPPER").Attr("pads", Ints{1, 0}), {X1(), W2()},
             "cannot be used");
  CheckFails(NodeOf("ConvTranspose").Attr("dilations", Ints{0}), {X1(), W2()}, "dilations");
}
