// The test suite every fast backend runs, written once (issue 16): TARE_BACKEND_SUITE(name)
// registers its test cases for one backend, named "<backend> ..." so that a backend's tests are
// selected by `--test-case="<backend>*"` (platforms/debian/cpu_matrix.sh). Adding a backend adds
// one line at the bottom, plus its entries in kExclusions. Expected values come from ref64 (the
// specification in double), within each op's error budget (docs/NUMERICS.md); dot-product budgets
// use sum|w x|, computed by ref64 on |inputs|.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "tests/backends/backend_check.h"
#include "tests/backends/op_cases.h"
#include "tests/ops/op_test_util.h"
#ifdef TARE_WITH_ONEDNN
#include "backends/onednn/onednn_backend.h"
#endif

using namespace tare;
using namespace tare::test;

namespace {

constexpr double kEps32 = 1.0 / (1 << 24);

/// The ops the fast backends claim between them (ONNX default domain).
const char* const kSharedOps[] = {"Conv", "ConvTranspose", "MaxPool", "AveragePool", "GlobalAveragePool",
                                  "GlobalMaxPool", "BatchNormalization", "Relu", "Clip", "LeakyRelu", "Sigmoid",
                                  "HardSwish", "Tanh", "Exp", "Sqrt", "Abs", "Neg", "Identity", "Dropout", "Add",
                                  "Sub", "Mul", "Div", "Gemm", "MatMul", "Softmax", "Flatten", "Reshape", "Squeeze",
                                  "Unsqueeze", "Concat", "Transpose", "Pad", "LSTM", "GRU"};

/// Known exclusions: ops of kSharedOps a backend does not claim (those nodes run on ref), and
/// op-case table entries it does not run, each with the reason.
struct Exclusion {
  const char* backend;
  const char* what;  ///< an op of kSharedOps, or an OpCase name
  const char* why;
};
const Exclusion kExclusions[] = {
    // cpu (docs/OPS.md, cpu column): no deconvolution and none of these elementwise ops yet.
    {"cpu", "ConvTranspose", "not claimed (runs on ref)"},
    {"cpu", "Abs", "not claimed (runs on ref)"},
    {"cpu", "Neg", "not claimed (runs on ref)"},
    // onednn (docs/ONEDNN.md, "What it claims").
    {"onednn", "HardSwish", "not claimed (runs on ref)"},
    {"onednn", "Pad", "not claimed (runs on ref)"},
    // vulkan (docs/VULKAN.md, "Ops"): no recurrent cells on the device.
    {"vulkan", "LSTM", "not claimed (runs on ref)"},
    {"vulkan", "GRU", "not claimed (runs on ref)"},
};

/// The reason `backend` is excused from `what`, or nullptr.
const char* ExclusionReason(const std::string& backend, const std::string& what) {
#ifdef TARE_WITH_ONEDNN
  // oneDNN's SSE4.1 and AVX kernels (no FMA) are over budget on exp and logistic (F14).
  if (backend == "onednn" && (what == "Sigmoid" || what == "Exp") && !onednn::ExpKernelsInBudget())
    return "not claimed without FMA (docs/FINDINGS.md F14; runs on ref)";
#endif
  for (const Exclusion& e : kExclusions)
    if (backend == e.backend && what == e.what) return e.why;
  return nullptr;
}
bool Excluded(const std::string& backend, const std::string& what) { return ExclusionReason(backend, what) != nullptr; }

void Claims(const std::string& backend) {
  Result<std::unique_ptr<Backend>> b = CreateBackend(backend);
  REQUIRE(b.ok());
  for (const char* op : kSharedOps) {
    const char* why = ExclusionReason(backend, op);
    CAPTURE(op);
    CAPTURE(why ? why : "claimed");
    // Claimed by op type, declined per node (F14): ClaimsOp stays true.
    if (why && std::strstr(why, "F14")) {
      CHECK((*b)->ClaimsOp("", op));
      continue;
    }
    CHECK((*b)->ClaimsOp("", op) == !why);
  }
  for (const char* op : {"Elu", "Acos", "Hardmax", "NonZero"}) CHECK_FALSE((*b)->ClaimsOp("", op));
  CHECK_FALSE((*b)->ClaimsOp("com.microsoft", "Conv"));
}

void RandomConv(const std::string& backend) {
  std::mt19937 rng(1234);
  int ran = 0;
  for (int it = 0; it < 60; ++it) {
    const int kind = it % 4;  // 0 dense, 1 grouped, 2 depthwise, 3 depthwise x2 multiplier
    const int N = Rnd(rng, 1, 3);
    const int groups = kind == 0 ? 1 : kind == 1 ? Rnd(rng, 2, 3) : Rnd(rng, 2, 9);
    const int cg = kind >= 2 ? 1 : Rnd(rng, 1, 7);
    const int mg = kind == 2 ? 1 : kind == 3 ? 2 : Rnd(rng, 1, 9);
    const int kh = Rnd(rng, 1, 5), kw = Rnd(rng, 1, 5);
    const int sh = Rnd(rng, 1, 3), sw = Rnd(rng, 1, 3), dh = Rnd(rng, 1, 2), dw = Rnd(rng, 1, 2);
    const int H = (kh - 1) * dh + Rnd(rng, 1, 9), W = (kw - 1) * dw + Rnd(rng, 1, 9);
    NodeOf n("Conv");
    n.Attr("group", int64_t(groups)).Attr("strides", std::vector<int64_t>{sh, sw});
    n.Attr("dilations", std::vector<int64_t>{dh, dw});
    const int ap = Rnd(rng, 0, 5);
    if (ap == 1) n.Attr("auto_pad", "SAME_UPPER");
    else if (ap == 2) n.Attr("auto_pad", "SAME_LOWER");
    else if (ap == 3) n.Attr("auto_pad", "VALID");
    else n.Attr("pads", std::vector<int64_t>{Rnd(rng, 0, 2), Rnd(rng, 0, 2), Rnd(rng, 0, 2), Rnd(rng, 0, 2)});
    std::vector<Tensor> in = {RandF32({N, groups * cg, H, W}, rng), RandF32({groups * mg, cg, kh, kw}, rng)};
    if (Rnd(rng, 0, 1)) in.push_back(RandF32({groups * mg}, rng));
    CAPTURE(it);
    if (CheckOn(backend, n, in, double(cg * kh * kw), AbsAll(in))) {
      ++ran;
      // Every third case also reads its input in the layout the backend keeps inside a partition.
      if (it % 3 == 0) CheckAfterConv(backend, n, in, double(cg * kh * kw), AbsAll(in));
    }
  }
  CHECK(ran >= 50);
  ReportWorst();
}

void OpCaseTable(const std::string& backend) {
  const std::vector<OpCase>& cases = PerfOpCases();
  REQUIRE(cases.size() >= 25);
  int ran = 0;
  for (const OpCase& c : cases) {
    CAPTURE(c.name);
    if (Excluded(backend, c.name) || Excluded(backend, c.node.op)) continue;
    ++ran;
    if (c.node.op == "LSTM") {
      // The RNN budget (cpu_rnn_test.cc): S steps of (16 + K) eps on max(1, |y|).
      Result<std::vector<Tensor>> r64 = Run(c.node, c.inputs, DType::kFloat64);
      REQUIRE(r64.ok());
      Result<std::vector<Tensor>> r32 = Run(c.node, c.inputs, DType::kFloat32);
      REQUIRE(r32.ok());
      const double units = double(c.inputs[0].shape[0]) * (16.0 + c.macs_per_output / 4);
      for (int threads : {1, 2}) {
        std::string ran_on;
        Result<std::vector<NamedTensor>> r = Status::Error("not run");
        REQUIRE(RunOneNodeSession(c.node, c.inputs, *r32, backend, threads, &ran_on, &r));
        REQUIRE(r.ok());
        CHECK(ran_on == backend);
        const Tensor& y = (*r)[0].tensor;
        REQUIRE(y.shape == (*r64)[0].shape);
        for (int64_t i = 0; i < y.numel(); ++i) {
          const double g = ReadDouble(y, i), w = ReadDouble((*r64)[0], i);
          REQUIRE(std::fabs(g - w) <= units * kEps32 * std::max(1.0, std::fabs(w)));
        }
      }
      continue;
    }
    const bool dot = c.node.op == "Conv" || c.node.op == "Gemm" || c.node.op == "GlobalAveragePool";
    CHECK(CheckOn(backend, c.node, c.inputs, c.k, dot ? AbsAll(c.inputs) : std::vector<Tensor>{}));
  }
  CHECK(ran >= (Excluded(backend, "LSTM") ? 23 : 25));  // two of the cases are LSTMs
  ReportWorst();
}

/// An elementwise op of kSharedOps the backend does not claim (from kExclusions), else Elu, which
/// no fast backend claims (Claims checks): it runs on ref.
std::string UnclaimedUnary(const std::string& backend) {
  for (const Exclusion& e : kExclusions)
    for (const char* op : {"Tanh", "Exp", "Abs", "Neg", "HardSwish"})  // defined everywhere (not Sqrt)
      if (backend == e.backend && std::string(op) == e.what) return op;
  return "Elu";
}

/// A CNN of 10 nodes with an unclaimed op between two partitions, a weight computed at plan time,
/// traced internal values, three input shapes (re-planning), 1 and 2 threads: outputs and traces
/// against ref64, repeated runs bit-identical, every node where it should run.
void MultiNode(const std::string& backend) {
  const std::string other = UnclaimedUnary(backend);
  REQUIRE(!other.empty());
  std::mt19937 rng(42);
  G g;
  int x = g.Input("x", {-1, 3, -1, -1});
  int c1 = g.Add(NodeOf("Conv").Attr("pads", std::vector<int64_t>{1, 1, 1, 1}),
                 {x, g.Const("w1", RandF32({8, 3, 3, 3}, rng)), g.Const("b1", RandF32({8}, rng))}, "c1");
  int r1 = g.Add(NodeOf("Relu"), {c1}, "r1");
  int p1 = g.Add(NodeOf("MaxPool").Attr("kernel_shape", std::vector<int64_t>{2, 2}).Attr("strides", std::vector<int64_t>{2, 2}),
                 {r1}, "p1");
  // W2 is computed from a weight (folded at plan time): still known to the backend.
  int w2 = g.Add(NodeOf("Identity"), {g.Const("w2c", RandF32({8, 8, 3, 3}, rng))}, "w2");
  int c2 = g.Add(NodeOf("Conv").Attr("pads", std::vector<int64_t>{1, 0, 2, 1}).Attr("kernel_shape", std::vector<int64_t>{3, 3}),
                 {p1, w2}, "c2");
  int c3 = g.Add(NodeOf("Conv").Attr("pads", std::vector<int64_t>{1, 0, 2, 1}).Attr("kernel_shape", std::vector<int64_t>{3, 3}),
                 {p1, g.Const("w3", RandF32({8, 8, 3, 3}, rng))}, "c3");
  int un = g.Add(NodeOf(other.c_str()), {c2}, "unclaimed");  // runs on ref, between two partitions
  int a = g.Add(NodeOf("Add"), {un, c3}, "add");
  int r2 = g.Add(NodeOf("Relu"), {a}, "r2");
  int gp = g.Add(NodeOf("GlobalAveragePool"), {r2}, "gap");
  int fl = g.Add(NodeOf("Flatten"), {gp}, "flat");
  int y = g.Add(NodeOf("Gemm").Attr("transB", int64_t(1)), {fl, g.Const("wf", RandF32({4, 8}, rng)), g.Const("bf", RandF32({4}, rng))},
                "y");
  g.g->outputs.push_back(y);
  g.g->outputs.push_back(r2);
  const std::vector<std::string> traced = {"r1", "c1", "c3"};
  for (int threads : {1, 2}) {
    CAPTURE(threads);
    auto ref64 = MakeSession(g.g, "ref64", 1, traced);
    auto fast = MakeSession(g.g, backend, threads, traced);
    auto fast_plain = MakeSession(g.g, backend, threads);
    for (const Shape& s : {Shape{2, 3, 14, 13}, Shape{1, 3, 9, 10}, Shape{2, 3, 14, 13}}) {
      CAPTURE(ShapeStr(s));
      const Tensor xin = RandF32(s, rng);
      std::vector<NamedTensor> want = RunS(*ref64, {{"x", xin}});
      std::vector<NamedTensor> got = RunS(*fast, {{"x", xin}});
      std::vector<NamedTensor> got2 = RunS(*fast_plain, {{"x", xin}});
      REQUIRE(got.size() == want.size());
      for (size_t o = 0; o < want.size(); ++o) {
        REQUIRE(got[o].tensor.shape == want[o].tensor.shape);
        double scale = 0;
        for (int64_t i = 0; i < want[o].tensor.numel(); ++i) scale = std::max(scale, std::fabs(ReadDouble(want[o].tensor, i)));
        for (int64_t i = 0; i < want[o].tensor.numel(); ++i) {
          CHECK(std::fabs(ReadDouble(got[o].tensor, i) - ReadDouble(want[o].tensor, i)) <= 1e-5 * (scale + 1));
          CHECK(std::fabs(ReadDouble(got2[o].tensor, i) - ReadDouble(want[o].tensor, i)) <= 1e-5 * (scale + 1));
        }
      }
      std::vector<TraceEntry> tw = ref64->Trace(), tg = fast->Trace();
      int matched = 0;
      for (const TraceEntry& e : tw)
        for (const TraceEntry& f : tg)
          if (e.value == f.value) {
            ++matched;
            CAPTURE(e.value);
            REQUIRE(e.tensor.shape == f.tensor.shape);
            for (int64_t i = 0; i < e.tensor.numel(); ++i)
              CHECK(std::fabs(ReadDouble(f.tensor, i) - ReadDouble(e.tensor, i)) <= 1e-5 * (1 + std::fabs(ReadDouble(e.tensor, i))));
          }
      CHECK(matched == 3);
      // Repeated runs: bit-identical.
      for (int rep = 0; rep < 2; ++rep) {
        std::vector<NamedTensor> again = RunS(*fast, {{"x", xin}});
        for (size_t o = 0; o < got.size(); ++o)
          CHECK(std::memcmp(again[o].tensor.data, got[o].tensor.data, got[o].tensor.nbytes()) == 0);
      }
    }
    for (const char* n : {"c1", "r1", "p1", "c2", "c3", "add", "r2", "gap", "flat", "y"}) {
      CAPTURE(n);
      CHECK(PlacementOf(*fast, n) == backend);
    }
    CHECK(PlacementOf(*fast, "unclaimed") == "ref");
    CHECK(PlacementOf(*fast, "w2") == "folded");
  }
}

/// Nodes of claimed ops that the backend's float paths do not cover run on ref: MaxPool with its
/// Indices output, an integer Add.
void LeavesToRef(const std::string& backend) {
  std::mt19937 rng(1);
  G g;
  int x = g.Input("x", {1, 4, 6, 6});
  int p = g.Add(NodeOf("MaxPool", 2).Attr("kernel_shape", std::vector<int64_t>{2, 2}), {x}, "mp", 2);
  g.g->outputs.push_back(p);
  g.g->outputs.push_back(g.g->nodes.back().outputs[1]);
  auto s = MakeSession(g.g, backend, 1);
  RunS(*s, {{"x", RandF32({1, 4, 6, 6}, rng)}});
  CHECK(PlacementOf(*s, "mp") == "ref");
  CHECK(RanOn(backend, NodeOf("Add"), {I64({3}, {1, 2, 3}), I64({3}, {4, 5, 6})}) == "ref");
}

/// What the shared cases ask of each backend beyond its claims (kept here, next to kExclusions).
struct Caps {
  const char* backend;
  bool avg_pool_dilations;         ///< AveragePool with dilations runs on the backend
  bool pads_with_include_pad;      ///< explicit pads together with count_include_pad
  int max_channels;                ///< channel counts drawn up to this (wider: blocked layouts)
  bool pool_1d;                    ///< 1-D pooling runs on the backend (else on ref)
};
const Caps kCaps[] = {
    {"cpu", false, false, 17, false},
    {"onednn", true, true, 33, true},
    {"vulkan", true, true, 33, true},
};
const Caps& CapsOf(const std::string& backend) {
  for (const Caps& c : kCaps)
    if (backend == c.backend) return c;
  FAIL("no Caps entry for backend " << backend);
  return kCaps[0];
}

void RandomPools(const std::string& backend) {
  const Caps& caps = CapsOf(backend);
  const std::vector<Tensor> no_scale;
  std::mt19937 rng(99);
  int ran = 0;
  for (int it = 0; it < 80; ++it) {
    const bool is_max = it % 2 == 0;
    const bool dilate = is_max || caps.avg_pool_dilations;
    const int kh = Rnd(rng, 1, 4), kw = Rnd(rng, 2, 4);
    const int sh = Rnd(rng, 1, 3), sw = Rnd(rng, 1, 3);
    const int dh = dilate ? Rnd(rng, 1, 2) : 1, dw = dilate ? Rnd(rng, 1, 2) : 1;
    const int H = (kh - 1) * dh + Rnd(rng, 1, 8), W = (kw - 1) * dw + Rnd(rng, 1, 8);
    NodeOf n(is_max ? "MaxPool" : "AveragePool");
    n.Attr("kernel_shape", std::vector<int64_t>{kh, kw}).Attr("strides", std::vector<int64_t>{sh, sw});
    if (dilate) n.Attr("dilations", std::vector<int64_t>{dh, dw});
    const int ap = Rnd(rng, 0, 4);
    const bool cip = !is_max && Rnd(rng, 0, 2) == 0;
    if (ap == 1 && !cip) n.Attr("auto_pad", "SAME_UPPER");
    else if (ap == 2 && !cip) n.Attr("auto_pad", "SAME_LOWER");
    else if (ap == 3) n.Attr("auto_pad", "VALID");
    else if (!cip || caps.pads_with_include_pad)
      n.Attr("pads", std::vector<int64_t>{Rnd(rng, 0, kh - 1), Rnd(rng, 0, kw - 1), Rnd(rng, 0, kh - 1), Rnd(rng, 0, kw - 1)});
    if (ap != 1 && ap != 2 && Rnd(rng, 0, 1)) n.Attr("ceil_mode", int64_t(1));
    if (cip) n.Attr("count_include_pad", int64_t(1));
    const std::vector<Tensor> in = {RandF32({Rnd(rng, 1, 3), Rnd(rng, 1, caps.max_channels), H, W}, rng)};
    std::string desc = ShapeStr(in[0].shape);
    for (const auto& [name, a] : n.node.attrs)
      desc += " " + name + "=" + (a.kind == Attr::Kind::kString ? a.s : a.kind == Attr::Kind::kInt ? std::to_string(a.i) : ShapeStr(a.ints));
    CAPTURE(it);
    CAPTURE(desc);
    if (CheckOn(backend, n, in, double(kh * kw), is_max ? no_scale : AbsAll(in))) {
      ++ran;
      CheckAfterConv(backend, n, in, double(kh * kw), is_max ? no_scale : AbsAll(in));
    }
  }
  CHECK(ran >= 60);
  // 1-D pooling (on ref where the backend has none).
  CHECK(CheckOn(backend, NodeOf("MaxPool").Attr("kernel_shape", std::vector<int64_t>{3}).Attr("strides", std::vector<int64_t>{2}),
                {RandF32({2, 4, 11}, rng)}, 3, {}, caps.pool_1d ? "" : "ref"));
  ReportWorst();
}

/// Global pools, every elementwise op the backend claims, BatchNormalization and Softmax, on
/// one-node graphs and after a convolution.
void PerChannelOps(const std::string& backend) {
  const Caps& caps = CapsOf(backend);
  const std::vector<Tensor> no_scale;
  std::mt19937 rng(5);
  for (int it = 0; it < 6; ++it) {
    CAPTURE(it);
    const Shape s = {Rnd(rng, 1, 3), Rnd(rng, 2, caps.max_channels), Rnd(rng, 2, 9), Rnd(rng, 2, 9)};
    const Tensor x = RandF32(s, rng, -4, 4);
    const Tensor xpos = RandF32(s, rng, 0.01, 4);
    const int64_t hw = s[2] * s[3];
    for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
      const bool avg = std::string(op) == "GlobalAveragePool";
      CHECK(CheckOn(backend, NodeOf(op), {x}, double(hw), avg ? AbsAll({x}) : no_scale));
      CheckAfterConv(backend, NodeOf(op), {x}, double(hw), avg ? AbsAll({x}) : no_scale);
    }
    for (const char* op : {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Exp", "Abs", "Neg", "Identity", "Dropout"}) {
      if (Excluded(backend, op)) continue;
      CAPTURE(op);
      CHECK(CheckOn(backend, NodeOf(op), {x}, 1));
      CheckAfterConv(backend, NodeOf(op), {x});
    }
    if (!Excluded(backend, "Sqrt")) CHECK(CheckOn(backend, NodeOf("Sqrt"), {xpos}, 1));
    if (!Excluded(backend, "HardSwish")) {
      // HardSwish: x/6 + 1/2 cancels near x = -3, so the budget's scale is |x| * (|x|/6 + 1/2),
      // not |y| (ref itself does not meet 2 eps |y| there): ref64 on |x| gives that scale.
      CHECK(CheckOn(backend, NodeOf("HardSwish"), {x}, 1, AbsAll({x})));
      CheckAfterConv(backend, NodeOf("HardSwish"), {x}, 1, AbsAll({x}));
    }
    const std::vector<Tensor> clip = {x, F32({}, {-1.5}), F32({}, {2.25})};
    CHECK(CheckOn(backend, NodeOf("Clip"), clip, 1));
    CheckAfterConv(backend, NodeOf("Clip"), clip);
    CheckAfterConv(backend, NodeOf("LeakyRelu").Attr("alpha", 0.3), {x});
    const int64_t C = s[1];
    const std::vector<Tensor> bn = {x, RandF32({C}, rng), RandF32({C}, rng), RandF32({C}, rng), RandF32({C}, rng, 0.01, 3)};
    // (x - mean) / den * scale + B cancels: the scale is (|x| + |mean|) / den * |scale| + |B|.
    std::vector<Tensor> bn_scale = AbsAll(bn);
    for (int64_t i = 0; i < C; ++i) bn_scale[3].as<float>()[i] = -bn_scale[3].as<float>()[i];
    CHECK(CheckOn(backend, NodeOf("BatchNormalization"), bn, 1, bn_scale));
    CheckAfterConv(backend, NodeOf("BatchNormalization"), bn, 1, bn_scale);
    CHECK(CheckOn(backend, NodeOf("Softmax"), {x}, double(s[3])));
    CHECK(CheckOn(backend, NodeOf("Softmax").Attr("axis", int64_t(1)).Attr("legacy_2d", int64_t(1)), {x}, double(C * hw)));
    CheckAfterConv(backend, NodeOf("Softmax"), {x}, double(s[3]));
  }
  ReportWorst();
}

/// Add/Sub/Mul/Div: broadcasting both ways, constant and run-time operands, plain and after a
/// convolution; both operands at run time with one of them in the backend's layout.
void Binary(const std::string& backend) {
  std::mt19937 rng(11);
  const Shape s = {2, 5, 4, 3};
  const std::vector<Shape> others = {{2, 5, 4, 3}, {5, 1, 1}, {1, 5, 1, 1}, {3}, {4, 1}, {1}, {}, {2, 1, 4, 3}, {2, 5, 1, 1}};
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    for (const Shape& o : others) {
      CAPTURE(op);
      CAPTURE(ShapeStr(o));
      const Tensor a = RandF32(s, rng), b = RandF32(o, rng, 0.5, 2);
      CHECK(CheckOn(backend, NodeOf(op), {a, b}, 1));
      CheckAfterConv(backend, NodeOf(op), {a, b});
    }
    // Broadcast in the other direction: the run-time operand is the smaller one.
    CHECK(CheckOn(backend, NodeOf(op), {RandF32({5, 1, 1}, rng, 0.5, 2), RandF32(s, rng, 0.5, 2)}, 1));
  }
  // Both operands at run time, one of them the conv output (the backend's layout), the other
  // plain, the conv output first or second; 5 and 16 channels.
  for (int64_t C : {5, 16})
    for (const char* op : {"Add", "Mul", "Sub"})
      for (bool conv_first : {true, false}) {
        CAPTURE(C);
        CAPTURE(op);
        CAPTURE(conv_first);
        const Shape xs = {2, C, 4, 3}, zs = {2, C, 1, 1};
        G g;
        int x = g.Input("x", xs), z = g.Input("z", zs);
        int t = g.Add(NodeOf("Conv"), {x, g.Const("w", RandF32({C, C, 1, 1}, rng))}, "t");
        int x2 = g.Input("x2", xs);
        int u = g.Add(NodeOf(op), conv_first ? std::vector<int>{t, x2} : std::vector<int>{x2, t}, "u");
        g.g->outputs.push_back(g.Add(NodeOf(op), {u, z}, "y"));
        const std::vector<NamedTensor> in = {{"x", RandF32(xs, rng)}, {"z", RandF32(zs, rng)}, {"x2", RandF32(xs, rng)}};
        std::vector<NamedTensor> want = RunS(*MakeSession(g.g, "ref64", 1), in);
        auto sess = MakeSession(g.g, backend, 2);
        std::vector<NamedTensor> got = RunS(*sess, in);
        CHECK(PlacementOf(*sess, "u") == backend);
        for (int64_t i = 0; i < want[0].tensor.numel(); ++i)
          CHECK(std::fabs(ReadDouble(got[0].tensor, i) - ReadDouble(want[0].tensor, i)) <= 1e-5);
      }
  // Long rows (a same-shape Add is one row of the whole tensor, which a backend may split in
  // pieces) and many short broadcast rows whose runs cross the tasks' bounds (a squeeze-excite
  // scale, [N, H*W, C] * [N, 1, C]), each followed by a Relu as in a residual block: exact
  // against max(0, a op b) computed here with numpy's broadcasting (one float operation), at 1
  // and 2 threads.
  const std::vector<std::pair<Shape, std::vector<Shape>>> cases = {
      {{2, 40001}, {{2, 40001}, {40001}, {1}, {2, 1}}},
      {{2, 300, 64}, {{2, 1, 64}, {64}, {2, 300, 1}, {300, 1}}},
  };
  for (const auto& cs : cases)
    for (const Shape& o : cs.second)
      for (const char* op : {"Add", "Mul"}) {
        const Shape& ls = cs.first;  // a reference, not a structured binding: lambdas capture it in C++17
        CAPTURE(ShapeStr(ls));
        CAPTURE(ShapeStr(o));
        CAPTURE(op);
        G g;
        const int a = g.Input("a", ls), b = g.Input("b", o);
        const int r = g.Add(NodeOf(op), {a, b}, "r");
        g.g->outputs.push_back(g.Add(NodeOf("Relu"), {r}, "y"));
        const Tensor at = RandF32(ls, rng), bt = RandF32(o, rng);
        const std::vector<NamedTensor> in = {{"a", at}, {"b", bt}};
        // b's element for output element i: per output dim, b's dim (right-aligned) or 0 where 1.
        auto b_index = [&](int64_t i) {
          int64_t j = 0, bstride = 1;
          for (size_t d = ls.size(); d-- > 0;) {
            const int64_t coord = i % ls[d];
            i /= ls[d];
            const ptrdiff_t bd = ptrdiff_t(d) - ptrdiff_t(ls.size() - o.size());
            if (bd < 0) continue;
            if (o[size_t(bd)] != 1) j += coord * bstride;
            bstride *= o[size_t(bd)];
          }
          return j;
        };
        for (int threads : {1, 2}) {
          CAPTURE(threads);
          auto sess = MakeSession(g.g, backend, threads);
          std::vector<NamedTensor> got = RunS(*sess, in);
          CHECK(PlacementOf(*sess, "r") == backend);
          int64_t wrong = 0;
          for (int64_t i = 0; i < at.numel(); ++i) {
            const float x = at.as<float>()[i], z = bt.as<float>()[b_index(i)];
            const float want = std::max(0.0f, std::string(op) == "Add" ? x + z : x * z);
            wrong += got[0].tensor.as<float>()[i] != want;
          }
          CHECK(wrong == 0);
        }
      }
  ReportWorst();
}

