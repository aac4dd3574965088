// tare_make_adversarial: writes hostile variants of the LeNet-5 fixture for tests/cli/bad_inputs.sh
// (issue 8): each file is well-formed as a file (valid protobuf / verified .tare with a correct
// CRC) but describes something that must be refused with one clear error.
//
//   tare_make_adversarial MODEL.onnx OUT_DIR   (OUT_DIR is created when missing)
//
// ONNX (written with the ONNX protobuf, from MODEL.onnx):
//   dim_2p40.onnx      a weight whose dims say 2^40 elements (it carries 150)
//   neg_dim.onnx       a weight with a dimension of -3
//   cycle.onnx         the first node reads the graph output (a cycle through every node)
//   order.onnx         the first two nodes swapped: a node reads a value produced after it
//   huge_const.onnx    an extra ConstantOfShape([2^20, 2^20, 2^20]) output: 2^60 elements at run time
//   neg_reshape.onnx   the input reshaped to [-3, 784]: a negative size
// .tare (built as graphs and serialized without validation, so the loader must catch them):
//   cycle.tare, order.tare, huge_const.tare (as above)
// Exit status 0, or 1 with one line on stderr.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "format/model_file.h"
#include "onnx.pb.h"

using namespace tare;

namespace {

bool Write(const onnx::ModelProto& m, const std::string& path) {
  std::ofstream f(path, std::ios::binary);
  return f && m.SerializeToOstream(&f);
}

onnx::TensorProto Int64Tensor(const std::string& name, std::vector<int64_t> v) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::INT64);
  t.add_dims(static_cast<int64_t>(v.size()));
  for (int64_t x : v) t.add_int64_data(x);
  return t;
}

// A graph y = f(x) of two Relu nodes, then rewired by `kind`: "cycle", "order" or "huge_const".
Model TareGraph(const std::string& kind) {
  Model m;
  m.provenance.source_format = "onnx";
  m.provenance.source_file = "adversarial";
  Graph& g = m.graph;
  auto value = [&](const std::string& name, DType dt) {
    Value v;
    v.name = name;
    v.dtype = dt;
    return g.AddValue(std::move(v));
  };
  const int x = value("x", DType::kFloat32);
  g.values[x].shape = {1, 4};
  g.values[x].has_shape = true;
  g.inputs = {x};
  const int a = value("a", DType::kFloat32), y = value("y", DType::kFloat32);
  auto node = [&](const std::string& name, const std::string& op, std::vector<int> in, std::vector<int> out) {
    Node n;
    n.name = name;
    n.op = op;
    n.inputs = std::move(in);
    n.outputs = std::move(out);
    g.nodes.push_back(std::move(n));
  };
  if (kind == "cycle") {
    node("first", "Relu", {y}, {a});
    node("second", "Relu", {a}, {y});
  } else if (kind == "order") {
    node("second", "Relu", {a}, {y});
    node("first", "Relu", {x}, {a});
  } else {  // huge_const: y = x + ConstantOfShape([2^20, 2^20, 2^20])
    Value s;
    s.name = "shape";
    s.dtype = DType::kInt64;
    s.shape = {3};
    s.has_shape = true;
    s.is_constant = true;
    s.constant = Tensor::Alloc(DType::kInt64, {3}).value();
    for (int i = 0; i < 3; ++i) s.constant.as<int64_t>()[i] = int64_t(1) << 20;
    const int sv = g.AddValue(std::move(s));
    node("huge", "ConstantOfShape", {sv}, {a});
    node("add", "Add", {x, a}, {y});
  }
  g.outputs = {y};
  return m;
}

int Fail(const std::string& msg) {
  std::fprintf(stderr, "tare_make_adversarial: %s\n", msg.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return Fail("usage: tare_make_adversarial MODEL.onnx OUT_DIR");
  const std::string out = argv[2];
  std::error_code ec;
  std::filesystem::create_directories(out, ec);  // a missing folder is made; a failure shows when writing
  onnx::ModelProto base;
  {
    std::ifstream f(argv[1], std::ios::binary);
    if (!f || !base.ParseFromIstream(&f)) return Fail(std::string("cannot read ") + argv[1]);
  }
  if (base.graph().initializer_size() == 0 || base.graph().node_size() < 2 || base.graph().output_size() == 0 ||
      base.graph().input_size() == 0)
    return Fail("the model needs weights, two nodes, an input and an output");
  bool ok = true;
  {
    onnx::ModelProto m = base;
    onnx::TensorProto* t = m.mutable_graph()->mutable_initializer(0);
    t->clear_dims();
    t->add_dims(int64_t(1) << 40);
    ok = ok && Write(m, out + "/dim_2p40.onnx");
  }
  {
    onnx::ModelProto m = base;
    m.mutable_graph()->mutable_initializer(0)->set_dims(0, -3);
    ok = ok && Write(m, out + "/neg_dim.onnx");
  }
  {
    onnx::ModelProto m = base;
    m.mutable_graph()->mutable_node(0)->set_input(0, m.graph().output(0).name());
    ok = ok && Write(m, out + "/cycle.onnx");
  }
  {
    onnx::ModelProto m = base;
    m.mutable_graph()->mutable_node()->SwapElements(0, 1);
    ok = ok && Write(m, out + "/order.onnx");
  }
  {
    onnx::ModelProto m = base;
    onnx::GraphProto* g = m.mutable_graph();
    *g->add_initializer() = Int64Tensor("adversarial_shape", {int64_t(1) << 20, int64_t(1) << 20, int64_t(1) << 20});
    onnx::NodeProto* n = g->add_node();
    n->set_name("adversarial_huge");
    n->set_op_type("ConstantOfShape");
    n->add_input("adversarial_shape");
    n->add_output("adversarial_huge_out");
    onnx::ValueInfoProto* o = g->add_output();
    o->set_name("adversarial_huge_out");
    o->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    ok = ok && Write(m, out + "/huge_const.onnx");
  }
  {
    onnx::ModelProto m = base;
    onnx::GraphProto* g = m.mutable_graph();
    const std::string in = g->input(0).name();
    *g->add_initializer() = Int64Tensor("adversarial_neg_shape", {-3, 784});
    onnx::NodeProto* n = g->add_node();
    n->set_name("adversarial_reshape");
    n->set_op_type("Reshape");
    n->add_input(in);
    n->add_input("adversarial_neg_shape");
    n->add_output("adversarial_reshaped");
    onnx::ValueInfoProto* o = g->add_output();
    o->set_name("adversarial_reshaped");
    o->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    ok = ok && Write(m, out + "/neg_reshape.onnx");
  }
  if (!ok) return Fail("cannot write to " + out);
  for (const char* kind : {"cycle", "order", "huge_const"}) {
    Status s = SaveModel(TareGraph(kind), out + "/" + kind + ".tare");
    if (!s.ok()) return Fail(s.message());
  }
  return 0;
}
