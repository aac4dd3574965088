// The shared fast-backend test harness (backend_check.h).
#include "tests/backends/backend_check.h"

#include "compare/budget.h"

#include <algorithm>
#include <cmath>

namespace tare::test {

namespace {
constexpr double kEps32 = 1.0 / (1 << 24);
}

Tensor AbsOf(const Tensor& t) {
  if (t.dtype != DType::kFloat32 || !t.data) return t;
  Tensor a = ConvertTensor(t, DType::kFloat32).value();
  for (int64_t i = 0; i < a.numel(); ++i) a.as<float>()[i] = std::fabs(a.as<float>()[i]);
  return a;
}

std::vector<Tensor> AbsAll(const std::vector<Tensor>& in) {
  std::vector<Tensor> out;
  for (const Tensor& t : in) out.push_back(AbsOf(t));
  return out;
}

int Rnd(std::mt19937& g, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); }

std::map<std::string, double>& WorstErrors() {
  static std::map<std::string, double> w;
  return w;
}

void ReportWorst() {
  for (const auto& [op, r] : WorstErrors()) MESSAGE(op << ": worst err/tol " << r);
  WorstErrors().clear();
}

void Within(const std::string& backend, const Node& node, const Tensor& y, const Tensor& y64, double k,
            const Tensor* scale64) {
  const OpSpec* spec = FindOp(node);
  REQUIRE(spec != nullptr);
  REQUIRE(y.shape == y64.shape);
  const double units = std::max(spec->budget.c0 + spec->budget.cK * k, 0.5);
  int bad = 0;
  double& worst = WorstErrors()[node.op];
  for (int64_t i = 0; i < y.numel() && bad < 5; ++i) {
    const double g = ReadDouble(y, i), w = ReadDouble(y64, i);
    if (std::isnan(w) || std::isnan(g)) {
      CHECK(std::isnan(w) == std::isnan(g));
      continue;
    }
    const double s = scale64 ? ReadDouble(*scale64, i) : std::fabs(w);
    const double tol = units * kEps32 * s + 1e-38;
    worst = std::max(worst, std::fabs(g - w) / tol);
    if (std::fabs(g - w) > tol) {
      ++bad;
      FAIL_CHECK(node.op << " element " << i << ": " << backend << " " << g << " ref64 " << w << " tol " << tol);
    }
  }
}

bool CheckOn(const std::string& backend, const Node& node, const std::vector<Tensor>& inputs, double k,
             const std::vector<Tensor>& scale_in, const std::string& expect_on) {
  const bool abs_scale = !scale_in.empty();
  Result<std::vector<Tensor>> r64 = Run(node, inputs, DType::kFloat64);
  if (!r64.ok()) return false;
  Result<std::vector<Tensor>> r32 = Run(node, inputs, DType::kFloat32);
  REQUIRE(r32.ok());
  std::vector<Tensor> scale;
  if (abs_scale) scale = Run(node, scale_in, DType::kFloat64).value();
  if (PlanBudget(node, inputs.size()).scale == BudgetScale::kNormTerms) {
    // LayerNormalization: the magnitude of the terms (compare/budget.h), as `tare compare` uses.
    const std::vector<double> terms = NormTermScale(node, inputs);
    REQUIRE(static_cast<int64_t>(terms.size()) == inputs[0].numel());
    scale = {Tensor::Alloc(DType::kFloat64, inputs[0].shape).value()};
    std::copy(terms.begin(), terms.end(), scale[0].as<double>());
  }
  for (int threads : {1, 2}) {
    CAPTURE(threads);
    std::string ran_on;
    Result<std::vector<NamedTensor>> r = Status::Error("not run");
    REQUIRE(RunOneNodeSession(node, inputs, *r32, backend, threads, &ran_on, &r));
    if (!r.ok()) FAIL_CHECK(r.status().message());
    REQUIRE(r.ok());
    CHECK(ran_on == (expect_on.empty() ? backend : expect_on));
    Within(backend, node, (*r)[0].tensor, (*r64)[0], k, scale.empty() ? nullptr : &scale[0]);
  }
  return true;
}

