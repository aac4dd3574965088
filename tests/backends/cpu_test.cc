// The cpu backend's own cases against ref64 (seeded random shapes), within each op's error budget
// (docs/NUMERICS.md): wide convolutions (its AVX-512 kernel), the Silero encoder chain, Conv +
// BatchNormalization + Relu/Clip fusion, Gemm/MatMul, Transpose and Pad, fused chains over reused
// arena bytes, in-place Concats, 3-D Conv on ref. Reference values come from ref64 (double, the
// specification); dot-product budgets use sum|w x|, computed by ref64 on |inputs|. What every fast
// backend runs (random ops in plain layout and after a conv, the multi-node graph, determinism,
// the per-op case table) is the shared suite, backend_suite_test.cc.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "tests/backends/backend_check.h"
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {

constexpr double kEps32 = 1.0 / (1 << 24);


bool CheckCpu(const Node& node, const std::vector<Tensor>& inputs, double k, const std::vector<Tensor>& scale_in = {}) {
  return CheckOn("cpu", node, inputs, k, scale_in);
}
/// Input 0 held NHWC: the output of an exact identity 1x1 convolution on cpu.
void CheckAfterConv(const Node& node, const std::vector<Tensor>& inputs, double k = 1,
                    const std::vector<Tensor>& scale_in = {}) {
  test::CheckAfterConv("cpu", node, inputs, k, scale_in);
}

}  // namespace

TEST_CASE("cpu Conv, wide layers (the own AVX-512 kernel on machines that have it): tails, groups, K chunks") {
  std::mt19937 rng(4321);
  int ran = 0;
  for (int it = 0; it < 24; ++it) {
    const int N = Rnd(rng, 1, 2), groups = it % 5 == 4 ? 2 : 1;
    const int cg = it % 6 == 5 ? Rnd(rng, 120, 140) : Rnd(rng, 8, 70);  // cg * taps > 1024: several K chunks
    const int og = Rnd(rng, 32, 140);
    const int kh = Rnd(rng, 1, 3), kw = Rnd(rng, 1, 3);
    const int s = Rnd(rng, 1, 2), d = it % 7 == 3 ? 2 : 1;
    const int H = (kh - 1) * d + Rnd(rng, 1, 12), W = (kw - 1) * d + Rnd(rng, 1, 12);
    NodeOf n("Conv");
    n.Attr("group", int64_t(groups)).Attr("strides", std::vector<int64_t>{s, s}).Attr("dilations", std::vector<int64_t>{d, d});
    n.Attr("pads", std::vector<int64_t>{Rnd(rng, 0, 1), Rnd(rng, 0, 2), Rnd(rng, 0, 2), Rnd(rng, 0, 1)});
    std::vector<Tensor> in = {RandF32({N, groups * cg, H, W}, rng), RandF32({groups * og, cg, kh, kw}, rng)};
    if (it % 2) in.push_back(RandF32({groups * og}, rng));
    CAPTURE(it);
    ran += CheckCpu(n, in, double(cg * kh * kw), AbsAll(in));
    // Fused residual Add and clamp on the same path.
    if (it % 3 != 2) {
      G g;
      int x = g.Input("x", in[0].shape);
      std::vector<int> ins = {x, g.Const("w", in[1])};
      if (in.size() > 2) ins.push_back(g.Const("b", in[2]));
      int c = g.Add(n, ins, "conv");
      std::vector<NamedTensor> feeds = {{"x", in[0]}};
      if (it % 3 == 1) {
        Result<std::vector<Tensor>> shape = Run(n, in, DType::kFloat32);
        REQUIRE(shape.ok());
        const Tensor r = RandF32((*shape)[0].shape, rng);
        c = g.Add(NodeOf("Add"), {g.Input("r", r.shape), c}, "add");
        feeds.push_back({"r", r});
      }
      g.g->outputs.push_back(g.Add(NodeOf("Relu"), {c}, "relu"));
      std::vector<NamedTensor> want = RunS(*MakeSession(g.g, "ref64", 1), feeds);
      std::vector<NamedTensor> got = RunS(*MakeSession(g.g, "cpu", 2), feeds);
      for (int64_t i = 0; i < want[0].tensor.numel(); ++i)
        REQUIRE(std::fabs(ReadDouble(got[0].tensor, i) - ReadDouble(want[0].tensor, i)) <= 1e-4);
    }
  }
  CHECK(ran == 24);
}

