// Softmax, LogSoftmax, Hardmax (Hardmax: one-hot of the first maximum, written by hand). Expected values computed with numpy (float64) as
// e = exp(x - max); e / sum(e) and (x - max) - log(sum(e)), over the stated axes, and pasted.
// Spot check by hand: softmax([1, 2]) = [1/(1+e), e/(1+e)] = [0.268941..., 0.731058...].
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
// x[2,2,2] = [[[1,2],[3,4]], [[0,0],[1,-1]]]
Tensor X() { return F32({2, 2, 2}, {1, 2, 3, 4, 0, 0, 1, -1}); }
}  // namespace

TEST_CASE("Softmax-13 along the default, a middle and the first axis") {
  Check(NodeOf("Softmax"), {X()},
        {{{2, 2, 2},
          {0.26894142136999516, 0.7310585786300049, 0.26894142136999516, 0.7310585786300049, 0.5, 0.5,
           0.8807970779778825, 0.11920292202211755}}},
        2);
  Check(NodeOf("Softmax").Attr("axis", int64_t{1}), {X()},
        {{{2, 2, 2},
          {0.11920292202211755, 0.11920292202211755, 0.8807970779778825, 0.8807970779778825, 0.26894142136999516,
           0.7310585786300049, 0.7310585786300049, 0.26894142136999516}}},
        2);
  Check(NodeOf("Softmax").Attr("axis", int64_t{-3}), {X()},
        {{{2, 2, 2},
          {0.7310585786300049, 0.8807970779778825, 0.8807970779778825, 0.9933071490757153, 0.26894142136999516,
           0.11920292202211755, 0.11920292202211755, 0.006692850924284856}}},
        2);
}

TEST_CASE("Softmax legacy_2d flattens the trailing block (vs opset-13 on the same axis)") {
  // axis 1, legacy: rows are x.reshape(2, 4); opset-13 axis 1 (above) normalizes pairs instead.
  Check(NodeOf("Softmax").Attr("axis", int64_t{1}).Attr("legacy_2d", int64_t{1}), {X()},
        {{{2, 2, 2},
          {0.03205860328008498, 0.08714431874203256, 0.23688281808991016, 0.6439142598879724, 0.1966119332414819,
           0.1966119332414819, 0.534446645388523, 0.07232948812851327}}},
        4);
  // axis 0, legacy: one row of all 8 elements.
  Check(NodeOf("Softmax").Attr("axis", int64_t{0}).Attr("legacy_2d", int64_t{1}), {X()},
        {{{2, 2, 2},
          {0.03024440288796984, 0.08221281078296268, 0.22347758961786937, 0.607475070926082, 0.0111262940329903,
           0.0111262940329903, 0.03024440288796984, 0.004093134831165625}}},
        8);
  // axis -1, legacy: the trailing block is the last dim, the same as opset 13.
  Check(NodeOf("Softmax").Attr("legacy_2d", int64_t{1}), {X()},
        {{{2, 2, 2},
          {0.26894142136999516, 0.7310585786300049, 0.26894142136999516, 0.7310585786300049, 0.5, 0.5,
           0.8807970779778825, 0.11920292202211755}}},
        2);
}

TEST_CASE("LogSoftmax-13 and legacy_2d") {
  Check(NodeOf("LogSoftmax"), {X()},
        {{{2, 2, 2},
          {-1.3132616875182228, -0.3132616875182228, -1.3132616875182228, -0.3132616875182228, -0.6931471805599453,
           -0.6931471805599453, -0.1269280110429724, -2.1269280110429722}}},
        2);
  Check(NodeOf("LogSoftmax").Attr("axis", int64_t{1}), {X()},
        {{{2, 2, 2},
          {-2.1269280110429722, -2.1269280110429722, -0.1269280110429724, -0.1269280110429724, -1.3132616875182228,
           -0.3132616875182228, -0.3132616875182228, -1.3132616875182228}}},
        2);
  Check(NodeOf("LogSoftmax").Attr("axis", int64_t{1}).Attr("legacy_2d", int64_t{1}), {X()},
        {{{2, 2, 2},
          {-3.4401896985611953, -2.4401896985611953, -1.4401896985611953, -0.44018969856119533, -1.6265233750364456,
           -1.6265233750364456, -0.6265233750364456, -2.6265233750364456}}},
        4);
}