std::string RanOn(const std::string& backend, const Node& node, const std::vector<Tensor>& inputs) {
  Result<std::vector<Tensor>> r32 = Run(node, inputs, DType::kFloat32);
  REQUIRE(r32.ok());
  std::string ran_on;
  Result<std::vector<NamedTensor>> r = Status::Error("not run");
  REQUIRE(RunOneNodeSession(node, inputs, *r32, backend, 1, &ran_on, &r));
  REQUIRE(r.ok());
  return ran_on;
}

void CheckAfterConv(const std::string& backend, const Node& node, const std::vector<Tensor>& inputs, double k,
                    const std::vector<Tensor>& scale_in) {
  const bool abs_scale = !scale_in.empty();
  const Shape& s = inputs[0].shape;
  REQUIRE(s.size() == 4);
  const int64_t C = s[1];
  std::vector<double> eye(static_cast<size_t>(C * C), 0.0);
  for (int64_t i = 0; i < C; ++i) eye[static_cast<size_t>(i * C + i)] = 1;
  Result<std::vector<Tensor>> r64 = Run(node, inputs, DType::kFloat64);
  REQUIRE(r64.ok());
  std::vector<Tensor> scale;
  if (abs_scale) scale = Run(node, scale_in, DType::kFloat64).value();
  if (PlanBudget(node, inputs.size()).scale == BudgetScale::kNormTerms) {
    // LayerNormalization: the magnitude of the terms (compare/budget.h), as `tare compare` uses.
    const std::vector<double> terms = NormTermScale(node, inputs);
    REQUIRE(static_cast<int64_t>(terms.size()) == inputs[0].numel());
    scale = {Tensor::Alloc(DType::kFloat64, inputs[0].shape).value()};
    std::copy(terms.begin(), terms.end(), scale[0].as<double>());
  }
  for (int threads : {1, 2}) {
    G g;
    int x = g.Input("x", s);
    int t = g.Add(NodeOf("Conv"), {x, g.Const("eye", F32({C, C, 1, 1}, eye))}, "t");
    std::vector<int> ins = {t};
    for (size_t i = 1; i < inputs.size(); ++i)
      ins.push_back(inputs[i].data ? g.Const("w" + std::to_string(i), inputs[i]) : -1);
    int y = g.Add(node, ins, "y");
    g.g->outputs.push_back(y);
    auto sess = MakeSession(g.g, backend, threads);
    std::vector<NamedTensor> out = RunS(*sess, {{"x", inputs[0]}});
    CHECK(PlacementOf(*sess, "t") == backend);
    CHECK(PlacementOf(*sess, "y") == backend);
    Within(backend, node, out[0].tensor, (*r64)[0], k, abs_scale ? &scale[0] : nullptr);
  }
}

int G::Input(const std::string& name, const Shape& s) {
  Value v;
  v.name = name;
  v.dtype = DType::kFloat32;
  v.shape = s;
  v.has_shape = true;
  int id = g->AddValue(v);
  g->inputs.push_back(id);
  return id;
}

int G::Const(const std::string& name, const Tensor& t) {
  Value v;
  v.name = name;
  v.dtype = t.dtype;
  v.shape = t.shape;
  v.has_shape = true;
  v.is_constant = true;
  v.constant = t;
  return g->AddValue(v);
}

int G::Add(Node n, std::vector<int> ins, const std::string& out, int n_out) {
  n.name = out;
  n.inputs = std::move(ins);
  n.outputs.clear();
  for (int o = 0; o < n_out; ++o) {
    Value v;
    v.name = o ? out + "_" + std::to_string(o) : out;
    v.dtype = o ? DType::kInt64 : DType::kFloat32;
    n.outputs.push_back(g->AddValue(v));
  }
  g->nodes.push_back(n);
  return n.outputs[0];
}

std::unique_ptr<Session> MakeSession(const std::shared_ptr<Graph>& g, const std::string& backend, int threads,
                                     std::vector<std::string> trace) {
  SessionOptions o;
  o.backends = {backend};
  o.threads = threads;
  o.trace = std::move(trace);
  Result<std::unique_ptr<Session>> s = Session::Create(g, o);
  if (!s.ok()) FAIL(s.status().message());
  return std::move(s).value();
}

