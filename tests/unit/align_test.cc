// compare/align: two models of one network, one with renamed tensors and a bias changed at a known
// layer; alignment pairs the layers and the first-divergence search names that layer.
#include <doctest/doctest.h>

#include "compare/align.h"
#include "tests/ops/op_test_util.h"
#include "tests/unit/graph_builder.h"

using namespace tare;
using namespace tare::test;

namespace {
// x [1,1,4,4] -> Conv(2x2, +b1) -> Relu -> Conv(2x2, +b2) -> Sigmoid; every value named prefix+k.
std::shared_ptr<Graph> Net(const std::string& prefix, float b2) {
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {1, 1, 4, 4});
  int w1 = b.Const(prefix + "w1", F32({1, 1, 2, 2}, {1, -1, -0.5, 0.25}));
  int c1 = b.Const(prefix + "b1", F32({1}, {0.1f}));
  int w2 = b.Const(prefix + "w2", F32({1, 1, 2, 2}, {0.5, 0.5, -0.5, 1}));
  int c2 = b.Const(prefix + "b2", F32({1}, {b2}));
  int v = b.Op("Conv", {x, w1, c1})[0];
  b.g.values[v].name = prefix + "conv1";
  v = b.Op("Relu", {v})[0];
  b.g.values[v].name = prefix + "relu1";
  v = b.Op("Conv", {v, w2, c2})[0];
  b.g.values[v].name = prefix + "conv2";
  v = b.Op("Sigmoid", {v})[0];
  b.g.values[v].name = prefix + "prob";
  b.g.outputs = {v};
  return std::make_shared<Graph>(b.g);
}

