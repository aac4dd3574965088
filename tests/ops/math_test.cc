// Elementwise math ops; expected values are closed forms evaluated in double by hand or with
// numpy (noted per case), e.g. sin(1) = 0.8414709848078965.
#include <cmath>

#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
constexpr DType kB = DType::kBool;
}  // namespace

TEST_CASE("Sign, Ceil, Floor, Round (halves to even)") {
  Check(NodeOf("Sign"), {F32({4}, {-2.5, 0, 3, NAN})}, {{{4}, {-1, 0, 1, NAN}}});
  Check(NodeOf("Sign"), {I64({3}, {-7, 0, 9})}, {{{3}, {-1, 0, 1}, DType::kInt64}});
  Check(NodeOf("Sign"), {Make(DType::kUInt8, {2}, {0, 200})}, {{{2}, {0, 1}, DType::kUInt8}});
  Check(NodeOf("Ceil"), {F32({4}, {-1.5, 1.2, 2, -0.5})}, {{{4}, {-1, 2, 2, -0.0}}});
  Check(NodeOf("Floor"), {F32({4}, {-1.5, 1.2, 2, 0.5})}, {{{4}, {-2, 1, 2, 0}}});
  // ties go to the even neighbour: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -2.5 -> -2; others to nearest
  Check(NodeOf("Round"), {F32({8}, {0.5, 1.5, 2.5, -2.5, 2.6, -1.2, 0.49999997, INFINITY})},
        {{{8}, {0, 2, 2, -2, 3, -1, 0, INFINITY}}});
  Check(NodeOf("Round"), {Make(DType::kFloat16, {2}, {3.5, -0.5})}, {{{2}, {4, -0.0}, DType::kFloat16}});
}

TEST_CASE("trigonometric and hyperbolic functions") {
  // numpy: sin(1), cos(1), tan(1), arcsin(0.5) = pi/6, arccos(0.5) = pi/3, arctan(1) = pi/4
  Check(NodeOf("Sin"), {F32({2}, {0, 1})}, {{{2}, {0, 0.8414709848078965}}});
  Check(NodeOf("Cos"), {F32({2}, {0, 1})}, {{{2}, {1, 0.5403023058681398}}});
  Check(NodeOf("Tan"), {F32({2}, {0, 1})}, {{{2}, {0, 1.5574077246549023}}});
  Check(NodeOf("Asin"), {F32({3}, {0.5, 1, 2})}, {{{3}, {M_PI / 6, M_PI / 2, NAN}}});
  Check(NodeOf("Acos"), {F32({2}, {0.5, -1})}, {{{2}, {M_PI / 3, M_PI}}});
  Check(NodeOf("Atan"), {F32({2}, {1, -INFINITY})}, {{{2}, {M_PI / 4, -M_PI / 2}}});
  // sinh(1) = (e - 1/e)/2, cosh(1) = (e + 1/e)/2, asinh(1) = ln(1 + sqrt 2), acosh(2) = ln(2 + sqrt 3),
  // atanh(0.5) = ln(3)/2
  Check(NodeOf("Sinh"), {F32({2}, {0, 1})}, {{{2}, {0, 1.1752011936438014}}});
  Check(NodeOf("Cosh"), {F32({2}, {0, 1})}, {{{2}, {1, 1.5430806348152437}}});
  Check(NodeOf("Asinh"), {F32({2}, {0, 1})}, {{{2}, {0, 0.881373587019543}}});
  Check(NodeOf("Acosh"), {F32({3}, {1, 2, 0.5})}, {{{3}, {0, 1.3169578969248166, NAN}}});
  Check(NodeOf("Atanh"), {F32({3}, {0, 0.5, 1})}, {{{3}, {0, 0.5493061443340549, INFINITY}}});
  // float16 and float64 inputs: sin(1) rounded once to half = 0.84130859375 (numpy float16)
  Check(NodeOf("Sin"), {Make(DType::kFloat16, {1}, {1})}, {{{1}, {0.84130859375}, DType::kFloat16}});
  Check(NodeOf("Cos"), {Make(DType::kFloat64, {1}, {1})}, {{{1}, {0.5403023058681398}, DType::kFloat64}});
}

