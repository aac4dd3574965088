// Pooling ops. Expected values are computed by hand (window contents written per case); the
// 5x5 AveragePool grids were also cross-checked with torch.nn.functional.avg_pool2d and the
// ceil_mode cases with avg_pool1d / max_pool1d (PyTorch 1.13), whose results agree.
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
std::vector<double> Iota(int n, double start = 1) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(start + i);
  return v;
}
const std::vector<int64_t> k2{2, 2};
}  // namespace

TEST_CASE("MaxPool 2-D strides with Indices in both storage orders") {
  // x = 1..25 as 5x5; 2x2 windows at stride 2: max = bottom-right of each window.
  // 7 at (1,1), 9 at (1,3), 17 at (3,1), 19 at (3,3): row-major 6, 8, 16, 18;
  // column-major h + 5*w: 1+5=6, 1+15=16, 3+5=8, 3+15=18.
  Tensor x = F32({1, 1, 5, 5}, Iota(25));
  Check(NodeOf("MaxPool", 2).Attr("kernel_shape", k2).Attr("strides", k2), {x},
        {{{1, 1, 2, 2}, {7, 9, 17, 19}}, {{1, 1, 2, 2}, {6, 8, 16, 18}, DType::kInt64}});
  Check(NodeOf("MaxPool", 2).Attr("kernel_shape", k2).Attr("strides", k2).Attr("storage_order", int64_t{1}), {x},
        {{{1, 1, 2, 2}, {7, 9, 17, 19}}, {{1, 1, 2, 2}, {6, 16, 8, 18}, DType::kInt64}});
}

TEST_CASE("MaxPool 1-D: Indices include the (n, c) plane offset; pads are not values") {
  // c0 = [1,3,2,0] -> windows [1,3],[2,0] -> 3 (idx 1), 2 (idx 2);
  // c1 = [5,4,6,7] -> 5 (idx 4+0), 7 (idx 4+3).
  Check(NodeOf("MaxPool", 2).Attr("kernel_shape", std::vector<int64_t>{2}).Attr("strides", std::vector<int64_t>{2}),
        {F32({1, 2, 4}, {1, 3, 2, 0, 5, 4, 6, 7})},
        {{{1, 2, 2}, {3, 2, 5, 7}}, {{1, 2, 2}, {1, 2, 4, 7}, DType::kInt64}});
  // x = [-1,-2,-3], k=3, pads 1/1: windows {pad,-1,-2}, {-1,-2,-3}, {-2,-3,pad}: the padding
  // never wins although every value is negative.
  Check(NodeOf("MaxPool", 2).Attr("kernel_shape", std::vector<int64_t>{3}).Attr("pads", std::vector<int64_t>{1, 1}),
        {F32({1, 1, 3}, {-1, -2, -3})}, {{{1, 1, 3}, {-1, -1, -2}}, {{1, 1, 3}, {0, 0, 1}, DType::kInt64}});
}

TEST_CASE("MaxPool dilations, ceil_mode and the dropped last window") {
  Tensor x = F32({1, 1, 4, 4}, Iota(16));
  // 2x2 kernel, dilation 2: window (0,0) reads (0,0),(0,2),(2,0),(2,2) -> 11; ONNX test case values.
  Check(NodeOf("MaxPool").Attr("kernel_shape", k2).Attr("dilations", k2), {x}, {{{1, 1, 2, 2}, {11, 12, 15, 16}}});
  // 3x3 stride 2: floor((4-3)/2)+1 = 1 -> [11]; ceil mode: ceil(1/2)+1 = 2, the second window is
  // cut by the edge: rows/cols {2,3} -> 12, 15, 16.
  const std::vector<int64_t> k3{3, 3};
  Check(NodeOf("MaxPool").Attr("kernel_shape", k3).Attr("strides", k2), {x}, {{{1, 1, 1, 1}, {11}}});
  Check(NodeOf("MaxPool").Attr("kernel_shape", k3).Attr("strides", k2).Attr("ceil_mode", int64_t{1}), {x},
        {{{1, 1, 2, 2}, {11, 12, 15, 16}}});
  // x = [1..5], k=2, s=2, pads 1/1, ceil: ceil((5+2-2)/2)+1 = 4, but the 4th window would start at
  // 3*2-1 = 5 = D (in the end padding) and is dropped: windows {pad,1},{2,3},{4,5} -> 1, 3, 5.
  Check(NodeOf("MaxPool")
            .Attr("kernel_shape", std::vector<int64_t>{2})
            .Attr("strides", std::vector<int64_t>{2})
            .Attr("pads", std::vector<int64_t>{1, 1})
            .Attr("ceil_mode", int64_t{1}),
        {F32({1, 1, 5}, Iota(5))}, {{{1, 1, 3}, {1, 3, 5}}});
}

