// Quantization ops. Expected values are computed by hand (arithmetic in the comments), taken from
// the ONNX backend test cases (onnx/backend/test/case/node/*.py, said so per case), or computed
// with numpy in /usr/bin/python3 (said so).
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {

constexpr DType kU8 = DType::kUInt8, kI8 = DType::kInt8, kI32 = DType::kInt32;

/// An integer tensor of dtype t (uint8, int8, int32) with the given values.
Tensor Q(DType t, const Shape& s, std::vector<double> v) { return Make(t, s, std::move(v)); }

}  // namespace

TEST_CASE("QuantizeLinear per tensor: rounding half to even after the division, saturation") {
  // ONNX case quantizelinear.py: x / 2 + 128: 0 -> 128, 1 -> 129, 1.5 -> 2 -> 130, 500 -> 255 (sat),
  // -127 -> 1, -500 -> 0 (sat).
  Check(NodeOf("QuantizeLinear"), {F32({6}, {0, 2, 3, 1000, -254, -1000}), F32({}, {2}), Q(kU8, {}, {128})},
        {{{6}, {128, 129, 130, 255, 1, 0}, kU8}});
  // int8, scale 1, zero point 0: ties to even 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> 0, -1.5 -> -2,
  // -2.5 -> -2; 200 -> 127 and -200 -> -128 saturate.
  Check(NodeOf("QuantizeLinear"),
        {F32({8}, {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 200, -200}), F32({1}, {1}), Q(kI8, {1}, {0})},
        {{{8}, {0, 2, 2, 0, -2, -2, 127, -128}, kI8}});
  // The zero point is added after rounding: x = 1, scale 2, zp 1: rne(0.5) + 1 = 1 (not rne(1.5) = 2).
  Check(NodeOf("QuantizeLinear"), {F32({1}, {1}), F32({}, {2}), Q(kU8, {}, {1})}, {{{1}, {1}, kU8}});
  // No zero point: uint8 with zp 0: -1 -> 0 (sat), 3.7 -> 4, 300 -> 255 (sat).
  Check(NodeOf("QuantizeLinear"), {F32({3}, {-1, 3.7, 300}), F32({}, {1})}, {{{3}, {0, 4, 255}, kU8}});
  // int32 x: 7 / 2 = 3.5 -> 4, -7 / 2 = -3.5 -> -4.
  Check(NodeOf("QuantizeLinear"), {Q(kI32, {2}, {7, -7}), F32({}, {2}), Q(kI8, {}, {0})}, {{{2}, {4, -4}, kI8}});
}

TEST_CASE("QuantizeLinear per axis") {
  // axis 1 (default), scales [1, 2, 4], zero points [0, -10, 10]:
  // row 0: 1/1 + 0 = 1, 2/2 - 10 = -9, 4/4 + 10 = 11; row 1: -3, -6/2 - 10 = -13, -12/4 + 10 = 7.
  Check(NodeOf("QuantizeLinear"), {F32({2, 3}, {1, 2, 4, -3, -6, -12}), F32({3}, {1, 2, 4}), Q(kI8, {3}, {0, -10, 10})},
        {{{2, 3}, {1, -9, 11, -3, -13, 7}, kI8}});
  // axis -2 (rows), scales [1, 10], no zero point: row 1: 1, 2.5 -> 2, 3.5 -> 4.
  Check(NodeOf("QuantizeLinear").Attr("axis", -2), {F32({2, 3}, {1, 2, 3, 10, 25, 35}), F32({2}, {1, 10})},
        {{{2, 3}, {1, 2, 3, 1, 2, 4}, kU8}});
}

