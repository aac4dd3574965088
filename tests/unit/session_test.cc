// Session: end-to-end runs of small hand-built graphs with hand-computed outputs, plan-time folding
// of shape arithmetic, and every input error the session promises to report.
#include <doctest/doctest.h>

#include "runtime/session.h"
#include "tests/ops/op_test_util.h"
#include "tests/unit/graph_builder.h"

using namespace tare;
using namespace tare::test;

namespace {
// x [1,1,3,3] -> Conv(W = ones 1x1x2x2, b = 0.5) -> Relu -> y [1,1,2,2]
std::shared_ptr<Graph> ConvRelu() {
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {1, 1, 3, 3});
  int w = b.Const("w", F32({1, 1, 2, 2}, {1, 1, 1, 1}));
  int bias = b.Const("b", F32({1}, {0.5}));
  int c = b.Op("Conv", {x, w, bias})[0];
  int y = b.Op("Relu", {c})[0];
  b.g.values[y].name = "y";
  b.g.outputs = {y};
  return std::make_shared<Graph>(b.g);
}
}  // namespace

TEST_CASE("session runs Conv+Relu on ref and ref64 with hand-computed outputs") {
  // x = [[1,2,3],[4,5,6],[7,8,-40]]: window sums 12, 16, 24, -21 (+0.5 bias), Relu clips the last.
  Tensor x = F32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, -40});
  for (const char* backend : {"ref", "ref64"}) {
    SessionOptions o;
    o.backends = {backend};
    auto s = Session::Create(ConvRelu(), o);
    REQUIRE(s.ok());
    std::vector<NamedTensor> out;
    Status st = (*s)->Run({{"x", x}}, &out);
    REQUIRE_MESSAGE(st.ok(), st.message());
    REQUIRE(out.size() == 1);
    CHECK(out[0].name == "y");
    CHECK(out[0].tensor.shape == Shape{1, 1, 2, 2});
    CHECK(out[0].tensor.dtype == (std::string(backend) == "ref64" ? DType::kFloat64 : DType::kFloat32));
    const double want[4] = {12.5, 16.5, 24.5, 0};
    for (int i = 0; i < 4; ++i) CHECK(ReadDouble(out[0].tensor, i) == want[i]);
    CHECK((*s)->arena_bytes() > 0);
  }
}

TEST_CASE("session reports input errors clearly") {
  auto s = Session::Create(ConvRelu(), SessionOptions{});
  REQUIRE(s.ok());
  std::vector<NamedTensor> out;
  Tensor good = F32({1, 1, 3, 3}, std::vector<double>(9, 1.0));
  CHECK((*s)->Run({}, &out).message() == "missing input 'x'");
  CHECK((*s)->Run({{"x", good}, {"x", good}}, &out).message().find("given twice") != std::string::npos);
  CHECK((*s)->Run({{"z", good}}, &out).message().find("no input named 'z'") != std::string::npos);
  Status wrong_shape = (*s)->Run({{"x", F32({1, 1, 3, 2}, std::vector<double>(6, 1.0))}}, &out);
  CHECK(wrong_shape.message() == "input 'x' must have shape [1,1,3,3], got [1,1,3,2]");
  Status wrong_type = (*s)->Run({{"x", I64({1, 1, 3, 3}, std::vector<int64_t>(9, 1))}}, &out);
  CHECK(wrong_type.message() == "input 'x' must be float32, got int64");
}

TEST_CASE("session lists every unsupported node at once, and unknown backends") {
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {2});
  int y = b.Op("FancyOp", {x})[0];
  int z = b.Op("OtherOp", {y})[0];
  b.g.outputs = {z};
  auto s = Session::Create(std::make_shared<Graph>(b.g), SessionOptions{});
  REQUIRE_FALSE(s.ok());
  CHECK(s.status().message().find("2 unsupported node(s)") != std::string::npos);
  CHECK(s.status().message().find("FancyOp_0") != std::string::npos);
  CHECK(s.status().message().find("OtherOp_1") != std::string::npos);
  SessionOptions o;
  o.backends = {"tpu"};
  CHECK(Session::Create(ConvRelu(), o).status().message().find("unknown backend 'tpu'") != std::string::npos);
}

