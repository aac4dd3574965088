// Normalization ops. Cases with epsilon chosen so that var + eps is a perfect square are computed
// by hand; the default-epsilon cases were computed with numpy (float64, eps = float32(1e-5) =
// 9.999999747378752e-06) from the formulas in runtime/ops/norm.cc, and pasted.
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

TEST_CASE("BatchNormalization inference with epsilon") {
  // C=2, eps 0.75: c0 var 0.25 -> sqrt(1) = 1; c1 var 3.25 -> sqrt(4) = 2.
  // c0 (mean 1.5, scale 2, B 0.5): x=1 -> -0.5*2+0.5 = -0.5; x=2 -> 0.5*2+0.5 = 1.5
  // c1 (mean 4, scale 0.5, B -1): x=3 -> -1/2*0.5-1 = -1.25; x=5 -> 1/2*0.5-1 = -0.75
  Tensor x = F32({1, 2, 2}, {1, 2, 3, 5});
  Tensor scale = F32({2}, {2, 0.5}), b = F32({2}, {0.5, -1}), mean = F32({2}, {1.5, 4});
  Check(NodeOf("BatchNormalization").Attr("epsilon", 0.75), {x, scale, b, mean, F32({2}, {0.25, 3.25})},
        {{{1, 2, 2}, {-0.5, 1.5, -1.25, -0.75}}}, 1, 2);
  // Rank 2 (N, C): x = [[3, 8]] -> c0: (3-1.5)*2+0.5 = 3.5; c1: (8-4)/2*0.5-1 = 0.
  Check(NodeOf("BatchNormalization").Attr("epsilon", 0.75), {F32({1, 2}, {3, 8}), scale, b, mean, F32({2}, {0.25, 3.25})},
        {{{1, 2}, {3.5, 0}}}, 1, 4);
}

TEST_CASE("BatchNormalization default epsilon, N=2 (numpy)") {
  Tensor x = F32({2, 2, 2}, {1, 2, 3, 5, 0, -1, 7, 2});
  Check(NodeOf("BatchNormalization"),
        {x, F32({2}, {2, 0.5}), F32({2}, {0.5, -1}), F32({2}, {1.5, 4}), F32({2}, {0.25, 1})},
        {{{2, 2, 2},
          {-1.4999600012009704, 2.4999600012009706, -1.499997500018813, -0.500002499981187, -5.499880003602912,
           -9.499800006004852, 0.49999250005643914, -1.999995000037626}}},
        1, 10);
}

TEST_CASE("BatchNormalization rejects training mode, extra outputs, bad shapes") {
  Tensor x = F32({1, 2, 2}, {1, 2, 3, 5}), c = F32({2}, {1, 1});
  CheckFails(NodeOf("BatchNormalization").Attr("training_mode", int64_t{1}), {x, c, c, c, c}, "training_mode");
  CheckFails(NodeOf("BatchNormalization", 3), {x, c, c, c, c}, "not supported in inference mode");
  CheckFails(NodeOf("BatchNormalization"), {x, c, c, c, F32({3}, {1, 1, 1})}, "input_var must have shape [2]");
  CheckFails(NodeOf("BatchNormalization"), {x, c, c, c}, "expects 5 inputs");
  CheckFails(NodeOf("BatchNormalization"), {F32({2}, {1, 2}), c, c, c, c}, "rank >= 2");
}

TEST_CASE("InstanceNormalization") {
  // c0 = [1,2,3,6]: mean 3, squared deviations 4+1+0+9 = 14, var 3.5; c1 = [-6,-3,-2,-1]: mean -3,
  // 9+0+1+4 = 14, var 3.5. eps 0.5 -> sqrt(4) = 2. scale [2,1], B [1,0]:
  // c0: (x-3)/2*2+1 = -1, 0, 1, 4; c1: (x+3)/2 = -1.5, 0, 0.5, 1.
  Tensor x = F32({1, 2, 4}, {1, 2, 3, 6, -6, -3, -2, -1});
  Tensor scale = F32({2}, {2, 1}), b = F32({2}, {1, 0});
  Check(NodeOf("InstanceNormalization").Attr("epsilon", 0.5), {x, scale, b},
        {{{1, 2, 4}, {-1, 0, 1, 4, -1.5, 0, 0.5, 1}}}, 4, 4);
  // Default epsilon (numpy).
  Check(NodeOf("InstanceNormalization"), {x, scale, b},
        {{{1, 2, 4},
          {-1.1380868808918239, -0.06904344044591193, 1., 4.207130321337736, -1.603565160668868, 0.,
           0.534521720222956, 1.069043440445912}}},
        4, 4);
  CheckFails(NodeOf("InstanceNormalization"), {x, F32({1}, {1}), b}, "scale must have shape [2]");
  CheckFails(NodeOf("InstanceNormalization"), {F32({1, 2}, {1, 2}), scale, b}, "rank >= 3");
}

