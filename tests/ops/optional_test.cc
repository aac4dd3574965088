// Optional family: expected values by hand (the ops wrap, test and unwrap values unchanged).
#include <doctest/doctest.h>

#include "runtime/exec/eval_node.h"
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {

bool HasElement(const Tensor* x, DType c) {
  auto r = Eval(NodeOf("OptionalHasElement"), {x}, c);
  REQUIRE(r.ok());
  REQUIRE((*r)[0].dtype == DType::kBool);
  REQUIRE((*r)[0].shape.empty());
  return ReadInt((*r)[0], 0) != 0;
}

NodeOf WithType(const char* kind, DType elem) {
  NodeOf n("Optional");
  Attr a;
  a.kind = Attr::Kind::kType;
  a.s = kind;
  a.i = static_cast<int64_t>(elem);
  n.node.attrs["type"] = a;
  return n;
}

const DType kComputes[] = {DType::kFloat64, DType::kFloat32};

}  // namespace

TEST_CASE("Optional wraps a tensor; OptionalHasElement and OptionalGetElement") {
  const Tensor x = F32({2}, {1.5, -2});
  for (DType c : kComputes) {
    auto o = Eval(NodeOf("Optional"), {&x}, c);
    REQUIRE(o.ok());
    const Tensor& opt = (*o)[0];
    REQUIRE(opt.kind == ValueKind::kOptional);
    REQUIRE(opt.items->size() == 1);
    CHECK(HasElement(&opt, c));
    auto g = Eval(NodeOf("OptionalGetElement"), {&opt}, c);
    REQUIRE(g.ok());
    const Tensor& y = (*g)[0];
    REQUIRE(y.is_tensor());
    CHECK(y.shape == Shape{2});
    CHECK(ReadDouble(y, 0) == 1.5);
    CHECK(ReadDouble(y, 1) == -2);
    // Opset 18: a plain tensor passes through and "has an element"; an omitted input has none.
    CHECK(HasElement(&x, c));
    CHECK(!HasElement(nullptr, c));
    auto g2 = Eval(NodeOf("OptionalGetElement"), {&x}, c);
    REQUIRE(g2.ok());
    CHECK(ReadDouble((*g2)[0], 1) == -2);
  }
}

TEST_CASE("Optional without input is empty; its type comes from the attribute") {
  for (DType c : kComputes) {
    auto o = Eval(WithType("tensor", DType::kInt64), {}, c);
    REQUIRE(o.ok());
    const Tensor& opt = (*o)[0];
    REQUIRE(opt.kind == ValueKind::kOptional);
    CHECK(opt.dtype == DType::kInt64);
    CHECK(opt.items->empty());
    CHECK(!HasElement(&opt, c));
    CHECK(Eval(NodeOf("OptionalGetElement"), {&opt}, c).status().message().find("empty") != std::string::npos);
    auto f = Eval(WithType("tensor", DType::kFloat32), {}, c);
    REQUIRE(f.ok());
    CHECK((*f)[0].dtype == c);  // float32 is held in the compute type
    auto u = Eval(NodeOf("Optional"), {}, c);  // no type: element type undefined
    REQUIRE(u.ok());
    CHECK(u->at(0).items->empty());
  }
}

TEST_CASE("Optional of a sequence") {
  const Tensor seq = Tensor::Sequence(DType::kInt64, {I64({1}, {4}), I64({2}, {5, 6})});
  auto o = Eval(WithType("sequence", DType::kInt64), {&seq}, DType::kFloat32);
  REQUIRE(o.ok());
  CHECK(HasElement(&(*o)[0], DType::kFloat32));
  auto g = Eval(NodeOf("OptionalGetElement"), {&(*o)[0]}, DType::kFloat32);
  REQUIRE(g.ok());
  REQUIRE((*g)[0].kind == ValueKind::kSequence);
  REQUIRE((*g)[0].items->size() == 2);
  CHECK(ReadInt((*(*g)[0].items)[1], 1) == 6);
  // The attribute must agree with the input.
  const Tensor x = I64({1}, {1});
  CHECK(Eval(WithType("sequence", DType::kInt64), {&x}, DType::kFloat32).status().message().find("attribute 'type' says") !=
        std::string::npos);
  CHECK(Eval(WithType("tensor", DType::kFloat32), {&x}, DType::kFloat32).status().message().find("attribute 'type' says") !=
        std::string::npos);
  CHECK(Eval(NodeOf("Optional").Attr("type", int64_t(1)), {&x}, DType::kFloat32).status().message().find("must be a type") !=
        std::string::npos);
  auto oo = Eval(NodeOf("Optional"), {&x}, DType::kFloat32);
  REQUIRE(oo.ok());
  CHECK(Eval(NodeOf("Optional"), {&(*oo)[0]}, DType::kFloat32).status().message().find("got an optional") != std::string::npos);
}