TEST_CASE("cpu Conv1d -> Relu -> Conv1d (stride 2) -> Relu, Silero's encoder pattern, on cpu end to end") {
  std::mt19937 rng(5151);
  G g;
  int x = g.Input("x", {1, 129, 4});
  int c = g.Add(NodeOf("Conv").Attr("pads", std::vector<int64_t>{1, 1}),
                {x, g.Const("w1", RandF32({128, 129, 3}, rng)), g.Const("b1", RandF32({128}, rng))}, "c1");
  c = g.Add(NodeOf("Relu"), {c}, "r1");
  c = g.Add(NodeOf("Conv").Attr("pads", std::vector<int64_t>{1, 1}).Attr("strides", std::vector<int64_t>{2}),
            {c, g.Const("w2", RandF32({64, 128, 3}, rng)), g.Const("b2", RandF32({64}, rng))}, "c2");
  g.g->outputs.push_back(g.Add(NodeOf("Relu"), {c}, "r2"));
  const Tensor xin = RandF32({1, 129, 4}, rng);
  std::vector<NamedTensor> want = RunS(*MakeSession(g.g, "ref64", 1), {{"x", xin}});
  for (int threads : {1, 2}) {
    auto s = MakeSession(g.g, "cpu", threads);
    std::vector<NamedTensor> got = RunS(*s, {{"x", xin}});
    CHECK(PlacementOf(*s, "c1") == "cpu");
    CHECK(PlacementOf(*s, "c2") == "cpu");
    REQUIRE(got[0].tensor.shape == Shape{1, 64, 2});
    // Budget of the second conv over |values|: K = 384 terms of products up to ~129 * 3.
    for (int64_t i = 0; i < want[0].tensor.numel(); ++i)
      REQUIRE(std::fabs(ReadDouble(got[0].tensor, i) - ReadDouble(want[0].tensor, i)) <= 1e-3);
  }
}

TEST_CASE("cpu Conv + BatchNormalization + Relu/Clip fused, against the unfused ref64 graph") {
  std::mt19937 rng(77);
  for (int variant = 0; variant < 4; ++variant) {
    CAPTURE(variant);
    G g;
    const int64_t C = 5, M = 6;
    int x = g.Input("x", {2, C, 9, 8});
    int c = g.Add(NodeOf("Conv").Attr("pads", std::vector<int64_t>{1, 1, 1, 1}),
                  {x, g.Const("w", RandF32({M, C, 3, 3}, rng)), g.Const("b", RandF32({M}, rng))}, "conv");
    if (variant != 1)
      c = g.Add(NodeOf("BatchNormalization").Attr("epsilon", 1e-3),
                {c, g.Const("s", RandF32({M}, rng, 0.5, 2)), g.Const("bb", RandF32({M}, rng)), g.Const("m", RandF32({M}, rng)),
                 g.Const("v", RandF32({M}, rng, 0.1, 2))},
                "bn");
    if (variant == 2) c = g.Add(NodeOf("Relu"), {c}, "act");
    if (variant == 3) c = g.Add(NodeOf("Clip"), {c, g.Const("lo", F32({}, {-0.5})), g.Const("hi", F32({}, {0.75}))}, "act");
    g.g->outputs.push_back(c);
    Tensor xin = RandF32({2, C, 9, 8}, rng);
    std::vector<NamedTensor> want = RunS(*MakeSession(g.g, "ref64", 1), {{"x", xin}});
    for (int threads : {1, 2}) {
      std::vector<NamedTensor> got = RunS(*MakeSession(g.g, "cpu", threads), {{"x", xin}});
      // Folding changes the rounding of the weights: a dot budget of K = 45 terms at the scale of
      // the largest |y| (inputs in [-1, 1], so sum|w x| <= 45 * max|w'|).
      double ymax = 0;
      for (int64_t i = 0; i < want[0].tensor.numel(); ++i) ymax = std::max(ymax, std::fabs(ReadDouble(want[0].tensor, i)));
      for (int64_t i = 0; i < want[0].tensor.numel(); ++i)
        REQUIRE(std::fabs(ReadDouble(got[0].tensor, i) - ReadDouble(want[0].tensor, i)) <= 64 * 47 * kEps32 * (ymax + 1));
    }
  }
}

