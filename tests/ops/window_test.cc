// HannWindow, HammingWindow, BlackmanWindow. Expected values by hand from
// y[n] = a0 - a1 cos(2 pi n / D) + a2 cos(4 pi n / D) at angles that are multiples of pi/2 (cosines
// 1, 0, -1), and for size 10 from numpy (float64, true pi):
//   n = np.arange(10); 0.5 - 0.5*np.cos(2*np.pi*n/10)   (Hann, periodic)
//   25/46 - 21/46*np.cos(2*np.pi*n/9)                    (Hamming, symmetric)
// Values lie in [0, 1], so the checks use scale 1 (absolute tolerances).
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
Tensor Size(int64_t n, DType t = DType::kInt64) { return Make(t, {}, {static_cast<double>(n)}); }
}  // namespace

TEST_CASE("Window ops: periodic and symmetric, by hand") {
  // Periodic size 4 (D = 4): angles 0, pi/2, pi, 3pi/2.
  Check(NodeOf("HannWindow"), {Size(4)}, {{{4}, {0, 0.5, 1, 0.5}}}, 1, 1);
  Check(NodeOf("HammingWindow"), {Size(4, DType::kInt32)}, {{{4}, {4.0 / 46, 25.0 / 46, 1, 25.0 / 46}}}, 1, 1);
  // Blackman: 0.42 - 0.5 cos t + 0.08 cos 2t -> 0, 0.34, 1, 0.34.
  Check(NodeOf("BlackmanWindow"), {Size(4)}, {{{4}, {0, 0.34, 1, 0.34}}}, 1, 1);
  // Symmetric size 5 (D = 4): the same angles plus 2 pi at the end.
  Check(NodeOf("HannWindow").Attr("periodic", 0), {Size(5)}, {{{5}, {0, 0.5, 1, 0.5, 0}}}, 1, 1);
  Check(NodeOf("BlackmanWindow").Attr("periodic", 0), {Size(5)}, {{{5}, {0, 0.34, 1, 0.34, 0}}}, 1, 1);
  Check(NodeOf("HammingWindow").Attr("periodic", 0), {Size(5)}, {{{5}, {4.0 / 46, 25.0 / 46, 1, 25.0 / 46, 4.0 / 46}}},
        1, 1);
}

TEST_CASE("Window ops: size 10 against numpy") {
  Check(NodeOf("HannWindow"), {Size(10)},
        {{{10},
          {0.0, 0.09549150281252622, 0.3454915028125263, 0.6545084971874737, 0.9045084971874737, 1.0,
           0.9045084971874738, 0.6545084971874738, 0.3454915028125264, 0.09549150281252633}}},
        1, 1);
  Check(NodeOf("HammingWindow").Attr("periodic", 0), {Size(10)},
        {{{10},
          {0.08695652173913043, 0.19376231944568384, 0.46420409280422736, 0.7717391304347825, 0.9724683703587842,
           0.9724683703587842, 0.7717391304347827, 0.4642040928042276, 0.193762319445684, 0.08695652173913043}}},
        1, 1);
}

TEST_CASE("Window ops: output_datatype, empty and size-1 windows") {
  Check(NodeOf("HannWindow").Attr("output_datatype", 11), {Size(4)}, {{{4}, {0, 0.5, 1, 0.5}, DType::kFloat64}}, 1, 1);
  // Integer outputs truncate toward zero: only the peak 1 survives.
  Check(NodeOf("HannWindow").Attr("output_datatype", 6), {Size(4)}, {{{4}, {0, 0, 1, 0}, DType::kInt32}});
  Check(NodeOf("HammingWindow"), {Size(0)}, {{{0}, {}}});
  // Size 1: the value at n = 0 for both kinds (Hamming: 25/46 - 21/46 = 4/46).
  Check(NodeOf("HammingWindow").Attr("periodic", 0), {Size(1)}, {{{1}, {4.0 / 46}}}, 1, 1);
  Check(NodeOf("HammingWindow"), {Size(1)}, {{{1}, {4.0 / 46}}}, 1, 1);
}

TEST_CASE("Window ops reject bad sizes and attributes") {
  CheckFails(NodeOf("HannWindow"), {Size(-1)}, "out of range");
  CheckFails(NodeOf("HannWindow"), {F32({}, {4})}, "int32 or int64");
  CheckFails(NodeOf("HannWindow"), {I64({2}, {4, 4})}, "exactly one value");
  CheckFails(NodeOf("HannWindow").Attr("periodic", 2), {Size(4)}, "periodic");
  CheckFails(NodeOf("BlackmanWindow").Attr("output_datatype", 8), {Size(4)}, "output_datatype");
  CheckFails(NodeOf("BlackmanWindow").Attr("output_datatype", 99), {Size(4)}, "output_datatype");
}