/// 1-D convolutions (N C L): groups, dilations, pads, strides; every fourth one wide (the blocked
/// or own AVX-512 kernels where the CPU has them).
void RandomConv1d(const std::string& backend) {
  std::mt19937 rng(5150);
  int ran = 0;
  for (int it = 0; it < 40; ++it) {
    const bool wide = it % 4 == 3;
    const int N = Rnd(rng, 1, 2), groups = wide ? 1 : Rnd(rng, 1, 3);
    const int cg = wide ? Rnd(rng, 40, 130) : Rnd(rng, 1, 6), mg = wide ? Rnd(rng, 32, 130) : Rnd(rng, 1, 7);
    const int k = Rnd(rng, 1, 5), s = Rnd(rng, 1, 3), d = Rnd(rng, 1, 2);
    const int L = (k - 1) * d + Rnd(rng, 1, 12);
    NodeOf n("Conv");
    n.Attr("group", int64_t(groups)).Attr("strides", std::vector<int64_t>{s}).Attr("dilations", std::vector<int64_t>{d});
    n.Attr("pads", std::vector<int64_t>{Rnd(rng, 0, 2), Rnd(rng, 0, 2)});
    std::vector<Tensor> in = {RandF32({N, groups * cg, L}, rng), RandF32({groups * mg, cg, k}, rng)};
    if (it % 2) in.push_back(RandF32({groups * mg}, rng));
    CAPTURE(it);
    ran += CheckOn(backend, n, in, double(cg * k), AbsAll(in));
  }
  CHECK(ran == 40);
  ReportWorst();
}