TEST_CASE("session enforces its tensor and arena limits") {
  SessionOptions o;
  o.max_arena_bytes = 32;  // the 9-float input alone needs 64 aligned bytes
  auto s = Session::Create(ConvRelu(), o);
  REQUIRE(s.ok());
  std::vector<NamedTensor> out;
  Status st = (*s)->Run({{"x", F32({1, 1, 3, 3}, std::vector<double>(9, 1.0))}}, &out);
  CHECK(st.message().find("over the session limit") != std::string::npos);
}

TEST_CASE("session folds shape arithmetic at plan time (PyTorch-style Reshape)") {
  // x [2,3,4] -> Shape -> Gather(0) -> Unsqueeze -> Concat with [-1] -> Reshape(x): [2,12].
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {-1, 3, 4});
  int shape = b.Op("Shape", {x})[0];
  int idx = b.Const("zero", I64({}, {0}));
  int n = b.Op("Gather", {shape, idx}, 1, {{"axis", GraphBuilder::Int(0)}})[0];
  int axes = b.Const("axes", I64({1}, {0}));
  int n1 = b.Op("Unsqueeze", {n, axes})[0];
  int minus1 = b.Const("m1", I64({1}, {-1}));
  int target = b.Op("Concat", {n1, minus1}, 1, {{"axis", GraphBuilder::Int(0)}})[0];
  int y = b.Op("Reshape", {x, target})[0];
  b.g.outputs = {y};
  auto s = Session::Create(std::make_shared<Graph>(b.g), SessionOptions{});
  REQUIRE(s.ok());
  std::vector<double> vals(24);
  for (int i = 0; i < 24; ++i) vals[i] = i;
  std::vector<NamedTensor> out;
  Status st = (*s)->Run({{"x", F32({2, 3, 4}, vals)}}, &out);
  REQUIRE_MESSAGE(st.ok(), st.message());
  CHECK(out[0].tensor.shape == Shape{2, 12});
  CHECK(out[0].tensor.as<float>()[13] == 13.0f);
  auto placement = (*s)->Placement();
  CHECK(placement[0].second == "folded");   // Shape
  CHECK(placement[4].second == "ref");      // Reshape runs on data
  // A new batch size re-plans.
  st = (*s)->Run({{"x", F32({1, 3, 4}, std::vector<double>(vals.begin(), vals.begin() + 12))}}, &out);
  REQUIRE(st.ok());
  CHECK(out[0].tensor.shape == Shape{1, 12});
}

TEST_CASE("session skips nodes no output depends on") {
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {2});
  int y = b.Op("Neg", {x})[0];
  b.Op("Exp", {x});  // dangling
  b.g.outputs = {y};
  auto s = Session::Create(std::make_shared<Graph>(b.g), SessionOptions{});
  REQUIRE(s.ok());
  std::vector<NamedTensor> out;
  REQUIRE((*s)->Run({{"x", F32({2}, {1, -2})}}, &out).ok());
  CHECK(out[0].tensor.as<float>()[1] == 2.0f);
  CHECK((*s)->Placement()[1].second == "unused");
}

TEST_CASE("session plans at run time when a shape depends on input data") {
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {2, 3});
  int shape = b.Input("shape", DType::kInt64, {2});
  int y = b.Op("Reshape", {x, shape})[0];
  int z = b.Op("Neg", {y})[0];
  b.g.outputs = {z};
  for (const char* backend : {"ref", "ref64"}) {
    SessionOptions o;
    o.backends = {backend};
    auto s = Session::Create(std::make_shared<Graph>(b.g), o);
    REQUIRE(s.ok());
    Tensor xv = F32({2, 3}, {0, 1, 2, 3, 4, 5});
    std::vector<NamedTensor> out;
    Status st = (*s)->Run({{"x", xv}, {"shape", I64({2}, {3, 2})}}, &out);
    REQUIRE_MESSAGE(st.ok(), st.message());
    CHECK(out[0].tensor.shape == Shape{3, 2});
    CHECK(ReadDouble(out[0].tensor, 5) == -5.0);
    st = (*s)->Run({{"x", xv}, {"shape", I64({2}, {6, 1})}}, &out);
    REQUIRE(st.ok());
    CHECK(out[0].tensor.shape == Shape{6, 1});
    CHECK(ReadDouble(out[0].tensor, 1) == -1.0);
    // Bad data still gives a clear error at run time.
    st = (*s)->Run({{"x", xv}, {"shape", I64({2}, {4, 2})}}, &out);
    CHECK_FALSE(st.ok());
  }
}

