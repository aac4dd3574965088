// The cpu backend's kernels for 2020s architectures (issue 23): Erf, Tanh, Exp and Log (Eigen's
// packet functions where the CPU allows AVX2, else the reference's) and Sigmoid and the fused SiLU
// (the own vector kernels, else XNNPACK's mended) over every float range against
// the C library's double functions computed here, within kBudgetTranscendental (8 eps |y|, plus
// 1e-38 absolute as the op tables allow below FLT_MIN), with NaN, infinities, zeros and denormals;
// ReduceSum/Mean/Max/Min, Pow and Slice on cpu bit-identical to ref; batched, broadcast MatMul on run-time
// operands against a product summed in double here, within (K + 2) eps sum|a b|. Each node must run
// on cpu (not fall back to ref). TARE_CPU_ISA=generic runs the same cases on the plain paths
// (ctest's cpu_math.generic).
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>

#include "backends/cpu/isa.h"
#include "tests/backends/backend_check.h"
#include "tests/backends/op_cases.h"
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {

constexpr double kEps32 = 1.0 / (1 << 24);

/// Values over the whole float range: +-10^u for u in [-45, 39], zeros, denormals, infinities,
/// NaN, and a dense grid over [-10, 10].
std::vector<double> Sweep() {
  std::vector<double> v = {0.0, -0.0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN(), 1e-45, -1e-45, 1e-40, 3e-39, -2e-39, 1.17549435e-38};
  for (int i = 0; i <= 8400; ++i) {
    const double m = std::pow(10.0, -45.0 + i * 0.01);
    v.push_back(static_cast<float>(m));
    v.push_back(static_cast<float>(-m));
  }
  for (int i = -20000; i <= 20000; ++i) v.push_back(static_cast<float>(i * 5e-4));
  return v;
}

void CheckFunction(const std::string& op, double (*f)(double)) {
  const std::vector<double> xs = Sweep();
  const Tensor x = F32({static_cast<int64_t>(xs.size())}, xs);
  NodeOf n(op);
  CHECK(RanOn("cpu", n.node, {x}) == "cpu");
  G g;
  g.g->outputs.push_back(g.Add(n, {g.Input("x", x.shape)}, "y"));
  for (int threads : {1, 2}) {
    std::vector<NamedTensor> got = RunS(*MakeSession(g.g, "cpu", threads), {{"x", x}});
    REQUIRE(got.size() == 1);
    int bad = 0;
    double worst = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double xi = static_cast<float>(xs[i]);
      const double want = f(xi), y = ReadDouble(got[0].tensor, static_cast<int64_t>(i));
      const double want32 = static_cast<float>(want);  // past FLT_MAX: inf
      bool ok;
      if (std::isnan(want)) ok = std::isnan(y);
      else if (std::isinf(want32)) ok = y == want32;
      else {
        const double tol = 8 * kEps32 * std::fabs(want) + 1e-38;
        ok = std::fabs(y - want) <= tol;
        worst = std::max(worst, std::fabs(y - want) / tol);
      }
      // erf and tanh never leave [-1, 1] (1 + erf(x) keeps its sign, as Gelu needs).
      if ((op == "Erf" || op == "Tanh") && std::fabs(y) > 1) ok = false;
      if (!ok && ++bad <= 5) FAIL_CHECK(op << "(" << xi << ") = " << y << ", want " << want);
    }
    CHECK(bad == 0);
    MESSAGE(op << " on cpu, " << threads << " thread(s): worst err/tol " << worst);
  }
}

/// One node on cpu (2 threads) and on ref: outputs bit-identical (NaN where NaN), and the node ran on cpu.
void CheckBitIdentical(const Node& n, const std::vector<Tensor>& inputs) {
  CHECK(RanOn("cpu", n, inputs) == "cpu");
  Result<std::vector<Tensor>> want = Run(n, inputs, DType::kFloat32);
  REQUIRE(want.ok());
  G g;
  std::vector<int> ins;
  std::vector<NamedTensor> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dtype == DType::kFloat32) {
      ins.push_back(g.Input("x" + std::to_string(i), inputs[i].shape));
      feeds.push_back({"x" + std::to_string(i), inputs[i]});
    } else {
      ins.push_back(g.Const("c" + std::to_string(i), inputs[i]));
    }
  }
  g.g->outputs.push_back(g.Add(n, ins, "y"));
  {
    std::vector<NamedTensor> got = RunS(*MakeSession(g.g, "cpu", 2), feeds);
    REQUIRE(got[0].tensor.shape == (*want)[0].shape);
    for (int64_t i = 0; i < got[0].tensor.numel(); ++i) {
      const float a = got[0].tensor.as<float>()[i], b = (*want)[0].as<float>()[i];
      if (!(std::memcmp(&a, &b, 4) == 0 || (std::isnan(a) && std::isnan(b)))) {
        FAIL_CHECK(n.op << " element " << i << ": cpu " << a << ", ref " << b);
        break;
      }
    }
  }
}

}  // namespace

