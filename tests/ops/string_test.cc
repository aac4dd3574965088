// StringNormalizer: expected values by hand from the ONNX StringNormalizer-10 text (stop words
// removed first, then the case change) and the code point table in runtime/ops/string.cc
// ("ä" U+00E4 <-> "Ä" U+00C4, Greek "αβγ" <-> "ΑΒΓ", Cyrillic "привет" <-> "ПРИВЕТ").
#include <doctest/doctest.h>

#include "runtime/exec/eval_node.h"
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {

Tensor Str(const Shape& shape, const std::vector<std::string>& v) {
  Tensor t = Tensor::Alloc(DType::kString, shape).value();
  for (size_t i = 0; i < v.size(); ++i) t.as<std::string>()[i] = v[i];
  return t;
}

/// Runs the node on ref64 and ref and checks the string output.
void CheckStr(const Node& node, const Tensor& x, const Shape& shape, const std::vector<std::string>& expected) {
  for (DType c : {DType::kFloat64, DType::kFloat32}) {
    auto r = Run(node, {x}, c);
    REQUIRE(r.ok());
    const Tensor& y = (*r)[0];
    REQUIRE(y.dtype == DType::kString);
    CHECK(y.shape == shape);
    REQUIRE(y.numel() == static_cast<int64_t>(expected.size()));
    for (size_t i = 0; i < expected.size(); ++i) CHECK(y.as<std::string>()[i] == expected[i]);
  }
}

NodeOf Norm(const char* action, int64_t case_sensitive, std::vector<std::string> stop) {
  NodeOf n("StringNormalizer");
  n.Attr("case_change_action", action).Attr("is_case_sensitive", case_sensitive);
  if (!stop.empty()) n.Attr("stopwords", std::move(stop));
  return n;
}

}  // namespace

TEST_CASE("StringNormalizer removes stop words, then changes case") {
  const Tensor x = Str({4}, {"Monday", "tuesday", "MONDAY", "\xc3\xa4rger"});  // "ärger"
  // Case-insensitive: both Mondays go; upper-casing maps ä to Ä.
  CheckStr(Norm("UPPER", 0, {"monday"}), x, {2}, {"TUESDAY", "\xc3\x84RGER"});
  // Case-sensitive: "monday" matches neither; lower-casing.
  CheckStr(Norm("LOWER", 1, {"monday"}), x, {4}, {"monday", "tuesday", "monday", "\xc3\xa4rger"});
  CheckStr(Norm("NONE", 1, {"MONDAY"}), x, {3}, {"Monday", "tuesday", "\xc3\xa4rger"});
  // Greek and Cyrillic letters; other bytes (here "!") unchanged.
  const Tensor g = Str({1, 2}, {"\xce\xb1\xce\xb2\xce\xb3!", "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82"});
  CheckStr(Norm("UPPER", 0, {}), g, {1, 2},
           {"\xce\x91\xce\x92\xce\x93!", "\xd0\x9f\xd0\xa0\xd0\x98\xd0\x92\xd0\x95\xd0\xa2"});
  CheckStr(Norm("LOWER", 0, {}), g, {1, 2},
           {"\xce\xb1\xce\xb2\xce\xb3!", "\xd0\xbf\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82"});
}

TEST_CASE("StringNormalizer with every element removed gives one empty string") {
  CheckStr(Norm("NONE", 0, {"a"}), Str({2}, {"a", "A"}), {1}, {""});
  CheckStr(Norm("LOWER", 0, {"a"}), Str({1, 2}, {"a", "A"}), {1, 1}, {""});
}

TEST_CASE("StringNormalizer rejects bad inputs and attributes") {
  CheckFails(Norm("NONE", 0, {}), {Str({2, 2}, {"a", "b", "c", "d"})}, "[C] or [1, C]");
  CheckFails(Norm("NONE", 0, {}), {Str({}, {"a"})}, "[C] or [1, C]");
  CheckFails(Norm("TITLE", 0, {}), {Str({1}, {"a"})}, "case_change_action");
  CheckFails(Norm("NONE", 2, {}), {Str({1}, {"a"})}, "is_case_sensitive");
  CheckFails(Norm("NONE", 0, {}), {F32({1}, {1})}, "string");
}
