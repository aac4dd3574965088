// The .tare file: a round trip keeps everything; every truncation and every flipped byte of a
// real file is rejected with an error (never a crash).
#include <doctest/doctest.h>

#include <cstring>

#include "format/model_file.h"
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
  int rejected = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    std::vector<uint8_t> c = b;
    c[i] ^= 0x10;
    rejected += !LoadModelFromBytes(c.data(), c.size()).ok();
  }
  CHECK(rejected == static_cast<int>(b.size()));
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
