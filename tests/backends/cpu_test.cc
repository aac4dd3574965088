// The cpu backend against ref64 on random shapes (seeded): every claimed op within its error budget
// (docs/NUMERICS.md), in plain layout (one-node graphs: input 0 from outside) and inside an NHWC
// region (the node placed after an exact identity 1x1 convolution); a multi-node graph with
// partition boundaries, traced internal values and re-planning; bit-identical repeated runs.
// Reference values come from ref64 (double, the specification); dot-product budgets use
// sum|w x|, computed by ref64 on the absolute values of the inputs.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "tests/backends/backend_check.h"
#include "tests/backends/op_cases.h"
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {

constexpr double kEps32 = 1.0 / (1 << 24);

const std::vector<Tensor> kNoScale;

bool CheckCpu(const Node& node, const std::vector<Tensor>& inputs, double k, const std::vector<Tensor>& scale_in = {}) {
  return CheckOn("cpu", node, inputs, k, scale_in);
}
/// Input 0 held NHWC: the output of an exact identity 1x1 convolution on cpu.
void CheckAfterConv(const Node& node, const std::vector<Tensor>& inputs, double k = 1,
                    const std::vector<Tensor>& scale_in = {}) {
  test::CheckAfterConv("cpu", node, inputs, k, scale_in);
}

}  // namespace

TEST_CASE("cpu Conv: random shapes, groups, depthwise, dilations, asymmetric pads, strides, batch") {
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
    ran += CheckCpu(n, in, double(cg * kh * kw), AbsAll(in));
  }
  CHECK(ran >= 50);
}

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