TEST_CASE("cpu runs the transformer op cases (op_cases.h) within their budgets of ref64") {
  // The fully connected MatMuls take GemmConv on AVX2 and AVX-512 (gemm.cc), the generic build
  // XNNPACK; the batched one Eigen's product. Each case must run on cpu.
  for (const OpCase& c : TransformerOpCases()) {
    CAPTURE(c.name);
    const bool dot = c.node.op == "MatMul" || c.node.op == "Conv" || c.node.op == "Einsum";
    CHECK(CheckOn("cpu", c.node, c.inputs, c.k, dot ? AbsAll(c.inputs) : std::vector<Tensor>{}));
  }
}

TEST_CASE("cpu Erf, Tanh, Exp, Log, Sigmoid over the float range against libm's double functions") {
  CheckFunction("Erf", [](double v) { return std::erf(v); });
  CheckFunction("Tanh", [](double v) { return std::tanh(v); });
  CheckFunction("Exp", [](double v) { return std::exp(v); });
  CheckFunction("Log", [](double v) { return std::log(v); });
  CheckFunction("Sigmoid", [](double v) { return 1.0 / (1.0 + std::exp(-v)); });
}

TEST_CASE("cpu LayerNormalization-17 (axis -1 and -2, Scale and B per element): against double") {
  std::mt19937 rng(1717);
  for (int64_t axis : {-1, -2}) {
    const Shape xs = {3, 5, 40};
    const int64_t D = axis == -1 ? 40 : 200;
    const Shape ws = axis == -1 ? Shape{40} : Shape{5, 40};
    Tensor x = RandF32(xs, rng, -3, 3);
    x.as<float>()[7] = std::numeric_limits<float>::quiet_NaN();  // row 0: NaN everywhere
    const Tensor scale = RandF32(ws, rng, 0.5, 1.5), bias = RandF32(ws, rng, -1, 1);
    NodeOf n("LayerNormalization");
    n.Attr("axis", axis).Attr("epsilon", 1e-3f);
    CHECK(RanOn("cpu", n.node, {x, scale, bias}) == "cpu");
    G g;
    g.g->outputs.push_back(g.Add(n, {g.Input("x", xs), g.Const("scale", scale), g.Const("b", bias)}, "y"));
    for (int threads : {1, 2}) {
      std::vector<NamedTensor> got = RunS(*MakeSession(g.g, "cpu", threads), {{"x", x}});
      CHECK(std::isnan(got[0].tensor.as<float>()[0]));  // row 0 holds the NaN
      CheckLayerNorm(x, got[0].tensor, D, 1e-3f, scale.as<float>(), bias.as<float>(), "axis " + std::to_string(axis));
    }
  }
}

/// PyTorch's opset-14 export of nn.GELU(approximate='tanh') on input "x" (9 nodes); `expose` also
/// makes the Tanh's output a graph output (so the chain cannot be fused).
std::shared_ptr<Graph> GeluTanhGraph(const Shape& xs, bool expose) {
  G g;
  const int x = g.Input("x", xs);
  const int a = g.Add(NodeOf("Mul"), {x, x}, "a");
  const int b = g.Add(NodeOf("Mul"), {x, a}, "b");
  const int c = g.Add(NodeOf("Mul"), {g.Const("k1", F32({}, {0.044715})), b}, "c");
  const int d = g.Add(NodeOf("Add"), {x, c}, "d");
  const int e = g.Add(NodeOf("Mul"), {g.Const("k2", F32({}, {0.7978845608028654})), d}, "e");
  const int t = g.Add(NodeOf("Tanh"), {e}, "t");
  const int f = g.Add(NodeOf("Add"), {g.Const("one", F32({}, {1.0})), t}, "f");
  const int h = g.Add(NodeOf("Mul"), {x, f}, "h");
  g.g->outputs = {g.Add(NodeOf("Mul"), {g.Const("half", F32({}, {0.5})), h}, "y")};
  if (expose) g.g->outputs.push_back(t);
  return g.g;
}