TEST_CASE("MaxPool 3-D with Indices, int8 input") {
  // x = 1..8 as 2x2x2, kernel [1,2,2]: per depth slice the max is its last element:
  // 4 at (0,1,1): row-major 3, column-major 0 + 2*(1 + 2*1) = 6; 8 at (1,1,1): 7 and 7.
  const std::vector<int64_t> k122{1, 2, 2};
  Tensor x = F32({1, 1, 2, 2, 2}, Iota(8));
  Check(NodeOf("MaxPool", 2).Attr("kernel_shape", k122), {x},
        {{{1, 1, 2, 1, 1}, {4, 8}}, {{1, 1, 2, 1, 1}, {3, 7}, DType::kInt64}});
  Check(NodeOf("MaxPool", 2).Attr("kernel_shape", k122).Attr("storage_order", int64_t{1}), {x},
        {{{1, 1, 2, 1, 1}, {4, 8}}, {{1, 1, 2, 1, 1}, {6, 7}, DType::kInt64}});
  Check(NodeOf("MaxPool").Attr("kernel_shape", std::vector<int64_t>{2}),
        {Make(DType::kInt8, {1, 1, 3}, {-5, -7, 100})}, {{{1, 1, 2}, {-5, 100}, DType::kInt8}});
}

TEST_CASE("AveragePool pads with and without count_include_pad") {
  // 5x5 of 1..25, 5x5 kernel, pads 2: output (0,0) averages rows/cols 0..2:
  // (1+2+3+6+7+8+11+12+13)/9 = 63/9 = 7; with count_include_pad the divisor is 25: 63/25 = 2.52.
  Tensor x = F32({1, 1, 5, 5}, Iota(25));
  const std::vector<int64_t> k5{5, 5}, p2{2, 2, 2, 2};
  Check(NodeOf("AveragePool").Attr("kernel_shape", k5).Attr("pads", p2), {x},
        {{{1, 1, 5, 5}, {7,  7.5,  8,  8.5,  9,  9.5,  10, 10.5, 11, 11.5, 12, 12.5, 13,
                         13.5, 14, 14.5, 15, 15.5, 16, 16.5, 17, 17.5, 18, 18.5, 19}}}, 25);
  Check(NodeOf("AveragePool").Attr("kernel_shape", k5).Attr("pads", p2).Attr("count_include_pad", int64_t{1}), {x},
        {{{1, 1, 5, 5}, {2.52, 3.6, 4.8,  4.08,  3.24, 4.56, 6.4, 8.4,  7.04, 5.52, 7.2,  10.0, 13.0,
                         10.8, 8.4, 6.96, 9.6,   12.4, 10.24, 7.92, 6.12, 8.4, 10.8, 8.88, 6.84}}}, 25);
  // 2x2 stride 2 on 5x5: (1+2+6+7)/4 = 4, (3+4+8+9)/4 = 6, (11+12+16+17)/4 = 14, 16.
  Check(NodeOf("AveragePool").Attr("kernel_shape", k2).Attr("strides", k2), {x}, {{{1, 1, 2, 2}, {4, 6, 14, 16}}}, 4);
}

TEST_CASE("AveragePool ceil_mode: windows over the edge") {
  // x = [1,2,3,4], k=3, s=2, pads 1/1, ceil: ceil((4+2-3)/2)+1 = 3 windows starting at -1, 1, 3:
  //   {pad,1,2}: sum 3; {2,3,4}: 9; {4,pad,(past the padding)}: 4.
  //   count_include_pad=0: 3/2, 9/3, 4/1; =1: 3/3, 9/3, 4/2 (the tap past the padding is not counted).
  Tensor x = F32({1, 1, 4}, {1, 2, 3, 4});
  auto node = [](int64_t cip) {
    return NodeOf("AveragePool")
        .Attr("kernel_shape", std::vector<int64_t>{3})
        .Attr("strides", std::vector<int64_t>{2})
        .Attr("pads", std::vector<int64_t>{1, 1})
        .Attr("ceil_mode", int64_t{1})
        .Attr("count_include_pad", cip);
  };
  Check(node(0), {x}, {{{1, 1, 3}, {1.5, 3, 4}}}, 3);
  Check(node(1), {x}, {{{1, 1, 3}, {1, 3, 2}}}, 3);
  // ONNX test case: 4x4 of 1..16, 3x3 stride 2 ceil: (1+2+3+5+6+7+9+10+11)/9 = 6,
  // (3+4+7+8+11+12)/6 = 7.5, (9+10+11+13+14+15)/6 = 12, (11+12+15+16)/4 = 13.5.
  Check(NodeOf("AveragePool").Attr("kernel_shape", std::vector<int64_t>{3, 3}).Attr("strides", k2).Attr("ceil_mode", int64_t{1}),
        {F32({1, 1, 4, 4}, Iota(16))}, {{{1, 1, 2, 2}, {6, 7.5, 12, 13.5}}}, 9);
}

