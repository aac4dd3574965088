// compare/budget, compare/layers, SessionOptions::pins: a budget computed by hand, pins and their
// errors, and a planted kernel error (a test-only backend that perturbs one node) found by the
// chained and isolated modes and by bisection, with a one-node reproducer that shows it alone.
#include <doctest/doctest.h>

#include <cmath>
#include <cfloat>

#include "backends/backend.h"
#include "compare/budget.h"
#include "compare/layers.h"
#include "runtime/session.h"
#include "tests/ops/op_test_util.h"
#include "tests/unit/graph_builder.h"
#include "tests/unit/perturb_backend.h"

using namespace tare;
using namespace tare::test;

namespace {

// x [1,1,4,4] -> Conv(2x2, +b1) -> Relu -> Conv(2x2, +b2) -> Sigmoid; nodes Conv_0, Relu_1,
// Conv_2, Sigmoid_3.
std::shared_ptr<Model> Net() {
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {1, 1, 4, 4});
  int w1 = b.Const("w1", F32({1, 1, 2, 2}, {1, 1, 0.5, 0.25}));
  int c1 = b.Const("b1", F32({1}, {0.1f}));
  int w2 = b.Const("w2", F32({1, 1, 2, 2}, {0.5, 0.5, -0.5, 1}));
  int c2 = b.Const("b2", F32({1}, {0.2f}));
  int v = b.Op("Conv", {x, w1, c1})[0];
  v = b.Op("Relu", {v})[0];
  v = b.Op("Conv", {v, w2, c2})[0];
  v = b.Op("Sigmoid", {v})[0];
  b.g.outputs = {v};
  auto m = std::make_shared<Model>();
  m->graph = b.g;
  return m;
}

// Small enough that Sigmoid does not saturate: Conv_2's outputs are about 1 to 3.
Tensor Input() {
  std::vector<double> v;
  for (int i = 1; i <= 16; ++i) v.push_back(0.05 * i);
  return F32({1, 1, 4, 4}, v);
}

void RegisterPerturb() {
  static const bool once = [] {
    // Conv_2 off by 1e-3: a planted kernel error (tests/unit/perturb_backend.h).
    REQUIRE(RegisterBackend("perturb", [] {
              return std::unique_ptr<Backend>(new tare::test::PerturbBackend("perturb", {"Conv", "Relu", "Sigmoid"},
                                                                       [](const Node& n) { return n.name == "Conv_2"; }));
            }).ok());
    return true;
  }();
  (void)once;
}

std::vector<std::pair<std::string, std::string>> Placement(const std::shared_ptr<Model>& m, SessionOptions o) {
  Result<std::unique_ptr<Session>> s = Session::Create(std::shared_ptr<const Graph>(m, &m->graph), o);
  REQUIRE(s.ok());
  std::vector<NamedTensor> out;
  REQUIRE((*s)->Run({{"x", Input()}}, &out).ok());
  return (*s)->Placement();
}

std::string CreateError(const std::shared_ptr<Model>& m, SessionOptions o) {
  Result<std::unique_ptr<Session>> s = Session::Create(std::shared_ptr<const Graph>(m, &m->graph), o);
  return s.ok() ? "" : s.status().message();
}

}  // namespace

