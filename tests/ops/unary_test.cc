// Elementwise unary ops; expected values computed by hand (closed forms noted per case).
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

TEST_CASE("Relu zeroes negatives, keeps int64") {
  Check(NodeOf("Relu"), {F32({2, 2}, {-1.5, 0, 2.25, -0.0})}, {{{2, 2}, {0, 0, 2.25, 0}}});
  Check(NodeOf("Relu"), {I64({3}, {-7, 0, 9})}, {{{3}, {0, 0, 9}, DType::kInt64}});
}

TEST_CASE("Exp, Log, Tanh, Sigmoid, Erf at exact points") {
  Check(NodeOf("Exp"), {F32({3}, {0, 1, -2})}, {{{3}, {1, 2.718281828459045, 0.1353352832366127}}});
  Check(NodeOf("Log"), {F32({3}, {1, 0.5, 8})}, {{{3}, {0, -0.6931471805599453, 2.0794415416798357}}});
  Check(NodeOf("Tanh"), {F32({2}, {0, 0.5})}, {{{2}, {0, 0.46211715726000974}}});
  Check(NodeOf("Sigmoid"), {F32({3}, {0, 2, -2})}, {{{3}, {0.5, 0.8807970779778823, 0.11920292202211755}}});
  Check(NodeOf("Erf"), {F32({2}, {0, 1})}, {{{2}, {0, 0.8427007929497149}}});
}

TEST_CASE("LeakyRelu, Elu, Selu, HardSigmoid, HardSwish with attributes") {
  Check(NodeOf("LeakyRelu"), {F32({2}, {-2, 3})}, {{{2}, {-2 * 0.009999999776482582, 3}}});
  Check(NodeOf("LeakyRelu").Attr("alpha", 0.5), {F32({2}, {-2, 3})}, {{{2}, {-1, 3}}});
  // Elu(-1) = e^-1 - 1
  Check(NodeOf("Elu"), {F32({2}, {-1, 2})}, {{{2}, {-0.6321205588285577, 2}}});
  // Selu(x>0) = gamma*x; Selu(-1) = gamma*alpha*(e^-1 - 1), alpha/gamma as stored in float32
  const double a = 1.67326319217681884765625, g = 1.05070102214813232421875;
  Check(NodeOf("Selu"), {F32({2}, {1, -1})}, {{{2}, {g, g * a * -0.6321205588285577}}});
  // HardSigmoid: max(0, min(1, 0.2x + 0.5)): -3 -> 0, 0 -> 0.5, 1 -> 0.7 (alpha = float32(0.2)), 4 -> 1
  Check(NodeOf("HardSigmoid"), {F32({4}, {-3, 0, 1, 4})},
        {{{4}, {0, 0.5, 0.20000000298023224 + 0.5, 1}}});
  // HardSwish: x * clamp(x/6 + 1/2): -4 -> 0, 1 -> 1*(1/6+0.5) = 2/3, 3 -> 3
  Check(NodeOf("HardSwish"), {F32({3}, {-4, 1, 3})}, {{{3}, {0, 2.0 / 3.0, 3}}});
}

TEST_CASE("Clip with optional min and max inputs") {
  Check(NodeOf("Clip"), {F32({4}, {-2, -0.5, 0.5, 2}), F32({}, {-1}), F32({}, {1})}, {{{4}, {-1, -0.5, 0.5, 1}}});
  Check(NodeOf("Clip"), {F32({2}, {-2, 7}), Tensor(), F32({}, {6})}, {{{2}, {-2, 6}}});
  Check(NodeOf("Clip"), {F32({2}, {-2, 7})}, {{{2}, {-2, 7}}});
  CheckFails(NodeOf("Clip"), {F32({2}, {-2, 7}), F32({2}, {0, 1})}, "scalar");
}

TEST_CASE("Sqrt, Reciprocal, Abs, Neg, Identity, Dropout") {
  Check(NodeOf("Sqrt"), {F32({2}, {4, 2})}, {{{2}, {2, 1.4142135623730951}}});
  Check(NodeOf("Reciprocal"), {F32({2}, {4, -0.5})}, {{{2}, {0.25, -2}}});
  Check(NodeOf("Abs"), {F32({2}, {-3, 3})}, {{{2}, {3, 3}}});
  Check(NodeOf("Neg"), {I64({2}, {-3, 4})}, {{{2}, {3, -4}, DType::kInt64}});
  Check(NodeOf("Identity"), {F32({1, 2}, {1, 2})}, {{{1, 2}, {1, 2}}});
  Check(NodeOf("Dropout", 2), {F32({2}, {1, 2})}, {{{2}, {1, 2}}, {{2}, {1, 1}, DType::kBool}});
}

TEST_CASE("unary ops reject what they cannot compute") {
  CheckFails(NodeOf("Exp"), {I64({1}, {1})}, "not supported");
  CheckFails(NodeOf("Relu"), {F32({1}, {1}), F32({1}, {1})}, "expects 1 inputs");
}

TEST_CASE("Dropout refuses training mode instead of silently returning x") {
  Tensor on = Make(DType::kBool, {}, {1});
  Tensor off = Make(DType::kBool, {}, {0});
  CheckFails(NodeOf("Dropout"), {F32({2}, {1, 2}), F32({}, {0.5}), on}, "training_mode = true");
  Check(NodeOf("Dropout"), {F32({2}, {1, 2}), F32({}, {0.5}), off}, {{{2}, {1, 2}}});
}

TEST_CASE("Dropout in training mode with ratio 0 keeps every element") {
  Check(NodeOf("Dropout", 2), {F32({2}, {1, 2}), F32({}, {0}), Make(DType::kBool, {}, {1})},
        {{{2}, {1, 2}}, {{2}, {1, 1}, DType::kBool}});
}
