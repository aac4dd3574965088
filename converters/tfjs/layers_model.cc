// TF.js layers models: a Keras model_config (Sequential or functional, Keras 2 serialization) ->
// the IR through Builder (builder.h). Layer semantics: Keras 2's as TF.js 4.22's layers implement
// them (tfjs-layers), channels_last only.

#include <algorithm>
#include <set>

#include "converters/tfjs/kinds.h"

namespace tare {
namespace tfjs {
namespace {

using json = nlohmann::ordered_json;

/// `s` cut to 120 characters for messages (names may be arbitrarily long).
std::string Clip(const std::string& s) { return s.size() <= 120 ? s : s.substr(0, 117) + "..."; }

/// A config value, `def` when absent or null (Keras writes nulls); a value of another JSON type is
/// a type error, reported as a malformed model.json.
template <class T>
T Get(const json& c, const char* key, T def) {
  if (!c.is_object() || !c.contains(key) || c[key].is_null()) return def;
  return c[key].get<T>();
}

/// A layer's config value as two ints (a Keras int or pair).
Result<std::vector<int64_t>> Pair(const json& c, const char* key, int64_t def) {
  if (!c.contains(key) || c[key].is_null()) return std::vector<int64_t>{def, def};
  const json& v = c[key];
  if (v.is_number_integer()) return std::vector<int64_t>{v.get<int64_t>(), v.get<int64_t>()};
  if (v.is_array() && v.size() == 2 && v[0].is_number_integer() && v[1].is_number_integer())
    return std::vector<int64_t>{v[0].get<int64_t>(), v[1].get<int64_t>()};
  return Status::Error(std::string("'") + key + "' must be an int or a pair of ints, got " + v.dump());
}


class LayersConverter {
 public:
  LayersConverter(const json& j, std::map<std::string, Tensor>& w, Builder& b) : j_(j), w_(w), b_(b) {}
  Status Run();

 private:
  struct Layer {
    const json* j;
    std::string name, cls;
    const json* config;
    std::vector<std::vector<std::string>> inbound;  // per call (node index): input tensor names
  };
  /// Converts one call of layer l on tensors `ins`, writing tensor y, through the layer table.
  Status Convert(const Layer& l, const std::vector<std::string>& ins, const std::string& y);
  using Translator = Status (LayersConverter::*)(const Layer&, const std::vector<std::string>&, const std::string&);
  /// Keras class name -> translator.
  static const std::map<std::string, Translator>& Table();
  // Translators, one per row.
  Status DropoutLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y);
  Status Conv2DLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y);
  Status DenseLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y);
  Status BatchNormalizationLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y);
  Status ActivationLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y);
  Status SoftmaxLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y);
  Status ReLULayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y);
  Status LeakyReLULayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y);
  Status MaxPooling2DLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y);
  Status GlobalAveragePooling2DLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y);
  Status FlattenLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y);
  Status ReshapeLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y);
  Status AddLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y);
  Status ConcatenateLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y);
  Status ZeroPadding2DLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y);
  Status UpSampling2DLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y);
  Status EmbeddingLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y);
  Status RecurrentLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y);
  /// The weight `<layer>/<name>` (or one whose name ends in it, for nested models). Errors: missing.
  Result<Tensor> Weight(const std::string& layer, const std::string& name, bool required = true);
  Result<Activation> Act(const json& c);
  /// The single input of a one-input layer. Errors: another count.
  Result<std::string> One(const std::vector<std::string>& ins) const {
    if (ins.size() != 1) return Error("expects one input, has " + std::to_string(ins.size()));
    return ins[0];
  }
  /// Applies the layer's activation `a` (softmax over the last axis included) to `core`, writing y.
  Status Finish(const std::string& y, const std::string& core, const Activation& a) {
    if (a.kind == "softmax") return b_.Softmax(y, core, false);
    return b_.Activate(y, core, a);
  }
  static std::string TensorName(const std::string& layer, int64_t node, int64_t index) {
    return layer + (node ? "/call_" + std::to_string(node) : "") + (index ? ":" + std::to_string(index) : "");
  }
  Status Error(const std::string& m) const { return b_.Error(m); }
  Status AddInputLayer(const Layer& l);

  const json& j_;
  std::map<std::string, Tensor>& w_;
  Builder& b_;
};

Result<Tensor> LayersConverter::Weight(const std::string& layer, const std::string& name, bool required) {
  const std::string key = layer + "/" + name;
  auto it = w_.find(key);
  const Tensor* found = it != w_.end() ? &it->second : nullptr;
  for (auto kt = w_.begin(); !found && kt != w_.end(); ++kt) {
    const std::string& k = kt->first;
    if (k.size() > key.size() && k.compare(k.size() - key.size(), key.size(), key) == 0 && k[k.size() - key.size() - 1] == '/') found = &kt->second;
  }
  if (!found) {
    if (!required) return Tensor();
    return Error("its weight '" + Clip(key) + "' is not in the weights manifest");
  }
  // Every weight a layer reads is float32 (kernels, biases, statistics, embeddings).
  if (found->dtype != DType::kFloat32)
    return Error("its weight '" + Clip(key) + "' is " + DTypeName(found->dtype) + ", not float32");
  return *found;
}

