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

namespace {

// Outer Loop (M = outer) whose body runs an inner Loop (M = inner) of AddBody on v.
Result<std::vector<NamedTensor>> RunNested(int64_t outer, int64_t inner) {
  GraphBuilder ob;
  ob.Input("i", DType::kInt64, {});
  int c = ob.Input("cond", DType::kBool, {});
  int v = ob.Input("v", DType::kFloat32, {2});
  int m = ob.Const("inner_m", Make(DType::kInt64, {}, {static_cast<double>(inner)}));
  int v2 = ob.Op("Loop", {m, -1, v}, 1, {{"body", GraphBuilder::GraphOf(AddBody(DType::kFloat32))}})[0];
  int c2 = ob.Op("Identity", {c})[0];
  ob.g.outputs = {c2, v2};
  return RunLoop(ob.g, outer);
}

}  // namespace

TEST_CASE("nested loops share one budget of 2^20 body runs") {
  auto ok = RunNested(300, 300);  // 90,300 body runs
  REQUIRE_MESSAGE(ok.ok(), ok.status().message());
  CHECK(ReadDouble((*ok)[0].tensor, 0) == 0.5 + 90000);
  CHECK(ReadDouble((*ok)[0].tensor, 1) == -1 + 900000);
  auto over = RunNested(1100, 1000);  // 1,101,100 body runs: each loop alone is far below the limit
  REQUIRE_FALSE(over.ok());
  CHECK(over.status().message().find("1048576 body runs") != std::string::npos);
}

TEST_CASE("a Loop's scan outputs are bounded by the session's tensor limit while they are collected") {
  // Body (i, cond) -> (cond, ConstantOfShape([65536]) float32: 256 KiB per iteration).
  GraphBuilder body;
  body.Input("i", DType::kInt64, {});
  int c = body.Input("cond", DType::kBool, {});
  int part = body.Op("ConstantOfShape", {body.Const("n", Make(DType::kInt64, {1}, {65536}))}, 1,
                     {{"value", [] { Attr a; a.kind = Attr::Kind::kTensor; a.tensor = F32({1}, {2}); return a; }()}})[0];
  body.g.values[part].dtype = DType::kFloat32;
  body.g.outputs = {body.Op("Identity", {c})[0], part};
  GraphBuilder b;
  int mi = b.Input("M", DType::kInt64, {});
  int y = b.Op("Loop", {mi, -1}, 1, {{"body", GraphBuilder::GraphOf(body.g)}})[0];
  b.g.values[y].name = "scan";
  b.g.outputs = {y};
  SessionOptions o;
  o.backends = {"ref"};
  o.max_tensor_bytes = size_t(4) << 20;
  auto s = Session::Create(std::make_shared<Graph>(b.g), o);
  REQUIRE_MESSAGE(s.ok(), s.status().message());
  std::vector<NamedTensor> out;
  Status fits = (*s)->Run({{"M", Make(DType::kInt64, {}, {16})}}, &out);  // exactly 4 MiB
  REQUIRE_MESSAGE(fits.ok(), fits.message());
  CHECK(out[0].tensor.shape == Shape{16, 65536});
  CHECK(ReadDouble(out[0].tensor, 16 * 65536 - 1) == 2);
  Status over = (*s)->Run({{"M", Make(DType::kInt64, {}, {1000000})}}, &out);
  REQUIRE_FALSE(over.ok());
  CHECK(over.message().find("collected scan outputs") != std::string::npos);
}
