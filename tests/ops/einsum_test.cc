// Einsum: expected values by hand (the sums are written out), and the larger ones checked with
// numpy.einsum (float64), pasted.
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
NodeOf Eq(const char* equation) { return NodeOf("Einsum").Attr("equation", equation); }
// A[2,3] = [[1,2,3],[4,5,6]]; B[3,2] = [[1,-1],[2,0],[0.5,3]].
Tensor A() { return F32({2, 3}, {1, 2, 3, 4, 5, 6}); }
Tensor B() { return F32({3, 2}, {1, -1, 2, 0, 0.5, 3}); }
}  // namespace

TEST_CASE("Einsum matmul, explicit and implicit; transpose; sums") {
  // ik: [1+4+1.5, -1+0+9, 4+10+3, -4+0+18] = [6.5, 8, 17, 14].
  Check(Eq("ij,jk->ik"), {A(), B()}, {{{2, 2}, {6.5, 8, 17, 14}}}, 3, 40);
  Check(Eq("ij,jk"), {A(), B()}, {{{2, 2}, {6.5, 8, 17, 14}}}, 3, 40);  // implicit: i, k
  Check(Eq(" i j , j k -> i k "), {A(), B()}, {{{2, 2}, {6.5, 8, 17, 14}}}, 3, 40);
  // Implicit output is in ASCII order: "ba" -> "ab", a transpose.
  Check(Eq("ba"), {A()}, {{{3, 2}, {1, 4, 2, 5, 3, 6}}});
  Check(Eq("ij->ji"), {A()}, {{{3, 2}, {1, 4, 2, 5, 3, 6}}});
  // Row sums 6, 15; column sums 5, 7, 9; total 21.
  Check(Eq("ij->i"), {A()}, {{{2}, {6, 15}}}, 3);
  Check(Eq("ij->j"), {A()}, {{{3}, {5, 7, 9}}}, 2);
  Check(Eq("ij->"), {A()}, {{{}, {21}}}, 6);
  // Inner product 1*4 + 2*5 + 3*6 = 32; three operands 1*4*7 + 2*5*8 + 3*6*9 = 28+80+162 = 270.
  Check(Eq("i,i"), {F32({3}, {1, 2, 3}), F32({3}, {4, 5, 6})}, {{{}, {32}}}, 3);
  Check(Eq("i,i,i->"), {F32({3}, {1, 2, 3}), F32({3}, {4, 5, 6}), F32({3}, {7, 8, 9})}, {{{}, {270}}}, 3);
  // Outer product.
  Check(Eq("i,j->ij"), {F32({2}, {1, 2}), F32({3}, {3, 4, 5})}, {{{2, 3}, {3, 4, 5, 6, 8, 10}}});
}

TEST_CASE("Einsum repeated labels: trace and diagonals") {
  // M = arange(9).reshape(3,3): trace 0+4+8 = 12; diagonal [0,4,8].
  Tensor m = F32({3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  Check(Eq("ii"), {m}, {{{}, {12}}}, 3);
  Check(Eq("ii->i"), {m}, {{{3}, {0, 4, 8}}});
  // E = arange(18).reshape(3,2,3), E[i,j,k] = 6i + 3j + k; "iji->j": sum_i E[i,j,i]:
  // j=0: 0 + 7 + 14 = 21; j=1: 3 + 10 + 17 = 30 (numpy: [21, 30]).
  std::vector<double> e(18);
  for (int i = 0; i < 18; ++i) e[static_cast<size_t>(i)] = i;
  Check(Eq("iji->j"), {F32({3, 2, 3}, e)}, {{{2}, {21, 30}}}, 3);
}

TEST_CASE("Einsum ellipsis: batch matmul with broadcast, batch diagonal, float64 and int64") {
  // C = arange(12).reshape(2,2,3), D = arange(6).reshape(1,3,2) (batch dim broadcast):
  // numpy.einsum('...ij,...jk', C, D) = [[[10,13],[28,40]], [[46,67],[64,94]]].
  std::vector<double> c(12), d(6);
  for (int i = 0; i < 12; ++i) c[static_cast<size_t>(i)] = i;
  for (int i = 0; i < 6; ++i) d[static_cast<size_t>(i)] = i;
  Check(Eq("...ij,...jk"), {F32({2, 2, 3}, c), F32({1, 3, 2}, d)}, {{{2, 2, 2}, {10, 13, 28, 40, 46, 67, 64, 94}}}, 3,
        100);
  Check(Eq("...ij,...jk->...ik"), {F32({2, 2, 3}, c), F32({3, 2}, d)}, {{{2, 2, 2}, {10, 13, 28, 40, 46, 67, 64, 94}}},
        3, 100);
  // Batch diagonal of two 2x2 matrices [[1,2],[3,4]], [[5,6],[7,8]]: [1,4], [5,8].
  Check(Eq("...ii->...i"), {Make(DType::kFloat64, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})},
        {{{2, 2}, {1, 4, 5, 8}, DType::kFloat64}});
  // Ellipsis in the middle: "i...j->j...i" on [2,1,3] = transpose of the outer dims.
  Check(Eq("i...j->j...i"), {F32({2, 1, 3}, {1, 2, 3, 4, 5, 6})}, {{{3, 1, 2}, {1, 4, 2, 5, 3, 6}}});
  // int64 matmul: [[1,2],[3,4]] x [[5],[6]] = [17, 39].
  Check(Eq("ij,jk->ik"), {I64({2, 2}, {1, 2, 3, 4}), I64({2, 1}, {5, 6})}, {{{2, 1}, {17, 39}, DType::kInt64}});
  // A summed label of extent 0 gives zeros.
  Check(Eq("ij,jk->ik"), {F32({2, 0}, {}), F32({0, 2}, {})}, {{{2, 2}, {0, 0, 0, 0}}});
}

TEST_CASE("Einsum rejections") {
  CheckFails(Eq("ij,jk->ik"), {A(), A()}, "do not match");
  CheckFails(Eq("ij,jk"), {A()}, "input terms");
  CheckFails(Eq("ij->k"), {A()}, "absent");
  CheckFails(Eq("ij->ii"), {A()}, "repeated");
  CheckFails(Eq("i1->i"), {F32({2}, {1, 2})}, "invalid");
  CheckFails(Eq("ijk"), {A()}, "rank");
  CheckFails(Eq("ii"), {A()}, "diagonal");
  CheckFails(Eq("...i->i"), {A()}, "needs '...'");
  CheckFails(Eq("ij,ij"), {A(), I64({2, 3}, {1, 2, 3, 4, 5, 6})}, "one dtype");
  CheckFails(NodeOf("Einsum"), {A()}, "'equation' is required");
}