Result<Activation> LayersConverter::Act(const json& c) {
  Activation a;
  if (!c.contains("activation") || c["activation"].is_null()) return a;
  if (!c["activation"].is_string()) return Error("'activation' must be a name");
  const std::string s = c["activation"].get<std::string>();
  static const std::map<std::string, std::string> m = {
      {"linear", ""}, {"relu", "Relu"}, {"relu6", "Relu6"}, {"sigmoid", "Sigmoid"}, {"tanh", "Tanh"}, {"elu", "Elu"},
      {"selu", "Selu"}, {"softplus", "Softplus"}, {"softsign", "Softsign"}, {"hard_sigmoid", "HardSigmoid"}, {"swish", "Swish"},
      {"softmax", "softmax"}};
  auto it = m.find(s);
  if (it == m.end()) return Error("activation '" + s + "' is not supported");
  a.kind = it->second;
  return a;
}

Status LayersConverter::AddInputLayer(const Layer& l) {
  const json& c = *l.config;
  const json* shp = c.contains("batch_input_shape") ? &c["batch_input_shape"] : c.contains("batch_shape") ? &c["batch_shape"] : nullptr;
  if (!shp || !shp->is_array()) return Error("an input layer without batch_input_shape");
  Shape s;
  for (const json& d : *shp) s.push_back(d.is_number_integer() && d.get<int64_t>() >= 0 ? d.get<int64_t>() : -1);
  const std::string dt = Get(c, "dtype", std::string("float32"));
  DType t = dt == "float32" ? DType::kFloat32 : dt == "int32" ? DType::kInt32 : dt == "bool" ? DType::kBool : DType::kUndefined;
  if (t == DType::kUndefined) return Error("input dtype '" + dt + "' is not supported");
  b_.AddInput(l.name, t, s);
  return Status::Ok();
}

const std::map<std::string, LayersConverter::Translator>& LayersConverter::Table() {
  static const std::map<std::string, Translator> table = [] {
    std::map<std::string, Translator> t;
    const std::vector<std::pair<Translator, std::vector<std::string>>> rows = {
      {&LayersConverter::DropoutLayer, {"Dropout", "SpatialDropout2D", "GaussianNoise", "GaussianDropout", "AlphaDropout"}},
      {&LayersConverter::Conv2DLayer, {"Conv2D", "DepthwiseConv2D", "SeparableConv2D"}},
      {&LayersConverter::DenseLayer, {"Dense"}},
      {&LayersConverter::BatchNormalizationLayer, {"BatchNormalization"}},
      {&LayersConverter::ActivationLayer, {"Activation"}},
      {&LayersConverter::SoftmaxLayer, {"Softmax"}},
      {&LayersConverter::ReLULayer, {"ReLU"}},
      {&LayersConverter::LeakyReLULayer, {"LeakyReLU"}},
      {&LayersConverter::MaxPooling2DLayer, {"MaxPooling2D", "AveragePooling2D"}},
      {&LayersConverter::GlobalAveragePooling2DLayer, {"GlobalAveragePooling2D", "GlobalMaxPooling2D"}},
      {&LayersConverter::FlattenLayer, {"Flatten"}},
      {&LayersConverter::ReshapeLayer, {"Reshape"}},
      {&LayersConverter::AddLayer, {"Add", "Subtract", "Multiply", "Maximum", "Minimum", "Average"}},
      {&LayersConverter::ConcatenateLayer, {"Concatenate"}},
      {&LayersConverter::ZeroPadding2DLayer, {"ZeroPadding2D"}},
      {&LayersConverter::UpSampling2DLayer, {"UpSampling2D"}},
      {&LayersConverter::EmbeddingLayer, {"Embedding"}},
      {&LayersConverter::RecurrentLayer, {"LSTM", "GRU", "SimpleRNN"}},
    };
    for (const auto& [f, classes] : rows)
      for (const std::string& k : classes) t[k] = f;
    return t;
  }();
  return table;
}

Status LayersConverter::Convert(const Layer& l, const std::vector<std::string>& ins, const std::string& y) {
  if (Get(*l.config, "data_format", std::string("channels_last")) != "channels_last") return Error("data_format channels_first is not supported");
  auto it = Table().find(l.cls);
  if (it == Table().end()) return Error("is not supported");
  Status st;
  try {
    st = (this->*it->second)(l, ins, y);
  } catch (const std::exception& e) {  // a config value of the wrong JSON type
    return Error(std::string("malformed config: ") + e.what());
  }
  // Messages of helpers that do not know the layer (Pair) get its name and the file.
  if (!st.ok() && st.message().rfind(b_.file(), 0) != 0) return Error(st.message());
  return st;
}

/// Keras Dropout, SpatialDropout2D, GaussianNoise, GaussianDropout, AlphaDropout.
Status LayersConverter::DropoutLayer(const Layer&, const std::vector<std::string>& ins, const std::string& y) {
  TARE_ASSIGN_OR_RETURN(std::string x, One(ins));
  return b_.Alias(y, x);  // inference: the identity
}

