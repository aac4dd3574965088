// Adagrad, Adam, Momentum (ai.onnx.preview.training). Expected values computed with numpy in
// float64 from the ONNX pseudo code, with every input and attribute first rounded to float32
// (f = lambda v: float(np.float32(v))), e.g. for Adagrad:
//   r = R/(1+T*decay); g = nc*x + G; h = H + g*g; x - r*g/(np.sqrt(h)+eps)
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
NodeOf Train(const char* op, int n_out) {
  NodeOf n(op, n_out);
  n.node.domain = "ai.onnx.preview.training";
  return n;
}
const Tensor kX = F32({2}, {1.0, -2.0});
const Tensor kG = F32({2}, {-1.0, 0.5});
}  // namespace

TEST_CASE("Adagrad") {
  // R=0.1, T=2, decay 0.1, eps 1e-5, norm 0.001; H = [2, 0.25].
  Check(Train("Adagrad", 2).Attr("decay_factor", 0.1).Attr("epsilon", 1e-5).Attr("norm_coefficient", 0.001),
        {F32({}, {0.1}), I64({}, {2}), kX, kG, F32({2}, {2.0, 0.25})},
        {{{2}, {1.0480801542885407, -2.058806527117393}}, {{2}, {2.9980009999051003, 0.4980039999053851}}});
}

TEST_CASE("Adam, two tensors, omitted output") {
  // T=3, alpha .9, beta .999, eps 1e-6, norm .001, post .01; V = [0.5, 0.25], H = [2, 0.25].
  Check(Train("Adam", 3)
            .Attr("alpha", 0.9)
            .Attr("beta", 0.999)
            .Attr("norm_coefficient", 0.001)
            .Attr("norm_coefficient_post", 0.01),
        {F32({}, {0.1}), I64({}, {3}), kX, kG, F32({2}, {0.5, 0.25}), F32({2}, {2.0, 0.25})},
        {{{2}, {0.9850478701157162, -1.9909914271200582}},
         {{2}, {0.35009996426580475, 0.27480000590328124}},
         {{2}, {1.9989980139002448, 0.2499980040256031}}});
  // T=0 (no bias correction) with the default attributes; the same tensor optimized twice (k = 2).
  const Tensor v = F32({2}, {0.5, 0.25}), h = F32({2}, {2.0, 0.25});
  const Expect xn{{2}, {0.975245092901998, -2.054999892011873}}, vn{{2}, {0.34999996423721313, 0.2750000059604645}},
      hn{{2}, {1.9990000128746033, 0.25}};
  Check(Train("Adam", 6), {F32({}, {0.1}), I64({}, {0}), kX, kX, kG, kG, v, v, h, h}, {xn, xn, vn, vn, hn, hn});
  // The new states may be omitted.
  NodeOf only_x = Train("Adam", 3);
  only_x.node.outputs = {100, -1, -1};
  Check(only_x, {F32({}, {0.1}), I64({}, {0}), kX, kG, v, h}, {xn});
  Check(Train("Adam", 1), {F32({}, {0.1}), I64({}, {0}), kX, kG, v, h}, {xn});
}

TEST_CASE("Momentum, standard and Nesterov") {
  const Tensor x = F32({2}, {1.2, 2.8}), g = F32({2}, {-0.94, -2.5}), v = F32({2}, {1.7, 3.6});
  Check(Train("Momentum", 2)
            .Attr("alpha", 0.95)
            .Attr("beta", 0.1)
            .Attr("norm_coefficient", 0.001)
            .Attr("mode", "standard"),
        {F32({}, {0.1}), I64({}, {1}), x, g, v},
        {{{2}, {1.0478880430286788, 2.482971961314898}}, {{2}, {1.521120023883916, 3.1702798627730098}}});
  // T = 0: beta is replaced by 1.
  Check(Train("Momentum", 2)
            .Attr("alpha", 0.95)
            .Attr("beta", 0.1)
            .Attr("norm_coefficient", 0.001)
            .Attr("mode", "nesterov"),
        {F32({}, {0.1}), I64({}, {0}), x, g, v},
        {{{2}, {1.2296410460679401, 2.962053968498373}}, {{2}, {0.6762000275228167, 0.9227998665709061}}});
}

TEST_CASE("Optimizers reject bad inputs and attributes") {
  const Tensor r = F32({}, {0.1}), t = I64({}, {0});
  CheckFails(Train("Adagrad", 2), {r, t, kX, kG}, "per optimized tensor");
  CheckFails(Train("Adagrad", 3), {r, t, kX, kG, kX}, "outputs");
  CheckFails(Train("Adagrad", 2), {r, t, kX, F32({3}, {1, 2, 3}), kX}, "type and shape");
  CheckFails(Train("Adagrad", 2), {r, F32({}, {0}), kX, kG, kX}, "input T");
  CheckFails(Train("Adagrad", 2), {F32({2}, {1, 2}), t, kX, kG, kX}, "input R");
  CheckFails(Train("Adagrad", 2), {r, t, I64({2}, {1, 2}), I64({2}, {1, 2}), I64({2}, {1, 2})}, "float32 or float64");
  CheckFails(Train("Momentum", 2).Attr("alpha", 0.9).Attr("beta", 0.1).Attr("norm_coefficient", 0.0),
             {r, t, kX, kG, kX}, "mode");
  CheckFails(
      Train("Momentum", 2).Attr("alpha", 0.9).Attr("beta", 0.1).Attr("norm_coefficient", 0.0).Attr("mode", "fast"),
      {r, t, kX, kG, kX}, "mode");
}
