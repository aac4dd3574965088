// Sequence family: expected values by hand (each op only moves data: the expected items are the
// input elements picked by position, e.g. SplitToSequence of [[0,1],[2,3],[4,5]] along axis 0
// gives [0,1], [2,3], [4,5]). Op tests build sequences with Tensor::Sequence and run EvalNode
// directly (op_test_util's Run treats data-less inputs as omitted).
#include <doctest/doctest.h>

#include "runtime/exec/eval_node.h"
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {

/// float32 converted to the compute type, as the session does.
Tensor ToCompute(const Tensor& t, DType compute) {
  if (t.dtype != DType::kFloat32) return t;
  return ConvertTensor(t, compute).value();
}

/// Checks a tensor's shape and values (exact: these ops only move data).
void ExpectValues(const Tensor& t, const Shape& shape, const std::vector<double>& values) {
  REQUIRE(t.is_tensor());
  CHECK(t.shape == shape);
  REQUIRE(t.numel() == static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) CHECK(ReadDouble(t, static_cast<int64_t>(i)) == values[i]);
}

Tensor SeqOf(std::vector<Tensor> items, DType elem = DType::kFloat32) { return Tensor::Sequence(elem, std::move(items)); }

const DType kComputes[] = {DType::kFloat64, DType::kFloat32};

}  // namespace

TEST_CASE("SequenceConstruct, SequenceLength and SequenceAt") {
  const Tensor a = F32({2}, {1, 2}), b = F32({1, 3}, {3, 4, 5});
  for (DType c : kComputes) {
    auto seq = Eval(NodeOf("SequenceConstruct"), {&a, &b}, c);
    REQUIRE(seq.ok());
    const Tensor& s = (*seq)[0];
    REQUIRE(s.kind == ValueKind::kSequence);
    CHECK(s.dtype == c);
    REQUIRE(s.items->size() == 2);
    ExpectValues((*s.items)[1], {1, 3}, {3, 4, 5});
    auto len = Eval(NodeOf("SequenceLength"), {&s}, c);
    REQUIRE(len.ok());
    CHECK((*len)[0].dtype == DType::kInt64);
    ExpectValues((*len)[0], {}, {2});
    for (int64_t p : {int64_t(1), int64_t(-1)}) {
      const Tensor pos = I64({}, {p});
      auto at = Eval(NodeOf("SequenceAt"), {&s, &pos}, c);
      REQUIRE(at.ok());
      ExpectValues((*at)[0], {1, 3}, {3, 4, 5});
    }
    const Tensor p0 = Make(DType::kInt32, {1}, {-2});  // int32, 1-element: accepted
    auto at0 = Eval(NodeOf("SequenceAt"), {&s, &p0}, c);
    REQUIRE(at0.ok());
    ExpectValues((*at0)[0], {2}, {1, 2});
    const Tensor p2 = I64({}, {2}), pm3 = I64({}, {-3}), pf = F32({}, {0});
    CHECK(Eval(NodeOf("SequenceAt"), {&s, &p2}, c).status().message().find("out of range") != std::string::npos);
    CHECK(Eval(NodeOf("SequenceAt"), {&s, &pm3}, c).status().message().find("out of range") != std::string::npos);
    CHECK(Eval(NodeOf("SequenceAt"), {&s, &pf}, c).status().message().find("int32 or int64") != std::string::npos);
  }
  const Tensor i = I64({1}, {1}), f = F32({1}, {1});
  CHECK(Eval(NodeOf("SequenceConstruct"), {&f, &i}, DType::kFloat64).status().message().find("one element type") !=
        std::string::npos);
}

