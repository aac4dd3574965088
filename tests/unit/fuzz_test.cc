// tare fuzz (fuzz/, issue 24): the generator's models are valid and reproducible, and a planted
// bug (a test-only backend that perturbs one op at one attribute value) is found within a minute
// and reduced to at most 3 nodes.
#include <chrono>
#include <filesystem>
#include <set>

#include "backends/backend.h"
#include "format/npy.h"
#include "fuzz/fuzz.h"
#include "fuzz/reducer.h"
#include "tests/ops/op_test_util.h"
#include "tests/unit/perturb_backend.h"

using namespace tare;
using namespace tare::fuzz;

namespace {

// The planted bug: a Conv whose dilations hold a 2 (one op, one attribute value).
bool Planted(const Node& n) {
  if (n.op != "Conv") return false;
  Result<std::vector<int64_t>> d = n.GetInts("dilations");
  if (!d.ok()) return false;
  for (int64_t v : *d)
    if (v == 2) return true;
  return false;
}

}  // namespace

TEST_CASE("fuzz: the generator's models are reproducible, valid on ref64, and use the recipes' ops") {
  std::set<std::string> ops;
  int nodes = 0;
  for (uint64_t i = 0; i < 200; ++i) {
    const FuzzCase a = Generate(Mix(7, i)), b = Generate(Mix(7, i));
    REQUIRE(a.model->graph.nodes.size() == b.model->graph.nodes.size());
    for (size_t k = 0; k < a.model->graph.nodes.size(); ++k) CHECK(a.model->graph.nodes[k].op == b.model->graph.nodes[k].op);
    REQUIRE(a.inputs.size() == b.inputs.size());
    for (size_t k = 0; k < a.inputs.size(); ++k)
      for (int64_t e = 0; e < a.inputs[k].tensor.numel(); ++e) {
        const float x = a.inputs[k].tensor.as<float>()[e], y = b.inputs[k].tensor.as<float>()[e];
        CHECK((x == y || (x != x && y != y)));
      }
    CHECK(a.model->graph.Validate().ok());
    CHECK(!a.model->graph.nodes.empty());
    CHECK(a.model->graph.nodes.size() <= 8);
    nodes += static_cast<int>(a.model->graph.nodes.size());
    for (const Node& n : a.model->graph.nodes) ops.insert(n.op);
    SessionOptions o;
    o.backends = {"ref64"};
    Result<std::unique_ptr<Session>> s = Session::Create(std::shared_ptr<const Graph>(a.model, &a.model->graph), o);
    REQUIRE(s.ok());
    std::vector<NamedTensor> out;
    CHECK_MESSAGE((*s)->Run(a.inputs, &out).ok(), "seed " << a.seed);
  }
  MESSAGE(nodes << " nodes over 200 models, " << ops.size() << " ops");
  CHECK(nodes >= 400);      // a few nodes a model on average, not one
  CHECK(ops.size() >= 30);  // the recipes' variety shows up
  for (const char* op : {"Conv", "MaxPool", "AveragePool", "Softmax", "MatMul", "Gemm", "Resize", "Slice", "Concat", "BatchNormalization"})
    CHECK_MESSAGE(ops.count(op), op);
}

