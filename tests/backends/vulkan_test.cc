// The vulkan backend against ref64 beyond the shared suite (backend_suite_test.cc): every op it
// claims that the suite does not cover or covers narrowly (Gemm / MatMul shapes around the 64 x 64
// tile, transposes and bias broadcasts, batched MatMul; ConvTranspose; activations over wide
// ranges, standalone and fused; Softmax / LogSoftmax on every axis; reductions; Pad modes;
// Transpose), a partition with a host fallback between two segments, re-planning, and
// bit-identical repeated runs. Expected values come from ref64 within each op's error budget
// (docs/NUMERICS.md). Every case skips (exit 77) on a machine without a Vulkan device.
#ifdef TARE_WITH_VULKAN
#include <cmath>
#include <cstring>
#include <random>

#include "tests/backends/backend_check.h"
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {

const char* const kVk = "vulkan";

bool Check(const Node& n, const std::vector<Tensor>& in, double k, bool dot = false) {
  return CheckOn(kVk, n, in, k, dot ? AbsAll(in) : std::vector<Tensor>{});
}

/// Runs n on vulkan and on ref (float32) and checks the outputs are bit-identical: for ops whose
/// shader performs the reference's operations in its order (HardSigmoid, HardSwish, LeakyRelu),
/// where the budget against ref64 (relative to |y|) cannot hold near a cancellation.
void SameBitsAsRef(const Node& n, const std::vector<Tensor>& in) {
  Result<std::vector<Tensor>> r32 = Run(n, in, DType::kFloat32);
  REQUIRE(r32.ok());
  std::string ran_on;
  Result<std::vector<NamedTensor>> r = Status::Error("not run");
  REQUIRE(RunOneNodeSession(n, in, *r32, kVk, 1, &ran_on, &r));
  REQUIRE(r.ok());
  CHECK(ran_on == kVk);
  REQUIRE((*r)[0].tensor.nbytes() == (*r32)[0].nbytes());
  CHECK(std::memcmp((*r)[0].tensor.data, (*r32)[0].data, (*r32)[0].nbytes()) == 0);
}

/// Runs graph g (input "x") on ref64 and on vulkan and checks output 0 within 1e-5 relative (plus
/// 1e-5 absolute); returns the vulkan session (for its notes).
std::unique_ptr<Session> CheckGraph(const G& g, const Tensor& xin) {
  auto ref = MakeSession(g.g, "ref64", 1);
  auto vk = MakeSession(g.g, kVk, 1);
  const std::vector<NamedTensor> want = RunS(*ref, {{"x", xin}});
  const std::vector<NamedTensor> got = RunS(*vk, {{"x", xin}});
  for (int64_t i = 0; i < want[0].tensor.numel(); ++i)
    CHECK(std::fabs(ReadDouble(got[0].tensor, i) - ReadDouble(want[0].tensor, i)) <=
          1e-5 * (1 + std::fabs(ReadDouble(want[0].tensor, i))));
  return vk;
}

}  // namespace

TEST_CASE("vulkan Gemm: transA/transB, alpha/beta, every bias broadcast, sizes around the 64 x 64 tile") {
  SkipUnlessAvailable(kVk);
  std::mt19937 rng(7);
  const int sizes[][3] = {{1, 1, 1}, {3, 5, 7}, {63, 64, 65}, {64, 17, 128}, {130, 70, 33}, {1, 1000, 2}};
  int it = 0;
  for (const auto& mkn : sizes) {
    const int M = mkn[0], K = mkn[1], N = mkn[2];
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb) {
        CAPTURE(M);
        CAPTURE(K);
        CAPTURE(N);
        const Shape cs[] = {{}, {N}, {1, N}, {M, 1}, {M, N}};
        NodeOf n("Gemm");
        n.Attr("transA", int64_t(ta)).Attr("transB", int64_t(tb));
        if (it % 3 == 1) n.Attr("alpha", 0.5f).Attr("beta", 2.0f);
        std::vector<Tensor> in = {RandF32(ta ? Shape{K, M} : Shape{M, K}, rng), RandF32(tb ? Shape{N, K} : Shape{K, N}, rng)};
        if (it % 6 != 5) in.push_back(RandF32(cs[it % 5], rng));
        CHECK(Check(n, in, K, true));
        ++it;
      }
  }
  ReportWorst();
}

