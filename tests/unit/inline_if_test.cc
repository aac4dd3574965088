// Plan-time If inlining (runtime/passes/inline_if.h) and control-flow bodies run as nested
// sessions on the session's backends. Expected values are computed by hand.
#include <doctest/doctest.h>

#include "backends/backend.h"
#include "runtime/passes/inline_if.h"
#include "runtime/session.h"
#include "tests/ops/op_test_util.h"
#include "tests/unit/graph_builder.h"

using namespace tare;
using namespace tare::test;

namespace {

int F32Out(GraphBuilder& b, int v) {
  b.g.values[v].dtype = DType::kFloat32;
  return v;
}

// then: Relu(x * 2); else: Neg(x). One captured input x (float32 [?, 4]).
Graph ThenBranch() {
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {-1, 4});
  int m = F32Out(b, b.Op("Mul", {x, b.Const("two", F32({}, {2}))})[0]);
  b.g.outputs = {F32Out(b, b.Op("Relu", {m})[0])};
  return b.g;
}
Graph ElseBranch() {
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {-1, 4});
  b.g.outputs = {F32Out(b, b.Op("Neg", {x})[0])};
  return b.g;
}

// If on a condition computed from x's shape (batch == 1), as PyTorch exports `if x.size(0) == 1`.
std::shared_ptr<Graph> ShapeCondGraph() {
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {-1, 4});
  int shape = b.Op("Shape", {x})[0];
  int batch = b.Op("Gather", {shape, b.Const("zero", Make(DType::kInt64, {}, {0}))})[0];
  int cond = b.Op("Equal", {batch, b.Const("one", Make(DType::kInt64, {}, {1}))})[0];
  int y = b.Op("If", {cond, x}, 1,
               {{"then_branch", GraphBuilder::GraphOf(ThenBranch())}, {"else_branch", GraphBuilder::GraphOf(ElseBranch())}, {"tare.captured", GraphBuilder::Int(1)}})[0];
  b.g.values[y].name = "y";
  b.g.outputs = {F32Out(b, y)};
  return std::make_shared<Graph>(b.g);
}

std::unique_ptr<Session> Make(std::shared_ptr<Graph> g, const std::string& backend) {
  SessionOptions o;
  o.backends = {backend};
  o.trace_all = true;
  auto s = Session::Create(std::move(g), o);
  REQUIRE_MESSAGE(s.ok(), s.status().message());
  return std::move(s).value();
}

std::string PlaceOf(const Session& s, const std::string& op) {
  for (const auto& [name, where] : s.Placement())
    if (name.rfind(op + "_", 0) == 0) return where;
  return "";
}

bool HasBackend(const std::string& name) {
  for (const std::string& b : AvailableBackends())
    if (b == name) return true;
  return false;
}

}  // namespace

TEST_CASE("InlineIf: the branch replaces the node, outer values feed its inputs, clashing names get a suffix") {
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {-1, 4});
  int cond = b.Input("c", DType::kBool, {});
  // A branch value called like an outer one ("x" is the branch input; "Mul_0:0" clashes below).
  int outer = b.Op("Mul", {x, x})[0];  // named "Mul_0:0", as the branch's Mul output
  int y = b.Op("If", {cond, x}, 1,
               {{"then_branch", GraphBuilder::GraphOf(ThenBranch())}, {"else_branch", GraphBuilder::GraphOf(ElseBranch())}, {"tare.captured", GraphBuilder::Int(1)}})[0];
  int z = b.Op("Add", {y, outer})[0];
  b.g.outputs = {z};
  Result<InlinedGraph> r = InlineIf(b.g, 1, true);
  REQUIRE_MESSAGE(r.ok(), r.status().message());
  const Graph& g = r->graph;
  REQUIRE(g.Validate().ok());
  // Mul (outer), then the branch's Mul and Relu, the Identity writing y, then Add.
  REQUIRE(g.nodes.size() == 5);
  CHECK(r->origin == std::vector<int>{0, -1, -1, -1, 2});
  CHECK(g.nodes[1].op == "Mul");
  CHECK(g.nodes[1].inputs[0] == x);  // the branch input is the captured outer value
  CHECK(g.nodes[3].op == "Identity");
  CHECK(g.nodes[3].outputs[0] == y);  // the If's output keeps its id
  CHECK(g.values[g.nodes[1].outputs[0]].name == "Mul_0:0/inlined.1");
  CHECK(g.values[outer].name == "Mul_0:0");
  CHECK(!InlineIf(b.g, 0, true).ok());  // not an If
}

