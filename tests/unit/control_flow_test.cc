// Control flow on hand-built graphs: results computed by hand, and the malformed cases found by
// adversarial testing (each must be an error, never a wrong answer or a hang).
#include <doctest/doctest.h>

#include "runtime/session.h"
#include "tests/ops/op_test_util.h"
#include "tests/unit/graph_builder.h"

using namespace tare;
using namespace tare::test;

namespace {

// Loop body (i, cond, v) -> (cond, v + step), step of dtype `step_type`.
Graph AddBody(DType step_type) {
  GraphBuilder b;
  b.Input("i", DType::kInt64, {});
  int c = b.Input("cond", DType::kBool, {});
  int v = b.Input("v", DType::kFloat32, {2});
  Tensor step = step_type == DType::kFloat32 ? F32({2}, {1, 10}) : Make(step_type, {2}, {1, 10});
  int s = b.Const("step", step);
  int v2 = step_type == DType::kFloat32 ? b.Op("Add", {v, s})[0] : b.Op("Identity", {s})[0];
  int c2 = b.Op("Identity", {c})[0];
  b.g.outputs = {c2, v2};
  return b.g;
}

Result<std::vector<NamedTensor>> RunLoop(const Graph& body, int64_t m) {
  GraphBuilder b;
  int mi = b.Input("M", DType::kInt64, {});
  int v0 = b.Input("v0", DType::kFloat32, {2});
  int y = b.Op("Loop", {mi, -1, v0}, 1, {{"body", GraphBuilder::GraphOf(body)}})[0];
  b.g.outputs = {y};
  auto s = Session::Create(std::make_shared<Graph>(b.g), SessionOptions{});
  if (!s.ok()) return s.status();
  Tensor mt = Make(DType::kInt64, {}, {static_cast<double>(m)});
  std::vector<NamedTensor> out;
  TARE_RETURN_IF_ERROR((*s)->Run({{"M", mt}, {"v0", F32({2}, {0.5, -1})}}, &out));
  return out;
}

}  // namespace

TEST_CASE("Loop adds its step M times; a negative M runs no iteration") {
  auto three = RunLoop(AddBody(DType::kFloat32), 3);
  REQUIRE_MESSAGE(three.ok(), three.status().message());
  CHECK(ReadDouble((*three)[0].tensor, 0) == 3.5);   // 0.5 + 3 * 1
  CHECK(ReadDouble((*three)[0].tensor, 1) == 29.0);  // -1 + 3 * 10
  auto none = RunLoop(AddBody(DType::kFloat32), -5);
  REQUIRE(none.ok());
  CHECK(ReadDouble((*none)[0].tensor, 0) == 0.5);
  CHECK(ReadDouble((*none)[0].tensor, 1) == -1.0);
}

TEST_CASE("a loop-carried value that changes type is an error") {
  auto r = RunLoop(AddBody(DType::kInt32), 2);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("changes type") != std::string::npos);
}

TEST_CASE("If branches with different output types are an error") {
  GraphBuilder t, e;
  t.g.outputs = {t.Const("a", F32({1}, {1}))};
  e.g.outputs = {e.Const("b", Make(DType::kInt64, {1}, {1}))};
  GraphBuilder b;
  int c = b.Input("c", DType::kBool, {});
  b.g.outputs = {b.Op("If", {c}, 1, {{"then_branch", GraphBuilder::GraphOf(t.g)}, {"else_branch", GraphBuilder::GraphOf(e.g)}})[0]};
  auto s = Session::Create(std::make_shared<Graph>(b.g), SessionOptions{});
  REQUIRE(s.ok());
  Tensor ct = Tensor::Alloc(DType::kBool, {}).value();
  std::vector<NamedTensor> out;
  Status st = (*s)->Run({{"c", ct}}, &out);
  REQUIRE_FALSE(st.ok());
  CHECK(st.message().find("different types in the two branches") != std::string::npos);
}

TEST_CASE("Scan directions other than 0 and 1 are an error") {
  GraphBuilder body;
  int st = body.Input("s", DType::kFloat32, {1});
  int x = body.Input("x", DType::kFloat32, {1});
  int s2 = body.Op("Add", {st, x})[0];
  body.g.outputs = {s2, body.Op("Identity", {s2})[0]};
  GraphBuilder b;
  int init = b.Input("init", DType::kFloat32, {1});
  int xs = b.Input("xs", DType::kFloat32, {3, 1});
  auto outs = b.Op("Scan", {init, xs}, 2, {{"body", GraphBuilder::GraphOf(body.g)}, {"num_scan_inputs", GraphBuilder::Int(1)},
                                           {"scan_input_directions", GraphBuilder::Ints({2})}});
  b.g.outputs = outs;
  auto s = Session::Create(std::make_shared<Graph>(b.g), SessionOptions{});
  REQUIRE_FALSE(s.ok());
  CHECK(s.status().message().find("directions must be 0") != std::string::npos);
}