TEST_CASE("cpu Gemm and MatMul: random sizes, transB, bias shapes, beta") {
  std::mt19937 rng(3);
  for (int it = 0; it < 24; ++it) {
    CAPTURE(it);
    const int M = Rnd(rng, 1, 9), K = Rnd(rng, 1, 70), N = Rnd(rng, 1, 40);
    const bool tb = it % 2;
    NodeOf n("Gemm");
    if (tb) n.Attr("transB", int64_t(1));
    std::vector<Tensor> in = {RandF32({M, K}, rng), RandF32(tb ? Shape{N, K} : Shape{K, N}, rng)};
    const int c = it % 4;
    if (c == 1) in.push_back(RandF32({N}, rng));
    if (c == 2) in.push_back(RandF32({1, N}, rng));
    if (c == 3) {
      in.push_back(RandF32({1}, rng));
      n.Attr("beta", 0.5);
    }
    CHECK(CheckCpu(n, in, K, AbsAll(in)));
    std::vector<Tensor> mm = {RandF32({Rnd(rng, 1, 3), M, K}, rng), RandF32({K, N}, rng)};
    CHECK(CheckCpu(NodeOf("MatMul"), mm, K, AbsAll(mm)));
  }
}

TEST_CASE("cpu Transpose and Pad (plain and NHWC)") {
  std::mt19937 rng(8);
  const Tensor x = RandF32({2, 6, 5, 3}, rng);
  for (const std::vector<int64_t>& perm : std::vector<std::vector<int64_t>>{{0, 2, 3, 1}, {0, 3, 1, 2}, {3, 2, 1, 0}, {1, 0, 2, 3}}) {
    CHECK(CheckCpu(NodeOf("Transpose").Attr("perm", perm), {x}, 1));
    CheckAfterConv(NodeOf("Transpose").Attr("perm", perm), {x});
  }
  const std::vector<Tensor> pad = {x, I64({8}, {0, 1, 2, 0, 1, 0, 1, 3}), F32({}, {0.5})};
  CHECK(CheckCpu(NodeOf("Pad"), pad, 1));
  CheckAfterConv(NodeOf("Pad"), pad);
  CheckAfterConv(NodeOf("Pad"), {x, I64({8}, {0, 0, 1, 1, 0, 0, 2, 0})});
}

TEST_CASE("cpu fused chains where the arena reuses an input's bytes for the chain's output") {
  // Conv+BN+Relu / Conv+Clip / Add+Relu chains of equal-sized values: the session's arena gives a
  // chain's output the bytes of the chain's input (their lifetimes do not overlap), so the fused
  // step writes elsewhere (the first node's slot, or a private buffer) and the readers follow.
  std::mt19937 rng(21);
  G g;
  const int64_t C = 6;
  int x = g.Input("x", {2, C, 7, 9});
  int v = x, skip = x;
  for (int layer = 0; layer < 8; ++layer) {
    const std::string l = std::to_string(layer);
    int c = g.Add(NodeOf("Conv").Attr("pads", std::vector<int64_t>{1, 1, 1, 1}),
                  {v, g.Const("w" + l, RandF32({C, C, 3, 3}, rng, -0.3, 0.3)), g.Const("b" + l, RandF32({C}, rng))}, "conv" + l);
    if (layer % 2 == 0)
      c = g.Add(NodeOf("BatchNormalization"),
                {c, g.Const("s" + l, RandF32({C}, rng, 0.5, 1.5)), g.Const("bb" + l, RandF32({C}, rng)),
                 g.Const("m" + l, RandF32({C}, rng)), g.Const("v" + l, RandF32({C}, rng, 0.5, 2))},
                "bn" + l);
    if (layer % 3 == 2) {
      c = g.Add(NodeOf("Add"), {c, skip}, "add" + l);
      skip = c;
    }
    v = layer % 4 == 1 ? g.Add(NodeOf("Clip"), {c, g.Const("lo" + l, F32({}, {-1})), g.Const("hi" + l, F32({}, {1}))}, "act" + l)
                       : g.Add(NodeOf("Relu"), {c}, "act" + l);
  }
  g.g->outputs.push_back(v);
  const Tensor xin = RandF32({2, C, 7, 9}, rng);
  std::vector<NamedTensor> want = RunS(*MakeSession(g.g, "ref64", 1), {{"x", xin}});
  for (int threads : {1, 2}) {
    auto s = MakeSession(g.g, "cpu", threads);
    std::vector<NamedTensor> got = RunS(*s, {{"x", xin}});
    CHECK(PlacementOf(*s, "conv7") == "cpu");
    for (int64_t i = 0; i < want[0].tensor.numel(); ++i)
      REQUIRE(std::fabs(ReadDouble(got[0].tensor, i) - ReadDouble(want[0].tensor, i)) <= 1e-5);
  }
}