TEST_CASE("Session: an If whose condition comes from shapes is inlined at plan time, re-planned on a new shape") {
  std::vector<std::string> backends = {"ref", "ref64"};
  if (HasBackend("cpu")) backends.push_back("cpu");
  for (const std::string& be : backends) {
    CAPTURE(be);
    auto s = Make(ShapeCondGraph(), be);
    std::vector<NamedTensor> out;
    REQUIRE(s->Run({{"x", F32({1, 4}, {-1, 2, -3, 4})}}, &out).ok());
    for (int i = 0; i < 4; ++i) CHECK(ReadDouble(out[0].tensor, i) == std::vector<double>{0, 4, 0, 8}[i]);
    const std::string main = be == "cpu" ? "cpu" : be;
    CHECK(PlaceOf(*s, "If") == main + " (then_branch inlined)");
    // The traced If output is reported as the If's.
    bool traced = false;
    for (const TraceEntry& t : s->Trace()) traced = traced || (t.value == "y" && t.op == "If");
    CHECK(traced);
    // Batch 2 takes the else branch.
    REQUIRE(s->Run({{"x", F32({2, 4}, {1, -2, 3, -4, 5, 6, 7, 8})}}, &out).ok());
    REQUIRE(out[0].tensor.shape == Shape{2, 4});
    for (int i = 0; i < 8; ++i) CHECK(ReadDouble(out[0].tensor, i) == -std::vector<double>{1, -2, 3, -4, 5, 6, 7, 8}[i]);
    // Neg is not a cpu op; the Identity that writes the If's output is.
    CHECK(PlaceOf(*s, "If") == (be == "cpu" ? "cpu+ref" : be) + " (else_branch inlined)");
  }
}

TEST_CASE("Session: an If on a run-time condition runs its branches as nested sessions on the session's backends") {
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {1, 4});
  int cond = b.Input("c", DType::kBool, {});
  int y = b.Op("If", {cond, x}, 1,
               {{"then_branch", GraphBuilder::GraphOf(ThenBranch())}, {"else_branch", GraphBuilder::GraphOf(ElseBranch())}, {"tare.captured", GraphBuilder::Int(1)}})[0];
  b.g.outputs = {F32Out(b, y)};
  auto g = std::make_shared<Graph>(b.g);
  std::vector<std::string> backends = {"ref", "ref64"};
  if (HasBackend("cpu")) backends.push_back("cpu");
  for (const std::string& be : backends) {
    CAPTURE(be);
    auto s = Make(g, be);
    for (int rep = 0; rep < 2; ++rep) {  // the branches' plans are reused
      std::vector<NamedTensor> out;
      REQUIRE(s->Run({{"x", F32({1, 4}, {-1, 2, -3, 4})}, {"c", Make(DType::kBool, {}, {1})}}, &out).ok());
      for (int i = 0; i < 4; ++i) CHECK(ReadDouble(out[0].tensor, i) == std::vector<double>{0, 4, 0, 8}[i]);
      REQUIRE(s->Run({{"x", F32({1, 4}, {-1, 2, -3, 4})}, {"c", Make(DType::kBool, {}, {0})}}, &out).ok());
      for (int i = 0; i < 4; ++i) CHECK(ReadDouble(out[0].tensor, i) == std::vector<double>{1, -2, 3, -4}[i]);
    }
    // On cpu, --explain also says where the bodies ran: the then-branch (Mul, Relu) as a nested
    // session on cpu, the else-branch (Neg only) on the reference interpreter.
    CHECK(PlaceOf(*s, "If") == (be == "ref64" ? "ref64" : "ref") + std::string(" (dynamic)") +
                                  (be == "cpu" ? "; bodies: cpu | ref" : ""));
  }
}