/// Keras Conv2D, DepthwiseConv2D, SeparableConv2D.
Status LayersConverter::Conv2DLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y) {
  const json& c = *l.config;
  const std::string& cls = l.cls;
  TARE_ASSIGN_OR_RETURN(std::string x, One(ins));
  TARE_ASSIGN_OR_RETURN(auto strides, Pair(c, "strides", 1));
  TARE_ASSIGN_OR_RETURN(auto dil, Pair(c, "dilation_rate", 1));
  Padding pad;
  const std::string p = Get(c, "padding", std::string("valid"));
  if (p != "valid" && p != "same") return Error("padding '" + p + "' is not supported");
  pad.kind = p == "same" ? "SAME" : "VALID";
  if (Get(c, "groups", 1) != 1) return Error("grouped Conv2D (groups > 1) is not supported");
  TARE_ASSIGN_OR_RETURN(Activation act, Act(c));
  const bool use_bias = Get(c, "use_bias", true);
  Tensor bias;
  if (use_bias) {
    TARE_ASSIGN_OR_RETURN(bias, Weight(l.name, "bias"));
  }
  const std::string core = act.kind.empty() ? y : y + "/pre_activation";
  if (cls == "SeparableConv2D") {
    TARE_ASSIGN_OR_RETURN(Tensor dw, Weight(l.name, "depthwise_kernel"));
    TARE_ASSIGN_OR_RETURN(Tensor pw, Weight(l.name, "pointwise_kernel"));
    TARE_RETURN_IF_ERROR(b_.Conv(y + "/depthwise", x, dw, nullptr, strides, dil, pad, true, Activation()));
    TARE_RETURN_IF_ERROR(b_.Conv(core, y + "/depthwise", pw, use_bias ? &bias : nullptr, {1, 1}, {1, 1}, Padding(), false, Activation()));
  } else {
    TARE_ASSIGN_OR_RETURN(Tensor w, Weight(l.name, cls == "Conv2D" ? "kernel" : "depthwise_kernel"));
    TARE_RETURN_IF_ERROR(b_.Conv(core, x, w, use_bias ? &bias : nullptr, strides, dil, pad, cls != "Conv2D", Activation()));
  }
  return act.kind.empty() ? Status::Ok() : Finish(y, core, act);
}

/// Keras Dense.
Status LayersConverter::DenseLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y) {
  const json& c = *l.config;
  TARE_ASSIGN_OR_RETURN(std::string x, One(ins));
  TARE_ASSIGN_OR_RETURN(Activation act, Act(c));
  TARE_ASSIGN_OR_RETURN(Tensor k, Weight(l.name, "kernel"));
  b_.SetConst(y + "/kernel", k);
  Tensor bias;
  const bool use_bias = Get(c, "use_bias", true);
  if (use_bias) {
    TARE_ASSIGN_OR_RETURN(bias, Weight(l.name, "bias"));
  }
  const std::string core = act.kind.empty() ? y : y + "/pre_activation";
  TARE_RETURN_IF_ERROR(b_.MatMul(core, x, y + "/kernel", false, false, use_bias ? &bias : nullptr, Activation()));
  return act.kind.empty() ? Status::Ok() : Finish(y, core, act);
}

/// Keras BatchNormalization.
Status LayersConverter::BatchNormalizationLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y) {
  const json& c = *l.config;
  TARE_ASSIGN_OR_RETURN(std::string x, One(ins));
  int64_t axis = -1;
  if (c.contains("axis")) {
    const json& a = c["axis"];
    if (a.is_number_integer()) axis = a.get<int64_t>();
    else if (a.is_array() && a.size() == 1 && a[0].is_number_integer()) axis = a[0].get<int64_t>();
    else return Error("'axis' must be one int");
  }
  const int r = b_.Rank(x);
  if (!(axis == -1 || (r >= 0 && axis == r - 1))) return Error("batch normalization over axis " + std::to_string(axis) + " is not supported (the last axis only)");
  TARE_ASSIGN_OR_RETURN(Tensor mean, Weight(l.name, "moving_mean"));
  TARE_ASSIGN_OR_RETURN(Tensor var, Weight(l.name, "moving_variance"));
  Tensor gamma, beta;
  if (Get(c, "scale", true)) {
    TARE_ASSIGN_OR_RETURN(gamma, Weight(l.name, "gamma"));
  } else {
    gamma = Tensor::Alloc(DType::kFloat32, {mean.numel()}).value();
    std::fill_n(static_cast<float*>(gamma.data), mean.numel(), 1.f);
  }
  if (Get(c, "center", true)) {
    TARE_ASSIGN_OR_RETURN(beta, Weight(l.name, "beta"));
  } else {
    beta = Tensor::Alloc(DType::kFloat32, {mean.numel()}).value();
    std::fill_n(static_cast<float*>(beta.data), mean.numel(), 0.f);
  }
  return b_.BatchNorm(y, x, gamma, beta, mean, var, Get(c, "epsilon", 1e-3f), Activation());
}

/// Keras Activation.
Status LayersConverter::ActivationLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y) {
  const json& c = *l.config;
  TARE_ASSIGN_OR_RETURN(std::string x, One(ins));
  TARE_ASSIGN_OR_RETURN(Activation act, Act(c));
  if (act.kind.empty()) return b_.Alias(y, x);
  return Finish(y, x, act);
}