TEST_CASE("budget: LayerNormalization's scale is its terms' magnitude, computed by hand") {
  // x = 1 2 3 6 (one block of K = 4): mean 3, var (4 + 1 + 0 + 9) / 4 = 3.5, epsilon 0.5, so
  // sd = 2. Scale 1 -1 2 4, B 1 1 -1 -6: y = (x - 3) / 2 * Scale + B = 0, 1.5, -1, 0.
  // Terms' magnitude (|x| + |mean|) |Scale| / sd + |B| = 3, 3.5, 7, 24.
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {1, 4});
  int sc = b.Input("scale", DType::kFloat32, {4});
  int bb = b.Input("b", DType::kFloat32, {4});
  b.g.outputs = b.Op("LayerNormalization", {x, sc, bb});
  b.g.nodes[0].attrs["epsilon"] = FloatAttr(0.5f);
  const Node& n = b.g.nodes[0];
  std::vector<Tensor> in = {F32({1, 4}, {1, 2, 3, 6}), F32({4}, {1, -1, 2, 4}), F32({4}, {1, 1, -1, -6})};
  CHECK(PlanBudget(n, 3).scale == BudgetScale::kNormTerms);
  const std::vector<double> terms = NormTermScale(n, in);
  REQUIRE(terms.size() == 4);
  const double want_terms[] = {3, 3.5, 7, 24};
  for (size_t i = 0; i < 4; ++i) CHECK(terms[i] == doctest::Approx(want_terms[i]).epsilon(1e-12));
  // Units (2K + 8) = 16: the bound of element 3 (y = 0) is 16 eps 24 + FLT_MIN, not FLT_MIN.
  const double unit = 16 / 16777216.0;
  Tensor want = Make(DType::kFloat64, {1, 4}, {0, 1.5, -1, 0});
  Result<BudgetCheck> c = CheckBudget(b.g, n, in, {Make(DType::kFloat64, {1, 4}, {0, 1.5, -1, 0.5 * unit * 24})}, {want}, {});
  REQUIRE(c.ok());
  CHECK(c->units == 16);
  CHECK(c->ratio == doctest::Approx(0.5).epsilon(1e-6));
  c = CheckBudget(b.g, n, in, {Make(DType::kFloat64, {1, 4}, {0, 1.5, -1, 3 * unit * 24})}, {want}, {});
  REQUIRE(c.ok());
  CHECK(c->ratio == doctest::Approx(3).epsilon(1e-6));
  // Scale broadcast otherwise (two values for a block of four): no terms' scale, |y| as before.
  CHECK(NormTermScale(n, {in[0], F32({2}, {1, 1}), in[2]}).empty());
}

TEST_CASE("budget: MatMul's bound computed by hand, within and beyond") {
  // x [1,4] = 1 2 3 4, w [4,1] = 1 -1 1 -1: y = -2, sum|w x| = 10. MatMul's budget (kBudgetDot):
  // (2 + K) eps sum|w x| with K = 4, eps = 2^-24: bound = 6 * 10 * 2^-24 + FLT_MIN.
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {1, 4});
  int w = b.Input("w", DType::kFloat32, {4, 1});
  b.g.outputs = b.Op("MatMul", {x, w});
  const Node& n = b.g.nodes[0];
  std::vector<Tensor> in = {F32({1, 4}, {1, 2, 3, 4}), F32({4, 1}, {1, -1, 1, -1})};
  const BudgetPlan plan = PlanBudget(n, 2);
  CHECK(plan.scale == BudgetScale::kAbsInputs);
  CHECK(plan.abs_inputs == std::vector<char>{1, 1});
  const double bound = 6 * 10 / 16777216.0 + FLT_MIN;
  Tensor want = Make(DType::kFloat64, {1, 1}, {-2});
  Tensor scale = Make(DType::kFloat64, {1, 1}, {10});
  Result<BudgetCheck> c = CheckBudget(b.g, n, in, {Make(DType::kFloat64, {1, 1}, {-2 + 0.5 * bound})}, {want}, {scale});
  REQUIRE(c.ok());
  CHECK(c->evaluated);
  CHECK(c->k == 4);
  CHECK(c->units == 6);
  CHECK(c->ratio == doctest::Approx(0.5).epsilon(1e-9));
  CHECK(c->worst_output == "MatMul_0:0");
  c = CheckBudget(b.g, n, in, {Make(DType::kFloat64, {1, 1}, {-2 - 3 * bound})}, {want}, {scale});
  REQUIRE(c.ok());
  CHECK(c->ratio == doctest::Approx(3).epsilon(1e-9));
  // Without the |inputs| run the scale is |y| = 2: the same error is 5 times the bound.
  c = CheckBudget(b.g, n, in, {Make(DType::kFloat64, {1, 1}, {-2 + 0.5 * bound})}, {want}, {});
  REQUIRE(c.ok());
  CHECK(c->ratio == doctest::Approx(0.5 * bound / (6 * 2 / 16777216.0 + FLT_MIN)).epsilon(1e-9));
  // A NaN on one side only is infinitely over; a shape mismatch is an error.
  c = CheckBudget(b.g, n, in, {Make(DType::kFloat64, {1, 1}, {NAN})}, {want}, {scale});
  REQUIRE(c.ok());
  CHECK(std::isinf(c->ratio));
  CHECK_FALSE(CheckBudget(b.g, n, in, {Make(DType::kFloat64, {1, 2}, {0, 0})}, {want}, {scale}).ok());
}

