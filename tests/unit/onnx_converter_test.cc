// ONNX converter: models built here with the protobuf API (as an exporter would write them).
#include <doctest/doctest.h>

#include "converters/onnx/onnx_converter.h"
#include "onnx.pb.h"

using namespace tare;

namespace {
onnx::ModelProto Base(int opset) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.set_producer_name("unit-test");
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  auto* in = m.mutable_graph()->add_input();
  in->set_name("x");
  auto* tt = in->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(1);
  tt->mutable_shape()->add_dim()->set_dim_param("N");
  tt->mutable_shape()->add_dim()->set_dim_value(1);
  return m;
}
onnx::NodeProto* AddNode(onnx::ModelProto& m, const std::string& op, std::vector<std::string> ins,
                         std::vector<std::string> outs, const std::string& name = "") {
  auto* n = m.mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (auto& i : ins) n->add_input(i);
  for (auto& o : outs) n->add_output(o);
  return n;
}
Result<std::shared_ptr<Model>> Convert(const onnx::ModelProto& m) {
  std::string s = m.SerializeAsString();
  return ConvertOnnxBytes(reinterpret_cast<const uint8_t*>(s.data()), s.size(), "t.onnx");
}
}  // namespace

TEST_CASE("onnx: Squeeze-11 axes attribute becomes Squeeze-13's axes input; provenance kept") {
  onnx::ModelProto m = Base(11);
  auto* n = AddNode(m, "Squeeze", {"x"}, {"y"}, "sq");
  auto* a = n->add_attribute();
  a->set_name("axes");
  a->set_type(onnx::AttributeProto::INTS);
  a->add_ints(1);
  m.mutable_graph()->add_output()->set_name("y");
  auto r = Convert(m);
  REQUIRE_MESSAGE(r.ok(), r.status().message());
  const Graph& g = (*r)->graph;
  REQUIRE(g.nodes.size() == 1);
  REQUIRE(g.nodes[0].inputs.size() == 2);
  const Value& axes = g.values[g.nodes[0].inputs[1]];
  REQUIRE(axes.is_constant);
  CHECK(axes.constant.as<int64_t>()[0] == 1);
  CHECK_FALSE(g.nodes[0].has("axes"));
  CHECK(g.values[g.inputs[0]].shape == Shape{-1, 1});
  CHECK((*r)->provenance.producer_name == "unit-test");
  CHECK((*r)->provenance.source_sha256.size() == 64);
}

TEST_CASE("onnx: initializers (raw_data and float_data) and Constant nodes become weights") {
  onnx::ModelProto m = Base(13);
  auto* w = m.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(1);
  w->add_dims(2);
  w->add_float_data(0.5f);
  w->add_float_data(-1.0f);
  auto* c = AddNode(m, "Constant", {}, {"c"});
  auto* a = c->add_attribute();
  a->set_name("value_ints");
  a->set_type(onnx::AttributeProto::INTS);
  a->add_ints(7);
  AddNode(m, "Mul", {"x", "w"}, {"y"});
  m.mutable_graph()->add_output()->set_name("y");
  auto r = Convert(m);
  REQUIRE_MESSAGE(r.ok(), r.status().message());
  const Graph& g = (*r)->graph;
  CHECK(g.nodes.size() == 1);  // the Constant became a weight
  int wid = g.FindValue("w"), cid = g.FindValue("c");
  REQUIRE(wid >= 0);
  REQUIRE(cid >= 0);
  CHECK(g.values[wid].constant.as<float>()[1] == -1.0f);
  CHECK(g.values[cid].constant.as<int64_t>()[0] == 7);
}

TEST_CASE("onnx: every unsupported node is named in one error, with op, domain and opset") {
  onnx::ModelProto m = Base(13);
  AddNode(m, "FancyOp", {"x"}, {"a"}, "first");
  AddNode(m, "Relu", {"a"}, {"b"});
  auto* n = AddNode(m, "Attention", {"b"}, {"y"}, "second");
  n->set_domain("com.microsoft");
  m.mutable_graph()->add_output()->set_name("y");
  auto r = Convert(m);
  REQUIRE_FALSE(r.ok());
  const std::string& msg = r.status().message();
  CHECK(msg.find("2 unsupported node(s)") != std::string::npos);
  CHECK(msg.find("node 'first' (FancyOp, domain 'ai.onnx', opset 13)") != std::string::npos);
  CHECK(msg.find("node 'second' (Attention, domain 'com.microsoft'") != std::string::npos);
  CHECK(msg.find("t.onnx") == 0);
}

TEST_CASE("onnx: malformed models are rejected with one clear error") {
  CHECK(ConvertOnnxBytes(nullptr, 0, "e.onnx").status().message() == "'e.onnx' is empty");
  const std::string junk = "this is not a protobuf \xff\xff\xff";
  CHECK(ConvertOnnxBytes(reinterpret_cast<const uint8_t*>(junk.data()), junk.size(), "j.onnx").status().message().find("not a valid ONNX model") != std::string::npos);
  CHECK(Convert(Base(24)).status().message().find("opset 24; tare converts opsets 1 to 23") != std::string::npos);
  onnx::ModelProto m = Base(13);
  auto* w = m.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(1);
  w->add_dims(3);
  w->add_float_data(1.0f);
  AddNode(m, "Relu", {"w"}, {"y"});
  m.mutable_graph()->add_output()->set_name("y");
  CHECK(Convert(m).status().message().find("has data for 1 elements, but its shape [3] of float32 needs 3") != std::string::npos);
  onnx::ModelProto u = Base(13);
  AddNode(u, "Relu", {"nowhere"}, {"y"});
  u.mutable_graph()->add_output()->set_name("y");
  CHECK(Convert(u).status().message().find("input 'nowhere' is not produced") != std::string::npos);
}

TEST_CASE("onnx: opset-1..6 forms are rewritten (Reshape-1 shape attribute, legacy attributes dropped)") {
  onnx::ModelProto m = Base(4);
  auto* n = AddNode(m, "Reshape", {"x"}, {"y"}, "r");
  auto* a = n->add_attribute();
  a->set_name("shape");
  a->set_type(onnx::AttributeProto::INTS);
  a->add_ints(-1);
  auto* c = n->add_attribute();
  c->set_name("consumed_inputs");
  c->set_type(onnx::AttributeProto::INTS);
  c->add_ints(0);
  m.mutable_graph()->add_output()->set_name("y");
  auto r = Convert(m);
  REQUIRE_MESSAGE(r.ok(), r.status().message());
  const Node& node = (*r)->graph.nodes.at(0);
  REQUIRE(node.inputs.size() == 2);
  CHECK((*r)->graph.values[node.inputs[1]].constant.as<int64_t>()[0] == -1);
  CHECK(node.attrs.empty());
}