/// Keras Softmax.
Status LayersConverter::SoftmaxLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y) {
  const json& c = *l.config;
  TARE_ASSIGN_OR_RETURN(std::string x, One(ins));
  if (Get(c, "axis", -1) != -1) return Error("Softmax over an axis other than the last is not supported");
  return b_.Softmax(y, x, false);
}

/// Keras ReLU.
Status LayersConverter::ReLULayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y) {
  const json& c = *l.config;
  TARE_ASSIGN_OR_RETURN(std::string x, One(ins));
  if (Get(c, "negative_slope", 0.0) != 0.0 || Get(c, "threshold", 0.0) != 0.0)
    return Error("ReLU with a negative_slope or threshold is not supported");
  if (!c.contains("max_value") || c["max_value"].is_null()) {
    Activation a;
    a.kind = "Relu";
    return b_.Activate(y, x, a);
  }
  const float mx = c["max_value"].get<float>();
  const bool nchw = b_.HasNchw(x);
  TARE_ASSIGN_OR_RETURN(int xv, nchw ? b_.Nchw(x) : b_.Plain(x));
  const int v = b_.Node1("Clip", y, {xv, b_.Const(y + "/min", Float32Scalar(0)), b_.Const(y + "/max", Float32Scalar(mx))}, b_.NameFor(y, nchw),
                         DType::kFloat32);
  b_.Set(y, v, nchw, b_.Rank(x));
  return Status::Ok();
}

/// Keras LeakyReLU.
Status LayersConverter::LeakyReLULayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y) {
  const json& c = *l.config;
  TARE_ASSIGN_OR_RETURN(std::string x, One(ins));
  Activation a;
  a.kind = "LeakyRelu";
  a.alpha = Get(c, "alpha", 0.3f);
  return b_.Activate(y, x, a);
}

/// Keras MaxPooling2D, AveragePooling2D.
Status LayersConverter::MaxPooling2DLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y) {
  const json& c = *l.config;
  const std::string& cls = l.cls;
  TARE_ASSIGN_OR_RETURN(std::string x, One(ins));
  TARE_ASSIGN_OR_RETURN(auto k, Pair(c, "pool_size", 2));
  TARE_ASSIGN_OR_RETURN(auto s, Pair(c, "strides", 0));
  if (s[0] == 0) s = k;  // Keras: strides default to the pool size
  Padding pad;
  pad.kind = Get(c, "padding", std::string("valid")) == "same" ? "SAME" : "VALID";
  return b_.Pool(y, x, cls == "MaxPooling2D", k, s, pad);
}

/// Keras GlobalAveragePooling2D, GlobalMaxPooling2D.
Status LayersConverter::GlobalAveragePooling2DLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y) {
  const json& c = *l.config;
  const std::string& cls = l.cls;
  TARE_ASSIGN_OR_RETURN(std::string x, One(ins));
  return b_.Reduce(y, x, cls == "GlobalAveragePooling2D" ? "ReduceMean" : "ReduceMax", {1, 2}, Get(c, "keepdims", false));
}

/// Keras Flatten.
Status LayersConverter::FlattenLayer(const Layer&, const std::vector<std::string>& ins, const std::string& y) {
  TARE_ASSIGN_OR_RETURN(std::string x, One(ins));
  TARE_ASSIGN_OR_RETURN(int xv, b_.Plain(x));  // TensorFlow's order: NHWC
  const int v = b_.Node1("Flatten", y, {xv}, b_.NameFor(y, false), b_.S(x).dtype, {{"axis", IntAttr(1)}});
  b_.Set(y, v, false, 2, b_.S(x).dtype);
  return Status::Ok();
}

/// Keras Reshape.
Status LayersConverter::ReshapeLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y) {
  const json& c = *l.config;
  TARE_ASSIGN_OR_RETURN(std::string x, One(ins));
  if (!c.contains("target_shape") || !c["target_shape"].is_array()) return Error("Reshape without target_shape");
  std::vector<int64_t> shape = {0};  // the batch dim is kept (ONNX Reshape's 0 copies it)
  for (const json& d : c["target_shape"]) {
    if (!d.is_number_integer() || d.get<int64_t>() == 0) return Error("target_shape entries must be positive ints or -1");
    shape.push_back(d.get<int64_t>());
  }
  TARE_ASSIGN_OR_RETURN(int xv, b_.Plain(x));
  const int v = b_.Node1("Reshape", y, {xv, b_.ConstI64(y + "/shape", shape)}, b_.NameFor(y, false), b_.S(x).dtype);
  b_.Set(y, v, false, static_cast<int>(shape.size()), b_.S(x).dtype);
  return Status::Ok();
}

/// Keras Add, Subtract, Multiply, Maximum, Minimum, Average.
Status LayersConverter::AddLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y) {
  const std::string& cls = l.cls;
  if (ins.size() < 2) return Error("merges fewer than two inputs");
  if (cls == "Subtract" && ins.size() != 2) return Error("Subtract takes two inputs");
  const std::string op = cls == "Add" ? "Sum" : cls == "Subtract" ? "Sub" : cls == "Multiply" ? "Mul" : cls == "Maximum" ? "Max" : cls == "Minimum" ? "Min" : "Mean";
  return b_.Elementwise(y, ins.size() == 2 && op == "Sum" ? "Add" : op, ins);
}

