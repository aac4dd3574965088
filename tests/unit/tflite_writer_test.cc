// tare's TFLite writer (converters/tflite/tflite_writer.h, issue 24): a hand-computed chain through
// the written file, every op of its subset read back by tare's TFLite converter (written
// independently, from TFLite's schema) and run on ref64 against the original graph, and the ops it
// refuses named.
#include <cmath>
#include <filesystem>
#include <random>

#include "converters/tflite/tflite_converter.h"
#include "converters/tflite/tflite_writer.h"
#include "runtime/session.h"
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {

/// A graph under construction: float32 inputs and constants, nodes with inferred-by-hand shapes.
struct Builder {
  std::shared_ptr<Model> m = std::make_shared<Model>();
  Graph& g = m->graph;
  int Input(const std::string& name, const Shape& s) {
    Value v;
    v.name = name;
    v.dtype = DType::kFloat32;
    v.shape = s;
    v.has_shape = true;
    g.inputs.push_back(g.AddValue(v));
    return g.inputs.back();
  }
  int Const(const std::string& name, const Tensor& t) {
    Value v;
    v.name = name;
    v.dtype = t.dtype;
    v.shape = t.shape;
    v.has_shape = true;
    v.is_constant = true;
    v.constant = t;
    return g.AddValue(v);
  }
  int Add(const Node& proto, const std::vector<int>& ins, const std::string& name, const Shape& out) {
    Node n = proto;
    n.name = name;
    n.inputs = ins;
    Value v;
    v.name = name;
    v.dtype = DType::kFloat32;
    v.shape = out;
    v.has_shape = true;
    n.outputs = {g.AddValue(v)};
    g.nodes.push_back(n);
    return n.outputs[0];
  }
};

std::vector<NamedTensor> RunOn(const Graph& g, const std::vector<NamedTensor>& in, const std::shared_ptr<Model>& owner) {
  SessionOptions o;
  o.backends = {"ref64"};
  auto s = Session::Create(std::shared_ptr<const Graph>(owner, &g), o);
  REQUIRE_MESSAGE(s.ok(), s.status().message());
  std::vector<NamedTensor> out;
  Status st = (*s)->Run(in, &out);
  REQUIRE_MESSAGE(st.ok(), st.message());
  return out;
}

std::shared_ptr<Model> RoundTrip(const Graph& g, const std::string& file) {
  const std::string path = (std::filesystem::temp_directory_path() / file).string();
  std::filesystem::remove(path);
  Status st = WriteTfliteModel(g, path);
  REQUIRE_MESSAGE(st.ok(), st.message());
  Result<std::shared_ptr<Model>> m = ConvertTfliteFile(path);
  std::filesystem::remove(path);
  REQUIRE_MESSAGE(m.ok(), m.status().message());
  return *m;
}

}  // namespace

TEST_CASE("tflite writer: a chain through the file gives the hand-computed value") {
  // x = [1, -2, 3, -4] -> Relu [1, 0, 3, 0] -> Add [1, 1, 1, 1] -> [2, 1, 4, 1] -> ReduceSum = 8.
  Builder b;
  const int x = b.Input("x", {4});
  const int r = b.Add(NodeOf("Relu"), {x}, "r", {4});
  const int a = b.Add(NodeOf("Add"), {r, b.Const("one", F32({4}, {1, 1, 1, 1}))}, "a", {4});
  b.g.outputs = {b.Add(NodeOf("ReduceSum").Attr("keepdims", int64_t(0)), {a}, "s", {})};
  std::shared_ptr<Model> t = RoundTrip(b.g, "tare_writer_chain.tflite");
  REQUIRE(t->graph.inputs.size() == 1);
  CHECK(t->graph.values[static_cast<size_t>(t->graph.inputs[0])].name == "x");
  const std::vector<NamedTensor> out = RunOn(t->graph, {{"x", F32({4}, {1, -2, 3, -4})}}, t);
  REQUIRE(out.size() == 1);
  CHECK(out[0].name == "s");
  CHECK(ReadDouble(out[0].tensor, 0) == 8.0);
}