/// Flatten, Reshape, Unsqueeze and Concat on every axis, plain and after a convolution.
void DataMovement(const std::string& backend) {
  std::mt19937 rng(8);
  const Shape s = {2, 6, 5, 3};
  const Tensor x = RandF32(s, rng);
  CHECK(CheckOn(backend, NodeOf("Flatten"), {x}, 1));
  CheckAfterConv(backend, NodeOf("Flatten"), {x});
  CheckAfterConv(backend, NodeOf("Flatten").Attr("axis", int64_t(2)), {x});
  CheckAfterConv(backend, NodeOf("Reshape"), {x, I64({3}, {2, 6, -1})});
  CheckAfterConv(backend, NodeOf("Unsqueeze"), {x, I64({1}, {0})});
  for (int64_t axis : {0, 1, 2, 3, -1}) {
    CAPTURE(axis);
    Shape s1 = s;
    s1[static_cast<size_t>(axis < 0 ? axis + 4 : axis)] = 3;
    const std::vector<Tensor> in2 = {x, RandF32(s1, rng)};
    CHECK(CheckOn(backend, NodeOf("Concat").Attr("axis", axis), in2, 1));
    CheckAfterConv(backend, NodeOf("Concat").Attr("axis", axis), in2);
  }
}

/// float16 and bfloat16 nodes (WidePartition): claimed, computed in float32 and rounded once to
/// nearest even, as `ref` does. The sums lie 3/4, 1/4 and exactly 1/2 of a narrow ULP above a
/// representable value (ties to even), so truncating or skipping the rounding fails; the expected
/// codes are computed by hand. Then Relu -> Conv -> Add, whose output must equal ref's within one
/// narrow ULP of the output's largest value (only the float32 summation order differs).
void NarrowFloats(const std::string& backend) {
  for (DType t : {DType::kFloat16, DType::kBFloat16}) {
    CAPTURE(DTypeName(t));
    const bool half = t == DType::kFloat16;
    const double q = half ? 1.0 / 1024 : 1.0 / 128;  // the ULP at [1, 2)
    auto code = [&](double v) { return half ? FloatToHalf(float(v)) : FloatToBFloat16Nearest(float(v)); };
    auto narrow = [&](const Shape& sh, const std::vector<double>& v) {
      Tensor x = *Tensor::Alloc(t, sh);
      for (size_t i = 0; i < v.size(); ++i) x.as<uint16_t>()[i] = code(v[i]);
      return x;
    };
    const std::vector<double> a = {1, 1, 1, 1 + q, -1, 3}, b = {0.75 * q, 0.25 * q, 0.5 * q, 0.5 * q, -0.75 * q, 1.5 * q};
    const std::vector<double> want = {1 + q, 1, 1, 1 + 2 * q, -1 - q, 3 + 2 * q};
    G g;
    const int x = g.Input("a", {6}), y = g.Input("b", {6});
    const int z = g.Add(NodeOf("Add"), {x, y}, "z");
    for (int v : {x, y, z}) g.g->values[size_t(v)].dtype = t;
    g.g->outputs.push_back(z);
    auto sess = MakeSession(g.g, backend, 1);
    std::vector<NamedTensor> got = RunS(*sess, {{"a", narrow({6}, a)}, {"b", narrow({6}, b)}});
    CHECK(PlacementOf(*sess, "z") == backend);
    REQUIRE(got[0].tensor.dtype == t);
    for (size_t i = 0; i < want.size(); ++i) {
      CAPTURE(i);
      CHECK(got[0].tensor.as<uint16_t>()[i] == code(want[i]));
    }
    // Relu -> Conv (weights in the narrow type) -> Add: on the backend, against ref.
    std::mt19937 rng(77);
    std::uniform_real_distribution<double> u(-1, 1);
    auto rand_narrow = [&](const Shape& sh) {
      int64_t count = 1;
      for (int64_t d : sh) count *= d;
      std::vector<double> v(static_cast<size_t>(count));
      for (double& e : v) e = u(rng);
      return narrow(sh, v);
    };
    G h;
    const int in = h.Input("x", {1, 4, 5, 5});
    const int r = h.Add(NodeOf("Relu"), {in}, "r");
    const int c = h.Add(NodeOf("Conv").Attr("pads", std::vector<int64_t>{1, 1, 1, 1}),
                        {r, h.Const("w", rand_narrow({8, 4, 3, 3})), h.Const("bias", rand_narrow({8}))}, "c");
    const int s2 = h.Add(NodeOf("Add"), {c, h.Const("k", rand_narrow({8, 1, 1}))}, "s");
    for (int v : {in, r, c, s2}) h.g->values[size_t(v)].dtype = t;
    h.g->outputs.push_back(s2);
    const Tensor xin = rand_narrow({1, 4, 5, 5});
    auto fast = MakeSession(h.g, backend, 1);
    std::vector<NamedTensor> y1 = RunS(*fast, {{"x", xin}});
    std::vector<NamedTensor> y0 = RunS(*MakeSession(h.g, "ref", 1), {{"x", xin}});
    for (const char* n : {"r", "c", "s"}) CHECK(PlacementOf(*fast, n) == backend);
    double top = 0;
    for (int64_t i = 0; i < y0[0].tensor.numel(); ++i) top = std::max(top, std::fabs(ReadDouble(y0[0].tensor, i)));
    int same = 0;
    for (int64_t i = 0; i < y0[0].tensor.numel(); ++i) {
      const double d = std::fabs(ReadDouble(y1[0].tensor, i) - ReadDouble(y0[0].tensor, i));
      CHECK(d <= top * (half ? 1.0 / 1024 : 1.0 / 128));
      same += d == 0;
    }
    CHECK(same >= y0[0].tensor.numel() * 9 / 10);  // mostly bit-identical: the same function
  }
}

}  // namespace

