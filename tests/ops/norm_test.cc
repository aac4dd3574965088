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