TEST_CASE("cpu 1-D Conv (N C L): random shapes, groups, dilations, pads, strides, narrow and wide; a Conv-Relu-Conv chain") {
  std::mt19937 rng(5150);
  int ran = 0;
  for (int it = 0; it < 40; ++it) {
    const bool wide = it % 4 == 3;  // the own AVX-512 kernel where the CPU has it
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
    ran += CheckCpu(n, in, double(cg * k), AbsAll(in));
  }
  CHECK(ran == 40);
  // Silero's encoder pattern: Conv1d -> Relu -> Conv1d (stride 2) -> Relu, on cpu end to end.
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

TEST_CASE("cpu MaxPool and AveragePool: random geometry, ceil_mode, auto_pad, count_include_pad") {
  std::mt19937 rng(99);
  int ran = 0;
  for (int it = 0; it < 80; ++it) {
    const bool is_max = it % 2 == 0;
    const int kh = Rnd(rng, 1, 4), kw = Rnd(rng, 2, 4);
    const int sh = Rnd(rng, 1, 3), sw = Rnd(rng, 1, 3);
    const int dh = is_max ? Rnd(rng, 1, 2) : 1, dw = is_max ? Rnd(rng, 1, 2) : 1;
    const int H = (kh - 1) * dh + Rnd(rng, 1, 8), W = (kw - 1) * dw + Rnd(rng, 1, 8);
    NodeOf n(is_max ? "MaxPool" : "AveragePool");
    n.Attr("kernel_shape", std::vector<int64_t>{kh, kw}).Attr("strides", std::vector<int64_t>{sh, sw});
    if (is_max) n.Attr("dilations", std::vector<int64_t>{dh, dw});
    const int ap = Rnd(rng, 0, 4);
    const bool cip = !is_max && Rnd(rng, 0, 2) == 0;
    if (ap == 1 && !cip) n.Attr("auto_pad", "SAME_UPPER");
    else if (ap == 2 && !cip) n.Attr("auto_pad", "SAME_LOWER");
    else if (ap == 3) n.Attr("auto_pad", "VALID");
    else if (!cip) n.Attr("pads", std::vector<int64_t>{Rnd(rng, 0, kh - 1), Rnd(rng, 0, kw - 1), Rnd(rng, 0, kh - 1), Rnd(rng, 0, kw - 1)});
    if (ap != 1 && ap != 2 && Rnd(rng, 0, 1)) n.Attr("ceil_mode", int64_t(1));
    if (cip) n.Attr("count_include_pad", int64_t(1));
    const std::vector<Tensor> in = {RandF32({Rnd(rng, 1, 3), Rnd(rng, 1, 11), H, W}, rng)};
    std::string desc = ShapeStr(in[0].shape);
    for (const auto& [name, a] : n.node.attrs)
      desc += " " + name + "=" + (a.kind == Attr::Kind::kString ? a.s : a.kind == Attr::Kind::kInt ? std::to_string(a.i) : ShapeStr(a.ints));
    CAPTURE(it);
    CAPTURE(desc);
    if (CheckCpu(n, in, double(kh * kw), is_max ? kNoScale : AbsAll(in))) {
      ++ran;
      CheckAfterConv(n, in, double(kh * kw), is_max ? kNoScale : AbsAll(in));
    }
  }
  CHECK(ran >= 60);
}

TEST_CASE("cpu global pools, unary ops, BatchNormalization, Softmax: plain and NHWC") {
  std::mt19937 rng(5);
  for (int it = 0; it < 6; ++it) {
    CAPTURE(it);
    const Shape s = {Rnd(rng, 1, 3), Rnd(rng, 2, 17), Rnd(rng, 2, 9), Rnd(rng, 2, 9)};
    const Tensor x = RandF32(s, rng, -4, 4);
    const int64_t hw = s[2] * s[3];
    for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
      const bool avg = std::string(op) == "GlobalAveragePool";
      CHECK(CheckCpu(NodeOf(op), {x}, double(hw), avg ? AbsAll({x}) : kNoScale));
      CheckAfterConv(NodeOf(op), {x}, double(hw), avg ? AbsAll({x}) : kNoScale);
    }
    for (const char* op : {"Relu", "LeakyRelu", "Sigmoid", "Identity", "Dropout"}) {
      CHECK(CheckCpu(NodeOf(op), {x}, 1));
      CheckAfterConv(NodeOf(op), {x});
    }
    // HardSwish: x/6 + 1/2 cancels near x = -3, so the budget's scale is |x| * (|x|/6 + 1/2), not
    // |y| (ref itself does not meet 2 eps |y| there): ref64 on |x| gives that scale.
    CHECK(CheckCpu(NodeOf("HardSwish"), {x}, 1, AbsAll({x})));
    CheckAfterConv(NodeOf("HardSwish"), {x}, 1, AbsAll({x}));
    const std::vector<Tensor> clip = {x, F32({}, {-1.5}), F32({}, {2.25})};
    CHECK(CheckCpu(NodeOf("Clip"), clip, 1));
    CheckAfterConv(NodeOf("Clip"), clip);
    CheckAfterConv(NodeOf("LeakyRelu").Attr("alpha", 0.3), {x});
    const int64_t C = s[1];
    const std::vector<Tensor> bn = {x, RandF32({C}, rng), RandF32({C}, rng), RandF32({C}, rng), RandF32({C}, rng, 0.01, 3)};
    // (x - mean) / den * scale + B cancels: the scale is (|x| + |mean|) / den * |scale| + |B|.
    std::vector<Tensor> bn_scale = AbsAll(bn);
    for (int64_t i = 0; i < C; ++i) bn_scale[3].as<float>()[i] = -bn_scale[3].as<float>()[i];
    CHECK(CheckCpu(NodeOf("BatchNormalization"), bn, 1, bn_scale));
    CheckAfterConv(NodeOf("BatchNormalization"), bn, 1, bn_scale);
    CHECK(CheckCpu(NodeOf("Softmax"), {x}, double(s[3])));
    CHECK(CheckCpu(NodeOf("Softmax").Attr("axis", int64_t(1)).Attr("legacy_2d", int64_t(1)), {x}, double(C * hw)));
    CheckAfterConv(NodeOf("Softmax"), {x}, double(s[3]));
  }
}