TEST_CASE("Softmax: large inputs do not overflow (max subtracted); rejections") {
  // softmax([1000, 1000]) = [0.5, 0.5]; log_softmax = -ln 2.
  Check(NodeOf("Softmax"), {F32({1, 2}, {1000, 1000})}, {{{1, 2}, {0.5, 0.5}}}, 2);
  Check(NodeOf("LogSoftmax"), {F32({2}, {-1000, -1000})}, {{{2}, {-0.6931471805599453, -0.6931471805599453}}}, 2);
  CheckFails(NodeOf("Softmax").Attr("axis", int64_t{3}), {X()}, "out of range");
  CheckFails(NodeOf("Softmax").Attr("legacy_2d", int64_t{2}), {X()}, "legacy_2d");
  CheckFails(NodeOf("Softmax"), {F32({}, {1})}, "rank >= 1");
  CheckFails(NodeOf("LogSoftmax"), {I64({2}, {1, 2})}, "float32");
}

TEST_CASE("Hardmax-13: first maximum along the axis") {
  // Rows of [[1,3,3,2],[0,-1,-2,-5]]: the first 3 wins (index 1); row 2: index 0.
  Check(NodeOf("Hardmax"), {F32({2, 4}, {1, 3, 3, 2, 0, -1, -2, -5})}, {{{2, 4}, {0, 1, 0, 0, 1, 0, 0, 0}}});
  // X() along axis 1 (pairs x[i,0,k], x[i,1,k]): (1,3) -> 3, (2,4) -> 4, (0,1) -> 1, (0,-1) -> 0.
  Check(NodeOf("Hardmax").Attr("axis", int64_t{1}), {X()}, {{{2, 2, 2}, {0, 0, 1, 1, 0, 1, 1, 0}}});
  // Axis 0: x[0] = [1,2,3,4] beats x[1] = [0,0,1,-1] everywhere.
  Check(NodeOf("Hardmax").Attr("axis", int64_t{-3}), {X()}, {{{2, 2, 2}, {1, 1, 1, 1, 0, 0, 0, 0}}});
  // A NaN counts as the maximum (numpy.argmax): the first NaN gets the 1.
  const double nan = std::nan("");
  Check(NodeOf("Hardmax"), {F32({2, 3}, {1, nan, nan, nan, 5, 6})}, {{{2, 3}, {0, 1, 0, 1, 0, 0}}});
  Check(NodeOf("Hardmax"), {Make(DType::kFloat64, {3}, {-1, -0.5, -0.75})}, {{{3}, {0, 1, 0}, DType::kFloat64}});
  Check(NodeOf("Hardmax"), {Make(DType::kFloat16, {3}, {2, 2.5, 0.5})}, {{{3}, {0, 1, 0}, DType::kFloat16}});
}

TEST_CASE("Hardmax legacy_2d one-hot over the flattened trailing block; rejections") {
  // axis 1, legacy: rows of x.reshape(2, 4) = [1,2,3,4], [0,0,1,-1] -> index 3 and index 2.
  Check(NodeOf("Hardmax").Attr("axis", int64_t{1}).Attr("legacy_2d", int64_t{1}), {X()},
        {{{2, 2, 2}, {0, 0, 0, 1, 0, 0, 1, 0}}});
  // axis 0, legacy: one row of all 8: the 4 (index 3).
  Check(NodeOf("Hardmax").Attr("axis", int64_t{0}).Attr("legacy_2d", int64_t{1}), {X()},
        {{{2, 2, 2}, {0, 0, 0, 1, 0, 0, 0, 0}}});
  CheckFails(NodeOf("Hardmax"), {I64({2}, {1, 2})}, "float32, float64 or float16");
  CheckFails(NodeOf("Hardmax").Attr("axis", int64_t{-4}), {X()}, "out of range");
  CheckFails(NodeOf("Hardmax"), {F32({}, {1})}, "rank >= 1");
}