TEST_CASE("LayerNormalization last axis with bias and Mean/InvStdDev outputs (numpy)") {
  // row0 [1,2,3]: mean 2, var 2/3; row1 [-1,0,4]: mean 1, var 14/3; inv = 1/sqrt(var + eps).
  Tensor x = F32({2, 3}, {1, 2, 3, -1, 0, 4});
  Tensor scale = F32({3}, {1, 2, -1}), b = F32({3}, {0.5, 0, 1});
  Check(NodeOf("LayerNormalization", 3), {x, scale, b},
        {{{2, 3},
          {-0.7247356859086223, 0., -0.22473568590862225, -0.42581910782406385, -0.9258191078240638,
           -0.38872866173609566}},
         {{2, 1}, {2, 1}},
         {{2, 1}, {1.2247356859086223, 0.4629095539120319}}},
        3, 2);
  // Same with the optional outputs omitted.
  Check(NodeOf("LayerNormalization"), {x, scale, b},
        {{{2, 3},
          {-0.7247356859086223, 0., -0.22473568590862225, -0.42581910782406385, -0.9258191078240638,
           -0.38872866173609566}}},
        3, 2);
}

TEST_CASE("LayerNormalization axis -2, broadcast Scale, no bias (numpy)") {
  // X [2,2,2], normalized over the last two dims (4 elements); Scale [2,1] -> 2 on row 0, 1 on row 1.
  Tensor x = F32({2, 2, 2}, {1, 2, 4, 8, -1, 3, 0, 2});
  Check(NodeOf("LayerNormalization", 3).Attr("axis", int64_t{-2}), {x, F32({2, 1}, {2, 1})},
        {{{2, 2, 2},
          {-2.0515091509924224, -1.3055058233588142, 0.09325041595420101, 1.5852570712214171, -2.529817068505754,
           2.529817068505754, -0.6324542671264385, 0.6324542671264385}},
         {{2, 1, 1}, {3.75, 1}},
         {{2, 1, 1}, {0.37300166381680405, 0.6324542671264385}}},
        4, 3);
}

TEST_CASE("LayerNormalization epsilon attribute and rejections") {
  // [0, 4]: mean 2, var 4, eps 5 -> inv = 1/3: y = -2/3, 2/3.
  Check(NodeOf("LayerNormalization").Attr("epsilon", 5.0).Attr("axis", int64_t{0}), {F32({2}, {0, 4}), F32({1}, {1})},
        {{{2}, {-2.0 / 3, 2.0 / 3}}}, 2);
  // An empty normalized block: Y is empty, Mean and InvStdDev are NaN (0 / 0).
  const double nan = std::nan("");
  Check(NodeOf("LayerNormalization", 3), {F32({2, 0}, {}), F32({0}, {})},
        {{{2, 0}, {}}, {{2, 1}, {nan, nan}}, {{2, 1}, {nan, nan}}});
  Tensor x = F32({2, 3}, {1, 2, 3, -1, 0, 4});
  CheckFails(NodeOf("LayerNormalization"), {x, F32({2}, {1, 1})}, "does not broadcast");
  CheckFails(NodeOf("LayerNormalization"), {x, F32({2, 3}, {1, 1, 1, 1, 1, 1})}, "does not broadcast");
  CheckFails(NodeOf("LayerNormalization").Attr("axis", int64_t{2}), {x, F32({3}, {1, 1, 1})}, "out of range");
  CheckFails(NodeOf("LayerNormalization").Attr("stash_type", int64_t{11}), {x, F32({3}, {1, 1, 1})}, "stash_type");
  CheckFails(NodeOf("LayerNormalization").Attr("epsilon", -1.0), {x, F32({3}, {1, 1, 1})}, "epsilon");
}

