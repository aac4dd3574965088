// MatMul: expected values computed by hand (arithmetic in the comments); the two larger batched
// cases with numpy.matmul (/usr/bin/python3) on small-integer inputs made by Seq below.
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {

// Test tensors are built by functions: doctest assertions (in F32) must not run during static
// initialization.

/// Tensor of `dtype` with element i = ((i * mul + off) % mod) - mod / 2 (same formula in Python).
Tensor Seq(DType dtype, const Shape& shape, int64_t mul, int64_t mod, int64_t off = 0) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = double((i * mul + off) % mod - mod / 2);
  return Make(dtype, shape, v);
}

Tensor MatA() { return F32({2, 3}, {1, 2, 3, 4, 5, 6}); }
Tensor MatB() { return F32({3, 2}, {1, 2, 3, 4, 5, 6}); }

}  // namespace

TEST_CASE("MatMul 2-D and 1-D promotion") {
  // [[1,2,3],[4,5,6]] x [[1,2],[3,4],[5,6]] = [[22, 28], [49, 64]].
  Check(NodeOf("MatMul"), {MatA(), MatB()}, {{{2, 2}, {22, 28, 49, 64}}}, 3);
  // 1-D x 2-D: [1,2,3] x B = [1+6+15, 2+8+18] = [22, 28], shape (2).
  Check(NodeOf("MatMul"), {F32({3}, {1, 2, 3}), MatB()}, {{{2}, {22, 28}}}, 3);
  // 2-D x 1-D: A x [1,1,1] = [6, 15], shape (2).
  Check(NodeOf("MatMul"), {MatA(), F32({3}, {1, 1, 1})}, {{{2}, {6, 15}}}, 3);
  // 1-D x 1-D: 4 + 10 + 18 = 32, a scalar.
  Check(NodeOf("MatMul"), {F32({3}, {1, 2, 3}), F32({3}, {4, 5, 6})}, {{{}, {32}}}, 3);
  // Non-exact: [0.1, 0.2] . [0.3, 0.4] with float32 inputs; value in double of the rounded inputs.
  const double a0 = 0.100000001490116119384765625, a1 = 0.20000000298023223876953125;
  const double b0 = 0.300000011920928955078125, b1 = 0.4000000059604644775390625;
  Check(NodeOf("MatMul"), {F32({1, 2}, {0.1, 0.2}), F32({2, 1}, {0.3, 0.4})}, {{{1, 1}, {a0 * b0 + a1 * b1}}}, 2);
}

TEST_CASE("MatMul batch broadcasting") {
  // A (2,1,1,2) = [1,2], [3,4]; B (3,2,1) = [1,0], [0,1], [1,1] (columns): Y (2,3,1,1):
  // [1,2]: 1, 2, 3; [3,4]: 3, 4, 7.
  Check(NodeOf("MatMul"), {F32({2, 1, 1, 2}, {1, 2, 3, 4}), F32({3, 2, 1}, {1, 0, 0, 1, 1, 1})},
        {{{2, 3, 1, 1}, {1, 2, 3, 3, 4, 7}}}, 2);
  // 1-D x (2,2,3): numpy.matmul([1,2], Seq((2,2,3), 1, 7)) has shape (2, 3).
  Check(NodeOf("MatMul"), {F32({2}, {1, 2}), Seq(DType::kFloat32, {2, 2, 3}, 1, 7)},
        {{{2, 3}, {-3, 0, 3, 1, -3, 0}}}, 2);
  // int64 (2,1,3,4) x (3,4,2): numpy.matmul(Seq((2,1,3,4), 5, 9), Seq((3,4,2), 3, 7, 1)), shape (2,3,3,2).
  Check(NodeOf("MatMul"), {Seq(DType::kInt64, {2, 1, 3, 4}, 5, 9), Seq(DType::kInt64, {3, 4, 2}, 3, 7, 1)},
        {{{2, 3, 3, 2}, {0,   -5, 0,  -9, 9,   5,   -5, 11, -9,  17, 5,  -13, 11, -1, 17, -13, -13, 11,
                         9,   1,  -18, 6,  0,  -7, 1,  -7, 6,   -19, -7, 14, -7, -1, -19, 5,  14, -7},
          DType::kInt64}});
}

TEST_CASE("MatMul int32 and int64, with wrap-around") {
  const Tensor a = Make(DType::kInt32, {2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = Make(DType::kInt32, {3, 2}, {1, 2, 3, 4, 5, 6});
  Check(NodeOf("MatMul"), {a, b}, {{{2, 2}, {22, 28, 49, 64}, DType::kInt32}});
  // 65536 * 65536 = 2^32 wraps to 0 in int32; 2^32 + 5 * 7 = 35.
  Check(NodeOf("MatMul"), {Make(DType::kInt32, {1, 2}, {65536, 5}), Make(DType::kInt32, {2, 1}, {65536, 7})},
        {{{1, 1}, {35}, DType::kInt32}});
  // int64 1-D x 1-D: 3e9 * 2 + (-1) * 4 = 5999999996 (beyond int32).
  Check(NodeOf("MatMul"), {I64({2}, {3000000000, -1}), I64({2}, {2, 4})}, {{{}, {5999999996.0}, DType::kInt64}});
}

TEST_CASE("MatMul rejects malformed nodes") {
  CheckFails(NodeOf("MatMul"), {MatA(), MatA()}, "inner dims");
  CheckFails(NodeOf("MatMul"), {F32({2, 1, 2}, {1, 2, 3, 4}), F32({3, 2, 1}, {1, 2, 3, 4, 5, 6})}, "batch dims");
  CheckFails(NodeOf("MatMul"), {F32({}, {1}), MatB()}, "rank >= 1");
  CheckFails(NodeOf("MatMul"), {MatA(), Make(DType::kInt32, {3, 2}, {1, 2, 3, 4, 5, 6})}, "same dtype");
  CheckFails(NodeOf("MatMul"), {Make(DType::kUInt8, {1}, {1}), Make(DType::kUInt8, {1}, {1})}, "float32, int32 or int64");
}