#define TARE_BACKEND_SUITE(b)                                                                             \
  TEST_CASE(b " claims the fast backends' ops except its known exclusions") {                           \
    SkipUnlessAvailable(b);                                                                               \
    Claims(b);                                                                                            \
  }                                                                                                       \
  TEST_CASE(b " Conv: random shapes, groups, depthwise, dilations, asymmetric pads, auto_pad, strides, batch") { \
    SkipUnlessAvailable(b);                                                                               \
    RandomConv(b);                                                                                        \
  }                                                                                                       \
  TEST_CASE(b ": the per-op case table of bench/op_bench.cc (model layers at batch 1) within budget of ref64") { \
    SkipUnlessAvailable(b);                                                                               \
    OpCaseTable(b);                                                                                       \
  }                                                                                                       \
  TEST_CASE(b " multi-node graph: partitions around a ref node, traced values, re-plan, determinism") {  \
    SkipUnlessAvailable(b);                                                                               \
    MultiNode(b);                                                                                         \
  }                                                                                                       \
  TEST_CASE(b " leaves to ref what its float paths do not cover: MaxPool with Indices, int Add") {      \
    SkipUnlessAvailable(b);                                                                               \
    LeavesToRef(b);                                                                                       \
  }                                                                                                       \
  TEST_CASE(b " MaxPool and AveragePool: random geometry, ceil_mode, auto_pad, count_include_pad") {    \
    SkipUnlessAvailable(b);                                                                               \
    RandomPools(b);                                                                                       \
  }                                                                                                       \
  TEST_CASE(b " global pools, elementwise ops, BatchNormalization, Softmax: plain and after a conv") {   \
    SkipUnlessAvailable(b);                                                                               \
    PerChannelOps(b);                                                                                     \
  }                                                                                                       \
  TEST_CASE(b " Add/Sub/Mul/Div: broadcasting, plain and after a conv, constant and run-time operands") { \
    SkipUnlessAvailable(b);                                                                               \
    Binary(b);                                                                                            \
  }                                                                                                       \
  TEST_CASE(b " 1-D Conv (N C L): random shapes, groups, dilations, pads, strides, narrow and wide") {  \
    SkipUnlessAvailable(b);                                                                               \
    RandomConv1d(b);                                                                                      \
  }                                                                                                       \
  TEST_CASE(b " data movement: Flatten, Reshape, Unsqueeze, Concat on every axis (plain and after a conv)") { \
    SkipUnlessAvailable(b);                                                                               \
    DataMovement(b);                                                                                      \
  }                                                                                                       \
  TEST_CASE(b " float16 and bfloat16 nodes: computed in float32, rounded once to nearest even (as ref)") { \
    SkipUnlessAvailable(b);                                                                               \
    NarrowFloats(b);                                                                                      \
  }

#ifdef TARE_WITH_CPU
TARE_BACKEND_SUITE("cpu")
#endif
#ifdef TARE_WITH_ONEDNN
TARE_BACKEND_SUITE("onednn")
#endif
#ifdef TARE_WITH_VULKAN
TARE_BACKEND_SUITE("vulkan")
#endif