TEST_CASE("cpu convolutions written in place into a channel Concat (fire modules), narrow and wide") {
  std::mt19937 rng(33);
  for (int wide = 0; wide < 2; ++wide) {
    for (int variant = 0; variant < 3; ++variant) {
      CAPTURE(wide);
      CAPTURE(variant);
      G g;
      const int64_t C = wide ? 40 : 6, S = wide ? 24 : 4, E = wide ? 64 : 5;
      int x = g.Input("x", {2, C, 9, 8});
      int v = x;
      for (int f = 0; f < 3; ++f) {
        const std::string l = std::to_string(f);
        const int64_t cin = f == 0 ? C : 2 * E;
        int sq = g.Add(NodeOf("Conv"), {v, g.Const("ws" + l, RandF32({S, cin, 1, 1}, rng, -0.3, 0.3))}, "sq" + l);
        sq = g.Add(NodeOf("Relu"), {sq}, "sqr" + l);
        int e1 = g.Add(NodeOf("Conv"), {sq, g.Const("w1" + l, RandF32({E, S, 1, 1}, rng, -0.3, 0.3))}, "e1" + l);
        e1 = g.Add(NodeOf("Relu"), {e1}, "e1r" + l);
        int e3 = g.Add(NodeOf("Conv").Attr("pads", std::vector<int64_t>{1, 1, 1, 1}),
                       {sq, g.Const("w3" + l, RandF32({E, S, 3, 3}, rng, -0.3, 0.3)), g.Const("b3" + l, RandF32({E}, rng))}, "e3" + l);
        if (variant == 1 && f == 1) e3 = g.Add(NodeOf("Add"), {e3, e1}, "res" + l);  // e1 read twice: not placed
        e3 = g.Add(NodeOf("Relu"), {e3}, "e3r" + l);
        v = g.Add(NodeOf("Concat").Attr("axis", int64_t(1)), {e1, e3}, "cat" + l);
      }
      g.g->outputs.push_back(v);
      // variant 2: an inner Concat output traced (live out: written to a private buffer first).
      const std::vector<std::string> trace = variant == 2 ? std::vector<std::string>{"cat1"} : std::vector<std::string>{};
      const Tensor xin = RandF32({2, C, 9, 8}, rng);
      auto ref = MakeSession(g.g, "ref64", 1, trace);
      std::vector<NamedTensor> want = RunS(*ref, {{"x", xin}});
      for (int threads : {1, 2}) {
        auto s = MakeSession(g.g, "cpu", threads, trace);
        std::vector<NamedTensor> got = RunS(*s, {{"x", xin}});
        CHECK(PlacementOf(*s, "cat2") == "cpu");
        double scale = 0;
        for (int64_t i = 0; i < want[0].tensor.numel(); ++i) scale = std::max(scale, std::fabs(ReadDouble(want[0].tensor, i)));
        for (int64_t i = 0; i < want[0].tensor.numel(); ++i)
          REQUIRE(std::fabs(ReadDouble(got[0].tensor, i) - ReadDouble(want[0].tensor, i)) <= 1e-5 * (1 + scale));
        if (variant == 2) {
          const Tensor t64 = ref->Trace()[0].tensor;  // Trace() returns copies
          const Tensor t32 = s->Trace()[0].tensor;
          REQUIRE(t64.shape == t32.shape);
          for (int64_t i = 0; i < t64.numel(); ++i) REQUIRE(std::fabs(ReadDouble(t32, i) - ReadDouble(t64, i)) <= 1e-4);
        }
      }
    }
  }
}

TEST_CASE("cpu leaves 3-D Conv to ref") {
  std::mt19937 rng(1);
  G g1;
  int x1 = g1.Input("x", {1, 4, 5, 5, 5});
  g1.g->outputs.push_back(g1.Add(NodeOf("Conv"), {x1, g1.Const("w", RandF32({2, 4, 3, 3, 3}, rng))}, "c"));
  auto s1 = MakeSession(g1.g, "cpu", 1);
  RunS(*s1, {{"x", RandF32({1, 4, 5, 5, 5}, rng)}});
  CHECK(PlacementOf(*s1, "c") == "ref");
}