TEST_CASE("cpu fuses PyTorch's tanh Gelu (9 nodes): the unfused chain's bits, and against double") {
  std::mt19937 rng(909);
  Tensor x = RandF32({3, 7, 50}, rng, -6, 6);
  x.as<float>()[11] = std::numeric_limits<float>::quiet_NaN();
  x.as<float>()[12] = std::numeric_limits<float>::infinity();
  for (int threads : {1, 2}) {
    std::unique_ptr<Session> fs = MakeSession(GeluTanhGraph(x.shape, false), "cpu", threads);
    std::vector<NamedTensor> got = RunS(*fs, {{"x", x}});
    int fused = 0;
    for (const std::string& note : fs->Notes()) fused += note == "fused Gelu tanh (9 nodes)";
    CHECK(fused == 9);
    std::unique_ptr<Session> us = MakeSession(GeluTanhGraph(x.shape, true), "cpu", threads);
    std::vector<NamedTensor> want = RunS(*us, {{"x", x}});
    for (const std::string& note : us->Notes()) CHECK(note.find("fused") == std::string::npos);
    int bad = 0;
    for (int64_t i = 0; i < x.numel(); ++i) {
      const float p = got[0].tensor.as<float>()[i], q = want[0].tensor.as<float>()[i];
      if (!(std::memcmp(&p, &q, 4) == 0 || (std::isnan(p) && std::isnan(q))) && ++bad <= 3)
        FAIL_CHECK("element " << i << ": fused " << p << ", unfused " << q);
      const double v = x.as<float>()[i];
      if (!std::isfinite(v)) continue;
      const double g = 0.5 * v * (1.0 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
      CHECK_MESSAGE(std::fabs(p - g) <= 16 * kEps32 * std::fabs(v) + 1e-38, "Gelu tanh(" << v << ") = " << p << ", want " << g);
    }
    CHECK(bad == 0);
    CHECK(std::isnan(got[0].tensor.as<float>()[11]));
    CHECK(got[0].tensor.as<float>()[12] == std::numeric_limits<float>::infinity());
  }
}

TEST_CASE("cpu Softmax and LogSoftmax over every axis: Softmax within its budget of ref64, LogSoftmax against double") {
  std::mt19937 rng(1313);
  // Inner 300: two column blocks. Inputs in [-2, 2]: the (K + 8) eps |y| budget does not cover the
  // float subtraction x - max when |x - max| is large (ref itself reaches 10.5 eps at K = 2 on
  // [-8, 8]), nor LogSoftmax's float log(sum) when y is near 0 (ref's own error there is about
  // 30 eps of |y|): LogSoftmax is checked against (x - max) - log(sum exp(x - max)) computed in
  // double here, within (K + 8) eps (|x - max| + |log(sum)| + 1).
  const Tensor x = RandF32({2, 5, 7, 300}, rng, -2, 2);
  const Shape& xs = x.shape;
  for (const char* op : {"Softmax", "LogSoftmax"})
    for (int64_t axis : {0, 1, 2, -1, -4}) {
      CAPTURE(op);
      CAPTURE(axis);
      NodeOf n(op);
      n.Attr("axis", axis);
      const size_t a = static_cast<size_t>(axis < 0 ? axis + 4 : axis);
      const int64_t k = xs[a];
      if (std::string(op) == "Softmax") {
        CHECK(CheckOn("cpu", n.node, {x}, double(k)));
        continue;
      }
      CHECK(RanOn("cpu", n.node, {x}) == "cpu");
      int64_t inner = 1;
      for (size_t d = a + 1; d < xs.size(); ++d) inner *= xs[d];
      G g;
      g.g->outputs.push_back(g.Add(n, {g.Input("x", xs)}, "y"));
      for (int threads : {1, 2}) {
        std::vector<NamedTensor> got = RunS(*MakeSession(g.g, "cpu", threads), {{"x", x}});
        int bad = 0;
        for (int64_t i = 0; i < x.numel(); ++i) {
          // The column of i along the axis: first element and stride `inner`.
          const int64_t first = (i / (k * inner)) * k * inner + i % inner;
          double m = -INFINITY, sum = 0;
          for (int64_t j = 0; j < k; ++j) m = std::max(m, double(x.as<float>()[first + j * inner]));
          for (int64_t j = 0; j < k; ++j) sum += std::exp(double(x.as<float>()[first + j * inner]) - m);
          const double d = double(x.as<float>()[i]) - m, want = d - std::log(sum);
          const double y = got[0].tensor.as<float>()[i];
          const double tol = (k + 8) * kEps32 * (std::fabs(d) + std::fabs(std::log(sum)) + 1);
          if (std::fabs(y - want) > tol && ++bad <= 3) FAIL_CHECK("element " << i << ": " << y << " want " << want);
        }
        CHECK(bad == 0);
      }
    }
}

TEST_CASE("cpu fuses SiLU (Sigmoid, then Mul by its input): over the float range against double") {
  // The fused step (fusions.cc, isa_kernels.h) where the CPU has AVX2 or AVX-512; the two nodes
  // unfused elsewhere (TARE_CPU_ISA=generic): both within Sigmoid's and Mul's budgets.
  const std::vector<double> xs = Sweep();
  const Tensor x = F32({static_cast<int64_t>(xs.size())}, xs);
  G g;
  const int in = g.Input("x", x.shape);
  const int sg = g.Add(NodeOf("Sigmoid"), {in}, "s");
  g.g->outputs.push_back(g.Add(NodeOf("Mul"), {sg, in}, "y"));  // PyTorch writes Mul(x, s); either order
  for (int threads : {1, 2}) {
    std::unique_ptr<Session> s = MakeSession(g.g, "cpu", threads);
    std::vector<NamedTensor> got = RunS(*s, {{"x", x}});
    int fused = 0;
    for (const std::string& note : s->Notes()) fused += note == "fused SiLU (2 nodes)";
    // Fused where the own kernels run: CpuIsa() (AVX2 or AVX-512, not capped by TARE_CPU_ISA);
    // aarch64, older x86-64 CPUs (the CPU matrix's emulated Nehalem) and TARE_CPU_ISA=generic not.
    const bool generic = cpu::CpuIsa() == cpu::Isa::kGeneric;
    CHECK(fused == (generic ? 0 : 2));
    int bad = 0;
    double worst = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double xi = static_cast<float>(xs[i]);
      const double sig = 1.0 / (1.0 + std::exp(-xi));
      const double want = std::isinf(xi) && xi < 0 ? std::nan("") : xi * sig;  // -inf * 0
      const double y = got[0].tensor.as<float>()[i];
      bool ok;
      if (std::isnan(want)) ok = std::isnan(y);
      else if (std::isinf(want)) ok = y == want;
      else {
        // Fused: the product's own budget. Unfused: Sigmoid's 1e-38 absolute, times |x| by the Mul.
        const double tol = 8 * kEps32 * std::fabs(want) + 1e-38 * (generic ? 1 + std::fabs(xi) : 1);
        ok = std::fabs(y - want) <= tol;
        worst = std::max(worst, std::fabs(y - want) / tol);
      }
      if (!ok && ++bad <= 5) FAIL_CHECK("SiLU(" << xi << ") = " << y << ", want " << want);
    }
    CHECK(bad == 0);
    MESSAGE("SiLU on cpu, " << threads << " thread(s): worst err/tol " << worst);
  }
}