TEST_CASE("DequantizeLinear per tensor, per axis, int32") {
  // ONNX case dequantizelinear.py: (x - 128) * 2.
  Check(NodeOf("DequantizeLinear"), {Q(kU8, {4}, {0, 3, 128, 255}), F32({}, {2}), Q(kU8, {}, {128})},
        {{{4}, {-256, -250, 0, 254}}});
  // axis 0, scales [0.5, 2, 0.25], zero points [1, -1, 0]: (3-1)*0.5 = 1, (-1-1)*0.5 = -1,
  // (0+1)*2 = 2, (5+1)*2 = 12, -128*0.25 = -32, 127*0.25 = 31.75.
  Check(NodeOf("DequantizeLinear").Attr("axis", 0),
        {Q(kI8, {3, 2}, {3, -1, 0, 5, -128, 127}), F32({3}, {0.5, 2, 0.25}), Q(kI8, {3}, {1, -1, 0})},
        {{{3, 2}, {1, -1, 2, 12, -32, 31.75}}});
  // int32 x, no zero point: 100000 * 0.5 = 50000, -7 * 0.5 = -3.5.
  Check(NodeOf("DequantizeLinear"), {Q(kI32, {2}, {100000, -7}), F32({}, {0.5})}, {{{2}, {50000, -3.5}}});
}

TEST_CASE("DynamicQuantizeLinear") {
  // ONNX case dynamicquantizelinear.py, values computed with numpy (the case's own formula):
  // scale = 5/255 = 0.019607843831181526 (float32), zero point rne(3 / scale) = 153.
  Check(NodeOf("DynamicQuantizeLinear", 3), {F32({6}, {0, 2, -3, -2.5, 1.34, 0.5})},
        {{{6}, {153, 255, 0, 26, 221, 179}, kU8}, {{}, {0.019607843831181526}}, {{}, {153}, kU8}});
  // ONNX "min_adjusted" case (numpy): all positive, min adjusted to 0: scale 4/255, zero point 0.
  Check(NodeOf("DynamicQuantizeLinear", 3),
        {F32({3, 4}, {1, 2.1, 1.3, 2.5, 3.34, 4.0, 1.5, 2.6, 3.9, 4.0, 3.0, 2.345})},
        {{{3, 4}, {64, 134, 83, 159, 213, 255, 96, 166, 249, 255, 191, 149}, kU8},
         {{}, {0.01568627543747425}},
         {{}, {0}, kU8}});
  // All zeros: range 0 -> scale 0, zero point 0 (0/0 counts as 0), y = 0.
  Check(NodeOf("DynamicQuantizeLinear", 3), {F32({2}, {0, 0})}, {{{2}, {0, 0}, kU8}, {{}, {0}}, {{}, {0}, kU8}});
}

TEST_CASE("ConvInteger: zero points, padding, groups, strides, auto_pad, dilations") {
  // ONNX cases convinteger.py: x = 2..10 (3x3), x_zero_point 1, 2x2 ones.
  const Tensor x = Q(kU8, {1, 1, 3, 3}, {2, 3, 4, 5, 6, 7, 8, 9, 10});
  const Tensor w = Q(kU8, {1, 1, 2, 2}, {1, 1, 1, 1});
  Check(NodeOf("ConvInteger"), {x, w, Q(kU8, {}, {1})}, {{{1, 1, 2, 2}, {12, 16, 24, 28}, kI32}});
  Check(NodeOf("ConvInteger").Attr("pads", std::vector<int64_t>{1, 1, 1, 1}), {x, w, Q(kU8, {}, {1})},
        {{{1, 1, 4, 4}, {1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9}, kI32}});
  // group 2, strides [1, 2], int8 x with zero point -1, per-channel w zero points [1, 2]:
  // xs c0 = [2, 3, 4, 5], c1 = [0, 1, 6, -2]; ws m0 = [3-1, 1-1] = [2, 0], m1 = [2-2, 5-2] = [0, 3].
  // m0: 2*2 = 4, 4*2 = 8; m1: 1*3 = 3, -2*3 = -6.
  Check(NodeOf("ConvInteger").Attr("group", 2).Attr("strides", std::vector<int64_t>{1, 2}),
        {Q(kI8, {1, 2, 1, 4}, {1, 2, 3, 4, -1, 0, 5, -3}), Q(kU8, {2, 1, 1, 2}, {3, 1, 2, 5}), Q(kI8, {}, {-1}),
         Q(kU8, {2}, {1, 2})},
        {{{1, 2, 1, 2}, {4, 8, 3, -6}, kI32}});
  // 1-D, no zero points, kernel [1, 1]: SAME_UPPER pads [0, 1]: [1+2, 2+3, 3] ; SAME_LOWER pads
  // [1, 0]: [1, 1+2, 2+3]; dilation 2 on 1..5: y[o] = x[o] + x[o+2] = [4, 6, 8].
  const Tensor x1 = Q(kU8, {1, 1, 3}, {1, 2, 3});
  const Tensor w1 = Q(kU8, {1, 1, 2}, {1, 1});
  Check(NodeOf("ConvInteger").Attr("auto_pad", "SAME_UPPER"), {x1, w1}, {{{1, 1, 3}, {3, 5, 3}, kI32}});
  Check(NodeOf("ConvInteger").Attr("auto_pad", "SAME_LOWER"), {x1, w1}, {{{1, 1, 3}, {1, 3, 5}, kI32}});
  Check(NodeOf("ConvInteger").Attr("dilations", std::vector<int64_t>{2}), {Q(kU8, {1, 1, 5}, {1, 2, 3, 4, 5}), w1},
        {{{1, 1, 3}, {4, 6, 8}, kI32}});
}