TEST_CASE("Session: Ifs nested in an inlined branch are inlined too") {
  // Outer then-branch: an inner If on the same shape test, whose then-branch is ThenBranch.
  GraphBuilder ib;
  int x = ib.Input("x", DType::kFloat32, {-1, 4});
  int shape = ib.Op("Shape", {x})[0];
  int batch = ib.Op("Gather", {shape, ib.Const("zero", Make(DType::kInt64, {}, {0}))})[0];
  int cond = ib.Op("Equal", {batch, ib.Const("one", Make(DType::kInt64, {}, {1}))})[0];
  int y = ib.Op("If", {cond, x}, 1,
                {{"then_branch", GraphBuilder::GraphOf(ThenBranch())}, {"else_branch", GraphBuilder::GraphOf(ElseBranch())}, {"tare.captured", GraphBuilder::Int(1)}})[0];
  ib.g.outputs = {F32Out(ib, y)};
  std::shared_ptr<Graph> g = ShapeCondGraph();
  g->nodes.back().attrs["then_branch"] = GraphBuilder::GraphOf(ib.g);
  auto s = Make(g, "ref");
  std::vector<NamedTensor> out;
  REQUIRE(s->Run({{"x", F32({1, 4}, {-1, 2, -3, 4})}}, &out).ok());
  for (int i = 0; i < 4; ++i) CHECK(ReadDouble(out[0].tensor, i) == std::vector<double>{0, 4, 0, 8}[i]);
  CHECK(PlaceOf(*s, "If") == "ref (then_branch inlined)");
  CHECK(s->arena_bytes() > 0);  // planned statically: no dynamic mode
}

TEST_CASE("Session: an outer weight read by a branch on a run-time condition is a constant of the nested session") {
  // then: Relu(x * w) with w an outer initializer captured by the If; else: Neg(x) (w unused).
  GraphBuilder tb;
  int tx = tb.Input("x", DType::kFloat32, {1, 4});
  int tw = tb.Input("w", DType::kFloat32, {4});
  tb.g.outputs = {F32Out(tb, tb.Op("Relu", {F32Out(tb, tb.Op("Mul", {tx, tw})[0])})[0])};
  GraphBuilder eb;
  int ex = eb.Input("x", DType::kFloat32, {1, 4});
  eb.Input("w", DType::kFloat32, {4});
  eb.g.outputs = {F32Out(eb, eb.Op("Neg", {ex})[0])};
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {1, 4});
  int cond = b.Input("c", DType::kBool, {});
  int w = b.Const("w", F32({4}, {1, 10, 100, -1}));
  int y = b.Op("If", {cond, x, w}, 1,
               {{"then_branch", GraphBuilder::GraphOf(tb.g)}, {"else_branch", GraphBuilder::GraphOf(eb.g)}, {"tare.captured", GraphBuilder::Int(2)}})[0];
  b.g.outputs = {F32Out(b, y)};
  std::vector<std::string> backends = {"ref"};
  if (HasBackend("cpu")) backends.push_back("cpu");
  for (const std::string& be : backends) {
    CAPTURE(be);
    auto s = Make(std::make_shared<Graph>(b.g), be);
    std::vector<NamedTensor> out;
    REQUIRE(s->Run({{"x", F32({1, 4}, {-1, 2, 3, -4})}, {"c", Make(DType::kBool, {}, {1})}}, &out).ok());
    for (int i = 0; i < 4; ++i) CHECK(ReadDouble(out[0].tensor, i) == std::vector<double>{0, 20, 300, 4}[i]);
    REQUIRE(s->Run({{"x", F32({1, 4}, {-1, 2, 3, -4})}, {"c", Make(DType::kBool, {}, {0})}}, &out).ok());
    for (int i = 0; i < 4; ++i) CHECK(ReadDouble(out[0].tensor, i) == std::vector<double>{1, -2, -3, 4}[i]);
  }
}
