// MaxUnpool; expected outputs placed by hand (Y zero, Y.flat[I[i]] = X[i]); the first case is the
// ONNX example, the output-size formula O = (D - 1) * stride + kernel - pads is evaluated by hand.
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

TEST_CASE("MaxUnpool places values at their indices") {
  // ONNX example: 2x2 -> 4x4 (kernel 2, stride 2), indices 5, 7, 13, 15.
  const Tensor x = F32({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor i = I64({1, 1, 2, 2}, {5, 7, 13, 15});
  const auto node = NodeOf("MaxUnpool").Attr("kernel_shape", std::vector<int64_t>{2, 2}).Attr("strides", std::vector<int64_t>{2, 2});
  Check(node, {x, i}, {{{1, 1, 4, 4}, {0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4}}});
  // With output_shape [1, 1, 5, 5] (the ONNX backend test): the 4x4 unpooled block sits at the
  // origin, so (1,1), (1,3), (3,1), (3,3) land at flat 6, 8, 16, 18 of the 5x5 output.
  std::vector<double> y25(25, 0.0);
  y25[6] = 1, y25[8] = 2, y25[16] = 3, y25[18] = 4;
  Check(node, {x, i, I64({4}, {1, 1, 5, 5})}, {{{1, 1, 5, 5}, y25}});
}

TEST_CASE("MaxUnpool 1-D with pads and channels, repeated index, int32") {
  // O = (2 - 1) * 2 + 3 - 1 - 1 = 3; global indices: channel 0 -> 0, 2; channel 1 -> 4, 3.
  Check(NodeOf("MaxUnpool").Attr("kernel_shape", std::vector<int64_t>{3}).Attr("strides", std::vector<int64_t>{2}).Attr("pads", std::vector<int64_t>{1, 1}),
        {F32({1, 2, 2}, {7, 8, 9, 10}), I64({1, 2, 2}, {0, 2, 4, 3})}, {{{1, 2, 3}, {7, 0, 8, 10, 9, 0}}});
  // O = (2 - 1) * 1 + 2 = 3; index 1 twice: the last write (6) stays.
  Check(NodeOf("MaxUnpool").Attr("kernel_shape", std::vector<int64_t>{2}), {Make(DType::kInt32, {1, 1, 2}, {5, 6}), I64({1, 1, 2}, {1, 1})},
        {{{1, 1, 3}, {0, 6, 0}, DType::kInt32}});
}

TEST_CASE("MaxUnpool with output_shape: pads ignored, larger batch and spatial dims") {
  // kernel 3, stride 2, pads [1, 1] ignored: U = [1, 1, (2 - 1) * 2 + 3] = [1, 1, 5].
  Check(NodeOf("MaxUnpool").Attr("kernel_shape", std::vector<int64_t>{3}).Attr("strides", std::vector<int64_t>{2}).Attr("pads", std::vector<int64_t>{1, 1}),
        {F32({1, 1, 2}, {7, 8}), I64({1, 1, 2}, {1, 4}), I64({3}, {1, 1, 5})}, {{{1, 1, 5}, {0, 7, 0, 0, 8}}});
  // U = [1, 2, 3] placed in a [2, 2, 4] output: U's (0, 1, 2) -> flat 1*4 + 2 = 6; (0, 0, 0) -> 0.
  Check(NodeOf("MaxUnpool").Attr("kernel_shape", std::vector<int64_t>{2}),
        {F32({1, 2, 2}, {-1, 0.5, 3, 4}), I64({1, 2, 2}, {0, 2, 5, 3}), I64({3}, {2, 2, 4})},
        {{{2, 2, 4}, {-1, 0, 0.5, 0, 4, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0}}});
}

TEST_CASE("MaxUnpool rejects bad inputs") {
  const Tensor x = F32({1, 1, 2}, {1, 2});
  const auto node = NodeOf("MaxUnpool").Attr("kernel_shape", std::vector<int64_t>{2});
  CheckFails(node, {x, I64({1, 1, 2}, {0, 3})}, "outside");
  CheckFails(node, {x, I64({1, 1, 2}, {-1, 0})}, "outside");
  CheckFails(node, {x, Make(DType::kInt32, {1, 1, 2}, {0, 1})}, "int64");
  CheckFails(node, {x, I64({1, 2}, {0, 1})}, "X's shape");
  CheckFails(NodeOf("MaxUnpool"), {x, I64({1, 1, 2}, {0, 1})}, "kernel_shape");
  CheckFails(node, {F32({2}, {1, 2}), I64({2}, {0, 1})}, "rank >= 3");
  CheckFails(node, {x, I64({1, 1, 2}, {0, 1}), I64({2}, {1, 1})}, "3 values");
  CheckFails(node, {x, I64({1, 1, 2}, {0, 1}), I64({3}, {1, 1, 2})}, "smaller");
  // U is [1, 1, 3]: an index of 3 is outside U even though output_shape [1, 1, 4] has 4 elements.
  CheckFails(node, {x, I64({1, 1, 2}, {0, 3}), I64({3}, {1, 1, 4})}, "outside");
  CheckFails(NodeOf("MaxUnpool").Attr("kernel_shape", std::vector<int64_t>{1}).Attr("pads", std::vector<int64_t>{2, 2}),
             {x, I64({1, 1, 2}, {0, 1})}, "negative");
}