TEST_CASE("vulkan MatMul: 1-D operands, batched, broadcast batch dims, run-time B") {
  SkipUnlessAvailable(kVk);
  std::mt19937 rng(8);
  const Shape cases[][2] = {{{5}, {5, 3}},          {{4, 5}, {5}},          {{2, 3, 4, 5}, {5, 6}},
                            {{7, 5}, {3, 5, 9}},    {{2, 3, 4, 5}, {2, 3, 5, 2}}, {{1, 65, 70}, {70, 66}},
                            {{3, 1, 2, 4}, {1, 5, 4, 2}}};  // the last: batch dims broadcast both ways (host fallback)
  for (const auto& ab : cases) {
    CAPTURE(ShapeStr(ab[0]));
    CAPTURE(ShapeStr(ab[1]));
    const double K = double(ab[0].back());
    CHECK(Check(NodeOf("MatMul"), {RandF32(ab[0], rng), RandF32(ab[1], rng)}, K, true));
  }
  ReportWorst();
}

TEST_CASE("vulkan Conv on the implicit GEMM: 16 to 80 output channels per group, groups, strides, dilations, pads") {
  SkipUnlessAvailable(kVk);
  std::mt19937 rng(17);
  for (int it = 0; it < 16; ++it) {
    const int G = Rnd(rng, 1, 2), Cg = Rnd(rng, 1, 9), Mg = Rnd(rng, 16, 80);
    const int kh = Rnd(rng, 1, 5), kw = Rnd(rng, 1, 5), sh = Rnd(rng, 1, 2), sw = Rnd(rng, 1, 3);
    const int dh = Rnd(rng, 1, 2), dw = Rnd(rng, 1, 2);
    const int H = (kh - 1) * dh + Rnd(rng, 1, 12), W = (kw - 1) * dw + Rnd(rng, 1, 12);
    NodeOf n("Conv");
    n.Attr("group", int64_t(G)).Attr("strides", std::vector<int64_t>{sh, sw}).Attr("dilations", std::vector<int64_t>{dh, dw});
    n.Attr("pads", std::vector<int64_t>{Rnd(rng, 0, 2), Rnd(rng, 0, 2), Rnd(rng, 0, 2), Rnd(rng, 0, 2)});
    std::vector<Tensor> in = {RandF32({Rnd(rng, 1, 2), G * Cg, H, W}, rng), RandF32({G * Mg, Cg, kh, kw}, rng)};
    if (it % 2) in.push_back(RandF32({G * Mg}, rng));
    CAPTURE(it);
    CHECK(Check(n, in, double(Cg * kh * kw), true));
  }
  ReportWorst();
}