TEST_CASE("cpu depthwise Conv with more than 25 taps (ConvNeXt's 7x7): the own NHWC loop, pads, strides, dilations, clamp") {
  std::mt19937 rng(7070);
  int ran = 0;
  for (int it = 0; it < 12; ++it) {
    const int C = Rnd(rng, 1, 40) * (it % 3 == 0 ? 8 : 1), k = it % 4 == 3 ? 9 : 7;
    const int s = it % 3 == 1 ? 2 : 1, d = it % 5 == 4 ? 2 : 1, p = Rnd(rng, 0, k / 2);
    const int H = (k - 1) * d + Rnd(rng, 1, 10), W = (k - 1) * d + Rnd(rng, 1, 10);
    NodeOf n("Conv");
    n.Attr("group", int64_t(C)).Attr("strides", std::vector<int64_t>{s, s}).Attr("dilations", std::vector<int64_t>{d, d});
    n.Attr("pads", std::vector<int64_t>{p, p, p, p});
    std::vector<Tensor> in = {RandF32({Rnd(rng, 1, 2), C, H, W}, rng), RandF32({C, 1, k, k}, rng)};
    if (it % 2) in.push_back(RandF32({C}, rng));
    CAPTURE(it);
    CHECK(RanOn("cpu", n.node, in) == "cpu");
    ran += CheckCpu(n, in, double(k * k), AbsAll(in));
    if (it % 4 == 0) {  // after a conv (input held NHWC), with a fused Relu
      G g;
      const int x = g.Input("x", in[0].shape);
      const int c = g.Add(n, {x, g.Const("w", in[1])}, "dw");
      g.g->outputs.push_back(g.Add(NodeOf("Relu"), {c}, "relu"));
      std::vector<NamedTensor> want = RunS(*MakeSession(g.g, "ref64", 1), {{"x", in[0]}});
      std::vector<NamedTensor> got = RunS(*MakeSession(g.g, "cpu", 2), {{"x", in[0]}});
      for (int64_t i = 0; i < want[0].tensor.numel(); ++i)
        REQUIRE(std::fabs(ReadDouble(got[0].tensor, i) - ReadDouble(want[0].tensor, i)) <= 1e-4);
    }
  }
  CHECK(ran == 12);
}

TEST_CASE("cpu NaN guards at 2 threads: a NaN in the last of many inputs still reaches the outputs it feeds") {
  // The guards scan their input split over the threads (AllFiniteParallel); the NaN sits in the
  // last 64 KB tile, which the second thread scans. ONNX Conv/Gemm/MatMul: a NaN term makes the sum
  // NaN, and Relu keeps it; every other output is finite.
  std::mt19937 rng(77);
  {  // 1x1 Conv 8 -> 8 + Relu on [1, 8, 64, 64]: the last pixel (channel 7's last element in NCHW).
    G g;
    const int x = g.Input("x", {1, 8, 64, 64});
    const int c = g.Add(NodeOf("Conv"), {x, g.Const("w", RandF32({8, 8, 1, 1}, rng))}, "c");
    g.g->outputs.push_back(g.Add(NodeOf("Relu"), {c}, "y"));
    Tensor xt = RandF32({1, 8, 64, 64}, rng);
    xt.as<float>()[xt.numel() - 1] = std::numeric_limits<float>::quiet_NaN();
    for (int threads : {1, 2}) {
      CAPTURE(threads);
      auto sess = MakeSession(g.g, "cpu", threads);
      const std::vector<NamedTensor> out = RunS(*sess, {{"x", xt}});
      CHECK(PlacementOf(*sess, "c") == "cpu");
      const float* y = out[0].tensor.as<float>();
      int64_t wrong = 0;
      for (int64_t ch = 0; ch < 8; ++ch)
        for (int64_t p = 0; p < 64 * 64; ++p) wrong += std::isnan(y[ch * 4096 + p]) != (p == 4095);
      CHECK(wrong == 0);
    }
  }
  {  // MatMul [256, 128] x [128, 64], both at run time: a NaN in A's last element, the last row NaN.
    G g;
    const int a = g.Input("a", {256, 128}), b = g.Input("b", {128, 64});
    g.g->outputs.push_back(g.Add(NodeOf("MatMul"), {a, b}, "y"));
    Tensor at = RandF32({256, 128}, rng), bt = RandF32({128, 64}, rng);
    at.as<float>()[at.numel() - 1] = std::numeric_limits<float>::quiet_NaN();
    for (int threads : {1, 2}) {
      CAPTURE(threads);
      auto sess = MakeSession(g.g, "cpu", threads);
      const std::vector<NamedTensor> out = RunS(*sess, {{"a", at}, {"b", bt}});
      CHECK(PlacementOf(*sess, "y") == "cpu");
      int64_t wrong = 0;
      for (int64_t i = 0; i < 256 * 64; ++i) wrong += std::isnan(out[0].tensor.as<float>()[i]) != (i / 64 == 255);
      CHECK(wrong == 0);
    }
  }
}