TEST_CASE("budget: reduction lengths of Conv, Gemm, ReduceSum and LSTM") {
  double steps = 0;
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {1, 3, 8, 8});
  b.Op("Conv", {x, x});
  CHECK(ReductionLength(b.g.nodes[0], {Tensor::Alloc(DType::kFloat32, {1, 3, 8, 8}).value(),
                                       Tensor::Alloc(DType::kFloat32, {16, 3, 3, 3}).value()}, &steps) == 27);
  CHECK(steps == 1);
  b.Op("Gemm", {x, x}, 1, {{"transA", GraphBuilder::Int(1)}});
  CHECK(ReductionLength(b.g.nodes[1], {Tensor::Alloc(DType::kFloat32, {5, 7}).value(), Tensor::Alloc(DType::kFloat32, {5, 2}).value()},
                        &steps) == 5);
  b.Op("ReduceSum", {x}, 1, {{"axes", GraphBuilder::Ints({1, -1})}});
  CHECK(ReductionLength(b.g.nodes[2], {Tensor::Alloc(DType::kFloat32, {2, 3, 4, 5}).value()}, &steps) == 15);
  b.Op("LSTM", {x, x, x});
  // X [seq 6, batch 1, input 3], W [1, 4*hidden 8, 3]: K = 3 + 2, 6 steps.
  CHECK(ReductionLength(b.g.nodes[3], {Tensor::Alloc(DType::kFloat32, {6, 1, 3}).value(), Tensor::Alloc(DType::kFloat32, {1, 8, 3}).value(),
                                       Tensor::Alloc(DType::kFloat32, {1, 8, 2}).value()}, &steps) == 5);
  CHECK(steps == 6);
}

TEST_CASE("pins: a node forced onto a backend, and the errors") {
  RegisterPerturb();
  auto m = Net();
  SessionOptions o;
  o.backends = {"ref"};
  o.pins = {{"Relu_1", "perturb"}};
  auto p = Placement(m, o);
  REQUIRE(p.size() == 4);
  CHECK(p[0].second == "ref");
  CHECK(p[1].second == "perturb");
  CHECK(p[2].second == "ref");  // perturb runs Conv too, but only pinned nodes go to a pin-only backend
  // Pinned to the fallback while the first backend claims it.
  o.backends = {"perturb"};
  o.pins = {{"Conv_2", "ref"}};
  p = Placement(m, o);
  CHECK(p[0].second == "perturb");
  CHECK(p[2].second == "ref");
  o.pins = {{"NoSuchNode", "ref"}};
  CHECK(CreateError(m, o) == "--pin NoSuchNode=ref: the model has no node named 'NoSuchNode'");
  o.backends = {"ref"};
  o.pins = {{"Relu_1", "ref64"}};
  CHECK(CreateError(m, o).find("different precision") != std::string::npos);
  o.pins = {{"Relu_1", "nosuch"}};
  CHECK(CreateError(m, o).find("--pin Relu_1=nosuch") != std::string::npos);
  // A registered name cannot be taken twice, nor a built-in one.
  CHECK_FALSE(RegisterBackend("perturb", [] { return std::unique_ptr<Backend>(); }).ok());
  CHECK_FALSE(RegisterBackend("ref", [] { return std::unique_ptr<Backend>(); }).ok());
}

TEST_CASE("pins: a backend that does not run the node is refused with the node named") {
  RegisterPerturb();
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {2});
  b.g.outputs = b.Op("Tanh", {x});
  auto m = std::make_shared<Model>();
  m->graph = b.g;
  SessionOptions o;
  o.backends = {"ref"};
  o.pins = {{"Tanh_0", "perturb"}};
  const std::string e = CreateError(m, o);
  CHECK(e.find("--pin Tanh_0=perturb: backend 'perturb' does not run") != std::string::npos);
  CHECK(e.find("Tanh_0") != std::string::npos);
}