TEST_CASE("fuzz: a planted bug (Conv with a dilation of 2, off by 1e-3) is found within a minute and reduced to at most 3 nodes") {
  static const bool once =
      RegisterBackend("planted", [] { return std::unique_ptr<Backend>(new tare::test::PerturbBackend("planted", {}, Planted)); }).ok();
  REQUIRE(once);
  FuzzOptions o;
  o.seconds = 60;
  o.seed = 1;
  Engines e;
  e.backends = {"planted"};
  const auto t0 = std::chrono::steady_clock::now();
  // Stop at the first finding: run in slices of a few models.
  Summary found;
  for (int64_t start = 0; found.groups.empty(); start += 20) {
    REQUIRE(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 60);
    o.seed = Mix(1, static_cast<uint64_t>(start));
    o.max_models = 20;
    Result<Summary> s = RunFuzz(o, e);
    REQUIRE(s.ok());
    found = *s;
  }
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  MESSAGE("found in " << took << " s: " << found.groups[0].finding.detail << " (" << found.groups[0].original_nodes << " -> "
                      << found.groups[0].nodes << " nodes)");
  const Group& g = found.groups[0];
  CHECK(g.finding.engine == "planted");
  CHECK(g.finding.kind == "budget");
  CHECK(g.finding.op == "Conv");
  CHECK(g.finding.attrs.find("dilations") != std::string::npos);
  CHECK(g.reproduced);
  CHECK(g.nodes >= 1);
  CHECK(g.nodes <= 3);
  CHECK(took < 60);
  // ref, with the same models, has no finding.
  e.backends = {"ref"};
  o.seed = 1;
  o.max_models = 100;
  Result<Summary> clean = RunFuzz(o, e);
  REQUIRE(clean.ok());
  CHECK(clean->groups.empty());
}

TEST_CASE("fuzz: the reducer shrinks input shapes to the smallest that still show the finding") {
  // One Conv (3x3, dilations 2, no pads) on x [2, 3, 8, 9], perturbed by the planted backend. By
  // hand: N goes to 1, C stays 3 (the weights' C), H and W go to 5 (the dilated kernel's extent).
  static const bool once =
      RegisterBackend("planted_shrink", [] { return std::unique_ptr<Backend>(new tare::test::PerturbBackend("planted_shrink", {}, Planted)); }).ok();
  REQUIRE(once);
  FuzzCase c;
  c.seed = 1;
  c.model = std::make_shared<Model>();
  Graph& g = c.model->graph;
  Value x;
  x.name = "x";
  x.dtype = DType::kFloat32;
  x.shape = {2, 3, 8, 9};
  x.has_shape = true;
  g.inputs.push_back(g.AddValue(x));
  Value w;
  w.name = "w";
  w.dtype = DType::kFloat32;
  w.shape = {4, 3, 3, 3};
  w.has_shape = true;
  w.is_constant = true;
  w.constant = tare::test::F32(w.shape, std::vector<double>(4 * 3 * 3 * 3, 0.25));
  const int wv = g.AddValue(w);
  Value y;
  y.name = "y";
  y.dtype = DType::kFloat32;
  y.shape = {2, 4, 4, 5};
  y.has_shape = true;
  const int yv = g.AddValue(y);
  Node n = tare::test::NodeOf("Conv").Attr("dilations", std::vector<int64_t>{2, 2});
  n.name = "Conv_0";
  n.inputs = {g.inputs[0], wv};
  n.outputs = {yv};
  g.nodes.push_back(n);
  g.outputs.push_back(yv);
  std::vector<double> xs(2 * 3 * 8 * 9);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = 0.5 + 0.01 * static_cast<double>(i % 17);
  c.inputs.push_back({"x", tare::test::F32({2, 3, 8, 9}, xs)});
  Engines e;
  e.backends = {"planted_shrink"};
  const CheckResult r = Check(c, e);
  REQUIRE(r.findings.size() == 1);
  const Reduced red = Reduce(c, r.findings[0], e);
  REQUIRE(red.reproduced);
  std::string got;
  for (int64_t d : red.c.inputs[0].tensor.shape) got += std::to_string(d) + " ";
  CAPTURE(got);
  CAPTURE(red.checks);
  CHECK(red.c.inputs[0].tensor.shape == Shape{1, 3, 5, 5});
  CHECK(red.c.model->graph.values[static_cast<size_t>(red.c.model->graph.outputs[0])].shape == Shape{1, 4, 1, 1});
}