std::vector<NamedTensor> RunS(Session& s, const std::vector<NamedTensor>& in) {
  std::vector<NamedTensor> out;
  Status st = s.Run(in, &out);
  if (!st.ok()) FAIL(st.message());
  return out;
}

void CheckLayerNorm(const Tensor& x, const Tensor& y, int64_t D, float eps, const float* gamma, const float* beta,
                    const std::string& what) {
  constexpr double kEps32 = 1.0 / (1 << 24);
  REQUIRE(y.numel() == x.numel());
  const int64_t rows = x.numel() / D;
  int bad = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x.as<float>() + r * D;
    const float* yr = y.as<float>() + r * D;
    double mean = 0, var = 0;
    for (int64_t i = 0; i < D; ++i) mean += xr[i];
    mean /= double(D);
    if (std::isnan(mean)) {
      for (int64_t i = 0; i < D; ++i)
        if (!std::isnan(yr[i]) && ++bad <= 3) FAIL_CHECK(what << " row " << r << " (holds a NaN) element " << i << ": " << yr[i]);
      continue;
    }
    for (int64_t i = 0; i < D; ++i) var += (xr[i] - mean) * (xr[i] - mean);
    const double sd = std::sqrt(var / double(D) + double(eps));
    for (int64_t i = 0; i < D; ++i) {
      const double gi = gamma ? gamma[i] : 1.0, bi = beta ? beta[i] : 0.0;
      const double want = (xr[i] - mean) / sd * gi + bi;
      const double tol = (4.0 * double(D) + 16) * kEps32 * (std::fabs(gi) * (std::fabs(xr[i]) + std::fabs(mean)) / sd + std::fabs(bi));
      if (!(std::fabs(yr[i] - want) <= tol) && ++bad <= 3)
        FAIL_CHECK(what << " row " << r << " element " << i << ": " << yr[i] << " want " << want);
    }
  }
  CHECK_MESSAGE(bad == 0, what << ": " << bad << " elements outside the bound");
}

NormGelu::NormGelu(const Shape& xs, std::mt19937& rng, bool expose, bool affine) {
  const int64_t D = xs.back();
  const int x = g.Input("x", xs);
  NodeOf mean("ReduceMean");
  mean.Attr("axes", std::vector<int64_t>{-1});
  const int m = g.Add(mean, {x}, "m");
  const int d = g.Add(NodeOf("Sub"), {x, m}, "d");
  const int p = g.Add(NodeOf("Pow"), {d, g.Const("two", F32({}, {2.0}))}, "p");
  const int v = g.Add(mean, {p}, "v");
  const int e = g.Add(NodeOf("Add"), {v, g.Const("eps", F32({}, {1e-5}))}, "e");
  const int s = g.Add(NodeOf("Sqrt"), {e}, "s");
  y_norm = g.Add(NodeOf("Div"), {d, s}, "n");
  if (affine) {
    gamma = RandF32({D}, rng, 0.5, 1.5);
    beta = RandF32({D}, rng, -1, 1);
    const int gm = g.Add(NodeOf("Mul"), {g.Const("gamma", gamma), y_norm}, "gm");
    y_norm = g.Add(NodeOf("Add"), {gm, g.Const("beta", beta)}, "y_norm");
  }
  const int a = g.Add(NodeOf("Div"), {y_norm, g.Const("sqrt2", F32({}, {1.4142135381698608}))}, "a");
  const int b = g.Add(NodeOf("Erf"), {a}, "b");
  const int c = g.Add(NodeOf("Add"), {b, g.Const("one", F32({}, {1.0}))}, "c");
  const int dd = g.Add(NodeOf("Mul"), {y_norm, c}, "dd");
  y_gelu = g.Add(NodeOf("Mul"), {dd, g.Const("half", F32({}, {0.5}))}, "y_gelu");
  g.g->outputs = {y_norm, y_gelu};
  if (expose) g.g->outputs.insert(g.g->outputs.end(), {d, b});
}

}  // namespace tare::test