std::vector<Layer> Traced(const std::shared_ptr<Graph>& g) {
  SessionOptions o;
  o.backends = {"ref64"};
  o.trace_all = true;
  auto s = Session::Create(g, o);
  REQUIRE(s.ok());
  std::vector<NamedTensor> out;
  Tensor x = F32({1, 1, 4, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  REQUIRE((*s)->Run({{g->values[static_cast<size_t>(g->inputs[0])].name, x}}, &out).ok());
  return TracedLayers(*g, (*s)->Trace());
}
}  // namespace

TEST_CASE("align: renamed tensors are paired by structure; the changed bias is the first divergence") {
  auto ga = Net("a_", 0.2f), gb = Net("renamed/", 0.7f);
  std::vector<Layer> a = Traced(ga), b = Traced(gb);
  REQUIRE(a.size() == 4);
  std::vector<AlignedPair> pairs = AlignLayers(a, b);
  REQUIRE(pairs.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    CHECK(pairs[i].a == i);
    CHECK(pairs[i].b == i);
    CHECK(pairs[i].how == "structure");
  }
  std::vector<LayerDiff> diffs = CompareLayers(a, b, pairs, 1e-12);
  CHECK_FALSE(diffs[0].diverges);  // conv1 and relu1 are the same function of x
  CHECK_FALSE(diffs[1].diverges);
  CHECK(diffs[2].diverges);        // conv2: every element 0.5 apart (0.7 - 0.2)
  CHECK(diffs[2].metrics.max_abs == doctest::Approx(0.5).epsilon(1e-6));
  CHECK(diffs[3].diverges);        // sigmoid inherits it
  const int first = FirstDivergence(*ga, a, diffs);
  REQUIRE(first == 2);
  CHECK(a[diffs[2].pair.a].trace.value == "a_conv2");
  CHECK(b[diffs[2].pair.b].trace.value == "renamed/conv2");
}

TEST_CASE("align: same names pair by name; identical models do not diverge") {
  auto ga = Net("m_", 0.2f), gb = Net("m_", 0.2f);
  std::vector<Layer> a = Traced(ga), b = Traced(gb);
  std::vector<AlignedPair> pairs = AlignLayers(a, b);
  REQUIRE(pairs.size() == 4);
  CHECK(pairs[0].how == "name");
  std::vector<LayerDiff> diffs = CompareLayers(a, b, pairs, 0.0);
  CHECK(FirstDivergence(*ga, a, diffs) == -1);
}

TEST_CASE("align: a layer missing on one side is skipped by the structural alignment") {
  // B lacks the Relu (a different network): Conv, Conv, Sigmoid align; Relu does not.
  GraphBuilder bb;
  int x = bb.Input("x", DType::kFloat32, {1, 1, 4, 4});
  int v = bb.Op("Conv", {x, bb.Const("w1", F32({1, 1, 2, 2}, {1, -1, -0.5, 0.25})), bb.Const("b1", F32({1}, {0.1f}))})[0];
  v = bb.Op("Conv", {v, bb.Const("w2", F32({1, 1, 2, 2}, {0.5, 0.5, -0.5, 1})), bb.Const("b2", F32({1}, {0.2f}))})[0];
  v = bb.Op("Sigmoid", {v})[0];
  bb.g.outputs = {v};
  auto gb = std::make_shared<Graph>(bb.g);
  auto ga = Net("a_", 0.2f);
  std::vector<Layer> a = Traced(ga), b = Traced(gb);
  std::vector<AlignedPair> pairs = AlignLayers(a, b);
  REQUIRE(pairs.size() == 3);
  CHECK(a[pairs[1].a].op == "Conv");
  CHECK(pairs[1].a == 2);  // A's second Conv (after the Relu) pairs with B's second Conv
  std::vector<LayerDiff> diffs = CompareLayers(a, b, pairs, 1e-12);
  // conv1 agrees; conv2 differs (B skips the Relu, and conv1 is negative everywhere: a window
  // [p, p+1; p+4, p+5] gives p - (p+1) - 0.5 (p+4) + 0.25 (p+5) + 0.1 = -0.25 p - 1.65): first divergence.
  CHECK(FirstDivergence(*ga, a, diffs) == 1);
}

namespace {
// The same network from two producers. A (ONNX-exporter style): Conv(+bias) -> Relu -> Conv(+bias)
// -> Sigmoid -> Flatten -> Gemm. B (TensorFlow-converter style, every name different): Conv without
// bias + Add(bias), an NHWC island around the Relu (Transpose [0,2,3,1], Relu, Transpose [0,3,1,2];
// `island_perm` replaces the first Transpose's perm to break it), Conv + Add(b2), Sigmoid, Reshape,
// MatMul + Add.
const std::vector<double> kW1 = {1, -1, -0.5f, 0.25f, 0.5f, 0.5f, 0.25f, -1};
const std::vector<double> kW2 = {0.5f, 0.5f, -0.5f, 1, -0.25f, 0.5f, 1, -1};
const std::vector<double> kFc = {1, 0, -1, 0.5f, 2, 0, 0, -1, 1, 0.25f, 0.5f, -0.5f};  // [4,3]: [k][j]

std::shared_ptr<Graph> OnnxStyle() {
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {1, 1, 4, 4});
  int v = b.Op("Conv", {x, b.Const("w1", F32({2, 1, 2, 2}, kW1)), b.Const("b1", F32({2}, {0.1f, 4.0f}))})[0];
  v = b.Op("Relu", {v})[0];
  v = b.Op("Conv", {v, b.Const("w2", F32({1, 2, 2, 2}, kW2)), b.Const("b2", F32({1}, {0.2f}))})[0];
  v = b.Op("Sigmoid", {v})[0];
  v = b.Op("Flatten", {v})[0];
  v = b.Op("Gemm", {v, b.Const("fc", F32({4, 3}, kFc)), b.Const("fc_b", F32({3}, {0.5f, -1, 0}))})[0];
  b.g.outputs = {v};
  return std::make_shared<Graph>(b.g);
}

std::shared_ptr<Graph> TfStyle(float b2, std::vector<int64_t> island_perm) {
  GraphBuilder b;
  int x = b.Input("input:0", DType::kFloat32, {1, 1, 4, 4});
  int v = b.Op("Conv", {x, b.Const("seq/conv/kernel", F32({2, 1, 2, 2}, kW1))})[0];
  v = b.Op("Add", {v, b.Const("seq/conv/bias", F32({1, 2, 1, 1}, {0.1f, 4.0f}))})[0];
  v = b.Op("Transpose", {v}, 1, {{"perm", GraphBuilder::Ints(island_perm)}})[0];
  v = b.Op("Relu", {v})[0];
  v = b.Op("Transpose", {v}, 1, {{"perm", GraphBuilder::Ints({0, 3, 1, 2})}})[0];
  v = b.Op("Conv", {v, b.Const("seq/conv_1/kernel", F32({1, 2, 2, 2}, kW2))})[0];
  v = b.Op("Add", {b.Const("seq/conv_1/bias", F32({1, 1, 1, 1}, {b2})), v})[0];
  v = b.Op("Sigmoid", {v})[0];
  v = b.Op("Reshape", {v, b.Const("seq/flatten/shape", I64({2}, {1, 4}))})[0];
  v = b.Op("MatMul", {v, b.Const("seq/dense/kernel", F32({4, 3}, kFc))})[0];
  v = b.Op("Add", {v, b.Const("seq/dense/bias", F32({3}, {0.5f, -1, 0}))})[0];
  b.g.outputs = {v};
  return std::make_shared<Graph>(b.g);
}
}  // namespace