TEST_CASE("QLinearConv: per-tensor (ONNX case) and per-channel with bias and int8 output") {
  // ONNX case qlinearconv.py (inputs and expected output copied from it).
  const Tensor x = Q(kU8, {1, 1, 7, 7},
                     {255, 174, 162, 25,  203, 168, 58,  15,  59,  237, 95,  129, 0,   64,  56,  242, 153,
                      221, 168, 12,  166, 232, 178, 186, 195, 237, 162, 237, 188, 39,  124, 77,  80,  102,
                      43,  127, 230, 21,  83,  41,  40,  134, 255, 154, 92,  141, 42,  148, 247});
  Check(NodeOf("QLinearConv"),
        {x, F32({}, {0.00369204697}), Q(kU8, {}, {132}), Q(kU8, {1, 1, 1, 1}, {0}), F32({1}, {0.00172794575}),
         Q(kU8, {1}, {255}), F32({}, {0.00162681262}), Q(kU8, {}, {123})},
        {{{1, 1, 7, 7}, {0,   81,  93,  230, 52,  87,  197, 240, 196, 18,  160, 126, 255, 191, 199, 13,  102,
                         34,  87,  243, 89,  23,  77,  69,  60,  18,  93,  18,  67,  216, 131, 178, 175, 153,
                         212, 128, 25,  234, 172, 214, 215, 121, 0,   101, 163, 114, 213, 107, 8},
          kU8}});
  // 1x1 conv, 2 -> 2 channels. xs = x - 10: c0 = [0, 2, 4, -1], c1 = [1, 0, 10, -10].
  // ws = w - [0, 1]: m0 = [2, -1], m1 = [2, 0]. B = [1, -3].
  // m0: 2*c0 - c1 + 1 = [0, 5, -1, 9], mult 0.5*1/1: [0, 2.5, -0.5, 4.5] -> rne [0, 2, 0, 4] - 5.
  // m1: 2*c0 - 3 = [-3, 1, 5, -5], mult 0.5*0.25/1: [-0.375, 0.125, 0.625, -0.625] -> [0, 0, 1, -1] - 5.
  Check(NodeOf("QLinearConv"),
        {Q(kU8, {1, 2, 2, 2}, {10, 12, 14, 9, 11, 10, 20, 0}), F32({}, {0.5}), Q(kU8, {}, {10}),
         Q(kI8, {2, 2, 1, 1}, {2, -1, 3, 1}), F32({2}, {1, 0.25}), Q(kI8, {2}, {0, 1}), F32({}, {1}),
         Q(kI8, {}, {-5}), Q(kI32, {2}, {1, -3})},
        {{{1, 2, 2, 2}, {-5, -3, -5, -1, -5, -5, -4, -6}, kI8}});
}

