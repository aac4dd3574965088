#include "tests/backends/op_cases.h"

#include <functional>
#include <random>

namespace tare::test {
namespace {

Tensor Uniform(const Shape& s, std::mt19937& g) {
  Tensor t = Tensor::Alloc(DType::kFloat32, s).value();
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  float* p = t.as<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = u(g);
  return t;
}


Node Op(const std::string& op, std::map<std::string, Attr> attrs = {}) {
  Node n;
  n.op = op;
  n.name = op;
  n.attrs = std::move(attrs);
  return n;
}

/// Conv of c_in -> c_out channels on an h x w input, square kernel k, stride s, pad (k-1)/2, groups g.
OpCase Conv(const std::string& name, int64_t c_in, int64_t hw, int64_t c_out, int64_t k, int64_t s, int64_t groups,
            std::mt19937& g) {
  const int64_t p = (k - 1) / 2;
  OpCase c;
  c.name = name;
  c.node = Op("Conv", {{"strides", IntsAttr({s, s})}, {"pads", IntsAttr({p, p, p, p})}, {"group", IntAttr(groups)}});
  c.inputs = {Uniform({1, c_in, hw, hw}, g), Uniform({c_out, c_in / groups, k, k}, g), Uniform({c_out}, g)};
  c.k = c.macs_per_output = double(c_in / groups * k * k);
  return c;
}

std::vector<OpCase> Build() {
  std::mt19937 g(2026);
  std::vector<OpCase> t;
  // ResNet-18 (224x224): the stem, a 3x3 layer of each stage, a strided 1x1 shortcut.
  t.push_back(Conv("resnet18/conv1.7x7s2", 3, 224, 64, 7, 2, 1, g));
  t.push_back(Conv("resnet18/layer1.3x3", 64, 56, 64, 3, 1, 1, g));
  t.push_back(Conv("resnet18/layer2.3x3", 128, 28, 128, 3, 1, 1, g));
  t.push_back(Conv("resnet18/layer3.3x3", 256, 14, 256, 3, 1, 1, g));
  t.push_back(Conv("resnet18/layer4.3x3", 512, 7, 512, 3, 1, 1, g));
  t.push_back(Conv("resnet18/layer2.downsample.1x1s2", 64, 56, 128, 1, 2, 1, g));
  // ResNet-20 / VGG-16 on CIFAR (32x32).
  t.push_back(Conv("resnet20/layer1.3x3", 16, 32, 16, 3, 1, 1, g));
  t.push_back(Conv("vgg16/block1.3x3", 3, 32, 64, 3, 1, 1, g));
  t.push_back(Conv("vgg16/block4.3x3", 256, 4, 512, 3, 1, 1, g));
  // MobileNetV2 (224x224): an expansion 1x1, a depthwise 3x3 (stride 1 and 2), a projection 1x1.
  t.push_back(Conv("mobilenet_v2/block2.expand.1x1", 24, 56, 144, 1, 1, 1, g));
  t.push_back(Conv("mobilenet_v2/block2.dw3x3", 144, 56, 144, 3, 1, 144, g));
  t.push_back(Conv("mobilenet_v2/block3.dw3x3s2", 144, 56, 144, 3, 2, 144, g));
  t.push_back(Conv("mobilenet_v2/block2.project.1x1", 144, 56, 24, 1, 1, 1, g));
  // SqueezeNet 1.1: a fire module's squeeze and expand layers.
  t.push_back(Conv("squeezenet1_1/fire2.squeeze.1x1", 64, 55, 16, 1, 1, 1, g));
  t.push_back(Conv("squeezenet1_1/fire2.expand3x3", 16, 55, 64, 3, 1, 1, g));
  // Silero VAD v5: the STFT as a strided 1-D convolution and an encoder layer.
  {
    OpCase c;
    c.name = "silero_v5/stft.conv1d";
    c.node = Op("Conv", {{"strides", IntsAttr({128})}});
    c.inputs = {Uniform({1, 1, 576}, g), Uniform({258, 1, 256}, g)};
    c.k = c.macs_per_output = 256;
    t.push_back(c);
    OpCase e;
    e.name = "silero_v5/encoder0.conv1d";
    e.node = Op("Conv", {{"pads", IntsAttr({1, 1})}});
    e.inputs = {Uniform({1, 129, 4}, g), Uniform({128, 129, 3}, g), Uniform({128}, g)};
    e.k = e.macs_per_output = 129 * 3;
    t.push_back(e);
  }
  // Pools.
  {
    OpCase c;
    c.name = "resnet18/maxpool.3x3s2";
    c.node = Op("MaxPool", {{"kernel_shape", IntsAttr({3, 3})}, {"strides", IntsAttr({2, 2})}, {"pads", IntsAttr({1, 1, 1, 1})}});
    c.inputs = {Uniform({1, 64, 112, 112}, g)};
    t.push_back(c);
    OpCase a;
    a.name = "resnet18/global_avgpool";
    a.node = Op("GlobalAveragePool");
    a.inputs = {Uniform({1, 512, 7, 7}, g)};
    a.k = 49;
    t.push_back(a);
  }
  // Classifier heads.
  {
    OpCase c;
    c.name = "resnet18/fc";
    c.node = Op("Gemm", {{"transB", IntAttr(1)}});
    c.inputs = {Uniform({1, 512}, g), Uniform({1000, 512}, g), Uniform({1000}, g)};
    c.k = c.macs_per_output = 512;
    t.push_back(c);
    OpCase v;
    v.name = "vgg16/classifier.fc";
    v.node = Op("Gemm", {{"transB", IntAttr(1)}});
    v.inputs = {Uniform({1, 512}, g), Uniform({512, 512}, g), Uniform({512}, g)};
    v.k = v.macs_per_output = 512;
    t.push_back(v);
  }
  // Elementwise: a residual Add and a Relu of ResNet-18's first stage.
  {
    OpCase c;
    c.name = "resnet18/layer1.add";
    c.node = Op("Add");
    c.inputs = {Uniform({1, 64, 56, 56}, g), Uniform({1, 64, 56, 56}, g)};
    t.push_back(c);
    OpCase r;
    r.name = "resnet18/layer1.relu";
    r.node = Op("Relu");
    r.inputs = {Uniform({1, 64, 56, 56}, g)};
    t.push_back(r);
  }
  // LSTM: the text model's bidirectional layer (T 32, input 64, hidden 64) and Silero's cell.
  {
    OpCase c;
    c.name = "lstm_text/lstm.bidirectional";
    c.node = Op("LSTM", {{"hidden_size", IntAttr(64)}, {"direction", Attr()}});
    c.node.attrs["direction"].kind = Attr::Kind::kString;
    c.node.attrs["direction"].s = "bidirectional";
    c.inputs = {Uniform({32, 1, 64}, g), Uniform({2, 256, 64}, g), Uniform({2, 256, 64}, g), Uniform({2, 512}, g)};
    c.k = c.macs_per_output = 4 * (64 + 64);
    t.push_back(c);
    OpCase s;
    s.name = "silero_v5/decoder.lstm";
    s.node = Op("LSTM", {{"hidden_size", IntAttr(128)}});
    s.inputs = {Uniform({1, 1, 128}, g), Uniform({1, 512, 128}, g), Uniform({1, 512, 128}, g), Uniform({1, 1024}, g)};
    s.k = s.macs_per_output = 4 * (128 + 128);
    t.push_back(s);
  }
  // Softmax over ImageNet's classes.
  {
    OpCase c;
    c.name = "resnet18/softmax";
    c.node = Op("Softmax", {{"axis", IntAttr(1)}});
    c.inputs = {Uniform({1, 1000}, g)};
    c.k = 1000;
    t.push_back(c);
  }
  for (OpCase& c : t) {
    c.node.name = c.name;
    c.node.outputs = {0};
  }
  return t;
}

/// The layers of the transformer and ConvNeXt models of issue 23 (bench/peers/models.py), one op
/// each, at batch 1: fully connected MatMuls, attention's batched MatMul and Softmax, the LayerNorm
/// reduction and square, Gelu's Erf, a head transpose, ConvNeXt's 7 x 7 depthwise convolution and
/// an EfficientNet Sigmoid.
std::vector<OpCase> BuildTransformer() {
  std::mt19937 g(2323);
  std::vector<OpCase> t;
  auto add = [&](const std::string& name, Node n, std::vector<Tensor> in, double k, double macs) {
    OpCase c;
    c.name = name;
    c.node = std::move(n);
    c.inputs = std::move(in);
    c.k = k;
    c.macs_per_output = macs;
    t.push_back(std::move(c));
  };
  add("bert_encoder/ffn.fc1", Op("MatMul"), {Uniform({1, 128, 256}, g), Uniform({256, 1024}, g)}, 256, 256);
  add("convnext_tiny/stage3.pwconv1", Op("MatMul"), {Uniform({1, 14, 14, 384}, g), Uniform({384, 1536}, g)}, 384, 384);
  add("vit_b_16/attn.qk", Op("MatMul"), {Uniform({1, 12, 197, 64}, g), Uniform({1, 12, 64, 197}, g)}, 64, 64);
  add("vit_b_16/attn.softmax", Op("Softmax", {{"axis", IntAttr(-1)}}), {Uniform({1, 12, 197, 197}, g)}, 197, 0);
  add("vit_b_16/ln.reducemean", Op("ReduceMean", {{"axes", IntsAttr({-1})}}), {Uniform({1, 197, 768}, g)}, 768, 0);
  Tensor two = Tensor::Alloc(DType::kFloat32, {}).value();
  two.as<float>()[0] = 2.0f;
  add("vit_b_16/ln.pow", Op("Pow"), {Uniform({1, 197, 768}, g), two}, 1, 0);
  add("vit_b_16/gelu.erf", Op("Erf"), {Uniform({1, 197, 3072}, g)}, 1, 0);
  add("bert_encoder/gelu.tanh", Op("Tanh"), {Uniform({1, 128, 1024}, g)}, 1, 0);
  add("vit_b_16/attn.transpose", Op("Transpose", {{"perm", IntsAttr({0, 2, 1, 3})}}), {Uniform({1, 197, 12, 64}, g)}, 1, 0);
  add("convnext_tiny/stage1.dwconv7x7",
      Op("Conv", {{"group", IntAttr(96)}, {"pads", IntsAttr({3, 3, 3, 3})}}),
      {Uniform({1, 96, 56, 56}, g), Uniform({96, 1, 7, 7}, g), Uniform({96}, g)}, 49, 49);
  add("efficientnet_b0/stage2.sigmoid", Op("Sigmoid"), {Uniform({1, 96, 112, 112}, g)}, 1, 0);
  add("vit_b_16/ln.layernorm17", Op("LayerNormalization", {{"axis", IntAttr(-1)}}),
      {Uniform({1, 197, 768}, g), Uniform({768}, g), Uniform({768}, g)}, 768, 0);
  add("vit_b_16/attn.qk.einsum", Op("Einsum", {{"equation", StrAttr("bhqd,bhkd->bhqk")}}),
      {Uniform({1, 12, 197, 64}, g), Uniform({1, 12, 197, 64}, g)}, 64, 64);
  Tensor mask = Tensor::Alloc(DType::kBool, {1, 1, 197, 197}).value();
  for (int64_t i = 0; i < mask.numel(); ++i) mask.as<uint8_t>()[i] = (i % 197) <= (i / 197);  // causal
  Tensor neg = Tensor::Alloc(DType::kFloat32, {}).value();
  neg.as<float>()[0] = -1e9f;
  add("gpt_style/attn.mask.where", Op("Where"), {mask, Uniform({1, 12, 197, 197}, g), neg}, 1, 0);
  add("mobilenet_v3/hardsigmoid", Op("HardSigmoid", {{"alpha", FloatAttr(1.0f / 6)}}), {Uniform({1, 16, 112, 112}, g)}, 1, 0);
  for (OpCase& c : t) {
    c.node.name = c.name;
    c.node.outputs = {0};
  }
  return t;
}

}  // namespace

const std::vector<OpCase>& PerfOpCases() {
  static const std::vector<OpCase> table = Build();
  return table;
}

namespace {

/// A graph under construction for ChainCases: the input "x", constants, nodes with one float32
/// output each.
struct Chain {
  std::shared_ptr<Graph> g = std::make_shared<Graph>();
  int Value(const std::string& name, const Tensor* constant, const Shape& shape) {
    tare::Value v;
    v.name = name;
    v.dtype = DType::kFloat32;
    v.shape = shape;
    v.has_shape = !shape.empty() || constant;
    if (constant) {
      v.is_constant = true;
      v.constant = *constant;
    }
    return g->AddValue(v);
  }
  int Const(const Tensor& t) { return Value("c" + std::to_string(g->values.size()), &t, t.shape); }
  int Scalar(float f) {
    Tensor t = Tensor::Alloc(DType::kFloat32, {}).value();
    t.as<float>()[0] = f;
    return Const(t);
  }
  int Add(Node n, std::vector<int> ins) {
    n.inputs = std::move(ins);
    n.name = n.op + "_" + std::to_string(g->nodes.size());
    n.outputs = {Value(n.name + ":0", nullptr, {})};
    g->nodes.push_back(n);
    return n.outputs[0];
  }
};

ChainCase MakeChain(const std::string& name, const Shape& xs, std::mt19937& rng, const std::function<int(Chain&, int)>& body) {
  Chain c;
  const int x = c.Value("x", nullptr, xs);
  c.g->inputs = {x};
  c.g->outputs = {body(c, x)};
  return {name, c.g, Uniform(xs, rng)};
}

std::vector<ChainCase> BuildChains() {
  std::mt19937 g(2424);
  std::vector<ChainCase> t;
  t.push_back(MakeChain("vit_b_16/layernorm.decomposed", {1, 197, 768}, g, [&](Chain& c, int x) {
    Node mean = Op("ReduceMean", {{"axes", IntsAttr({-1})}});
    const int d = c.Add(Op("Sub"), {x, c.Add(mean, {x})});
    const int v = c.Add(mean, {c.Add(Op("Pow"), {d, c.Scalar(2)})});
    const int n = c.Add(Op("Div"), {d, c.Add(Op("Sqrt"), {c.Add(Op("Add"), {v, c.Scalar(1e-6f)})})});
    return c.Add(Op("Add"), {c.Add(Op("Mul"), {n, c.Const(Uniform({768}, g))}), c.Const(Uniform({768}, g))});
  }));
  t.push_back(MakeChain("vit_b_16/gelu.erf", {1, 197, 3072}, g, [&](Chain& c, int x) {
    const int e = c.Add(Op("Erf"), {c.Add(Op("Div"), {x, c.Scalar(1.41421356f)})});
    return c.Add(Op("Mul"), {c.Add(Op("Mul"), {x, c.Add(Op("Add"), {e, c.Scalar(1)})}), c.Scalar(0.5f)});
  }));
  t.push_back(MakeChain("bert_encoder/gelu.tanh", {1, 128, 1024}, g, [&](Chain& c, int x) {
    const int cube = c.Add(Op("Mul"), {x, c.Add(Op("Mul"), {x, x})});
    const int inner = c.Add(Op("Add"), {x, c.Add(Op("Mul"), {c.Scalar(0.044715f), cube})});
    const int th = c.Add(Op("Tanh"), {c.Add(Op("Mul"), {c.Scalar(0.7978845608f), inner})});
    return c.Add(Op("Mul"), {c.Scalar(0.5f), c.Add(Op("Mul"), {x, c.Add(Op("Add"), {c.Scalar(1), th})})});
  }));
  t.push_back(MakeChain("efficientnet_b0/silu", {1, 96, 112, 112}, g,
                        [&](Chain& c, int x) { return c.Add(Op("Mul"), {x, c.Add(Op("Sigmoid"), {x})}); }));
  t.push_back(MakeChain("mobilenet_v3/hard_swish.keras", {1, 16, 112, 112}, g, [&](Chain& c, int x) {
    const int r = c.Add(Op("Clip"), {c.Add(Op("Add"), {x, c.Scalar(3)}), c.Scalar(0), c.Scalar(6)});
    return c.Add(Op("Mul"), {x, c.Add(Op("Div"), {r, c.Scalar(6)})});
  }));
  t.push_back(MakeChain("vit_b_16/attention", {1, 12, 197, 64}, g, [&](Chain& c, int q) {
    const int s = c.Add(Op("Div"), {c.Add(Op("MatMul"), {q, c.Const(Uniform({1, 12, 64, 197}, g))}), c.Scalar(8)});
    return c.Add(Op("MatMul"), {c.Add(Op("Softmax", {{"axis", IntAttr(-1)}}), {s}), c.Const(Uniform({1, 12, 197, 64}, g))});
  }));
  return t;
}

}  // namespace

const std::vector<ChainCase>& ChainCases() {
  static const std::vector<ChainCase> table = BuildChains();
  return table;
}

const std::vector<OpCase>& TransformerOpCases() {
  static const std::vector<OpCase> table = BuildTransformer();
  return table;
}

std::shared_ptr<Graph> CaseGraph(const OpCase& c, Tensor* feed) {
  auto g = std::make_shared<Graph>();
  Node n = c.node;
  n.inputs.clear();
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    Value v;
    v.name = i == 0 ? "x" : "w" + std::to_string(i);
    v.dtype = c.inputs[i].dtype;
    v.shape = c.inputs[i].shape;
    v.has_shape = true;
    if (i > 0) {
      v.is_constant = true;
      v.constant = c.inputs[i];
    }
    n.inputs.push_back(g->AddValue(v));
    if (i == 0) g->inputs.push_back(n.inputs.back());
  }
  Value y;
  y.name = "y";
  y.dtype = DType::kFloat32;
  n.outputs = {g->AddValue(y)};
  g->outputs = n.outputs;
  g->nodes.push_back(n);
  *feed = c.inputs[0];
  return g;
}

}  // namespace tare::test