TEST_CASE("layers: a planted kernel error is over budget in isolated mode, found by bisection, reproduced alone") {
  RegisterPerturb();
  auto m = Net();
  size_t traced = 0;
  Result<ModelRuns> mr = RunForComparison(m, "net", {{"x", Input()}}, {"ref64", "ref", "perturb"}, {}, &traced, true);
  REQUIRE(mr.ok());
  REQUIRE(mr->runs.size() == 3);
  const BackendRun &r64 = mr->runs[0], &perturb = mr->runs[2];
  const std::map<std::string, bool> known = KnownValues(m->graph, perturb.placement);

  // Chained: Conv_0 and Relu_1 agree with ref64 to float32 rounding, Conv_2 is off by 1e-3 and
  // Sigmoid_3 inherits it.
  BackendLayers chained = ChainedLayers(m->graph, "perturb", perturb.values, perturb.placement, r64.values);
  REQUIRE(chained.nodes.size() == 4);
  REQUIRE(chained.nodes[0].chained.has_value());
  CHECK(chained.nodes[0].chained->max_abs < 1e-5);
  REQUIRE(chained.nodes[2].chained.has_value());
  CHECK(chained.nodes[2].chained->max_abs == doctest::Approx(1e-3).epsilon(1e-3));
  CHECK(chained.nodes[3].chained->max_abs > 1e-5);

  // Isolated: only Conv_2 is over its budget; Sigmoid_3, fed ref64's inputs, is within.
  IsolateNodes(m->graph, r64.values, perturb.values, known, &chained);
  CHECK(chained.isolated == 4);
  CHECK(chained.over_budget == 1);
  CHECK(chained.worst_node == "Conv_2");
  CHECK(chained.nodes[2].isolated->ratio > 100);
  CHECK(chained.nodes[2].isolated_placement == "perturb");
  for (int i : {0, 1, 3}) {
    REQUIRE(chained.nodes[static_cast<size_t>(i)].isolated.has_value());
    CHECK(chained.nodes[static_cast<size_t>(i)].isolated->ratio <= 1);
  }
  // ref's own kernels are within budget everywhere.
  BackendLayers ref = ChainedLayers(m->graph, "ref", mr->runs[1].values, mr->runs[1].placement, r64.values);
  IsolateNodes(m->graph, r64.values, mr->runs[1].values, KnownValues(m->graph, mr->runs[1].placement), &ref);
  CHECK(ref.isolated == 4);
  CHECK(ref.over_budget == 0);

  // Bisection names Conv_2, with its op, input shapes and a reproducer of that node alone.
  Result<Bisection> bi = BisectBackend(m, "perturb", {{"x", Input()}}, r64.outputs, r64.values, perturb.placement, perturb.values, 1e-5);
  REQUIRE(bi.ok());
  CHECK(bi->verdict == "found");
  CHECK(bi->reference == "ref");
  CHECK(bi->candidates == 4);
  CHECK(bi->name == "Conv_2");
  CHECK(bi->op == "Conv");
  REQUIRE(bi->input_shapes.size() == 3);
  CHECK(bi->input_shapes[0] == Shape{1, 1, 3, 3});
  CHECK(bi->input_shapes[1] == Shape{1, 1, 2, 2});
  CHECK(bi->with_node.rel_l2 > 1e-5);
  CHECK(bi->before_node.rel_l2 <= 1e-5);
  REQUIRE(bi->isolated.has_value());
  CHECK(bi->isolated->ratio > 100);
  CHECK(bi->text.find("a kernel bug") != std::string::npos);
  REQUIRE(bi->reproducer.has_value());
  const OneNodeModel& rep = *bi->reproducer;
  REQUIRE(rep.graph->nodes.size() == 1);
  CHECK(rep.graph->nodes[0].op == "Conv");
  REQUIRE(rep.inputs.size() == 1);  // the weights stay weights
  CHECK(rep.inputs[0].name == "Relu_1:0");
  // The reproducer alone: perturb and ref64 differ by the planted 1e-3 at every element.
  auto run = [&](const std::string& backend) {
    SessionOptions o;
    o.backends = {backend};
    Result<std::unique_ptr<Session>> s = Session::Create(rep.graph, o);
    REQUIRE(s.ok());
    std::vector<NamedTensor> out;
    REQUIRE((*s)->Run(rep.inputs, &out).ok());
    return out[0].tensor;
  };
  Tensor a = run("perturb"), b = run("ref64");
  REQUIRE(a.numel() == 4);
  for (int64_t i = 0; i < a.numel(); ++i) CHECK(ReadDouble(a, i) - ReadDouble(b, i) == doctest::Approx(1e-3).epsilon(1e-3));

  // A backend within the threshold has nothing to bisect.
  bi = BisectBackend(m, "ref", {{"x", Input()}}, r64.outputs, r64.values, mr->runs[1].placement, mr->runs[1].values, 1e-5);
  REQUIRE(bi.ok());
  CHECK(bi->verdict == "within threshold");
}

