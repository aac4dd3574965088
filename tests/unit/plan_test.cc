// The plan's steps (runtime/plan/): each checked on a small hand-built graph against what the
// step must give by its definition (dead nodes, folding, lifetimes, partitions), and the arena
// planner's offsets against hand-worked layouts.
#include <doctest/doctest.h>

#include "runtime/plan/arena.h"
#include "runtime/plan/plan.h"
#include "tests/ops/op_test_util.h"
#include "tests/unit/graph_builder.h"

using namespace tare;
using tare::test::F32;
using tare::test::GraphBuilder;

namespace {
/// x [2, 3] -> Relu -> r -> Neg -> out (output); x -> Abs -> dead (no output needs it);
/// Shape(x) -> s; c + c -> cc (all weights: folded); Reshape(r, s) is not added.
struct PlanGraph {
  GraphBuilder b;
  int x, r, out, dead, s, cc;
  PlanGraph() {
    x = b.Input("x", DType::kFloat32, {2, 3});
    r = b.Op("Relu", {x})[0];          // node 0
    out = b.Op("Neg", {r})[0];         // node 1
    dead = b.Op("Abs", {x})[0];        // node 2
    s = b.Op("Shape", {x})[0];         // node 3
    const int c = b.Const("c", F32({2}, {1.5, -2}));
    cc = b.Op("Add", {c, c})[0];       // node 4
    b.g.outputs = {out, s, cc};
  }
  /// Constants in float32 storage, per value id.
  std::vector<Tensor> Consts() const {
    std::vector<Tensor> consts(b.g.values.size());
    for (size_t v = 0; v < b.g.values.size(); ++v)
      if (b.g.values[v].is_constant) consts[v] = b.g.values[v].constant;
    return consts;
  }
};
}  // namespace

TEST_CASE("plan: LiveNodes marks nodes no output needs as dead, unless a kept value needs them") {
  PlanGraph p;
  CHECK(LiveNodes(p.b.g) == std::vector<char>{1, 1, 0, 1, 1});
  std::vector<char> keep(p.b.g.values.size(), 0);
  keep[p.dead] = 1;  // a traced value keeps its producer
  CHECK(LiveNodes(p.b.g, keep) == std::vector<char>{1, 1, 1, 1, 1});
}

TEST_CASE("plan: InferAndFold folds weight-only and shape-only nodes and leaves the rest as steps") {
  PlanGraph p;
  const Graph& g = p.b.g;
  std::vector<Tensor> slots;
  Result<FoldResult> r = InferAndFold(g, LiveNodes(g), p.Consts(), {{2, 3}}, {DType::kFloat32}, DType::kFloat32,
                                      SIZE_MAX, &slots);
  REQUIRE(r.ok());
  CHECK(r->stop == FoldResult::Stop::kNone);
  CHECK(r->steps == std::vector<int>{0, 1});                    // Relu, Neg; Abs is dead
  CHECK(r->folded == std::vector<char>{0, 0, 0, 1, 1});         // Shape (input shape known), Add (weights)
  CHECK(r->known[p.s]);
  CHECK(r->known[p.cc]);
  CHECK(!r->known[p.r]);
  REQUIRE(slots[p.s].numel() == 2);
  CHECK(ReadInt(slots[p.s], 0) == 2);                           // Shape(x) = [2, 3]
  CHECK(ReadInt(slots[p.s], 1) == 3);
  CHECK(ReadDouble(slots[p.cc], 0) == 3.0);                     // 1.5 + 1.5
  CHECK(ReadDouble(slots[p.cc], 1) == -4.0);
  CHECK(slots[p.r].shape == Shape{2, 3});                       // inferred, no data until the arena
  CHECK(slots[p.r].data == nullptr);
  // An output over the byte limit is an error naming the node (2 x 3 float32 = 24 bytes).
  Result<FoldResult> small = InferAndFold(g, LiveNodes(g), p.Consts(), {{2, 3}}, {DType::kFloat32},
                                          DType::kFloat32, 16, &slots);
  REQUIRE(!small.ok());
  CHECK(small.status().message().find("Relu_0") != std::string::npos);
  CHECK(small.status().message().find("over the session limit of 16") != std::string::npos);
}

