// The .tare file: a round trip keeps everything; every truncation and every flipped byte of a
// real file is rejected with an error (never a crash).
#include <doctest/doctest.h>

#include <cstring>

#include "format/model_file.h"
#include "runtime/session.h"
#include "tests/ops/op_test_util.h"
#include "tests/unit/graph_builder.h"

using namespace tare;
using namespace tare::test;

namespace {
Model SmallModel() {
  GraphBuilder b;
  int x = b.Input("x", DType::kFloat32, {-1, 3});
  int w = b.Const("w", F32({3, 2}, {1, 2, 3, 4, 5, 6}));
  int y = b.Op("MatMul", {x, w})[0];
  int z = b.Op("Transpose", {y}, 1, {{"perm", GraphBuilder::Ints({1, 0})}})[0];
  b.g.outputs = {z};
  Model m;
  m.graph = b.g;
  m.provenance.source_format = "onnx";
  m.provenance.producer_name = "pytorch";
  m.provenance.opset_imports = {{"", 13}};
  return m;
}
}  // namespace

TEST_CASE("format: round trip keeps graph, weights (64-byte aligned) and provenance") {
  auto bytes = SerializeModel(SmallModel());
  REQUIRE(bytes.ok());
  auto m = LoadModelFromBytes(bytes->data(), bytes->size());
  REQUIRE_MESSAGE(m.ok(), m.status().message());
  const Graph& g = (*m)->graph;
  REQUIRE(g.nodes.size() == 2);
  CHECK(g.nodes[1].op == "Transpose");
  CHECK(g.nodes[1].attrs.at("perm").ints == std::vector<int64_t>{1, 0});
  CHECK(g.values[g.inputs[0]].shape == Shape{-1, 3});
  const Value& w = g.values[1];
  REQUIRE(w.is_constant);
  CHECK(w.constant.shape == Shape{3, 2});
  CHECK(w.constant.as<float>()[5] == 6.0f);
  CHECK(reinterpret_cast<uintptr_t>(w.constant.data) % 64 == 0);
  CHECK((*m)->provenance.producer_name == "pytorch");
  CHECK((*m)->provenance.opset_imports.at(0).second == 13);
}

TEST_CASE("format: every truncation and every flipped byte is rejected") {
  auto bytes = SerializeModel(SmallModel());
  REQUIRE(bytes.ok());
  std::vector<uint8_t> b = *bytes;
  for (size_t n = 0; n < b.size(); ++n) {
    auto m = LoadModelFromBytes(b.data(), n);
    CHECK_FALSE(m.ok());
  }
  // Every bit of every byte, header offsets included (e.g. a weights offset moved by 128 bytes
  // stays aligned and inside the file: only the CRC over the header catches it).
  int rejected = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> c = b;
      c[i] ^= static_cast<uint8_t>(1 << bit);
      rejected += !LoadModelFromBytes(c.data(), c.size()).ok();
    }
  }
  CHECK(rejected == static_cast<int>(8 * b.size()));
  CHECK(LoadModelFromBytes(nullptr, 0).status().message().find("too short") != std::string::npos);
}

TEST_CASE("format: a graph that reads a value before it is produced is rejected") {
  Model m = SmallModel();
  std::swap(m.graph.nodes[0], m.graph.nodes[1]);
  auto bytes = SerializeModel(m);
  REQUIRE(bytes.ok());
  auto r = LoadModelFromBytes(bytes->data(), bytes->size());
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("before it is produced") != std::string::npos);
}

TEST_CASE("format: subgraphs, captured values, string constants and value kinds survive a round trip and run") {
  // y = If(cond) then Identity(x) else Neg(x), where both branches read the outer value x
  // (captured: a trailing node input and a trailing branch input, counted by tare.captured).
  auto branch = [](const char* op) {
    auto g = std::make_shared<Graph>();
    GraphBuilder b;
    int x = b.Input("x", DType::kFloat32, {3});
    b.g.outputs = {b.Op(op, {x})[0]};
    *g = b.g;
    Attr a;
    a.kind = Attr::Kind::kGraph;
    a.graph = g;
    return a;
  };
  GraphBuilder b;
  int cond = b.Input("cond", DType::kBool, {});
  int x = b.Input("x", DType::kFloat32, {3});
  Tensor words = Tensor::Alloc(DType::kString, {2}).value();
  words.as<std::string>()[0] = "monday";
  words.as<std::string>()[1] = "";
  int s = b.Const("words", words);
  Attr type;
  type.kind = Attr::Kind::kType;
  type.s = "sequence";
  type.i = static_cast<int64_t>(DType::kFloat32);
  int y = b.Op("If", {cond, x}, 1, {{"then_branch", branch("Identity")}, {"else_branch", branch("Neg")},
                                    {"tare.captured", GraphBuilder::Int(1)}, {"type_probe", type}})[0];
  int seq = b.Op("SequenceConstruct", {x, x})[0];
  b.g.values[static_cast<size_t>(seq)].kind = ValueKind::kSequence;
  b.g.outputs = {y, s, seq};
  Model m;
  m.graph = b.g;
  auto bytes = SerializeModel(m);
  REQUIRE_MESSAGE(bytes.ok(), bytes.status().message());
  auto loaded = LoadModelFromBytes(bytes->data(), bytes->size());
  REQUIRE_MESSAGE(loaded.ok(), loaded.status().message());
  const Graph& g = (*loaded)->graph;
  CHECK(g.values[static_cast<size_t>(s)].constant.as<std::string>()[0] == "monday");
  CHECK(g.values[static_cast<size_t>(s)].constant.as<std::string>()[1] == "");
  CHECK(g.values[static_cast<size_t>(seq)].kind == ValueKind::kSequence);
  const Attr& tp = g.nodes[0].attrs.at("type_probe");
  CHECK(tp.kind == Attr::Kind::kType);
  CHECK(tp.s == "sequence");
  REQUIRE(static_cast<bool>(g.nodes[0].attrs.at("else_branch").graph));
  CHECK(g.nodes[0].attrs.at("else_branch").graph->nodes[0].op == "Neg");

  std::shared_ptr<Model> keep = std::move(loaded).value();
  SessionOptions opts;
  for (const char* backend : {"ref", "ref64"}) {
    opts.backends = {backend};
    auto session = Session::Create(std::shared_ptr<const Graph>(keep, &keep->graph), opts);
    REQUIRE_MESSAGE(session.ok(), session.status().message());
    Tensor c = Tensor::Alloc(DType::kBool, {}).value();
    for (bool take_then : {true, false}) {
      *c.as<bool>() = take_then;
      std::vector<NamedTensor> out;
      Status st = (*session)->Run({{"cond", c}, {"x", F32({3}, {1, -2, 3})}}, &out);
      REQUIRE_MESSAGE(st.ok(), st.message());
      const double sign = take_then ? 1 : -1;
      for (int i = 0; i < 3; ++i) CHECK(ReadDouble(out[0].tensor, i) == sign * std::vector<double>{1, -2, 3}[static_cast<size_t>(i)]);
      CHECK(out[1].tensor.as<std::string>()[0] == "monday");
      REQUIRE(out[2].tensor.kind == ValueKind::kSequence);
      CHECK(out[2].tensor.items->size() == 2);
      CHECK(ReadDouble((*out[2].tensor.items)[1], 1) == -2);
    }
  }
}