/// Keras Concatenate.
Status LayersConverter::ConcatenateLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y) {
  const json& c = *l.config;
  if (ins.size() < 2) return Error("concatenates fewer than two inputs");
  return b_.Concat(y, ins, Get(c, "axis", -1));
}

/// Keras ZeroPadding2D.
Status LayersConverter::ZeroPadding2DLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y) {
  const json& c = *l.config;
  TARE_ASSIGN_OR_RETURN(std::string x, One(ins));
  std::vector<int64_t> hw = {1, 1, 1, 1};  // top, bottom, left, right
  if (c.contains("padding")) {
    const json& p = c["padding"];
    if (p.is_number_integer()) hw.assign(4, p.get<int64_t>());
    else if (p.is_array() && p.size() == 2 && p[0].is_number_integer() && p[1].is_number_integer())
      hw = {p[0].get<int64_t>(), p[0].get<int64_t>(), p[1].get<int64_t>(), p[1].get<int64_t>()};
    else if (p.is_array() && p.size() == 2 && p[0].is_array() && p[1].is_array() && p[0].size() == 2 && p[1].size() == 2)
      hw = {p[0][0].get<int64_t>(), p[0][1].get<int64_t>(), p[1][0].get<int64_t>(), p[1][1].get<int64_t>()};
    else return Error("'padding' must be an int, a pair or a pair of pairs");
  }
  return b_.Pad(y, x, {0, 0, hw[0], hw[1], hw[2], hw[3], 0, 0}, "constant", 0.f);
}

/// Keras UpSampling2D.
Status LayersConverter::UpSampling2DLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y) {
  const json& c = *l.config;
  TARE_ASSIGN_OR_RETURN(std::string x, One(ins));
  TARE_ASSIGN_OR_RETURN(auto size, Pair(c, "size", 2));
  if (size[0] < 1 || size[1] < 1) return Error("size must be positive");
  const std::string interp = Get(c, "interpolation", std::string("nearest"));
  if (interp != "nearest" && interp != "bilinear") return Error("interpolation '" + interp + "' is not supported");
  // TF.js: resizeNearestNeighbor / resizeBilinear to [H*sh, W*sw], no align_corners, no half
  // pixel centers: in = floor(out / s) / linear from out / s.
  TARE_ASSIGN_OR_RETURN(int xv, b_.Nchw(x));
  Tensor sc = Tensor::Alloc(DType::kFloat32, {2}).value();
  static_cast<float*>(sc.data)[0] = static_cast<float>(size[0]);
  static_cast<float*>(sc.data)[1] = static_cast<float>(size[1]);
  std::map<std::string, Attr> attrs = {{"axes", IntsAttr({2, 3})}, {"coordinate_transformation_mode", StrAttr("asymmetric")}};
  attrs["mode"] = StrAttr(interp == "nearest" ? "nearest" : "linear");
  if (interp == "nearest") attrs["nearest_mode"] = StrAttr("floor");
  const int v = b_.Node1("Resize", y, {xv, -1, b_.Const(y + "/scales", sc)}, b_.NameFor(y, true), b_.S(x).dtype, attrs);
  b_.Set(y, v, true, 4, b_.S(x).dtype);
  return Status::Ok();
}

/// Keras Embedding: Gather of the `embeddings` rows [input_dim, output_dim] at the indices (cast to
/// int32 first, as TF.js does; mask_zero is not supported).
Status LayersConverter::EmbeddingLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y) {
  const json& c = *l.config;
  if (ins.size() != 1) return Error("expects one input, has " + std::to_string(ins.size()));
  if (Get(c, "mask_zero", false)) return Error("mask_zero (masking the later layers) is not supported");
  TARE_ASSIGN_OR_RETURN(Tensor e, Weight(l.name, "embeddings"));
  if (e.shape.size() != 2) return Error("the embeddings must have rank 2, have shape " + ShapeStr(e.shape));
  const std::string& x = ins[0];
  TARE_ASSIGN_OR_RETURN(int xv, b_.Plain(x));
  if (b_.S(x).dtype != DType::kInt32)
    xv = b_.Node1("Cast", y + "/indices", {xv}, y + "/indices", DType::kInt32, {{"to", IntAttr(static_cast<int>(DType::kInt32))}});
  const int v = b_.Node1("Gather", y, {b_.Const(y + "/embeddings", e), xv}, b_.NameFor(y, false), DType::kFloat32, {{"axis", IntAttr(0)}});
  b_.Set(y, v, false, b_.Rank(x) < 0 ? -1 : b_.Rank(x) + 1);
  return Status::Ok();
}