TEST_CASE("MatMulInteger: ONNX case, per-row / per-column zero points, batch broadcast") {
  // ONNX case matmulinteger.py.
  Check(NodeOf("MatMulInteger"),
        {Q(kU8, {4, 3}, {11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0}), Q(kU8, {3, 2}, {1, 4, 2, 5, 3, 6}), Q(kU8, {1}, {12}),
         Q(kU8, {1}, {0})},
        {{{4, 2}, {-38, -83, -44, -98, -50, -113, -56, -128}, kI32}}, 3);
  // A int8 [2,2,3] with per-row zero points [2,2,1]; B uint8 [3,2] (broadcast) with per-column
  // zero points [1, 2]. Expected computed with numpy: matmul(A - a_zp, B - b_zp).
  Check(NodeOf("MatMulInteger"),
        {Q(kI8, {2, 2, 3}, {1, 2, 4, 0, -1, 4, -2, 0, 1, 5, 5, 5}), Q(kU8, {3, 2}, {1, 3, 3, 2, 5, 7}),
         Q(kI8, {2, 2, 1}, {1, 0, -1, 2}), Q(kU8, {2}, {1, 2})},
        {{{2, 2, 2}, {14, 15, 14, 20, 10, 9, 18, 18}, kI32}}, 3);
  // 1-D A times 2-D B without zero points: [1, 2] x [[3, 4], [5, 6]] = [13, 16].
  Check(NodeOf("MatMulInteger"), {Q(kU8, {2}, {1, 2}), Q(kI8, {2, 2}, {3, 4, 5, 6})}, {{{2}, {13, 16}, kI32}}, 2);
  // 3-D A times 1-D B: [1, 2].[5, 6] = 17, [3, -4].[5, 6] = -9; y drops B's added dim: [2, 1].
  Check(NodeOf("MatMulInteger"), {Q(kI8, {2, 1, 2}, {1, 2, 3, -4}), Q(kU8, {2}, {5, 6})}, {{{2, 1}, {17, -9}, kI32}}, 2);
}

TEST_CASE("QLinearMatMul: ONNX case and per-row scales with saturation") {
  // ONNX case qlinearmatmul.py (2D).
  Check(NodeOf("QLinearMatMul"),
        {Q(kU8, {2, 4}, {208, 236, 0, 238, 3, 214, 255, 29}), F32({1}, {0.0066}), Q(kU8, {1}, {113}),
         Q(kU8, {4, 3}, {152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247}), F32({1}, {0.00705}),
         Q(kU8, {1}, {114}), F32({1}, {0.0107}), Q(kU8, {1}, {118})},
        {{{2, 3}, {168, 115, 255, 1, 66, 151}, kU8}}, 4);
  // as = a - [10, 0] = [[0, 10], [30, 0]], bs = b - 1 = [[2], [-2]]: acc = [-20, 60];
  // mult row 0 = 0.5*1/0.25 = 2 -> -40 + 100 = 60; row 1 = 1*1/0.25 = 4 -> 240 + 100 = 340 -> 255.
  Check(NodeOf("QLinearMatMul"),
        {Q(kU8, {2, 2}, {10, 20, 30, 0}), F32({2}, {0.5, 1}), Q(kU8, {2}, {10, 0}), Q(kI8, {2, 1}, {3, -1}),
         F32({}, {1}), Q(kI8, {}, {1}), F32({}, {0.25}), Q(kU8, {}, {100})},
        {{{2, 1}, {60, 255}, kU8}}, 2);
}