TEST_CASE("plan: InferAndFold stops at the first node whose output shape needs run-time data") {
  GraphBuilder b;
  const int x = b.Input("x", DType::kFloat32, {4});
  const int r = b.Op("Relu", {x})[0];       // node 0: static
  const int nz = b.Op("NonZero", {r})[0];   // node 1: its count depends on the data
  b.g.outputs = {nz};
  std::vector<Tensor> slots;
  Result<FoldResult> fr = InferAndFold(b.g, LiveNodes(b.g), std::vector<Tensor>(b.g.values.size()), {{4}},
                                       {DType::kFloat32}, DType::kFloat32, SIZE_MAX, &slots);
  REQUIRE(fr.ok());
  CHECK(fr->stop == FoldResult::Stop::kDynamic);
  CHECK(fr->at == 1);
  CHECK(fr->steps == std::vector<int>{0});
}

TEST_CASE("plan: ValueLifetimes spans each value from its writer to its last reader") {
  PlanGraph p;
  const Graph& g = p.b.g;
  std::vector<char> known(g.values.size(), 0);
  known[p.s] = known[p.cc] = 1;
  for (size_t v = 0; v < g.values.size(); ++v) known[v] = known[v] || g.values[v].is_constant;
  const std::vector<int> steps = {0, 1};  // Relu, Neg
  std::vector<Lifetime> life = ValueLifetimes(g, steps, known, {});
  CHECK(life[p.x].first == -1);  // graph input, last read by step 0
  CHECK(life[p.x].last == 0);
  CHECK(life[p.r].first == 0);   // written by step 0, read by step 1
  CHECK(life[p.r].last == 1);
  CHECK(life[p.out].first == 1); // graph output: to the end (steps.size())
  CHECK(life[p.out].last == 2);
  CHECK(life[p.s].first == -2);  // known at plan time: not a run-time value
  CHECK(life[p.dead].first == -2);
  std::vector<char> traced(g.values.size(), 0);
  traced[p.r] = 1;               // a traced value lives to the end too
  CHECK(ValueLifetimes(g, steps, known, traced)[p.r].last == 2);
}

TEST_CASE("plan: SplitPartitions cuts at each change of backend; live_out holds the values read later") {
  GraphBuilder b;
  const int x = b.Input("x", DType::kFloat32, {2});
  const int a = b.Op("Relu", {x})[0];     // node 0, backend 0
  const int c = b.Op("Neg", {a})[0];      // node 1, backend 0: a is private to the partition
  const int d = b.Op("Abs", {c})[0];      // node 2, backend 1
  const int e = b.Op("Add", {d, a})[0];   // node 3, backend 0: reads a again
  b.g.outputs = {e};
  const std::vector<int> steps = {0, 1, 2, 3};
  const std::vector<Lifetime> life = ValueLifetimes(b.g, steps, std::vector<char>(b.g.values.size(), 0), {});
  std::vector<Partition> parts = SplitPartitions(b.g, steps, {0, 0, 1, 0}, life);
  REQUIRE(parts.size() == 3);
  CHECK(parts[0].nodes == std::vector<int>{0, 1});
  CHECK(parts[0].live_out == std::vector<int>{a, c});  // a: read by node 3; c: by node 2
  CHECK(parts[1].nodes == std::vector<int>{2});
  CHECK(parts[1].live_out == std::vector<int>{d});
  CHECK(parts[2].nodes == std::vector<int>{3});
  CHECK(parts[2].live_out == std::vector<int>{e});     // graph output
}

TEST_CASE("planner reuses memory of dead buffers and keeps live ones apart") {
  // a: 100 B live [0,1]; b: 200 B live [1,2]; c: 100 B live [2,3].
  // Largest first: b at 0 (256 B aligned). a overlaps b in time -> placed after b at 256.
  // c overlaps b (step 2) but not a -> lowest free offset not overlapping b: 256 (a's slot, free).
  ArenaPlan p = PlanArena({{100, 0, 1}, {200, 1, 2}, {100, 2, 3}});
  CHECK(p.offsets[1] == 0);
  CHECK(p.offsets[0] == 256);
  CHECK(p.offsets[2] == 256);
  CHECK(p.arena_bytes == 384);
}

TEST_CASE("planner: disjoint lifetimes share offset 0; all-overlapping ones stack") {
  ArenaPlan p = PlanArena({{64, 0, 0}, {64, 1, 1}, {64, 2, 2}});
  CHECK(p.arena_bytes == 64);
  ArenaPlan q = PlanArena({{64, 0, 2}, {128, 0, 2}, {1, 0, 2}});
  CHECK(q.arena_bytes == 64 + 128 + 64);
  CHECK(PlanArena({}).arena_bytes == 0);
}
