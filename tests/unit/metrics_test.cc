// compare/metrics: every metric against values computed by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "compare/metrics.h"
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

TEST_CASE("metrics: max abs, max rel, relative L2, cosine on a hand-computed pair") {
  // got = [1, 2, 2], want = [1, 2, 4]: diff [0, 0, 2]; max abs 2 (index 2); max rel 2/4 = 0.5;
  // rel L2 = 2 / sqrt(1 + 4 + 16) = 2 / sqrt(21); cosine = (1 + 4 + 8) / (3 * sqrt(21)).
  auto m = CompareTensors(F32({3}, {1, 2, 2}), F32({3}, {1, 2, 4}));
  REQUIRE(m.ok());
  CHECK(m->count == 3);
  CHECK(m->max_abs == 2.0);
  CHECK(m->worst_index == 2);
  CHECK(m->max_rel == 0.5);
  CHECK(m->rel_l2 == doctest::Approx(2.0 / std::sqrt(21.0)).epsilon(1e-15));
  CHECK(m->cosine == doctest::Approx(13.0 / (3.0 * std::sqrt(21.0))).epsilon(1e-15));
  CHECK(m->top1 == 0.0);  // one row of 3 classes: got's tie 2, 2 goes to index 1; want's argmax is 2
  CHECK(m->topk == -1.0); // k = 5 > 3 classes
}

TEST_CASE("metrics: zeros, infinities and NaN") {
  auto z = CompareTensors(F32({2}, {0, 0}), F32({2}, {0, 0}));
  REQUIRE(z.ok());
  CHECK(z->max_abs == 0);
  CHECK(z->rel_l2 == 0);
  CHECK(z->cosine == 1);
  auto one_zero = CompareTensors(F32({2}, {1, 0}), F32({2}, {0, 0}));
  CHECK(std::isinf(one_zero->max_rel));
  CHECK(std::isinf(one_zero->rel_l2));
  CHECK(one_zero->cosine == 0);
  const float inf = std::numeric_limits<float>::infinity();
  auto infs = CompareTensors(F32({2}, {inf, 1}), F32({2}, {inf, 1}));
  CHECK(infs->max_abs == 0);
  CHECK(infs->rel_l2 == 0);
  // An infinity against a finite value where the other side has an infinity too: the distance is
  // infinite (not inf / inf = NaN, which would compare as neither within nor beyond a threshold).
  auto inf_vs_finite = CompareTensors(F32({2}, {inf, inf}), F32({2}, {inf, 1}));
  CHECK(std::isinf(inf_vs_finite->rel_l2));
  CHECK(std::isinf(inf_vs_finite->max_abs));
  auto nan = CompareTensors(F32({3}, {NAN, 1, NAN}), F32({3}, {NAN, 1, 2}));
  CHECK(nan->nan_mismatch == 1);
  CHECK(std::isinf(nan->max_abs));
  CHECK(std::isinf(nan->rel_l2));
  CHECK(nan->worst_index == 2);
  CHECK(nan->max_ulp == std::numeric_limits<uint64_t>::max());
}

TEST_CASE("metrics: ULP distance in float32") {
  const float one_up = std::nextafter(1.0f, 2.0f);
  CHECK(UlpDistance32(1.0f, one_up) == 1);
  CHECK(UlpDistance32(1.0f, 1.0f) == 0);
  CHECK(UlpDistance32(0.0f, -0.0f) == 0);
  // Smallest subnormals on both sides of zero: -d, -0/+0, +d -> 2 apart.
  const float d = std::numeric_limits<float>::denorm_min();
  CHECK(UlpDistance32(-d, d) == 2);
  // 1.0 and 2.0 are 2^23 float32 values apart (one binade).
  CHECK(UlpDistance32(1.0f, 2.0f) == (uint64_t(1) << 23));
  // float64 input: 1 + 2^-30 rounds to 1.0f, so 0 ULPs apart in float32.
  auto m = CompareTensors(Make(DType::kFloat64, {1}, {1.0 + std::ldexp(1.0, -30)}), F32({1}, {1}));
  CHECK(m->max_ulp == 0);
  CHECK(m->max_abs == std::ldexp(1.0, -30));
}

TEST_CASE("metrics: top-1 and top-k agreement over the last axis") {
  // Two rows of 4 classes. Row 0: got argmax 1, want argmax 1; top-2 {1,3} vs {1,2} differ.
  // Row 1: got argmax 0, want argmax 3; top-2 {0,3} vs {0,3} agree (as sets).
  auto m = CompareTensors(F32({2, 4}, {0, 9, 1, 5, 8, 0, 0, 7}), F32({2, 4}, {0, 9, 5, 1, 7, 0, 0, 8}), 2);
  REQUIRE(m.ok());
  CHECK(m->top1 == 0.5);
  CHECK(m->topk == 0.5);
  // Ties go to the lower index: [3, 3] has argmax 0 on both sides.
  CHECK(CompareTensors(F32({1, 2}, {3, 3}), F32({1, 2}, {3, 3}), 1)->top1 == 1.0);
}

TEST_CASE("metrics: errors") {
  CHECK_FALSE(CompareTensors(F32({2}, {1, 2}), F32({3}, {1, 2, 3})).ok());
  CHECK(CompareTensors(F32({2}, {1, 2}), F32({1, 2}, {1, 2})).status().message().find("shapes differ") != std::string::npos);
  CHECK_FALSE(CompareTensors(F32({2}, {1, 2}), F32({2}, {1, 2}), 0).ok());
  CHECK_FALSE(CompareTensors(Tensor::Sequence(DType::kFloat32, {}), F32({2}, {1, 2})).ok());
}