TEST_CASE("layers: a framework leaves ref64 at the first layer beyond 10 times tare's per-layer noise floor") {
  auto node = [](int index, double rel_l2, bool compared = true) {
    NodeDistance d;
    d.node = index;
    d.name = "n" + std::to_string(index);
    d.op = "Conv";
    if (compared) {
      Metrics m;
      m.rel_l2 = rel_l2;
      d.chained = m;
    }
    return d;
  };
  BackendLayers ref, cpu, ort;
  ref.backend = "ref";
  cpu.backend = "cpu";
  ort.backend = "ort";
  // Node 0: floor max(1e-7, 2e-7) = 2e-7, ort 1.9e-6 (9.5 times: stays); node 1: not in ort's
  // values; node 2: floor 1e-7, ort 5e-6 (50 times: leaves); node 3 would leave too.
  ref.nodes = {node(0, 1e-7), node(1, 1e-7), node(2, 1e-7), node(3, 1e-7)};
  cpu.nodes = {node(0, 2e-7), node(1, 1e-7), node(2, 5e-8), node(3, 1e-7)};
  ort.nodes = {node(0, 1.9e-6), node(1, 0, false), node(2, 5e-6), node(3, 1e-3)};
  Departure d = FirstDeparture(ort, {ref, cpu});
  CHECK(d.found);
  CHECK(d.name == "n2");
  CHECK(d.node == 2);
  CHECK(d.floor == doctest::Approx(1e-7));
  CHECK(d.ratio == doctest::Approx(50));
  CHECK(d.compared == 2);
  // Without node 2 and 3: within, the largest ratio 9.5 at node 0.
  ort.nodes.resize(2);
  d = FirstDeparture(ort, {ref, cpu});
  CHECK_FALSE(d.found);
  CHECK(d.worst_node == "n0");
  CHECK(d.ratio == doctest::Approx(9.5));
  // No tare backend at a layer: the floor is float32's unit roundoff 2^-24; a NaN distance leaves.
  BackendLayers lone;
  lone.backend = "ort";
  lone.nodes = {node(0, 1e-6), node(1, std::nan(""))};  // 16.8 times 2^-24
  d = FirstDeparture(lone, {});
  CHECK(d.found);
  CHECK(d.name == "n0");
  CHECK(d.floor == 0x1p-24);
  lone.nodes = {node(0, 1e-7), node(1, std::nan(""))};
  d = FirstDeparture(lone, {});
  CHECK(d.found);
  CHECK(d.name == "n1");
}

namespace {
// The budget's scale model of node 0 of `g` (PlanBudget, MakeOneNodeModel) run on ref64 with x.
std::vector<double> ScaleOf(const Graph& g, const Tensor& x) {
  const BudgetPlan plan = PlanBudget(g.nodes[0], g.nodes[0].inputs.size());
  REQUIRE(plan.scale == BudgetScale::kAbsInputs);
  Result<OneNodeModel> m = MakeOneNodeModel(g, 0, {{"x", x}}, {}, {}, plan.abs_inputs, plan.abs_attrs);
  REQUIRE(m.ok());
  SessionOptions o;
  o.backends = {"ref64"};
  Result<std::unique_ptr<Session>> s = Session::Create(m->graph, o);
  REQUIRE(s.ok());
  std::vector<NamedTensor> out;
  REQUIRE((*s)->Run(m->inputs, &out).ok());
  std::vector<double> v;
  for (int64_t i = 0; i < out[0].tensor.numel(); ++i) v.push_back(ReadDouble(out[0].tensor, i));
  return v;
}
}  // namespace