TEST_CASE("cpu HardSigmoid, and HardSwish's decompositions fused: against double, and one fused step each") {
  // Sweep() holds the float range's edges (denormals, huge values, inf, NaN); add HardSwish's
  // corners (-3, 3, and their neighbours).
  std::vector<double> xs = Sweep();
  for (double v : {-3.0, 3.0, -2.9999998, 3.0000002, -1.5, 0.0, -0.0}) xs.push_back(v);
  const Tensor x = F32({static_cast<int64_t>(xs.size())}, xs);
  // HardSigmoid alone: the reference's operations (bits) and alpha x + beta clamped in double.
  for (float alpha : {0.2f, 1.0f / 6, -0.75f}) {
    NodeOf hs("HardSigmoid");
    hs.Attr("alpha", alpha).Attr("beta", 0.625f);
    CheckBitIdentical(hs.node, {x});
    G g;
    g.g->outputs.push_back(g.Add(hs, {g.Input("x", x.shape)}, "y"));
    std::vector<NamedTensor> got = RunS(*MakeSession(g.g, "cpu", 1), {{"x", x}});
    for (size_t i = 0; i < xs.size(); ++i) {
      const double xi = static_cast<float>(xs[i]), y = got[0].tensor.as<float>()[i];
      const double want = std::max(0.0, std::min(1.0, double(alpha) * xi + 0.625));
      if (std::isnan(xi)) CHECK(std::isnan(y));
      else CHECK_MESSAGE(std::fabs(y - want) <= 2 * kEps32 * (std::fabs(double(alpha) * xi) + 0.625), "HardSigmoid(" << xi << ") = " << y);
    }
  }
  // The decompositions: 0 PyTorch's before opset 14 (HardSigmoid 1/6, 1/2; Mul by x); 1 the same,
  // Mul's operands swapped; Keras' Add 3, Clip 0..6, then 2 Div 6 and Mul by x, 3 Mul 1/6 and
  // Mul by x, 4 Mul by x and Div 6.
  for (int form = 0; form < 5; ++form) {
    CAPTURE(form);
    G g;
    const int in = g.Input("x", x.shape);
    int y;
    if (form < 2) {
      NodeOf hs("HardSigmoid");
      hs.Attr("alpha", 1.0f / 6).Attr("beta", 0.5f);
      const int s = g.Add(hs, {in}, "s");
      y = form == 0 ? g.Add(NodeOf("Mul"), {in, s}, "y") : g.Add(NodeOf("Mul"), {s, in}, "y");
    } else {
      const int t = g.Add(NodeOf("Add"), {in, g.Const("three", F32({}, {3.0}))}, "t");
      const int r = g.Add(NodeOf("Clip"), {t, g.Const("zero", F32({}, {0.0})), g.Const("six", F32({}, {6.0}))}, "r");
      if (form == 2) y = g.Add(NodeOf("Mul"), {in, g.Add(NodeOf("Div"), {r, g.Const("d6", F32({}, {6.0}))}, "q")}, "y");
      else if (form == 3) y = g.Add(NodeOf("Mul"), {g.Add(NodeOf("Mul"), {g.Const("m6", F32({}, {1.0 / 6})), r}, "q"), in}, "y");
      else y = g.Add(NodeOf("Div"), {g.Add(NodeOf("Mul"), {in, r}, "q"), g.Const("d6", F32({}, {6.0}))}, "y");
    }
    g.g->outputs.push_back(y);
    for (int threads : {1, 2}) {
      std::unique_ptr<Session> s = MakeSession(g.g, "cpu", threads);
      std::vector<NamedTensor> got = RunS(*s, {{"x", x}});
      int fused = 0;
      for (const std::string& note : s->Notes()) fused += note.rfind("fused HardSwish", 0) == 0;
      CHECK(fused == (form < 2 ? 2 : 4));
      int bad = 0;
      for (size_t i = 0; i < xs.size(); ++i) {
        const double xi = static_cast<float>(xs[i]), yi = got[0].tensor.as<float>()[i];
        double want = xi * std::max(0.0, std::min(1.0, xi / 6 + 0.5));  // -inf * 0: NaN
        // Form 4's float product x * Clip(x + 3) overflows before the Div for |x| > FLT_MAX / 6.
        const double product = xi * std::max(0.0, std::min(6.0, xi + 3));
        if (form == 4 && std::fabs(product) > std::numeric_limits<float>::max()) want = product * INFINITY;
        bool ok;
        if (std::isnan(want)) ok = std::isnan(yi);
        else if (std::isinf(want)) ok = yi == want;
        // Three or four roundings, x + 3 (or x / 6 + 1/2) cancelling near -3: relative to the
        // terms, |x| (|x| + 3) / 6.
        else ok = std::fabs(yi - want) <= 6 * kEps32 * std::fabs(xi) * (std::fabs(xi) + 3) / 6 + 1e-45;
        if (!ok && ++bad <= 5) FAIL_CHECK("HardSwish(" << xi << ") = " << yi << ", want " << want);
      }
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("cpu Where: numpy broadcasting of condition, X and Y, NaN passed; against a select written here") {
  std::mt19937 rng(1616);
  struct Case {
    Shape c, x, y;
    bool cond_known;
  };
  const Case cases[] = {{{2, 1, 4}, {3, 1}, {}, false},         {{5}, {2, 5}, {2, 1}, true},
                        {{1, 1, 7, 7}, {2, 3, 7, 7}, {1}, true}, {{4, 6}, {4, 6}, {4, 6}, false},
                        {{3, 1, 1}, {1, 5, 1}, {1, 1, 2}, false}};
  for (const Case& k : cases) {
    Tensor cond = Tensor::Alloc(DType::kBool, k.c).value();
    for (int64_t i = 0; i < cond.numel(); ++i) cond.as<uint8_t>()[i] = static_cast<uint8_t>(rng() % 2);
    Tensor x = RandF32(k.x, rng, -5, 5), y = RandF32(k.y, rng, -5, 5);
    x.as<float>()[0] = std::numeric_limits<float>::quiet_NaN();
    NodeOf n("Where");
    CheckBitIdentical(n.node, {cond, x, y});  // as a constant condition
    G g;
    int ci;
    if (k.cond_known) {
      ci = g.Const("cond", cond);
    } else {
      ci = g.Input("cond", k.c);
      g.g->values[ci].dtype = DType::kBool;
    }
    g.g->outputs.push_back(g.Add(n, {ci, g.Input("x", k.x), g.Input("y", k.y)}, "out"));
    std::vector<NamedTensor> feeds = {{"x", x}, {"y", y}};
    if (!k.cond_known) feeds.push_back({"cond", cond});
    for (int threads : {1, 2}) {
      std::unique_ptr<Session> s = MakeSession(g.g, "cpu", threads);
      CHECK(s->Placement()[0].second == "cpu");
      const Tensor out = RunS(*s, feeds)[0].tensor;
      // The broadcast output shape and a select by multi-index, each operand's index clamped
      // to 0 on its size-1 (or missing) dims.
      const size_t r = std::max({k.c.size(), k.x.size(), k.y.size()});
      Shape os(r, 1);
      auto pad = [&](Shape sh) {
        sh.insert(sh.begin(), r - sh.size(), 1);
        return sh;
      };
      const Shape pc = pad(k.c), px = pad(k.x), py = pad(k.y);
      for (size_t d = 0; d < r; ++d) os[d] = std::max({pc[d], px[d], py[d]});
      REQUIRE(out.shape == os);
      auto at = [&](const Shape& sh, const std::vector<int64_t>& idx) {
        int64_t off = 0;
        for (size_t d = 0; d < r; ++d) off = off * sh[d] + (sh[d] == 1 ? 0 : idx[d]);
        return off;
      };
      std::vector<int64_t> idx(r, 0);
      int bad = 0;
      for (int64_t e = 0; e < out.numel(); ++e) {
        int64_t rem = e;
        for (size_t d = r; d-- > 0;) {
          idx[d] = rem % os[d];
          rem /= os[d];
        }
        const float want = cond.as<uint8_t>()[at(pc, idx)] ? x.as<float>()[at(px, idx)] : y.as<float>()[at(py, idx)];
        const float got = out.as<float>()[e];
        if (!(std::memcmp(&got, &want, 4) == 0) && ++bad <= 3) FAIL_CHECK("element " << e << ": " << got << ", want " << want);
      }
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("cpu Einsum of two operands as a batched Sgemm: within its budget of ref64; diagonals and broadcasts on the reference kernel") {
  std::mt19937 rng(1212);
  struct Case {
    const char* eq;
    Shape a, b;
    bool fast;  // expected on the Sgemm path (else the reference kernel inside the partition)
  };
  const Case cases[] = {
      {"bhqd,bhkd->bhqk", {2, 3, 7, 16}, {2, 3, 9, 16}, true},  // attention scores
      {"bhqk,bhkd->bhqd", {2, 3, 7, 9}, {2, 3, 9, 16}, true},   // attention's weighted sum
      {"bij,bjk->bik", {4, 5, 6}, {4, 6, 3}, true},
      {"...ij,...jk->...ik", {2, 2, 5, 6}, {2, 2, 6, 4}, true},
      {"i,j->ij", {5}, {7}, true},                              // outer product (no contraction)
      {"ij,ij->", {4, 9}, {4, 9}, true},                        // full contraction to a scalar
      {"bqd,kd->bkq", {3, 5, 8}, {6, 8}, true},                 // output in another order
      {"ij,jk", {3, 4}, {4, 5}, true},                          // implicit output "ik"
      {"ii,ij->j", {4, 4}, {4, 3}, false},                      // a diagonal
      {"bij,bjk->bik", {1, 5, 6}, {4, 6, 3}, false},            // batch broadcast (1 against 4)
      {"ij,jk->k", {3, 4}, {4, 5}, false},                      // i summed in one operand only
  };
  for (const Case& k : cases) {
    CAPTURE(k.eq);
    Tensor a = RandF32(k.a, rng, -2, 2), b = RandF32(k.b, rng, -2, 2);
    NodeOf n("Einsum");
    n.Attr("equation", k.eq);
    CHECK(CheckOn("cpu", n.node, {a, b}, 1, AbsAll({a, b})));
    G g;
    g.g->outputs.push_back(g.Add(n, {g.Input("a", k.a), g.Input("b", k.b)}, "y"));
    std::unique_ptr<Session> s = MakeSession(g.g, "cpu", 1);
    RunS(*s, {{"a", a}, {"b", b}});
    CHECK((s->Notes()[0] == "reference kernel") == !k.fast);
  }
}

TEST_CASE("cpu ReduceSum/Mean/Max/Min over contiguous axis blocks, Pow and Slice: bit-identical to ref") {
  std::mt19937 rng(2323);
  Tensor x = RandF32({3, 4, 5, 6}, rng, -3, 3);
  x.as<float>()[17] = std::numeric_limits<float>::quiet_NaN();  // NaN wins max and min, spreads in sums
  // Last axis (LayerNorm), a middle block, the first axis, all (empty axes), and {1, 3} (not one
  // block: the reference kernel inside the cpu partition); keepdims alternating.
  const std::vector<std::vector<int64_t>> axes = {{-1}, {1, 2}, {0}, {}, {1, 3}};
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"})
    for (size_t ai = 0; ai < axes.size(); ++ai) {
      const std::vector<int64_t>& a = axes[ai];
      const int64_t keep = static_cast<int64_t>(ai % 2);
      {
        CAPTURE(op);
        CAPTURE(a.size());
        CAPTURE(keep);
        NodeOf n(op);
        n.Attr("keepdims", keep);
        if (std::string(op) == "ReduceSum") {  // ReduceSum-13: axes as an input
          if (a.empty()) {
            CheckBitIdentical(n.node, {x});
          } else {
            CheckBitIdentical(n.node, {x, I64({static_cast<int64_t>(a.size())}, a)});
          }
        } else {
          if (!a.empty()) n.Attr("axes", a);
          CheckBitIdentical(n.node, {x});
        }
      }
    }
  // Pow: the known exponent 2 (x * x), a known 0.5, a run-time broadcast exponent.
  Tensor b = RandF32({5, 6}, rng, -2, 2);
  Tensor pos = RandF32({3, 4, 5, 6}, rng, 0, 4);
  CheckBitIdentical(NodeOf("Pow").node, {x, F32({}, {2.0})});
  CheckBitIdentical(NodeOf("Pow").node, {pos, F32({1}, {0.5})});
  CheckBitIdentical(NodeOf("Pow").node, {pos, b});
  // Slice with known starts/ends/axes/steps: ViT's run-time q/k/v split, negative and clamped
  // bounds, reversed steps (the same geometry as the reference: kernels/ref/slice_geometry.h).
  const Tensor qkv = RandF32({1, 197, 3, 64}, rng);
  CheckBitIdentical(NodeOf("Slice").node, {qkv, I64({1}, {1}), I64({1}, {2}), I64({1}, {2})});
  CheckBitIdentical(NodeOf("Slice").node, {x, I64({2}, {-1, 1}), I64({2}, {-100, 100}), I64({2}, {3, 1}), I64({2}, {-2, 2})});
  CheckBitIdentical(NodeOf("Slice").node, {x, I64({1}, {0}), I64({1}, {1}), I64({1}, {-1})});
}

TEST_CASE("cpu Linear (MatMul of known weights, then Add of a known row, then Relu) fused: against double") {
  // The row becomes the product's bias (gemm.cc): GemmConv for the wide case on AVX2/AVX-512,
  // XNNPACK for the narrow one. A NaN or inf in A takes the reference MatMul, then the row is
  // added and the clamp keeps NaN, as the three nodes would do.
  std::mt19937 rng(4242);
  const std::vector<std::pair<Shape, int64_t>> cases = {{{1, 50, 96}, 384}, {{2, 7, 40}, 24}};
  for (const auto& [as, N] : cases) {
    const int64_t K = as.back();
    Tensor a = RandF32(as, rng);
    const Tensor w = RandF32({K, N}, rng), row = RandF32({N}, rng, -4, 4);
    for (bool poison : {false, true}) {
      if (poison) {
        a.as<float>()[3] = std::numeric_limits<float>::quiet_NaN();
        a.as<float>()[K + 1] = std::numeric_limits<float>::infinity();
      }
      G g;
      const int mm = g.Add(NodeOf("MatMul"), {g.Input("a", as), g.Const("w", w)}, "mm");
      const int add = g.Add(NodeOf("Add"), {mm, g.Const("row", row)}, "add");
      g.g->outputs.push_back(g.Add(NodeOf("Relu"), {add}, "y"));
      for (int threads : {1, 2}) {
        CAPTURE(K);
        CAPTURE(poison);
        CAPTURE(threads);
        std::vector<NamedTensor> got = RunS(*MakeSession(g.g, "cpu", threads), {{"a", a}});
        const int64_t rows = a.numel() / K;
        int bad = 0;
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < N; ++j) {
            double sum = row.as<float>()[j], sabs = std::fabs(sum);
            for (int64_t k = 0; k < K; ++k) {
              const double t = double(a.as<float>()[i * K + k]) * w.as<float>()[k * N + j];
              sum += t;
              sabs += std::fabs(t);
            }
            const double want = std::isnan(sum) ? sum : std::max(0.0, sum);
            const double y = got[0].tensor.as<float>()[i * N + j];
            const bool ok = std::isnan(want) ? std::isnan(y)
                                             : std::isinf(want) ? y == want : std::fabs(y - want) <= (K + 2) * kEps32 * sabs;
            if (!ok && ++bad <= 3) FAIL_CHECK("y[" << i << "][" << j << "] = " << y << ", want " << want);
          }
        CHECK(bad == 0);
      }
    }
  }
}

TEST_CASE("cpu MatMul on run-time operands: batched, broadcast, against a double product") {
  std::mt19937 rng(777);
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{4, 128, 64}, {4, 64, 128}},      // attention scores (4 heads)
      {{1, 4, 128, 128}, {1, 4, 128, 64}},  // scores x values
      {{2, 3, 5, 7}, {3, 7, 4}},         // B broadcast over the leading batch dim
      {{5, 7}, {2, 3, 7, 9}},            // A broadcast over both batch dims
      {{2, 1, 6, 3}, {1, 4, 3, 2}},      // both broadcast
      {{300, 33}, {33, 17}},             // 2-D, row blocks
  };
  for (const auto& [as, bs] : cases) {
    const Tensor a = RandF32(as, rng), b = RandF32(bs, rng);
    NodeOf n("MatMul");
    CHECK(RanOn("cpu", n.node, {a, b}) == "cpu");
    G g;
    g.g->outputs.push_back(g.Add(n, {g.Input("a", as), g.Input("b", bs)}, "y"));
    Result<std::vector<Tensor>> ref = Run(n, {a, b}, DType::kFloat64);
    REQUIRE(ref.ok());
    const Shape& ys = (*ref)[0].shape;
    const int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
    for (int threads : {1, 2}) {
      std::vector<NamedTensor> got = RunS(*MakeSession(g.g, "cpu", threads), {{"a", a}, {"b", b}});
      REQUIRE(got[0].tensor.shape == ys);
      // The product summed in double here, batch index by index (numpy.matmul's broadcasting).
      const int64_t batches = got[0].tensor.numel() / (M * N);
      const size_t r = ys.size() - 2;
      int bad = 0;
      for (int64_t bi = 0; bi < batches; ++bi) {
        int64_t oa = 0, ob = 0, rem = bi, sa = 1, sb = 1;
        for (size_t d = r; d-- > 0;) {
          const int64_t i = rem % ys[d];
          rem /= ys[d];
          const int64_t da = static_cast<int64_t>(d) - static_cast<int64_t>(r) + static_cast<int64_t>(as.size()) - 2;
          const int64_t db = static_cast<int64_t>(d) - static_cast<int64_t>(r) + static_cast<int64_t>(bs.size()) - 2;
          if (da >= 0) { oa += (as[da] == 1 ? 0 : i) * sa; sa *= as[da]; }
          if (db >= 0) { ob += (bs[db] == 1 ? 0 : i) * sb; sb *= bs[db]; }
        }
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) {
            double s = 0, sabs = 0;
            for (int64_t k = 0; k < K; ++k) {
              const double p = double(a.as<float>()[oa * M * K + i * K + k]) * b.as<float>()[ob * K * N + k * N + j];
              s += p;
              sabs += std::fabs(p);
            }
            const double y = got[0].tensor.as<float>()[bi * M * N + i * N + j];
            if (std::fabs(y - s) > (K + 2) * kEps32 * sabs + 1e-38 && ++bad <= 3) FAIL_CHECK("batch " << bi << " (" << i << ", " << j << "): " << y << " want " << s);
          }
      }
      CHECK(bad == 0);
    }
  }
  // A NaN or inf in an operand: the own tile loop's clamp would make a NaN -inf, so such runs take
  // Eigen's product: the NaN's row (of A) or column (of B) is NaN, the rest finite (and a finite
  // run after it takes the tile loop again).
  for (int which = 0; which < 2; ++which) {
    CAPTURE(which);
    const Shape as = {3, 20, 64}, bs = {3, 64, 40};
    Tensor a = RandF32(as, rng), b = RandF32(bs, rng);
    float* poisoned = which == 0 ? a.as<float>() + 20 * 64 + 5 * 64 + 7  // batch 1, row 5
                                 : b.as<float>() + 2 * 64 * 40 + 9 * 40 + 11;  // batch 2, column 11
    NodeOf n("MatMul");
    G g;
    g.g->outputs.push_back(g.Add(n, {g.Input("a", as), g.Input("b", bs)}, "y"));
    std::unique_ptr<Session> s = MakeSession(g.g, "cpu", 2);
    for (bool nan_in : {true, false}) {
      *poisoned = nan_in ? std::numeric_limits<float>::quiet_NaN() : 0.5f;
      const Tensor y = RunS(*s, {{"a", a}, {"b", b}})[0].tensor;
      int bad = 0;
      for (int64_t bi = 0; bi < 3; ++bi)
        for (int64_t i = 0; i < 20; ++i)
          for (int64_t j = 0; j < 40; ++j) {
            const bool nan = nan_in && ((which == 0 && bi == 1 && i == 5) || (which == 1 && bi == 2 && j == 11));
            const float v = y.as<float>()[(bi * 20 + i) * 40 + j];
            if ((nan ? !std::isnan(v) : !std::isfinite(v)) && ++bad <= 3) FAIL_CHECK("batch " << bi << " (" << i << ", " << j << "): " << v);
          }
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("cpu fuses PyTorch's LayerNorm and erf Gelu decompositions: Gelu with the unfused chain's bits, both against double") {
  std::mt19937 rng(99);
  Tensor x = RandF32({2, 9, 37}, rng, -4, 4);
  x.as<float>()[40] = std::numeric_limits<float>::quiet_NaN();  // one row of NaN, the others finite
  NormGelu fused(x.shape, rng, false);
  std::mt19937 rng2(99);
  (void)RandF32({2, 9, 37}, rng2, -4, 4);
  NormGelu unfused(x.shape, rng2, true);  // the same weights
  for (int threads : {1, 2}) {
    std::unique_ptr<Session> s = MakeSession(fused.g.g, "cpu", threads);
    std::vector<NamedTensor> got = RunS(*s, {{"x", x}});
    // Every node of both chains ran in a fused step.
    const auto placement = s->Placement();
    const std::vector<std::string> notes = s->Notes();
    int n_norm = 0, n_gelu = 0;
    for (size_t i = 0; i < notes.size(); ++i) {
      CHECK(placement[i].second == "cpu");
      n_norm += notes[i] == "fused LayerNorm (9 nodes)";
      n_gelu += notes[i] == "fused Gelu (5 nodes)";
    }
    CHECK(n_norm == 9);
    CHECK(n_gelu == 5);
    // The unfused graph runs no fusion (its intermediates are outputs).
    std::unique_ptr<Session> u = MakeSession(unfused.g.g, "cpu", threads);
    RunS(*u, {{"x", x}});
    for (const std::string& note : u->Notes()) CHECK(note.find("fused") == std::string::npos);
    // Bits: Gelu on the fused LayerNorm's output, fused and unfused (its Erf exposed), on cpu
    // (Erf is Eigen's where the CPU allows AVX2, ref's otherwise). LayerNorm sums in another
    // order than ref (fusions.cc): it is checked against double below.
    {
      auto gelu = [&](bool expose) {
        G h;
        const int in = h.Input("y", got[0].tensor.shape);
        const int a = h.Add(NodeOf("Div"), {in, h.Const("sqrt2", F32({}, {1.4142135381698608}))}, "a");
        const int b = h.Add(NodeOf("Erf"), {a}, "b");
        const int cc = h.Add(NodeOf("Add"), {b, h.Const("one", F32({}, {1.0}))}, "c");
        const int dd = h.Add(NodeOf("Mul"), {in, cc}, "dd");
        h.g->outputs = {h.Add(NodeOf("Mul"), {dd, h.Const("half", F32({}, {0.5}))}, "g")};
        if (expose) h.g->outputs.push_back(b);
        return RunS(*MakeSession(h.g, "cpu", threads), {{"y", got[0].tensor}})[0].tensor;
      };
      const Tensor a = gelu(false), b = gelu(true);
      int bad = 0;
      for (int64_t i = 0; i < a.numel(); ++i) {
        const float p = a.as<float>()[i], q = b.as<float>()[i], r = got[1].tensor.as<float>()[i];
        if (!((std::memcmp(&p, &q, 4) == 0 && std::memcmp(&p, &r, 4) == 0) || (std::isnan(p) && std::isnan(q) && std::isnan(r))) &&
            ++bad <= 3)
          FAIL_CHECK("Gelu element " << i << ": fused " << p << " and " << r << ", unfused " << q);
      }
      CHECK(bad == 0);
    }
    // LayerNorm's first row holds the NaN: all NaN; the second row is finite.
    CHECK(std::isnan(got[0].tensor.as<float>()[37]));
    CHECK(std::isfinite(got[0].tensor.as<float>()[74]));
    // Independently of tare: LayerNorm in double (CheckLayerNorm), and Gelu of the fused
    // LayerNorm's output in double (erf's 8 eps, absolute since 1 + erf cancels).
    const int64_t D = x.shape.back();
    CheckLayerNorm(x, got[0].tensor, D, 1e-5f, fused.gamma.as<float>(), fused.beta.as<float>(), "LayerNorm");
    for (int64_t r = 0; r < x.numel() / D; ++r) {
      if (r == 1) continue;  // the NaN row
      for (int64_t i = 0; i < D; ++i) {
        const double yn = got[0].tensor.as<float>()[r * D + i];
        const double gelu = 0.5 * yn * (1.0 + std::erf(yn / std::sqrt(2.0)));
        const double yg = got[1].tensor.as<float>()[r * D + i];
        CHECK_MESSAGE(std::fabs(yg - gelu) <= 16 * kEps32 * std::fabs(yn) + 1e-38, "Gelu of " << yn << ": " << yg << " want " << gelu);
      }
    }
  }
}