TEST_CASE("vulkan ConvTranspose: strides, dilations, pads, output_padding, output_shape, groups, 1-D to 3-D") {
  SkipUnlessAvailable(kVk);
  std::mt19937 rng(9);
  int ran = 0;
  for (int it = 0; it < 30; ++it) {
    const int nsp = 1 + it % 3;
    const int G = Rnd(rng, 1, 2), Cg = Rnd(rng, 1, 3), Mg = Rnd(rng, 1, 3);
    Shape xs = {Rnd(rng, 1, 2), G * Cg}, ws = {G * Cg, Mg};
    std::vector<int64_t> s, d, pads(2 * size_t(nsp)), op;
    for (int i = 0; i < nsp; ++i) {
      xs.push_back(Rnd(rng, 1, nsp == 3 ? 3 : 5));
      ws.push_back(Rnd(rng, 1, 3));
      s.push_back(Rnd(rng, 1, 3));
      d.push_back(Rnd(rng, 1, 2));
      op.push_back(Rnd(rng, 0, int(std::min(s.back(), d.back())) - 1));
    }
    for (int i = 0; i < nsp; ++i) {
      pads[size_t(i)] = Rnd(rng, 0, int(ws[size_t(2 + i)]) - 1);
      pads[size_t(nsp + i)] = Rnd(rng, 0, int(ws[size_t(2 + i)]) - 1);
    }
    NodeOf n("ConvTranspose");
    n.Attr("group", int64_t(G)).Attr("strides", s).Attr("dilations", d).Attr("pads", pads).Attr("output_padding", op);
    std::vector<Tensor> in = {RandF32(xs, rng), RandF32(ws, rng)};
    if (it % 2) in.push_back(RandF32({G * Mg}, rng));
    CAPTURE(it);
    int64_t k = Cg;
    for (int i = 0; i < nsp; ++i) k *= ws[size_t(2 + i)];
    if (Check(n, in, double(k), true)) ++ran;
  }
  CHECK(ran >= 20);
  ReportWorst();
}