TEST_CASE("budget: BatchNormalization, HardSigmoid and HardSwish scale with their terms' magnitudes, not a cancelled |y|") {
  // BatchNormalization x = {1, -3}, scale 2, B -0.5, mean 1.5, var 3 (eps 1e-5): the scale is
  // (|x| + |mean|) |scale| / sqrt(var + eps) + |B| = {2.5, 4.5} * 2 / sqrt(3.00001) + 0.5.
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {1, 1, 1, 2});
  int sc = b.Const("s", F32({1}, {2}));
  int bias = b.Const("B", F32({1}, {-0.5f}));
  int mean = b.Const("m", F32({1}, {1.5f}));
  int var = b.Const("v", F32({1}, {3}));
  b.g.outputs = b.Op("BatchNormalization", {x, sc, bias, mean, var});
  CHECK(PlanBudget(b.g.nodes[0], 5).abs_inputs == std::vector<char>{1, 1, 1, 2, 0});
  std::vector<double> s = ScaleOf(b.g, F32({1, 1, 1, 2}, {1, -3}));
  REQUIRE(s.size() == 2);
  CHECK(s[0] == doctest::Approx(2.5 * 2 / std::sqrt(3.00001) + 0.5).epsilon(1e-12));
  CHECK(s[1] == doctest::Approx(4.5 * 2 / std::sqrt(3.00001) + 0.5).epsilon(1e-12));
  // HardSigmoid alpha -0.2, beta -0.5, x = {-1, 10}: clip(0.2 |x| + 0.5, 0, 1) = {0.7, 1}.
  GraphBuilder h;
  int hx = h.Input("x", DType::kFloat32, {2});
  Attr alpha, beta;
  alpha.kind = beta.kind = Attr::Kind::kFloat;
  alpha.f = -0.2f;
  beta.f = -0.5f;
  h.g.outputs = h.Op("HardSigmoid", {hx}, 1, {{"alpha", alpha}, {"beta", beta}});
  s = ScaleOf(h.g, F32({2}, {-1, 10}));
  REQUIRE(s.size() == 2);
  CHECK(s[0] == doctest::Approx(0.2f * 1 + 0.5f).epsilon(1e-7));
  CHECK(s[1] == 1);
  // HardSwish x = {-2.9, 10}: |x| clip(|x| / 6 + 1/2, 0, 1) = {2.9 (2.9 / 6 + 0.5), 10}, where
  // HardSwish(-2.9) = -2.9 / 60 cancels.
  GraphBuilder w;
  int wx = w.Input("x", DType::kFloat32, {2});
  w.g.outputs = w.Op("HardSwish", {wx});
  s = ScaleOf(w.g, F32({2}, {-2.9f, 10}));
  REQUIRE(s.size() == 2);
  CHECK(s[0] == doctest::Approx(2.9 * (2.9 / 6 + 0.5)).epsilon(1e-6));
  CHECK(s[1] == 10);
}

TEST_CASE("budget: LSTM's scale is the cell run on absolute values, computed by hand for one step") {
  // One step, one hidden unit, x = -1, W (gates i, o, f, c) = {-2, 1, 0.5, -3}, R = 0, no bias, no
  // initial state. On |x|, |W|: i = sigmoid(2), o = sigmoid(1), g = tanh(3), c = i g,
  // h = o tanh(c) (the real cell gives h = sigmoid(1) tanh(sigmoid(-2) tanh(-3)) < 0).
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {1, 1, 1});
  int w = b.Const("W", F32({1, 4, 1}, {-2, 1, 0.5f, -3}));
  int r = b.Const("R", F32({1, 4, 1}, {0, 0, 0, 0}));
  b.g.outputs = b.Op("LSTM", {x, w, r}, 1, {{"hidden_size", GraphBuilder::Int(1)}});
  CHECK(PlanBudget(b.g.nodes[0], 3).abs_inputs == std::vector<char>{1, 1, 1});
  const std::vector<double> s = ScaleOf(b.g, F32({1, 1, 1}, {-1}));
  REQUIRE(s.size() == 1);
  auto sig = [](double z) { return 1 / (1 + std::exp(-z)); };
  CHECK(s[0] == doctest::Approx(sig(1) * std::tanh(sig(2) * std::tanh(3.0))).epsilon(1e-6));
}