TEST_CASE("Pooling auto_pad SAME_UPPER, SAME_LOWER, VALID") {
  // D=4, k=2, s=1: O = 4, total pad 1: SAME_UPPER puts it at the end, SAME_LOWER at the start.
  Tensor x = F32({1, 1, 4}, {1, 2, 3, 4});
  const std::vector<int64_t> k{2};
  Check(NodeOf("AveragePool").Attr("kernel_shape", k).Attr("auto_pad", "SAME_UPPER"), {x},
        {{{1, 1, 4}, {1.5, 2.5, 3.5, 4}}}, 2);
  Check(NodeOf("AveragePool").Attr("kernel_shape", k).Attr("auto_pad", "SAME_LOWER"), {x},
        {{{1, 1, 4}, {1, 1.5, 2.5, 3.5}}}, 2);
  Check(NodeOf("MaxPool").Attr("kernel_shape", k).Attr("auto_pad", "SAME_LOWER"), {x}, {{{1, 1, 4}, {1, 2, 3, 4}}});
  // VALID, D=5, k=2, s=2: ceil((5-2+1)/2) = 2 windows {1,2}, {3,4}.
  Check(NodeOf("AveragePool").Attr("kernel_shape", k).Attr("strides", k).Attr("auto_pad", "VALID"),
        {F32({1, 1, 5}, Iota(5))}, {{{1, 1, 2}, {1.5, 3.5}}}, 2);
  // ONNX test case: 5x5 of 1..25, 3x3 stride 2 SAME_UPPER: O = 3, pads 1/1:
  // (1+2+6+7)/4 = 4, (2+3+4+7+8+9)/6 = 5.5, ..., (19+20+24+25)/4 = 22.
  Check(NodeOf("AveragePool").Attr("kernel_shape", std::vector<int64_t>{3, 3}).Attr("strides", k2).Attr("auto_pad", "SAME_UPPER"),
        {F32({1, 1, 5, 5}, Iota(25))}, {{{1, 1, 3, 3}, {4, 5.5, 7, 11.5, 13, 14.5, 19, 20.5, 22}}}, 9);
}

TEST_CASE("GlobalAveragePool and GlobalMaxPool") {
  // c0 = [1,2,3,4] -> mean 2.5, max 4; c1 = [-1,-2,-3,-6] -> mean -3, max -1.
  Tensor x = F32({1, 2, 2, 2}, {1, 2, 3, 4, -1, -2, -3, -6});
  Check(NodeOf("GlobalAveragePool"), {x}, {{{1, 2, 1, 1}, {2.5, -3}}}, 4, 12);
  Check(NodeOf("GlobalMaxPool"), {x}, {{{1, 2, 1, 1}, {4, -1}}});
  Check(NodeOf("GlobalAveragePool"), {F32({2, 1, 3}, {1, 2, 6, 0, 0, 3})}, {{{2, 1, 1}, {3, 1}}}, 3, 9);
}

TEST_CASE("Pooling rejects bad attributes and shapes") {
  Tensor x = F32({1, 1, 4}, {1, 2, 3, 4});
  CheckFails(NodeOf("MaxPool"), {x}, "kernel_shape");
  CheckFails(NodeOf("MaxPool").Attr("kernel_shape", k2), {x}, "must have 1 values");
  CheckFails(NodeOf("MaxPool").Attr("kernel_shape", std::vector<int64_t>{0}), {x}, "kernel_shape");
  CheckFails(NodeOf("AveragePool").Attr("kernel_shape", std::vector<int64_t>{5}), {x}, "smaller than the dilated kernel");
  CheckFails(NodeOf("MaxPool").Attr("kernel_shape", std::vector<int64_t>{2}).Attr("pads", std::vector<int64_t>{2, 0}),
             {x}, "entirely in the padding");
  CheckFails(NodeOf("MaxPool").Attr("kernel_shape", std::vector<int64_t>{2}).Attr("pads", std::vector<int64_t>{1, 0})
                 .Attr("auto_pad", "SAME_UPPER"), {x}, "cannot be used with auto_pad");
  CheckFails(NodeOf("MaxPool").Attr("kernel_shape", std::vector<int64_t>{2}).Attr("auto_pad", "SAME"), {x}, "auto_pad");
  CheckFails(NodeOf("MaxPool").Attr("kernel_shape", std::vector<int64_t>{2}).Attr("storage_order", int64_t{2}), {x},
             "storage_order");
  CheckFails(NodeOf("AveragePool", 2).Attr("kernel_shape", std::vector<int64_t>{2}), {x}, "not produced");
  CheckFails(NodeOf("GlobalMaxPool"), {F32({2, 2}, {1, 2, 3, 4})}, "rank 3 to 5");
  CheckFails(NodeOf("AveragePool").Attr("kernel_shape", std::vector<int64_t>{2}),
             {Make(DType::kInt8, {1, 1, 2}, {1, 2})}, "must be float32");
  // Dilation 3 over a 1-wide input: the window starting at -2 has taps -2 and 1, both outside.
  CheckFails(NodeOf("MaxPool").Attr("kernel_shape", std::vector<int64_t>{2}).Attr("dilations", std::vector<int64_t>{3})
                 .Attr("pads", std::vector<int64_t>{3, 3}), {F32({1, 1, 1}, {1})}, "entirely in the padding");
}