TEST_CASE("Softplus, Softsign, ThresholdedRelu, Shrink, Celu") {
  // softplus(x) = ln(1 + e^x): ln 2, ln(1 + e), ln(1 + 1/e); 100 -> 100 (no overflow), -100 -> e^-100
  Check(NodeOf("Softplus"), {F32({5}, {0, 1, -1, 100, -100})},
        {{{5}, {0.6931471805599453, 1.3132616875182228, 0.31326168751822286, 100, 3.720075976020836e-44}}});
  Check(NodeOf("Softplus"), {Make(DType::kFloat64, {1}, {1000})}, {{{1}, {1000}, DType::kFloat64}});
  // softsign(x) = x / (1 + |x|)
  Check(NodeOf("Softsign"), {F32({3}, {1, -3, 0})}, {{{3}, {0.5, -0.75, 0}}});
  // ThresholdedRelu: x > alpha ? x : 0 (alpha = 1 by default; x == alpha gives 0)
  Check(NodeOf("ThresholdedRelu"), {F32({4}, {-1, 1, 1.5, 3})}, {{{4}, {0, 0, 1.5, 3}}});
  Check(NodeOf("ThresholdedRelu").Attr("alpha", 2.0), {F32({3}, {2, 2.2, -5})}, {{{3}, {0, 2.200000047683716, 0}}});
  // Shrink defaults (bias 0, lambd 0.5): |x| <= 0.5 -> 0; soft shrink bias = lambd = 1.5
  Check(NodeOf("Shrink"), {F32({4}, {-1, -0.5, 0.25, 2})}, {{{4}, {-1, 0, 0, 2}}});
  Check(NodeOf("Shrink").Attr("bias", 1.5).Attr("lambd", 1.5), {F32({5}, {-2, -1, 0, 1, 2})},
        {{{5}, {-0.5, 0, 0, 0, 0.5}}});
  // Celu(x) = max(0, x) + min(0, alpha (e^(x/alpha) - 1)): alpha 1: -1 -> e^-1 - 1; alpha 2: -1 -> 2 (e^-0.5 - 1)
  Check(NodeOf("Celu"), {F32({2}, {-1, 2})}, {{{2}, {-0.6321205588285577, 2}}});
  Check(NodeOf("Celu").Attr("alpha", 2.0), {F32({2}, {-1, 3})}, {{{2}, {-0.7869386805747332, 3}}});
}

TEST_CASE("IsNaN and IsInf with detect attributes") {
  const Tensor x = F32({5}, {1, NAN, INFINITY, -INFINITY, 0});
  Check(NodeOf("IsNaN"), {x}, {{{5}, {0, 1, 0, 0, 0}, kB}});
  Check(NodeOf("IsInf"), {x}, {{{5}, {0, 0, 1, 1, 0}, kB}});
  Check(NodeOf("IsInf").Attr("detect_negative", 0), {x}, {{{5}, {0, 0, 1, 0, 0}, kB}});
  Check(NodeOf("IsInf").Attr("detect_positive", 0), {x}, {{{5}, {0, 0, 0, 1, 0}, kB}});
  Check(NodeOf("IsNaN"), {Make(DType::kFloat16, {2}, {NAN, 1})}, {{{2}, {1, 0}, kB}});
  Check(NodeOf("IsInf"), {Make(DType::kFloat64, {2}, {-INFINITY, 1e308})}, {{{2}, {1, 0}, kB}});
}

TEST_CASE("math ops reject what they cannot compute") {
  CheckFails(NodeOf("Sin"), {I64({1}, {1})}, "not supported");
  CheckFails(NodeOf("Round"), {Make(DType::kBool, {1}, {1})}, "not supported");
  CheckFails(NodeOf("Celu").Attr("alpha", 0.0), {F32({1}, {1})}, "alpha must be nonzero");
  CheckFails(NodeOf("IsInf").Attr("detect_negative", 2), {F32({1}, {1})}, "detect_negative must be 0 or 1");
  CheckFails(NodeOf("Cos"), {F32({1}, {1}), F32({1}, {1})}, "expects 1 inputs");
}