TEST_CASE("layers: a TFLite peer's NHWC values read in tare's NCHW order, by name") {
  // ref64 holds "c" as [1,2,1,3] (NCHW) and "c/nhwc" as [1,1,3,2]; the peer holds "c" in NHWC
  // [1,1,3,2]: its element (h 0, w j, c k) is ref64's (k, 0, j).
  std::vector<double> nchw = {1, 2, 3, 4, 5, 6};  // c 0: 1 2 3, c 1: 4 5 6
  std::vector<double> nhwc = {1, 4, 2, 5, 3, 6};
  std::map<std::string, Tensor> ref64 = {{"c", F32({1, 2, 1, 3}, nchw)}, {"c/nhwc", F32({1, 1, 3, 2}, nhwc)},
                                         {"cube", F32({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})}, {"none", F32({2}, {1, 2})}};
  // "cube" [1,2,2,2] fits both layouts: the peer's values are its NHWC order.
  std::map<std::string, Tensor> peer = {{"c", F32({1, 1, 3, 2}, nhwc)}, {"cube", F32({1, 2, 2, 2}, {1, 5, 2, 6, 3, 7, 4, 8})},
                                        {"other", F32({1}, {0})}};
  int transposed = 0;
  std::map<std::string, Tensor> got = PeerValuesInTareLayout(peer, ref64, &transposed);
  CHECK(transposed == 2);
  REQUIRE(got.count("c"));
  REQUIRE(got.count("c/nhwc"));
  REQUIRE(got.count("cube"));
  CHECK_FALSE(got.count("none"));
  CHECK_FALSE(got.count("other"));
  CHECK(got["c"].shape == Shape{1, 2, 1, 3});
  CHECK(got["c/nhwc"].shape == Shape{1, 1, 3, 2});
  for (int64_t i = 0; i < 6; ++i) {
    CHECK(ReadDouble(got["c"], i) == nchw[size_t(i)]);
    CHECK(ReadDouble(got["c/nhwc"], i) == nhwc[size_t(i)]);
  }
  for (int64_t i = 0; i < 8; ++i) CHECK(ReadDouble(got["cube"], i) == i + 1);
  CHECK(got["c"].dtype == DType::kFloat32);
}

TEST_CASE("budget: Softmax's scale grows with the logits' spread |x - max x|, computed by hand") {
  // Softmax over x = {0, -40}: K = 2, units = K + 8 = 10. Element 1 is e^-40 / (1 + e^-40); its
  // bound is units eps |y| (1 + 40 / units) = 50 eps |y| (float32 rounds exp's argument -40 to an
  // absolute error of 40 eps / 2). An error of 45 eps |y| is within (0.9); 60 eps |y| is over (1.2),
  // and with a scale of |y| alone (10 eps |y|) 45 would have been 4.5 times the bound.
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {1, 2});
  b.g.outputs = b.Op("Softmax", {x});
  const Node& n = b.g.nodes[0];
  CHECK(PlanBudget(n, 1).scale == BudgetScale::kSoftmaxSpread);
  const std::vector<Tensor> in = {F32({1, 2}, {0, -40})};
  const double e = std::exp(-40.0), y0 = 1 / (1 + e), y1 = e / (1 + e), eps = 1 / 16777216.0;
  const Tensor want = Make(DType::kFloat64, {1, 2}, {y0, y1});
  Result<BudgetCheck> c = CheckBudget(b.g, n, in, {Make(DType::kFloat64, {1, 2}, {y0, y1 * (1 + 45 * eps)})}, {want}, {});
  REQUIRE(c.ok());
  CHECK(c->units == 10);
  CHECK(c->worst_index == 1);
  CHECK(c->ratio == doctest::Approx(0.9).epsilon(1e-6));
  c = CheckBudget(b.g, n, in, {Make(DType::kFloat64, {1, 2}, {y0, y1 * (1 - 60 * eps)})}, {want}, {});
  REQUIRE(c.ok());
  CHECK(c->ratio == doctest::Approx(1.2).epsilon(1e-6));
  // Element 0 is the max: its spread is 0 and its bound 10 eps |y0| (+ FLT_MIN).
  c = CheckBudget(b.g, n, in, {Make(DType::kFloat64, {1, 2}, {y0 * (1 + 5 * eps), y1})}, {want}, {});
  REQUIRE(c.ok());
  CHECK(c->ratio == doctest::Approx(0.5).epsilon(1e-6));
}