TEST_CASE("LRN across channels: window, alpha/size, beta, bias") {
  // size 3, alpha 3 (alpha/size = 1), beta 1, bias 1, x = [1, 2, 3] over C:
  // c0 window [0,1]: 1 + 1+4 = 6 -> 1/6; c1 [0,2]: 1 + 14 -> 2/15; c2 [1,2]: 1 + 13 -> 3/14.
  Check(NodeOf("LRN").Attr("size", int64_t{3}).Attr("alpha", 3.0).Attr("beta", 1.0), {F32({1, 3, 1, 1}, {1, 2, 3})},
        {{{1, 3, 1, 1}, {1.0 / 6, 2.0 / 15, 3.0 / 14}}}, 3);
  // size 2 (window [c, c+1]), alpha 2, bias 0, beta 0.5, x = [0, 3, 4]: c0: sqrt(0+9) = 3 -> 0;
  // c1: sqrt(9+16) = 5 -> 3/5; c2: sqrt(16) = 4 -> 1. Two spatial positions (second: x doubled).
  Check(NodeOf("LRN").Attr("size", int64_t{2}).Attr("alpha", 2.0).Attr("beta", 0.5).Attr("bias", 0.0),
        {F32({1, 3, 2}, {0, 0, 3, 6, 4, 8})}, {{{1, 3, 2}, {0, 0, 0.6, 0.6, 1, 1}}}, 2);
  // Defaults alpha 1e-4 (as float32), beta 0.75, bias 1, size 3 over x = [1,2,3,4] (numpy, float64).
  Check(NodeOf("LRN").Attr("size", int64_t{3}), {F32({1, 4, 1, 1}, {1, 2, 3, 4})},
        {{{1, 4, 1, 1}, {0.999875018229539, 1.999300285728783, 2.9978268381136615, 3.9975018215883114}}}, 3);
  Check(NodeOf("LRN").Attr("size", int64_t{1}).Attr("alpha", 1.0).Attr("beta", 1.0),
        {Make(DType::kFloat64, {1, 2}, {1, 2})}, {{{1, 2}, {0.5, 0.4}, DType::kFloat64}});  // x/(1+x^2)
  CheckFails(NodeOf("LRN"), {F32({1, 2}, {1, 2})}, "'size' is required");
  CheckFails(NodeOf("LRN").Attr("size", int64_t{0}), {F32({1, 2}, {1, 2})}, ">= 1");
  CheckFails(NodeOf("LRN").Attr("size", int64_t{3}), {F32({2}, {1, 2})}, "rank >= 2");
}

TEST_CASE("MeanVarianceNormalization default axes [0,2,3] and explicit axes") {
  // x (2,2,1,2); channel 0 holds [1,2,3,6]: mean 3, var (4+1+0+9)/4 = 3.5; channel 1 is all 5
  // (var 0: 0 / (0 + 1e-9) = 0). y = (x - mean) / (sqrt(var) + 1e-9) (numpy, float64).
  Check(NodeOf("MeanVarianceNormalization"), {F32({2, 2, 1, 2}, {1, 2, 5, 5, 3, 6, 5, 5})},
        {{{2, 2, 1, 2}, {-1.069044967078269, -0.5345224835391345, 0, 0, 0, 1.6035674506174034, 0, 0}}}, 4, 2);
  // axes [1] of [[1,3],[2,2]]: row 0 mean 2, std 1 -> -1/(1+1e-9), 1/(1+1e-9); row 1 -> 0, 0.
  Check(NodeOf("MeanVarianceNormalization").Attr("axes", std::vector<int64_t>{-1}), {F32({2, 2}, {1, 3, 2, 2})},
        {{{2, 2}, {-1 / (1 + 1e-9), 1 / (1 + 1e-9), 0, 0}}}, 2, 1);
  CheckFails(NodeOf("MeanVarianceNormalization"), {F32({2, 2}, {1, 3, 2, 2})}, "out of range");
  CheckFails(NodeOf("MeanVarianceNormalization").Attr("axes", std::vector<int64_t>{0, -2}), {F32({2, 2}, {1, 3, 2, 2})},
             "repeated");
}

TEST_CASE("LpNormalization p=2 and p=1 along an axis") {
  // Rows of [[3,4],[0,-2]]: p=2 norms 5 and 2 -> [0.6, 0.8], [0, -1]; p=1 norms 7 and 2.
  Tensor x = F32({2, 2}, {3, 4, 0, -2});
  Check(NodeOf("LpNormalization"), {x}, {{{2, 2}, {0.6, 0.8, 0, -1}}}, 2, 1);
  Check(NodeOf("LpNormalization").Attr("p", int64_t{1}), {x}, {{{2, 2}, {3.0 / 7, 4.0 / 7, 0, -1}}}, 2, 1);
  // Axis 0: columns [3,0] -> [1, 0]; [4,-2] -> norm sqrt(20): 4/sqrt(20) = 0.8944271909999159,
  // -2/sqrt(20) = -0.4472135954999579 (numpy).
  Check(NodeOf("LpNormalization").Attr("axis", int64_t{0}), {x},
        {{{2, 2}, {1, 0.8944271909999159, 0, -0.4472135954999579}}}, 2, 1);
  Check(NodeOf("LpNormalization"), {Make(DType::kFloat64, {1, 2}, {-6, 8})}, {{{1, 2}, {-0.6, 0.8}, DType::kFloat64}}, 2, 1);
  // An all-zero slice: 0 / 0.
  Check(NodeOf("LpNormalization"), {F32({1, 2}, {0, 0})}, {{{1, 2}, {std::nan(""), std::nan("")}}});
  CheckFails(NodeOf("LpNormalization").Attr("p", int64_t{3}), {x}, "'p' must be 1 or 2");
  CheckFails(NodeOf("LpNormalization").Attr("axis", int64_t{2}), {x}, "out of range");
  CheckFails(NodeOf("LpNormalization"), {I64({2}, {1, 2})}, "float32 or float64");
}