TEST_CASE("align: a different producer (bias Adds, MatMul for Gemm, Reshape for Flatten, an NHWC island)") {
  auto ga = OnnxStyle();
  std::vector<Layer> a = Traced(ga);
  REQUIRE(a.size() == 6);
  SUBCASE("the same function aligns layer for layer and nowhere diverges") {
    auto gb = TfStyle(0.2f, {0, 2, 3, 1});
    std::vector<Layer> b = Traced(gb);
    // Conv+Add, Transpose, Relu, Transpose, Conv+Add, Sigmoid, Reshape, MatMul+Add.
    REQUIRE(b.size() == 8);
    CHECK(b[0].op == "Conv");
    CHECK(gb->nodes[static_cast<size_t>(b[0].output_node)].op == "Add");
    CHECK(b[7].op == "MatMul");
    std::vector<AlignedPair> pairs = AlignLayers(a, b);
    REQUIRE(pairs.size() == 6);
    const size_t want_b[] = {0, 2, 4, 5, 6, 7};  // B's layer for each of A's six
    for (size_t i = 0; i < 6; ++i) {
      CHECK(pairs[i].a == i);
      CHECK(pairs[i].b == want_b[i]);
      CHECK(pairs[i].how == "structure");
      CHECK((pairs[i].layout == PairLayout::kBNhwc) == (i == 1));  // only the Relu is NHWC on B's side
    }
    std::vector<LayerDiff> diffs = CompareLayers(a, b, pairs, 1e-12);
    for (const LayerDiff& d : diffs) CHECK_FALSE(d.diverges);
    CHECK(FirstDivergence(*ga, a, diffs) == -1);
  }
  SUBCASE("with the sides swapped the NHWC island is on A's side") {
    auto gb = TfStyle(0.2f, {0, 2, 3, 1});
    std::vector<Layer> b = Traced(gb);
    std::vector<AlignedPair> pairs = AlignLayers(b, a);
    REQUIRE(pairs.size() == 6);
    CHECK(pairs[1].a == 2);
    CHECK(pairs[1].layout == PairLayout::kANhwc);
    std::vector<LayerDiff> diffs = CompareLayers(b, a, pairs, 1e-12);
    CHECK(FirstDivergence(*gb, b, diffs) == -1);
  }
  SUBCASE("a changed bias after the island is the first divergence, anchored at B's Conv") {
    auto gb = TfStyle(0.7f, {0, 2, 3, 1});
    std::vector<Layer> b = Traced(gb);
    std::vector<AlignedPair> pairs = AlignLayers(a, b);
    std::vector<LayerDiff> diffs = CompareLayers(a, b, pairs, 1e-12);
    REQUIRE(FirstDivergence(*ga, a, diffs) == 2);
    CHECK(b[diffs[2].pair.b].op == "Conv");
    CHECK(diffs[2].metrics.max_abs == doctest::Approx(0.5).epsilon(1e-6));  // 0.7f - 0.2f on every element
  }
  SUBCASE("a wrong island transpose (W and H swapped) diverges at the Relu, not before") {
    // H == W here, so [0,3,2,1] gives B the NHWC shape with H and W exchanged. Channel 1 of conv1 is
    // 0.25 p + 0.5 at p = x[h][w] = 4h + w + 1 (channel 0 is negative, Relu zeroes it): not symmetric.
    auto gb = TfStyle(0.2f, {0, 3, 2, 1});
    std::vector<Layer> b = Traced(gb);
    std::vector<AlignedPair> pairs = AlignLayers(a, b);
    std::vector<LayerDiff> diffs = CompareLayers(a, b, pairs, 1e-12);
    REQUIRE(FirstDivergence(*ga, a, diffs) == 1);
    CHECK(a[diffs[1].pair.a].op == "Relu");
  }
}

TEST_CASE("align: OpClass groups the ops producers use for one layer") {
  CHECK(OpClass("Gemm") == OpClass("MatMul"));
  CHECK(OpClass("Flatten") == OpClass("Reshape"));
  CHECK(OpClass("GlobalAveragePool") == OpClass("ReduceMean"));
  CHECK(OpClass("Conv") == "Conv");
  CHECK(OpClass("Conv") != OpClass("MatMul"));
}

TEST_CASE("align: a Flatten of NHWC against one of NCHW holds the same values in another order") {
  // [1,2,2,2] NCHW values 1..8 flattened as c*4 + h*2 + w on one side and (h*2 + w)*2 + c on the other.
  const std::vector<float> nchw = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<float> nhwc(8);
  for (int c = 0; c < 2; ++c)
    for (int hw = 0; hw < 4; ++hw) nhwc[static_cast<size_t>(hw * 2 + c)] = nchw[static_cast<size_t>(c * 4 + hw)];
  auto layer = [](const std::string& op, const std::vector<float>& v) {
    Layer l;
    l.node = l.output_node = 0;
    l.op = op;
    l.trace = {op, op, op, F32({1, 8}, std::vector<double>(v.begin(), v.end()))};
    return l;
  };
  std::vector<Layer> a = {layer("Flatten", nchw)}, b = {layer("Reshape", nhwc)};
  std::vector<AlignedPair> pairs = {{0, 0, "structure", PairLayout::kSame}};
  std::vector<LayerDiff> d = CompareLayers(a, b, pairs, 1e-12);
  REQUIRE(d.size() == 1);
  CHECK_FALSE(d[0].diverges);
  CHECK(d[0].pair.layout == PairLayout::kPermuted);
  CHECK(d[0].metrics.rel_l2 == 0.0);
  // Other values (one element changed) still diverge, and a Relu pair in another order is not excused.
  std::vector<float> changed = nhwc;
  changed[3] += 0.5f;
  d = CompareLayers(a, {layer("Reshape", changed)}, pairs, 1e-12);
  CHECK(d[0].diverges);
  CHECK(d[0].pair.layout == PairLayout::kSame);
  d = CompareLayers({layer("Relu", nchw)}, {layer("Relu", nhwc)}, pairs, 1e-12);
  CHECK(d[0].diverges);
}
