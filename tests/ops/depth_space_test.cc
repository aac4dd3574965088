// DepthToSpace / SpaceToDepth; small cases worked by hand, larger ones computed with numpy using the
// reshape/transpose formulas of the ONNX operator documents (values pasted below).
#include <numeric>

#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
std::vector<double> Iota(int n) {
  std::vector<double> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0.0);
  return v;
}
}  // namespace

TEST_CASE("DepthToSpace DCR and CRD by hand") {
  // x = 0..7 as [1,8,1,1], b = 2 -> y [1,2,2,2].
  // DCR: y[c,i,j] = x[(i*2 + j)*2 + c]: c=0 -> 0,2,4,6; c=1 -> 1,3,5,7.
  Check(NodeOf("DepthToSpace").Attr("blocksize", 2), {F32({1, 8, 1, 1}, Iota(8))}, {{{1, 2, 2, 2}, {0, 2, 4, 6, 1, 3, 5, 7}}});
  // CRD: y[c,i,j] = x[c*4 + i*2 + j]: the identity order.
  Check(NodeOf("DepthToSpace").Attr("blocksize", 2).Attr("mode", "CRD"), {F32({1, 8, 1, 1}, Iota(8))},
        {{{1, 2, 2, 2}, Iota(8)}});
}

TEST_CASE("DepthToSpace and SpaceToDepth against numpy") {
  // numpy: x = arange(48).reshape(1,8,2,3), DCR and CRD formulas of ONNX DepthToSpace-13.
  Check(NodeOf("DepthToSpace").Attr("blocksize", 2), {F32({1, 8, 2, 3}, Iota(48))},
        {{{1, 2, 4, 6}, {0,  12, 1,  13, 2,  14, 24, 36, 25, 37, 26, 38, 3,  15, 4,  16, 5,  17, 27, 39, 28, 40, 29, 41,
                         6,  18, 7,  19, 8,  20, 30, 42, 31, 43, 32, 44, 9,  21, 10, 22, 11, 23, 33, 45, 34, 46, 35, 47}}});
  Check(NodeOf("DepthToSpace").Attr("blocksize", 2).Attr("mode", "CRD"), {Make(DType::kInt64, {1, 8, 2, 3}, Iota(48))},
        {{{1, 2, 4, 6}, {0,  6,  1,  7,  2,  8,  12, 18, 13, 19, 14, 20, 3,  9,  4,  10, 5,  11, 15, 21, 16, 22, 17, 23,
                         24, 30, 25, 31, 26, 32, 36, 42, 37, 43, 38, 44, 27, 33, 28, 34, 29, 35, 39, 45, 40, 46, 41, 47},
          DType::kInt64}});
  // numpy: x = arange(24).reshape(1,1,4,6), SpaceToDepth-13 formula with b = 2.
  Check(NodeOf("SpaceToDepth").Attr("blocksize", 2), {F32({1, 1, 4, 6}, Iota(24))},
        {{{1, 4, 2, 3}, {0, 2, 4, 12, 14, 16, 1, 3, 5, 13, 15, 17, 6, 8, 10, 18, 20, 22, 7, 9, 11, 19, 21, 23}}});
  // By hand: [1,1,2,4] = 0..7, b = 2: y[i*2 + j, 0, w] = x[i, w*2 + j] -> 0,2 | 1,3 | 4,6 | 5,7.
  Check(NodeOf("SpaceToDepth").Attr("blocksize", 2), {Make(DType::kFloat16, {1, 1, 2, 4}, Iota(8))},
        {{{1, 4, 1, 2}, {0, 2, 1, 3, 4, 6, 5, 7}, DType::kFloat16}});
}

TEST_CASE("DepthToSpace / SpaceToDepth reject bad shapes and attributes") {
  CheckFails(NodeOf("DepthToSpace").Attr("blocksize", 2), {F32({1, 6, 1, 1}, Iota(6))}, "divisible");
  CheckFails(NodeOf("DepthToSpace").Attr("blocksize", 2).Attr("mode", "XYZ"), {F32({1, 4, 1, 1}, Iota(4))}, "mode");
  CheckFails(NodeOf("DepthToSpace"), {F32({1, 4, 1, 1}, Iota(4))}, "blocksize");
  CheckFails(NodeOf("SpaceToDepth").Attr("blocksize", 0), {F32({1, 1, 2, 2}, Iota(4))}, "blocksize");
  CheckFails(NodeOf("SpaceToDepth").Attr("blocksize", 2), {F32({1, 1, 3, 2}, Iota(6))}, "divisible");
  CheckFails(NodeOf("SpaceToDepth").Attr("blocksize", 2), {F32({1, 2, 2}, Iota(4))}, "4-D");
}