TEST_CASE("session traces every node's output, or chosen tensors, without changing the results") {
  // Conv gives 12.5, 16.5, 24.5, -20.5 (window sums + 0.5); Relu clips the last to 0.
  Tensor x = F32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, -40});
  auto g = ConvRelu();
  const std::string conv_out = g->values[g->nodes[0].outputs[0]].name;
  for (const char* backend : {"ref", "ref64"}) {
    SessionOptions plain;
    plain.backends = {backend};
    auto s0 = Session::Create(g, plain);
    REQUIRE(s0.ok());
    std::vector<NamedTensor> out0;
    REQUIRE((*s0)->Run({{"x", x}}, &out0).ok());
    CHECK((*s0)->Trace().empty());

    SessionOptions traced = plain;
    traced.trace_all = true;
    auto s1 = Session::Create(g, traced);
    REQUIRE(s1.ok());
    std::vector<NamedTensor> out1;
    REQUIRE((*s1)->Run({{"x", x}}, &out1).ok());
    std::vector<TraceEntry> t = (*s1)->Trace();
    REQUIRE(t.size() == 2);
    CHECK(t[0].op == "Conv");
    CHECK(t[0].value == conv_out);
    const double conv[] = {12.5, 16.5, 24.5, -20.5};
    for (int i = 0; i < 4; ++i) CHECK(ReadDouble(t[0].tensor, i) == conv[i]);
    CHECK(t[1].op == "Relu");
    CHECK(ReadDouble(t[1].tensor, 3) == 0.0);
    for (int i = 0; i < 4; ++i) CHECK(ReadDouble(out1[0].tensor, i) == ReadDouble(out0[0].tensor, i));
    CHECK((*s1)->arena_bytes() >= (*s0)->arena_bytes());  // traced values keep buffers of their own

    SessionOptions one = plain;
    one.trace = {conv_out};
    auto s2 = Session::Create(g, one);
    REQUIRE(s2.ok());
    REQUIRE((*s2)->Run({{"x", x}}, &out1).ok());
    REQUIRE((*s2)->Trace().size() == 1);
    CHECK(ReadDouble((*s2)->Trace()[0].tensor, 1) == 16.5);

    SessionOptions bad = plain;
    bad.trace = {"nope"};
    auto s3 = Session::Create(g, bad);
    REQUIRE_FALSE(s3.ok());
    CHECK(s3.status().message().find("'nope'") != std::string::npos);
  }
}

TEST_CASE("traced values are not overwritten by later nodes reusing the arena") {
  // x -> Neg -> Neg -> Neg -> Neg: without tracing the planner reuses buffers along the chain;
  // traced, every intermediate keeps its value: -x, x, -x, x.
  GraphBuilder b;
  int v = b.Input("x", DType::kFloat32, {4});
  for (int i = 0; i < 4; ++i) v = b.Op("Neg", {v})[0];
  b.g.outputs = {v};
  auto g = std::make_shared<Graph>(b.g);
  SessionOptions o;
  o.trace_all = true;
  auto s = Session::Create(g, o);
  REQUIRE(s.ok());
  std::vector<NamedTensor> out;
  REQUIRE((*s)->Run({{"x", F32({4}, {1, -2, 3, -4})}}, &out).ok());
  std::vector<TraceEntry> t = (*s)->Trace();
  REQUIRE(t.size() == 4);
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 4; ++i) CHECK(ReadDouble(t[static_cast<size_t>(k)].tensor, i) == (k % 2 ? 1 : -1) * std::vector<double>{1, -2, 3, -4}[static_cast<size_t>(i)]);
  SessionOptions plain;
  auto s0 = Session::Create(g, plain);
  REQUIRE((*s0)->Run({{"x", F32({4}, {1, -2, 3, -4})}}, &out).ok());
  CHECK((*s0)->arena_bytes() < (*s)->arena_bytes());
}