TEST_CASE("SequenceEmpty, SequenceInsert and SequenceErase") {
  const Tensor a = F32({2}, {1, 2}), b = F32({1}, {3}), z = F32({}, {7});
  for (DType c : kComputes) {
    auto empty = Eval(NodeOf("SequenceEmpty"), {}, c);
    REQUIRE(empty.ok());
    CHECK((*empty)[0].kind == ValueKind::kSequence);
    CHECK((*empty)[0].dtype == c);  // default float32, held in the compute type
    CHECK((*empty)[0].items->empty());
    auto ei = Eval(NodeOf("SequenceEmpty").Attr("dtype", int64_t(7)), {}, c);
    REQUIRE(ei.ok());
    CHECK((*ei)[0].dtype == DType::kInt64);

    // [] -> insert a (end) -> [a]; insert b at 0 -> [b, a]; insert z at -1 (before the last) -> [b, z, a].
    auto s1 = Eval(NodeOf("SequenceInsert"), {&(*empty)[0], &a}, c);
    REQUIRE(s1.ok());
    const Tensor p0 = I64({}, {0}), pm1 = I64({}, {-1});
    auto s2 = Eval(NodeOf("SequenceInsert"), {&(*s1)[0], &b, &p0}, c);
    REQUIRE(s2.ok());
    auto s3 = Eval(NodeOf("SequenceInsert"), {&(*s2)[0], &z, &pm1}, c);
    REQUIRE(s3.ok());
    const auto& items = *(*s3)[0].items;
    REQUIRE(items.size() == 3);
    ExpectValues(items[0], {1}, {3});
    ExpectValues(items[1], {}, {7});
    ExpectValues(items[2], {2}, {1, 2});
    CHECK((*s1)[0].items->size() == 1);  // the input sequence is unchanged

    // Erase: default last -> [b, z]; at 0 -> [z, a].
    auto e1 = Eval(NodeOf("SequenceErase"), {&(*s3)[0]}, c);
    REQUIRE(e1.ok());
    REQUIRE((*e1)[0].items->size() == 2);
    ExpectValues((*(*e1)[0].items)[1], {}, {7});
    auto e2 = Eval(NodeOf("SequenceErase"), {&(*s3)[0], &p0}, c);
    REQUIRE(e2.ok());
    ExpectValues((*(*e2)[0].items)[0], {}, {7});
    ExpectValues((*(*e2)[0].items)[1], {2}, {1, 2});

    const Tensor p4 = I64({}, {4}), p3 = I64({}, {3});
    CHECK(Eval(NodeOf("SequenceInsert"), {&(*s3)[0], &a, &p4}, c).status().message().find("out of range [-3, 3]") !=
          std::string::npos);
    CHECK(Eval(NodeOf("SequenceErase"), {&(*s3)[0], &p3}, c).status().message().find("out of range [-3, 2]") !=
          std::string::npos);
    CHECK(Eval(NodeOf("SequenceErase"), {&(*empty)[0]}, c).status().message().find("empty") != std::string::npos);
    const Tensor i = I64({1}, {1});
    CHECK(Eval(NodeOf("SequenceInsert"), {&(*s3)[0], &i}, c).status().message().find("the sequence holds float32") !=
          std::string::npos);
    CHECK(Eval(NodeOf("SequenceLength"), {&a}, c).status().message().find("must be a sequence") != std::string::npos);
  }
}

TEST_CASE("SplitToSequence") {
  const Tensor x = F32({3, 2}, {0, 1, 2, 3, 4, 5});
  for (DType c : kComputes) {
    auto items = [&](const Node& n, const std::vector<const Tensor*>& in) {
      auto r = Eval(n, in, c);
      REQUIRE(r.ok());
      REQUIRE((*r)[0].kind == ValueKind::kSequence);
      return *(*r)[0].items;
    };
    // No split: pieces of size 1 along axis 0; keepdims=0 squeezes the axis.
    auto s = items(NodeOf("SplitToSequence").Attr("keepdims", int64_t(0)), {&x});
    REQUIRE(s.size() == 3);
    ExpectValues(s[2], {2}, {4, 5});
    s = items(NodeOf("SplitToSequence"), {&x});
    REQUIRE(s.size() == 3);
    ExpectValues(s[1], {1, 2}, {2, 3});
    // Along axis -1 (= 1): columns [0,2,4] and [1,3,5].
    s = items(NodeOf("SplitToSequence").Attr("axis", int64_t(-1)), {&x});
    REQUIRE(s.size() == 2);
    ExpectValues(s[1], {3, 1}, {1, 3, 5});
    // Scalar split 2 along axis 0: sizes 2, 1 (keepdims is ignored with a split).
    const Tensor two = I64({}, {2});
    s = items(NodeOf("SplitToSequence").Attr("keepdims", int64_t(0)), {&x, &two});
    REQUIRE(s.size() == 2);
    ExpectValues(s[0], {2, 2}, {0, 1, 2, 3});
    ExpectValues(s[1], {1, 2}, {4, 5});
    // 1-D split [1, 0, 2].
    const Tensor sizes = Make(DType::kInt32, {3}, {1, 0, 2});
    s = items(NodeOf("SplitToSequence"), {&x, &sizes});
    REQUIRE(s.size() == 3);
    ExpectValues(s[0], {1, 2}, {0, 1});
    ExpectValues(s[1], {0, 2}, {});
    ExpectValues(s[2], {2, 2}, {2, 3, 4, 5});

    const Tensor bad_sum = I64({2}, {1, 1}), zero = I64({}, {0}), neg = I64({2}, {-1, 4});
    CHECK(Eval(NodeOf("SplitToSequence"), {&x, &bad_sum}, c).status().message().find("sum to the dim 3") != std::string::npos);
    CHECK(Eval(NodeOf("SplitToSequence"), {&x, &zero}, c).status().message().find("> 0") != std::string::npos);
    CHECK(Eval(NodeOf("SplitToSequence"), {&x, &neg}, c).status().message().find("out of range") != std::string::npos);
    CHECK(Eval(NodeOf("SplitToSequence").Attr("axis", int64_t(2)), {&x}, c).status().message().find("axis") != std::string::npos);
    const Tensor wide = F32({int64_t(1) << 25, 0}, {});  // 2^25 empty pieces: over the 2^24 item limit
    CHECK(Eval(NodeOf("SplitToSequence"), {&wide}, c).status().message().find("limit") != std::string::npos);
    const Tensor scalar = F32({}, {1});
    CHECK(Eval(NodeOf("SplitToSequence"), {&scalar}, c).status().message().find("rank >= 1") != std::string::npos);
  }
}