TEST_CASE("quantization ops reject malformed nodes") {
  CheckFails(NodeOf("QuantizeLinear"), {F32({2, 3}, {1, 2, 3, 4, 5, 6}), F32({2}, {1, 2})}, "scale must have");
  CheckFails(NodeOf("QuantizeLinear"), {F32({}, {1}), F32({2}, {1, 2})}, "out of range");
  CheckFails(NodeOf("QuantizeLinear").Attr("axis", 2), {F32({2, 2}, {1, 2, 3, 4}), F32({2}, {1, 2})}, "out of range");
  CheckFails(NodeOf("QuantizeLinear"), {Q(kI8, {1}, {1}), F32({}, {1})}, "float16, bfloat16) or int32");
  CheckFails(NodeOf("QuantizeLinear"), {F32({2}, {1, 2}), F32({}, {1}), Q(kI32, {}, {0})},
             "y_zero_point must be a quantized type, got int32");
  CheckFails(NodeOf("DequantizeLinear"), {Q(kU8, {1}, {1}), F32({}, {1}), Q(kI8, {}, {0})}, "must be uint8");
  // Opset 21: blocked scales must match x's shape with ceil(D / block_size) along the axis;
  // output_dtype must agree with the zero point's type.
  CheckFails(NodeOf("QuantizeLinear").Attr("axis", 0).Attr("block_size", 4), {F32({6}, {1, 2, 3, 4, 5, 6}), F32({3}, {1, 1, 1})},
             "scale must have shape [2], got [3]");
  CheckFails(NodeOf("QuantizeLinear").Attr("output_dtype", int64_t(3)), {F32({2}, {1, 2}), F32({}, {1}), Q(kU8, {}, {0})},
             "differs from y_zero_point's type uint8");
  CheckFails(NodeOf("QuantizeLinear").Attr("block_size", int64_t(-1)), {F32({2}, {1, 2}), F32({}, {1})},
             "'block_size' must be >= 0");
  CheckFails(NodeOf("DequantizeLinear").Attr("output_dtype", int64_t(7)), {Q(kU8, {1}, {1}), F32({}, {1})},
             "must be float32, float16 or bfloat16");
  CheckFails(NodeOf("DynamicQuantizeLinear", 3), {Q(kU8, {1}, {1})}, "float32");
  CheckFails(NodeOf("ConvInteger").Attr("group", 2), {Q(kU8, {1, 3, 2, 2}, std::vector<double>(12, 1)),
                                                      Q(kU8, {1, 1, 1, 1}, {1})}, "group");
  CheckFails(NodeOf("ConvInteger").Attr("pads", std::vector<int64_t>{1, 1}),
             {Q(kU8, {1, 1, 2, 2}, {1, 2, 3, 4}), Q(kU8, {1, 1, 1, 1}, {1})}, "'pads' must have 4 values");
  CheckFails(NodeOf("MatMulInteger"), {Q(kU8, {2, 3}, {1, 2, 3, 4, 5, 6}), Q(kU8, {2, 2}, {1, 2, 3, 4})}, "inner dims");
  CheckFails(NodeOf("MatMulInteger"),
             {Q(kU8, {2, 2}, {1, 2, 3, 4}), Q(kU8, {2, 2}, {1, 2, 3, 4}), Q(kU8, {3}, {1, 2, 3})}, "per row");
  CheckFails(NodeOf("QLinearMatMul"),
             {Q(kU8, {1, 1}, {1}), F32({}, {1}), Q(kU8, {}, {0}), Q(kU8, {1, 1}, {1}), F32({}, {1}), Q(kU8, {}, {0}),
              F32({2}, {1, 1}), Q(kU8, {}, {0})},
             "y_scale must have one element");
  CheckFails(NodeOf("QLinearConv"),
             {Q(kU8, {1, 1, 2, 2}, {1, 2, 3, 4}), F32({}, {1}), Q(kU8, {}, {0}), Q(kU8, {1, 1, 1, 1}, {1}),
              F32({}, {1}), Q(kU8, {}, {0}), F32({}, {1}), Q(kU8, {}, {0}), Q(kI32, {2}, {0, 0})},
             "B must be int32 of shape [1]");
}