TEST_CASE("fuzz: with isolation a crash and a hang are findings, reduced, and the run goes on") {
  // Planted: a backend that crashes (SIGSEGV) on the planted Conv and one that hangs there. Run
  // in a worker process, each is a finding of its kind on the model it happened in, reduced (each
  // candidate in a child) to at most 3 nodes; the run checks the models after it too.
  using tare::test::Fault;
  static const bool once =
      RegisterBackend("crashes", [] { return std::unique_ptr<Backend>(new tare::test::PerturbBackend("crashes", {}, Planted, Fault::kCrash)); })
          .ok() &&
      RegisterBackend("hangs", [] { return std::unique_ptr<Backend>(new tare::test::PerturbBackend("hangs", {}, Planted, Fault::kHang)); }).ok();
  REQUIRE(once);
  // The first slice of 20 models with a planted Conv (as the planted-bug test finds it).
  FuzzOptions probe;
  probe.max_models = 20;
  probe.reduce = false;
  Engines planted;
  planted.backends = {"planted_probe"};
  static const bool once2 =
      RegisterBackend("planted_probe", [] { return std::unique_ptr<Backend>(new tare::test::PerturbBackend("planted_probe", {}, Planted)); }).ok();
  REQUIRE(once2);
  uint64_t seed = 0;
  for (int64_t start = 0; seed == 0 && start < 400; start += 20) {
    probe.seed = Mix(1, static_cast<uint64_t>(start));
    Result<Summary> s = RunFuzz(probe, planted);
    REQUIRE(s.ok());
    if (!s->groups.empty()) seed = probe.seed;
  }
  REQUIRE(seed != 0);
  for (const std::string engine : {"crashes", "hangs"}) {
    CAPTURE(engine);
    const std::filesystem::path out = std::filesystem::temp_directory_path() / ("tare_fuzz_isolate_" + engine);
    std::filesystem::remove_all(out);
    FuzzOptions o;
    o.seed = seed;
    o.max_models = 20;
    o.isolate = true;
    o.hang_seconds = 1;
    o.out = out.string();
    Engines e;
    e.backends = {engine};
    Result<Summary> s = RunFuzz(o, e);
    REQUIRE(s.ok());
    CHECK(s->models == 20);  // every model counted: the run went on after each fault
    REQUIRE(!s->groups.empty());
    const Group& g = s->groups[0];
    CHECK(g.finding.engine == engine);
    CHECK(g.finding.kind == (engine == "crashes" ? "crash" : "hang"));
    CHECK(g.reproduced);
    CHECK(g.nodes >= 1);
    CHECK(g.nodes <= 3);
    CHECK(g.finding.op.find("Conv") != std::string::npos);
    CHECK(std::filesystem::exists(out / g.dir / "model.onnx"));
    CHECK(std::filesystem::exists(out / "summary.json"));
    MESSAGE(engine << ": " << g.finding.detail << ", x" << g.count << " (" << g.original_nodes << " -> " << g.nodes << " nodes)");
    std::filesystem::remove_all(out);
  }
}

TEST_CASE("fuzz: the budget findings of tests/fuzz/budget_findings (mended budgets) are findings no more") {
  namespace fs = std::filesystem;
  Engines e;
  for (const std::string& b : AvailableBackends())
    if (b == "ref" || b == "cpu" || b == "onednn") e.backends.push_back(b);
  int seen = 0;
  for (const fs::directory_entry& d : fs::directory_iterator(fs::path(TARE_SOURCE_DIR) / "tests/fuzz/budget_findings")) {
    if (!d.is_directory()) continue;
    CAPTURE(d.path().filename().string());
    FuzzCase c;
    Result<std::shared_ptr<Model>> m = LoadModel((d.path() / "model.tare").string());
    REQUIRE(m.ok());
    c.model = *m;
    for (int v : c.model->graph.inputs) {
      const std::string& name = c.model->graph.values[static_cast<size_t>(v)].name;
      Result<Tensor> t = ReadNpy((d.path() / (SafeName(name) + ".npy")).string());
      REQUIRE(t.ok());
      c.inputs.push_back({name, *t});
    }
    const CheckResult r = Check(c, e);
    CHECK(r.ok);
    for (const Finding& f : r.findings) FAIL_CHECK(f.engine << " " << f.kind << ": " << f.detail);
    ++seen;
  }
  CHECK(seen == 19);
}