TEST_CASE("vulkan activations over wide ranges: Sigmoid, Tanh, Exp, HardSigmoid, HardSwish, LeakyRelu, Clip, Sqrt") {
  SkipUnlessAvailable(kVk);
  std::mt19937 rng(10);
  const Tensor wide = RandF32({4, 3, 25, 25}, rng, -20, 20);
  const Tensor narrow = RandF32({4, 3, 25, 25}, rng, -0.5, 0.5);
  const Tensor expin = RandF32({1000}, rng, -85, 85);
  for (const char* op : {"Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "LeakyRelu", "Relu", "Abs", "Neg"}) {
    CAPTURE(op);
    const std::string o = op;
    // HardSigmoid and HardSwish cancel near their kinks (alpha x + beta ~ 0): there they are
    // checked bit for bit against ref's operation order instead of the budget against ref64.
    if (o == "HardSigmoid" || o == "HardSwish") SameBitsAsRef(NodeOf(op), {wide});
    else CHECK(Check(NodeOf(op), {wide}, 1));
    CHECK(Check(NodeOf(op), {narrow}, 1));
  }
  CHECK(Check(NodeOf("Exp"), {expin}, 1));
  CHECK(Check(NodeOf("Sqrt"), {RandF32({1000}, rng, 0, 1000)}, 1));
  CHECK(Check(NodeOf("LeakyRelu").Attr("alpha", 0.3f), {wide}, 1));
  SameBitsAsRef(NodeOf("HardSigmoid").Attr("alpha", 0.1f).Attr("beta", 0.6f), {wide});
  SameBitsAsRef(NodeOf("LeakyRelu").Attr("alpha", 0.3f), {wide});
  CHECK(Check(NodeOf("Clip"), {wide, F32({}, {-1.5}), F32({}, {2.5})}, 1));
  CHECK(Check(NodeOf("Clip"), {wide, F32({}, {0.0})}, 1));
  ReportWorst();
}

TEST_CASE("vulkan Softmax and LogSoftmax on every axis, legacy 2-D coercion, reductions") {
  SkipUnlessAvailable(kVk);
  std::mt19937 rng(11);
  const Tensor x = RandF32({3, 4, 5, 6}, rng, -8, 8);
  for (int64_t axis : {0, 1, 2, 3, -1}) {
    CAPTURE(axis);
    CHECK(Check(NodeOf("Softmax").Attr("axis", axis), {x}, double(x.shape[size_t(axis < 0 ? 3 : axis)])));
    CHECK(Check(NodeOf("LogSoftmax").Attr("axis", axis), {x}, double(x.shape[size_t(axis < 0 ? 3 : axis)])));
  }
  CHECK(Check(NodeOf("Softmax").Attr("axis", int64_t(1)).Attr("legacy_2d", int64_t(1)), {x}, 120));
  // Masked rows (attention masks write -inf): those terms are 0 (LogSoftmax: -inf), the rest as
  // without them; an all -inf row is NaN as on ref64.
  const double inf = INFINITY;
  const Tensor masked = F32({3, 4}, {1, 2, -inf, 0, -inf, -inf, -inf, -inf, 1, 2, 3, 4});
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    CAPTURE(op);
    CHECK(Check(NodeOf(op), {masked}, 4));
    Result<std::vector<Tensor>> r64 = Run(NodeOf(op), {masked}, DType::kFloat64);
    Result<std::vector<Tensor>> r32 = Run(NodeOf(op), {masked}, DType::kFloat32);
    REQUIRE(r64.ok());
    REQUIRE(r32.ok());
    std::string ran_on;
    Result<std::vector<NamedTensor>> r = Status::Error("not run");
    REQUIRE(RunOneNodeSession(NodeOf(op), {masked}, *r32, kVk, 1, &ran_on, &r));
    REQUIRE(r.ok());
    CHECK(ran_on == kVk);
    for (int64_t i = 0; i < 12; ++i) {
      CAPTURE(i);
      const double g = ReadDouble((*r)[0].tensor, i), w = ReadDouble((*r64)[0], i);
      CHECK(std::isnan(g) == std::isnan(w));
      if (std::isinf(w)) CHECK(g == w);  // Within's |g - w| is NaN for equal infinities
    }
  }
  const Tensor y = RandF32({3, 4, 5, 6}, rng);
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"})
    for (const std::vector<int64_t>& axes : std::vector<std::vector<int64_t>>{{1}, {0, 2}, {-1}, {1, 2, 3}, {}})
      for (int64_t keep : {0, 1}) {
        CAPTURE(op);
        CAPTURE(axes.size());
        CAPTURE(keep);
        NodeOf n(op);
        n.Attr("keepdims", keep);
        std::vector<Tensor> in = {y};
        // ReduceSum-13 takes its axes as an input, the others (before opset 18) as an attribute.
        if (!axes.empty() && std::string(op) == "ReduceSum") in.push_back(I64({int64_t(axes.size())}, axes));
        else if (!axes.empty()) n.Attr("axes", axes);
        int64_t k = 1;
        for (int64_t a : axes) k *= y.shape[size_t(a < 0 ? a + 4 : a)];
        if (axes.empty()) k = y.numel();
        const bool sum = std::string(op) == "ReduceSum" || std::string(op) == "ReduceMean";
        CHECK(CheckOn(kVk, n, in, double(k), sum ? AbsAll(in) : std::vector<Tensor>{}));
      }
  ReportWorst();
}

TEST_CASE("vulkan Pad (constant, reflect, edge; axes), Transpose, DepthToSpace, SpaceToDepth, Concat") {
  SkipUnlessAvailable(kVk);
  std::mt19937 rng(12);
  const Tensor x = RandF32({2, 3, 4, 5}, rng);
  for (const char* mode : {"constant", "reflect", "edge"}) {
    CAPTURE(mode);
    CHECK(Check(NodeOf("Pad").Attr("mode", mode), {x, I64({8}, {0, 1, 2, 3, 1, 0, 3, 2}), F32({}, {1.5})}, 1));
    CHECK(Check(NodeOf("Pad").Attr("mode", mode), {x, I64({4}, {1, 2, 3, 1}), Tensor(), I64({2}, {-2, 3})}, 1));
  }
  for (const std::vector<int64_t>& perm : std::vector<std::vector<int64_t>>{{0, 2, 3, 1}, {3, 2, 1, 0}, {1, 0, 3, 2}})
    CHECK(Check(NodeOf("Transpose").Attr("perm", perm), {x}, 1));
  CHECK(Check(NodeOf("Transpose"), {x}, 1));
  const Tensor z = RandF32({2, 12, 3, 4}, rng);
  CHECK(Check(NodeOf("DepthToSpace").Attr("blocksize", int64_t(2)), {z}, 1));
  CHECK(Check(NodeOf("DepthToSpace").Attr("blocksize", int64_t(2)).Attr("mode", "CRD"), {z}, 1));
  CHECK(Check(NodeOf("SpaceToDepth").Attr("blocksize", int64_t(2)), {RandF32({2, 3, 4, 6}, rng)}, 1));
  CHECK(Check(NodeOf("Concat").Attr("axis", int64_t(2)), {x, RandF32({2, 3, 1, 5}, rng), RandF32({2, 3, 6, 5}, rng)}, 1));
}