TEST_CASE("cpu Add/Sub/Mul/Div: broadcasting, plain and NHWC, constant and run-time operands") {
  std::mt19937 rng(11);
  const Shape s = {2, 5, 4, 3};
  const std::vector<Shape> others = {{2, 5, 4, 3}, {5, 1, 1}, {1, 5, 1, 1}, {3}, {4, 1}, {1}, {}, {2, 1, 4, 3}, {2, 5, 1, 1}};
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    for (const Shape& o : others) {
      CAPTURE(op);
      CAPTURE(ShapeStr(o));
      const Tensor a = RandF32(s, rng), b = RandF32(o, rng, 0.5, 2);
      CHECK(CheckCpu(NodeOf(op), {a, b}, 1));
      CheckAfterConv(NodeOf(op), {a, b});
    }
    // Broadcast in the other direction: the run-time operand is the smaller one.
    CHECK(CheckCpu(NodeOf(op), {RandF32({5, 1, 1}, rng, 0.5, 2), RandF32(s, rng, 0.5, 2)}, 1));
  }
  // Both operands at run time, one of them NHWC (the conv output), the other plain.
  for (const char* op : {"Add", "Mul"}) {
    G g;
    int x = g.Input("x", s), z = g.Input("z", {2, 5, 1, 1});
    int t = g.Add(NodeOf("Conv"), {x, g.Const("w", RandF32({5, 5, 1, 1}, rng))}, "t");
    int u = g.Add(NodeOf(op), {t, g.Input("x2", s)}, "u");
    int y = g.Add(NodeOf(op), {u, z}, "y");
    g.g->outputs.push_back(y);
    const std::vector<NamedTensor> in = {{"x", RandF32(s, rng)}, {"z", RandF32({2, 5, 1, 1}, rng)}, {"x2", RandF32(s, rng)}};
    std::vector<NamedTensor> want = RunS(*MakeSession(g.g, "ref64", 1), in);
    auto sess = MakeSession(g.g, "cpu", 2);
    std::vector<NamedTensor> got = RunS(*sess, in);
    CHECK(PlacementOf(*sess, "u") == "cpu");
    for (int64_t i = 0; i < want[0].tensor.numel(); ++i)
      CHECK(std::fabs(ReadDouble(got[0].tensor, i) - ReadDouble(want[0].tensor, i)) <= 1e-5);
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

TEST_CASE("cpu data movement: Flatten, Reshape, Concat, Transpose, Pad (plain and NHWC)") {
  std::mt19937 rng(8);
  const Shape s = {2, 6, 5, 3};
  const Tensor x = RandF32(s, rng);
  CHECK(CheckCpu(NodeOf("Flatten"), {x}, 1));
  CheckAfterConv(NodeOf("Flatten"), {x});
  CheckAfterConv(NodeOf("Flatten").Attr("axis", int64_t(2)), {x});
  CheckAfterConv(NodeOf("Reshape"), {x, I64({3}, {2, 6, -1})});
  CheckAfterConv(NodeOf("Unsqueeze"), {x, I64({1}, {0})});
  for (int64_t axis : {0, 1, 2, 3, -1}) {
    CAPTURE(axis);
    Shape s1 = s;
    s1[static_cast<size_t>(axis < 0 ? axis + 4 : axis)] = 3;
    const std::vector<Tensor> in2 = {x, RandF32(s1, rng)};
    CHECK(CheckCpu(NodeOf("Concat").Attr("axis", axis), in2, 1));
    CheckAfterConv(NodeOf("Concat").Attr("axis", axis), in2);
  }
  for (const std::vector<int64_t>& perm : std::vector<std::vector<int64_t>>{{0, 2, 3, 1}, {0, 3, 1, 2}, {3, 2, 1, 0}, {1, 0, 2, 3}}) {
    CHECK(CheckCpu(NodeOf("Transpose").Attr("perm", perm), {x}, 1));
    CheckAfterConv(NodeOf("Transpose").Attr("perm", perm), {x});
  }
  const std::vector<Tensor> pad = {x, I64({8}, {0, 1, 2, 0, 1, 0, 1, 3}), F32({}, {0.5})};
  CHECK(CheckCpu(NodeOf("Pad"), pad, 1));
  CheckAfterConv(NodeOf("Pad"), pad);
  CheckAfterConv(NodeOf("Pad"), {x, I64({8}, {0, 0, 1, 1, 0, 0, 2, 0})});
}

TEST_CASE("cpu multi-node graph: NHWC partition, a ref node in the middle, traced values, re-plan, determinism") {
  std::mt19937 rng(42);
  G g;
  int x = g.Input("x", {-1, 3, -1, -1});
  int c1 = g.Add(NodeOf("Conv").Attr("pads", std::vector<int64_t>{1, 1, 1, 1}),
                 {x, g.Const("w1", RandF32({8, 3, 3, 3}, rng)), g.Const("b1", RandF32({8}, rng))}, "c1");
  int r1 = g.Add(NodeOf("Relu"), {c1}, "r1");
  int p1 = g.Add(NodeOf("MaxPool").Attr("kernel_shape", std::vector<int64_t>{2, 2}).Attr("strides", std::vector<int64_t>{2, 2}),
                 {r1}, "p1");
  // W2 is computed from a weight (folded at plan time): still known to the cpu backend.
  int w2 = g.Add(NodeOf("Identity"), {g.Const("w2c", RandF32({8, 8, 3, 3}, rng))}, "w2");
  int c2 = g.Add(NodeOf("Conv").Attr("pads", std::vector<int64_t>{1, 0, 2, 1}).Attr("kernel_shape", std::vector<int64_t>{3, 3}),
                 {p1, w2}, "c2");
  int c3 = g.Add(NodeOf("Conv").Attr("pads", std::vector<int64_t>{1, 0, 2, 1}).Attr("kernel_shape", std::vector<int64_t>{3, 3}),
                 {p1, g.Const("w3", RandF32({8, 8, 3, 3}, rng))}, "c3");
  int ng = g.Add(NodeOf("Neg"), {c2}, "neg");  // not claimed: runs on ref, between two cpu partitions
  int a = g.Add(NodeOf("Add"), {ng, c3}, "add");
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
    auto cpu = MakeSession(g.g, "cpu", threads, traced);
    auto cpu_plain = MakeSession(g.g, "cpu", threads);
    for (const Shape& s : {Shape{2, 3, 14, 13}, Shape{1, 3, 9, 10}, Shape{2, 3, 14, 13}}) {
      CAPTURE(ShapeStr(s));
      const Tensor xin = RandF32(s, rng);
      std::vector<NamedTensor> want = RunS(*ref64, {{"x", xin}});
      std::vector<NamedTensor> got = RunS(*cpu, {{"x", xin}});
      std::vector<NamedTensor> got2 = RunS(*cpu_plain, {{"x", xin}});
      for (size_t o = 0; o < want.size(); ++o) {
        double scale = 0;
        for (int64_t i = 0; i < want[o].tensor.numel(); ++i) scale = std::max(scale, std::fabs(ReadDouble(want[o].tensor, i)));
        for (int64_t i = 0; i < want[o].tensor.numel(); ++i) {
          CHECK(std::fabs(ReadDouble(got[o].tensor, i) - ReadDouble(want[o].tensor, i)) <= 1e-5 * (scale + 1));
          CHECK(std::fabs(ReadDouble(got2[o].tensor, i) - ReadDouble(want[o].tensor, i)) <= 1e-5 * (scale + 1));
        }
      }
      std::vector<TraceEntry> tw = ref64->Trace(), tg = cpu->Trace();
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
        std::vector<NamedTensor> again = RunS(*cpu, {{"x", xin}});
        for (size_t o = 0; o < got.size(); ++o)
          CHECK(std::memcmp(again[o].tensor.data, got[o].tensor.data, got[o].tensor.nbytes()) == 0);
      }
    }
    for (const char* n : {"c1", "r1", "p1", "c2", "c3", "add", "r2", "gap", "flat", "y"}) {
      CAPTURE(n);
      CHECK(PlacementOf(*cpu, n) == "cpu");
    }
    CHECK(PlacementOf(*cpu, "neg") == "ref");
    CHECK(PlacementOf(*cpu, "w2") == "folded");
  }
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