TEST_CASE("tflite writer: every op of its subset reads back with the same values on ref64") {
  std::mt19937 rng(2424);
  Builder b;
  const int x = b.Input("x", {2, 3, 4});
  const int y = b.Input("y", {1, 3, 1});
  int c = x;
  int k = 0;
  auto name = [&] { return "n" + std::to_string(k++); };
  for (const char* op : {"Relu", "Tanh", "Sigmoid", "Abs", "Neg"})
    c = b.Add(NodeOf(op), {c}, name(), {2, 3, 4});
  c = b.Add(NodeOf("LeakyRelu").Attr("alpha", 0.3), {c}, name(), {2, 3, 4});
  for (const char* op : {"Add", "Sub", "Mul", "Max", "Min"}) c = b.Add(NodeOf(op), {c, y}, name(), {2, 3, 4});
  c = b.Add(NodeOf("Div"), {c, b.Const("d", RandF32({4}, rng, 1, 2))}, name(), {2, 3, 4});
  const int e = b.Add(NodeOf("Exp"), {b.Add(NodeOf("Clip"), {c, b.Const("lo", F32({}, {-2})), b.Const("hi", F32({}, {2}))}, name(), {2, 3, 4})},
                      name(), {2, 3, 4});
  c = b.Add(NodeOf("Sqrt"), {e}, name(), {2, 3, 4});
  c = b.Add(NodeOf("Mul"), {c, e}, name(), {2, 3, 4});
  c = b.Add(NodeOf("MatMul"), {c, b.Const("w", RandF32({4, 5}, rng))}, name(), {2, 3, 5});
  c = b.Add(NodeOf("Softmax").Attr("axis", int64_t(-1)), {c}, name(), {2, 3, 5});
  c = b.Add(NodeOf("LogSoftmax").Attr("axis", int64_t(2)), {c}, name(), {2, 3, 5});
  c = b.Add(NodeOf("Transpose").Attr("perm", std::vector<int64_t>{1, 0, 2}), {c}, name(), {3, 2, 5});
  c = b.Add(NodeOf("Concat").Attr("axis", int64_t(-1)), {c, c}, name(), {3, 2, 10});
  c = b.Add(NodeOf("Reshape"), {c, b.Const("shape", I64({2}, {6, 10}))}, name(), {6, 10});
  std::vector<int> outs;
  outs.push_back(b.Add(NodeOf("ReduceMean").Attr("axes", std::vector<int64_t>{-1}), {c}, name(), {6, 1}));
  outs.push_back(b.Add(NodeOf("ReduceMax").Attr("keepdims", int64_t(0)), {c}, name(), {}));
  outs.push_back(b.Add(NodeOf("ReduceMin").Attr("axes", std::vector<int64_t>{0}).Attr("keepdims", int64_t(0)), {c}, name(), {10}));
  outs.push_back(b.Add(NodeOf("ReduceSum"), {c, b.Const("axes", I64({1}, {0}))}, name(), {1, 10}));
  b.g.outputs = outs;
  REQUIRE(TfliteInexpressible(b.g) == "");
  std::shared_ptr<Model> t = RoundTrip(b.g, "tare_writer_all.tflite");
  const std::vector<NamedTensor> in = {{"x", RandF32({2, 3, 4}, rng, -3, 3)}, {"y", RandF32({1, 3, 1}, rng, -1, 1)}};
  const std::vector<NamedTensor> want = RunOn(b.g, in, b.m), got = RunOn(t->graph, in, t);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CAPTURE(want[i].name);
    CHECK(got[i].name == want[i].name);
    REQUIRE(got[i].tensor.shape == want[i].tensor.shape);
    for (int64_t j = 0; j < want[i].tensor.numel(); ++j) {
      const double w = ReadDouble(want[i].tensor, j), v = ReadDouble(got[i].tensor, j);
      CHECK(std::fabs(v - w) <= 1e-12 * (1 + std::fabs(w)));
    }
  }
}

TEST_CASE("tflite writer: ops without a layout-free TFLite equivalent are refused, the node named") {
  Builder b;
  const int x = b.Input("x", {1, 2, 4, 4});
  b.g.outputs = {b.Add(NodeOf("MaxPool").Attr("kernel_shape", std::vector<int64_t>{2, 2}), {x}, "pool_1", {1, 2, 3, 3})};
  const std::string why = TfliteInexpressible(b.g);
  CHECK(why.find("pool_1") != std::string::npos);
  CHECK(why.find("MaxPool") != std::string::npos);
  const Status st = WriteTfliteModel(b.g, (std::filesystem::temp_directory_path() / "tare_writer_refused.tflite").string());
  CHECK(!st.ok());
  CHECK(!std::filesystem::exists(std::filesystem::temp_directory_path() / "tare_writer_refused.tflite"));
  Builder s;
  const int z = s.Input("z", {2, 3});
  s.g.outputs = {s.Add(NodeOf("Softmax").Attr("axis", int64_t(0)), {z}, "sm", {2, 3})};
  CHECK(TfliteInexpressible(s.g).find("an axis other than the last") != std::string::npos);
}