TEST_CASE("vulkan Resize nearest and linear: coordinate modes, nearest modes, scales and sizes, up and down") {
  SkipUnlessAvailable(kVk);
  std::mt19937 rng(15);
  const Tensor x = RandF32({2, 3, 7, 6}, rng, 0.5, 2);  // positive: the budget's scale |y| ~ max|x|
  int ran = 0;
  for (const char* mode : {"nearest", "linear"})
    for (const char* ctm : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"})
      for (const std::vector<double>& sc : std::vector<std::vector<double>>{{1, 1, 2, 2}, {1, 1, 0.5, 1.5}, {1, 1, 1.7, 0.6}, {1, 1, 1, 3}}) {
        CAPTURE(mode);
        CAPTURE(ctm);
        CAPTURE(sc[2]);
        CAPTURE(sc[3]);
        NodeOf n("Resize");
        n.Attr("mode", mode).Attr("coordinate_transformation_mode", ctm);
        if (std::string(mode) == "nearest") n.Attr("nearest_mode", ran % 2 ? "floor" : "round_prefer_ceil");
        const std::vector<Tensor> in = {x, Tensor(), F32({4}, sc)};
        SameBitsAsRef(n, in);  // the shader evaluates the reference's taps in its order
        CHECK(Check(n, in, 1));
        ++ran;
      }
  NodeOf n("Resize");
  n.Attr("mode", "linear");
  SameBitsAsRef(n, {x, Tensor(), Tensor(), I64({4}, {2, 3, 11, 4})});
  CHECK(RanOn(kVk, NodeOf("Resize").Attr("mode", "cubic"), {x, Tensor(), F32({4}, {1, 1, 2, 2})}) == "ref");
}

TEST_CASE("vulkan: a host fallback between two segments, re-planning, repeated runs bit-identical") {
  SkipUnlessAvailable(kVk);
  std::mt19937 rng(13);
  G g;
  const int x = g.Input("x", {-1, 3, 4, 8});
  const int r1 = g.Add(NodeOf("Sigmoid"), {x}, "r1");
  // Batch dims that broadcast both ways: the MatMul runs its reference kernel on the host.
  const int mm = g.Add(NodeOf("MatMul"), {r1, g.Const("b", RandF32({2, 1, 8, 5}, rng))}, "mm");
  const int t = g.Add(NodeOf("Tanh"), {mm}, "t");
  const int y = g.Add(NodeOf("Add"), {t, g.Const("c", RandF32({5}, rng))}, "y");
  g.g->outputs.push_back(y);
  auto ref = MakeSession(g.g, "ref64", 1);
  auto vk = MakeSession(g.g, kVk, 1);
  for (const Shape& s : {Shape{1, 3, 4, 8}, Shape{2, 3, 4, 8}, Shape{1, 3, 4, 8}}) {
    CAPTURE(ShapeStr(s));
    const Tensor xin = RandF32(s, rng, -3, 3);
    const std::vector<NamedTensor> want = RunS(*ref, {{"x", xin}});
    const std::vector<NamedTensor> got = RunS(*vk, {{"x", xin}});
    REQUIRE(got[0].tensor.shape == want[0].tensor.shape);
    for (int64_t i = 0; i < want[0].tensor.numel(); ++i)
      CHECK(std::fabs(ReadDouble(got[0].tensor, i) - ReadDouble(want[0].tensor, i)) <= 1e-5);
    const std::vector<NamedTensor> again = RunS(*vk, {{"x", xin}});
    CHECK(std::memcmp(again[0].tensor.data, got[0].tensor.data, got[0].tensor.nbytes()) == 0);
  }
  for (const char* n : {"r1", "mm", "t", "y"}) CHECK(PlacementOf(*vk, n) == kVk);
  const std::vector<std::string> notes = vk->Notes();
  bool host = false;
  for (const std::string& s : notes) host = host || s.find("reference kernel") != std::string::npos;
  CHECK(host);
}

TEST_CASE("vulkan: Conv + BatchNormalization + activation fused, 1x1 convolution on the GEMM path") {
  SkipUnlessAvailable(kVk);
  std::mt19937 rng(14);
  for (int pointwise = 0; pointwise < 2; ++pointwise)
    for (const char* act : {"Relu", "Clip", "Sigmoid", "HardSwish"}) {
      CAPTURE(pointwise);
      CAPTURE(act);
      G g;
      const int k = pointwise ? 1 : 3;
      const int x = g.Input("x", {2, 8, 9, 9});
      NodeOf conv("Conv");
      if (!pointwise) conv.Attr("pads", std::vector<int64_t>{1, 1, 1, 1});
      const int c = g.Add(conv, {x, g.Const("w", RandF32({16, 8, k, k}, rng)), g.Const("b", RandF32({16}, rng))}, "c");
      const int bn = g.Add(NodeOf("BatchNormalization"),
                           {c, g.Const("s", RandF32({16}, rng, 0.5, 2)), g.Const("bb", RandF32({16}, rng)),
                            g.Const("m", RandF32({16}, rng)), g.Const("v", RandF32({16}, rng, 0.5, 2))},
                           "bn");
      std::vector<int> ins = {bn};
      if (std::string(act) == "Clip") {
        ins.push_back(g.Const("lo", F32({}, {0})));
        ins.push_back(g.Const("hi", F32({}, {6})));
      }
      const int y = g.Add(NodeOf(act), ins, "y");
      g.g->outputs.push_back(y);
      const std::vector<std::string> notes = CheckGraph(g, RandF32({2, 8, 9, 9}, rng))->Notes();
      CHECK(notes[0].find(pointwise ? "gemm (1x1 convolution" : "gemm (implicit-GEMM convolution") == 0);
      CHECK(notes[0].find("BatchNormalization (folded)") != std::string::npos);
      CHECK(notes[2] == "fused into c");
    }
}

TEST_CASE("vulkan: SiLU written as Sigmoid + Mul, fused into a convolution and standalone") {
  SkipUnlessAvailable(kVk);
  std::mt19937 rng(16);
  for (int after_conv = 0; after_conv < 2; ++after_conv) {
    CAPTURE(after_conv);
    G g;
    int x = g.Input("x", {1, 4, 7, 7});
    if (after_conv)
      x = g.Add(NodeOf("Conv").Attr("pads", std::vector<int64_t>{1, 1, 1, 1}),
                {x, g.Const("w", RandF32({6, 4, 3, 3}, rng)), g.Const("b", RandF32({6}, rng))}, "c");
    const int s = g.Add(NodeOf("Sigmoid"), {x}, "s");
    const int y = g.Add(NodeOf("Mul"), {s, x}, "y");
    g.g->outputs.push_back(y);
    const std::vector<std::string> notes = CheckGraph(g, RandF32({1, 4, 7, 7}, rng, -6, 6))->Notes();
    CHECK(notes[0].find("SiLU") != std::string::npos);
    CHECK(notes.back().find("fused into") == 0);
  }
}
#endif  // TARE_WITH_VULKAN