TEST_CASE("ConcatFromSequence") {
  const Tensor a = F32({2, 1}, {1, 2}), b = F32({2, 2}, {3, 4, 5, 6});
  const Tensor u = F32({2}, {1, 2}), v = F32({2}, {3, 4});
  for (DType c : kComputes) {
    // Along axis 1: rows [1 | 3 4] and [2 | 5 6].
    const Tensor ab = SeqOf({ToCompute(a, c), ToCompute(b, c)}, c);
    auto r = Eval(NodeOf("ConcatFromSequence").Attr("axis", int64_t(1)), {&ab}, c);
    REQUIRE(r.ok());
    ExpectValues((*r)[0], {2, 3}, {1, 3, 4, 2, 5, 6});
    CHECK(Eval(NodeOf("ConcatFromSequence").Attr("axis", int64_t(0)), {&ab}, c).status().message().find("does not match") !=
          std::string::npos);
    // new_axis=1 stacks: axis -1 -> [[1,3],[2,4]]; axis 0 -> [[1,2],[3,4]].
    const Tensor uv = SeqOf({ToCompute(u, c), ToCompute(v, c)}, c);
    r = Eval(NodeOf("ConcatFromSequence").Attr("axis", int64_t(-1)).Attr("new_axis", int64_t(1)), {&uv}, c);
    REQUIRE(r.ok());
    ExpectValues((*r)[0], {2, 2}, {1, 3, 2, 4});
    r = Eval(NodeOf("ConcatFromSequence").Attr("axis", int64_t(0)).Attr("new_axis", int64_t(1)), {&uv}, c);
    REQUIRE(r.ok());
    ExpectValues((*r)[0], {2, 2}, {1, 2, 3, 4});
    CHECK(Eval(NodeOf("ConcatFromSequence").Attr("axis", int64_t(2)).Attr("new_axis", int64_t(1)), {&uv}, c)
              .status().message().find("axis") != std::string::npos);
    const Tensor empty = SeqOf({}, c);
    CHECK(Eval(NodeOf("ConcatFromSequence").Attr("axis", int64_t(0)), {&empty}, c).status().message().find("empty") !=
          std::string::npos);
    CHECK(Eval(NodeOf("ConcatFromSequence"), {&uv}, c).status().message().find("'axis' is required") != std::string::npos);
  }
}

TEST_CASE("Sequences of strings") {
  Tensor s = Tensor::Alloc(DType::kString, {3}).value();
  s.as<std::string>()[0] = "a";
  s.as<std::string>()[1] = "bc";
  s.as<std::string>()[2] = "d";
  const Tensor two = I64({}, {2});  // pieces ["a","bc"], ["d"]
  auto r = Eval(NodeOf("SplitToSequence"), {&s, &two}, DType::kFloat32);
  REQUIRE(r.ok());
  const auto& items = *(*r)[0].items;
  REQUIRE(items.size() == 2);
  CHECK(items[0].as<std::string>()[1] == "bc");
  CHECK(items[1].as<std::string>()[0] == "d");
  auto cat = Eval(NodeOf("ConcatFromSequence").Attr("axis", int64_t(0)), {&(*r)[0]}, DType::kFloat32);
  REQUIRE(cat.ok());
  REQUIRE((*cat)[0].numel() == 3);
  CHECK((*cat)[0].as<std::string>()[2] == "d");
}