TEST_CASE("cpu leaves what it does not claim to ref: MaxPool with Indices, 3-D Conv, int Add") {
  std::mt19937 rng(1);
  G g;
  int x = g.Input("x", {1, 4, 6, 6});
  int p = g.Add(NodeOf("MaxPool", 2).Attr("kernel_shape", std::vector<int64_t>{2, 2}), {x}, "mp", 2);
  g.g->outputs.push_back(p);
  g.g->outputs.push_back(g.g->nodes.back().outputs[1]);
  auto s = MakeSession(g.g, "cpu", 1);
  RunS(*s, {{"x", RandF32({1, 4, 6, 6}, rng)}});
  CHECK(PlacementOf(*s, "mp") == "ref");
  G g1;
  int x1 = g1.Input("x", {1, 4, 5, 5, 5});
  g1.g->outputs.push_back(g1.Add(NodeOf("Conv"), {x1, g1.Const("w", RandF32({2, 4, 3, 3, 3}, rng))}, "c"));
  auto s1 = MakeSession(g1.g, "cpu", 1);
  RunS(*s1, {{"x", RandF32({1, 4, 5, 5, 5}, rng)}});
  CHECK(PlacementOf(*s1, "c") == "ref");
}

TEST_CASE("cpu: the per-op case table of bench/op_bench.cc (model layers at batch 1) within budget of ref64") {
  const std::vector<OpCase>& cases = PerfOpCases();
  REQUIRE(cases.size() >= 25);
  for (const OpCase& c : cases) {
    CAPTURE(c.name);
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
        REQUIRE(RunOneNodeSession(c.node, c.inputs, *r32, "cpu", threads, &ran_on, &r));
        REQUIRE(r.ok());
        CHECK(ran_on == "cpu");
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
    CHECK(CheckCpu(c.node, c.inputs, c.k, dot ? AbsAll(c.inputs) : kNoScale));
  }
}