/// Keras LSTM (gates i, f, c, o), GRU (z, r, h; reset_after = ONNX linear_before_reset, its bias
/// [2, 3U] = input then recurrent) and SimpleRNN on [batch, time, features]: ONNX LSTM / GRU / RNN
/// with layout 1, the weights reordered to ONNX's gate order (i, o, f, c) and transposed;
/// `activation` and `recurrent_activation` (tanh, sigmoid, hard_sigmoid = HardSigmoid 0.2 / 0.5,
/// relu). return_sequences gives Y, else Y_h; go_backwards runs the reverse direction (with
/// return_sequences refused: Keras returns the sequence reversed). Not supported: stateful,
/// return_state, masking.
Status LayersConverter::RecurrentLayer(const Layer& l, const std::vector<std::string>& ins, const std::string& y) {
  const json& c = *l.config;
  const std::string& cls = l.cls;
  if (ins.size() != 1) return Error("expects one input, has " + std::to_string(ins.size()));
  if (Get(c, "stateful", false) || Get(c, "return_state", false)) return Error("stateful and return_state are not supported");
  const bool seq = Get(c, "return_sequences", false), back = Get(c, "go_backwards", false);
  if (seq && back) return Error("go_backwards with return_sequences is not supported");
  const bool lstm = cls == "LSTM", gru = cls == "GRU";
  const int64_t G = lstm ? 4 : gru ? 3 : 1;
  auto act = [&](const char* key, const char* def) -> Result<std::string> {
    const std::string a = c.contains(key) && c[key].is_string() ? c[key].get<std::string>() : def;
    if (a == "tanh") return std::string("Tanh");
    if (a == "sigmoid") return std::string("Sigmoid");
    if (a == "hard_sigmoid") return std::string("HardSigmoid");
    if (a == "relu") return std::string("Relu");
    return Error(std::string(key) + " '" + a + "' is not supported (tanh, sigmoid, hard_sigmoid, relu)");
  };
  TARE_ASSIGN_OR_RETURN(std::string g_act, act("activation", "tanh"));
  std::vector<std::string> acts = {g_act};
  if (G > 1) {
    TARE_ASSIGN_OR_RETURN(std::string f_act, act("recurrent_activation", "hard_sigmoid"));
    acts = lstm ? std::vector<std::string>{f_act, g_act, g_act} : std::vector<std::string>{f_act, g_act};
  }
  TARE_ASSIGN_OR_RETURN(Tensor k, Weight(l.name, "kernel"));
  TARE_ASSIGN_OR_RETURN(Tensor rk, Weight(l.name, "recurrent_kernel"));
  if (k.shape.size() != 2 || rk.shape.size() != 2 || k.shape[1] % G || rk.shape[0] * G != rk.shape[1] || k.shape[1] != rk.shape[1])
    return Error("kernel " + ShapeStr(k.shape) + " and recurrent_kernel " + ShapeStr(rk.shape) + " do not fit " + cls);
  const int64_t U = rk.shape[0], I = k.shape[0];
  const bool reset_after = gru && Get(c, "reset_after", false);
  // ONNX gate g takes Keras block kb[g]: LSTM ONNX (i, o, f, c) from Keras (i, f, c, o).
  const std::vector<int64_t> kb = lstm ? std::vector<int64_t>{0, 3, 1, 2} : gru ? std::vector<int64_t>{0, 1, 2} : std::vector<int64_t>{0};
  auto gates_t = [&](const Tensor& m, int64_t rows) {  // [rows, G*U] Keras -> [1, G*U, rows] ONNX
    Tensor out = Tensor::Alloc(DType::kFloat32, {1, G * U, rows}).value();
    const float* src = static_cast<const float*>(m.data);
    float* dst = static_cast<float*>(out.data);
    for (int64_t g = 0; g < G; ++g)
      for (int64_t u = 0; u < U; ++u)
        for (int64_t r = 0; r < rows; ++r) dst[(g * U + u) * rows + r] = src[r * G * U + kb[static_cast<size_t>(g)] * U + u];
    return out;
  };
  Tensor b = Tensor::Alloc(DType::kFloat32, {1, 2 * G * U}).value();
  std::fill_n(static_cast<float*>(b.data), 2 * G * U, 0.f);
  if (Get(c, "use_bias", true)) {
    TARE_ASSIGN_OR_RETURN(Tensor bias, Weight(l.name, "bias"));
    const int64_t want = reset_after ? 2 * G * U : G * U;
    if (bias.numel() != want) return Error("bias has " + std::to_string(bias.numel()) + " values, expected " + std::to_string(want));
    const float* src = static_cast<const float*>(bias.data);
    float* dst = static_cast<float*>(b.data);
    for (int64_t half = 0; half < (reset_after ? 2 : 1); ++half)
      for (int64_t g = 0; g < G; ++g)
        for (int64_t u = 0; u < U; ++u) dst[half * G * U + g * U + u] = src[half * G * U + kb[static_cast<size_t>(g)] * U + u];
  }
  TARE_ASSIGN_OR_RETURN(int xv, b_.Plain(ins[0]));
  std::map<std::string, Attr> attrs = {{"hidden_size", IntAttr(U)}, {"layout", IntAttr(1)}, {"direction", StrAttr(back ? "reverse" : "forward")}};
  Attr a;
  a.kind = Attr::Kind::kStrings;
  a.strings = acts;
  attrs["activations"] = a;
  if (gru) attrs["linear_before_reset"] = IntAttr(reset_after ? 1 : 0);
  const std::string onnx_op = lstm ? "LSTM" : gru ? "GRU" : "RNN";
  const int yseq = b_.NewValue(y + "/Y", DType::kFloat32), ylast = b_.NewValue(y + "/Y_h", DType::kFloat32);
  std::vector<int> outs = {yseq, ylast};
  b_.AddNode(onnx_op, y + "/" + onnx_op, {xv, b_.Const(y + "/W", gates_t(k, I)), b_.Const(y + "/R", gates_t(rk, U)), b_.Const(y + "/B", b)}, outs, attrs);
  // Y [B, T, 1, U] -> [B, T, U]; Y_h [B, 1, U] -> [B, U].
  const int v = b_.Node1("Squeeze", y, {seq ? yseq : ylast, b_.ConstI64(y + "/axes", {seq ? 2 : 1})}, b_.NameFor(y, false), DType::kFloat32);
  b_.Set(y, v, false, seq ? 3 : 2);
  return Status::Ok();
}

Status LayersConverter::Run() {
  const json& topo = j_["modelTopology"];
  const json* mc = topo.contains("model_config") ? &topo["model_config"] : &topo;
  if (!mc->is_object() || !mc->contains("class_name") || !(*mc)["class_name"].is_string())
    return Status::Error(b_.file() + ": modelTopology has no model_config with a class_name");
  const std::string kind = (*mc)["class_name"].get<std::string>();
  static const json kNull;
  const json& cfg = mc->contains("config") ? (*mc)["config"] : kNull;  // const operator[] needs the key
  const json* layers = cfg.is_array() ? &cfg : (cfg.is_object() && cfg.contains("layers") ? &cfg["layers"] : nullptr);
  if (!layers || !layers->is_array()) return Status::Error(b_.file() + ": model_config has no layer list");
  if (kind != "Sequential" && kind != "Model" && kind != "Functional")
    return Status::Error(StatusCode::kUnsupported, b_.file() + ": model class '" + kind + "' is not supported (Sequential, Model, Functional)");
  std::vector<Layer> ls;
  std::string unsupported;
  int n_unsupported = 0;
  std::set<std::string> names;
  for (const json& lj : *layers) {
    if (!lj.is_object() || !lj.contains("class_name") || !lj["class_name"].is_string() || !lj.contains("config") || !lj["config"].is_object())
      return Status::Error(b_.file() + ": a layer without class_name or config");
    Layer l{&lj, "", lj["class_name"].get<std::string>(), &lj["config"], {}};
    l.name = lj.contains("name") && lj["name"].is_string() ? lj["name"].get<std::string>() : Get(*l.config, "name", std::string());
    if (l.name.empty()) return Status::Error(b_.file() + ": a " + l.cls + " layer without a name");
    if (!Table().count(l.cls) && l.cls != "InputLayer") {
      ++n_unsupported;
      if (n_unsupported <= 50) unsupported += (unsupported.empty() ? "" : "; ") + std::string("layer '") + Clip(l.name) + "' (" + Clip(l.cls) + ")";
    }
    // TF.js refuses two layers of one name; a later call's tensor name must not be a layer's.
    if (!names.insert(l.name).second) return Status::Error(b_.file() + ": two layers are named '" + Clip(l.name) + "'");
    if (lj.contains("inbound_nodes") && lj["inbound_nodes"].is_array())
      for (const json& node : lj["inbound_nodes"]) {
        std::vector<std::string> ins;
        if (!node.is_array()) return Status::Error(b_.file() + ": layer '" + l.name + "': an inbound node is not a list (Keras 3 files are not supported)");
        for (const json& in : node) {
          if (!in.is_array() || in.size() < 3 || !in[0].is_string() || !in[1].is_number_integer() || !in[2].is_number_integer())
            return Status::Error(b_.file() + ": layer '" + l.name + "': an inbound entry is not [layer, node, tensor, ...]");
          ins.push_back(TensorName(in[0].get<std::string>(), in[1].get<int64_t>(), in[2].get<int64_t>()));
        }
        l.inbound.push_back(std::move(ins));
      }
    ls.push_back(std::move(l));
  }
  if (n_unsupported)
    return Status::Error(StatusCode::kUnsupported, b_.file() + ": " + std::to_string(n_unsupported) + " unsupported layer(s): " + unsupported +
                                                       (n_unsupported > 50 ? "; ..." : ""));
  for (const Layer& l : ls)
    for (size_t k = 1; k < l.inbound.size(); ++k)
      if (names.count(TensorName(l.name, static_cast<int64_t>(k), 0)))
        return Status::Error(b_.file() + ": layer '" + Clip(TensorName(l.name, static_cast<int64_t>(k), 0)) +
                             "' has the name tare gives the call " + std::to_string(k) + " of layer '" + Clip(l.name) + "'");
  if (ls.empty()) return Status::Error(b_.file() + ": the model has no layers");
  std::vector<std::string> outputs;
  if (kind == "Sequential") {
    // A chain: the first layer's batch_input_shape (or an InputLayer) is the input.
    std::string prev = "input";
    size_t start = 0;
    if (ls[0].cls == "InputLayer") {
      b_.SetWhere("layer '" + ls[0].name + "' (InputLayer)");
      TARE_RETURN_IF_ERROR(AddInputLayer(ls[0]));
      prev = ls[0].name;
      start = 1;
    } else {
      Layer in = ls[0];
      in.name = ls[0].name + "_input";
      b_.SetWhere("layer '" + ls[0].name + "' (" + ls[0].cls + ")");
      TARE_RETURN_IF_ERROR(AddInputLayer(in));
      prev = in.name;
    }
    for (size_t i = start; i < ls.size(); ++i) {
      b_.SetWhere("layer '" + ls[i].name + "' (" + ls[i].cls + ")");
      if (i + 1 == ls.size()) b_.MarkOutput(ls[i].name);
      TARE_RETURN_IF_ERROR(Convert(ls[i], {prev}, ls[i].name));
      prev = ls[i].name;
    }
    outputs.push_back(prev);
  } else {
    auto refs = [&](const char* key, std::vector<std::string>* out) -> Status {
      if (!cfg.contains(key) || !cfg[key].is_array()) return Status::Error(b_.file() + ": model_config has no " + key);
      for (const json& r : cfg[key]) {
        if (!r.is_array() || r.size() < 3 || !r[0].is_string() || !r[1].is_number_integer() || !r[2].is_number_integer())
          return Status::Error(b_.file() + ": an entry of " + key + " is not [layer, node, tensor]");
        out->push_back(TensorName(r[0].get<std::string>(), r[1].get<int64_t>(), r[2].get<int64_t>()));
      }
      return Status::Ok();
    };
    std::vector<std::string> inputs;
    TARE_RETURN_IF_ERROR(refs("input_layers", &inputs));
    TARE_RETURN_IF_ERROR(refs("output_layers", &outputs));
    for (const std::string& o : outputs) b_.MarkOutput(o);
    for (const Layer& l : ls)
      if (l.cls == "InputLayer") {
        b_.SetWhere("layer '" + l.name + "' (InputLayer)");
        TARE_RETURN_IF_ERROR(AddInputLayer(l));
      }
    // Layers in the file's order may read later ones: the calls in topological order (each once
    // the tensors it reads exist; linear in the calls and their inputs).
    std::vector<std::pair<size_t, size_t>> calls;
    std::map<std::string, size_t> producer;  // tensor -> the call writing it
    for (size_t i = 0; i < ls.size(); ++i)
      if (ls[i].cls != "InputLayer")
        for (size_t k = 0; k < ls[i].inbound.size(); ++k) {
          producer[TensorName(ls[i].name, static_cast<int64_t>(k), 0)] = calls.size();
          calls.push_back({i, k});
        }
    std::vector<size_t> pending(calls.size(), 0);
    std::vector<std::vector<size_t>> readers(calls.size());
    for (size_t c = 0; c < calls.size(); ++c)
      for (const std::string& t : ls[calls[c].first].inbound[calls[c].second]) {
        if (b_.Known(t)) continue;
        auto it = producer.find(t);
        if (it == producer.end())
          return Status::Error(b_.file() + ": layer '" + Clip(ls[calls[c].first].name) + "' reads '" + Clip(t) + "', which no layer writes");
        ++pending[c];
        readers[it->second].push_back(c);
      }
    std::vector<size_t> ready;
    for (size_t c = 0; c < calls.size(); ++c)
      if (!pending[c]) ready.push_back(c);
    size_t done = 0;
    while (!ready.empty()) {
      const size_t c = ready.back();
      ready.pop_back();
      const Layer& l = ls[calls[c].first];
      b_.SetWhere("layer '" + Clip(l.name) + "' (" + l.cls + ")");
      TARE_RETURN_IF_ERROR(Convert(l, l.inbound[calls[c].second], TensorName(l.name, static_cast<int64_t>(calls[c].second), 0)));
      ++done;
      for (size_t r : readers[c])
        if (--pending[r] == 0) ready.push_back(r);
    }
    if (done != calls.size())
      for (size_t c = 0; c < calls.size(); ++c)
        if (pending[c]) return Status::Error(b_.file() + ": layer '" + Clip(ls[calls[c].first].name) + "' is in a cycle of layers");
  }
  for (const std::string& o : outputs) {
    b_.SetWhere("output '" + o + "'");
    if (!b_.Known(o)) return Error("no layer writes it");
    TARE_ASSIGN_OR_RETURN(int v, b_.Plain(o));
    Graph& g = *b_.graph();
    if (g.values[static_cast<size_t>(v)].name != o || std::find(g.inputs.begin(), g.inputs.end(), v) != g.inputs.end() ||
        std::find(g.outputs.begin(), g.outputs.end(), v) != g.outputs.end())
      v = b_.Node1("Identity", o, {v}, o, b_.S(o).dtype);
    g.outputs.push_back(v);
  }
  return Status::Ok();
}

}  // namespace

Status ConvertLayersModel(const json& j, std::map<std::string, Tensor>& weights, Builder& b) {
  LayersConverter c(j, weights, b);
  return c.Run();
}

}  // namespace tfjs
}  // namespace tare
