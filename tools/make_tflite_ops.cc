// tare_make_tflite_ops: writes small .tflite test models, one TFLite builtin each (or a short chain
// where the point is the NHWC layout: CONV_2D -> RESHAPE, CONV_2D -> FULLY_CONNECTED, ...), for the
// builtins of issue 6 that the MediaPipe corpus does not use, plus one input .npy per model input.
// The models are written with FlatBuffers' builder API through tare's own schema subset
// (converters/tflite/tflite_schema.fbs, namespace tare::tfl); LiteRT.js then runs them for the
// expected outputs (tests/models/tflite_ops/make.sh).
//
//   tare_make_tflite_ops OPS_DIR [QUANT_DIR]
//
// OPS_DIR receives <case>.tflite and <case>/input_<k>.npy for each float32 case; QUANT_DIR (when
// given) the quantized pair conv_fc_int8 / conv_fc_uint8 (QUANTIZE -> CONV_2D -> FULLY_CONNECTED
// -> DEQUANTIZE) with <case>/input_0.npy and <case>/quant_params.json, the int16 ("16x8") chain
// int16_chain (every int16 kernel once, with quant_params.json) and the int16 sweeps
// logistic_int16_sweep / softmax_int16_sweep (every int16 code through LOGISTIC and SOFTMAX at
// several scales; their inputs are the codes / 32768, not random). Prints one line per case:
// "<dir>\t<case>\t<inputs>\t<what it covers>".
//
// Determinism: every weight and input comes from a splitmix64 stream seeded with the FNV-1a hash of
// "<case>/<tensor name>", uniform on [-1, 1) in steps of 2^-23 (exact in float32), so the files are
// byte-identical on every run. Tensors are float32 unless said otherwise; activations are NHWC.
// Errors: a line on stderr, exit 1 (unwritable folder); 2 for bad arguments.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "converters/tflite/builtin_ops.h"
#include "converters/tflite/tflite_builder.h"
#include "format/npy.h"
#include "runtime/ir/tensor.h"
#include "tflite_schema_generated.h"
#include "tools/tflite_quant.h"

namespace {

namespace tfl = tare::tfl;
namespace fs = std::filesystem;
using flatbuffers::Offset;
using A = tfl::ActivationFunctionType;
using BO = tfl::BuiltinOptions;
using TT = tfl::TensorType;
using Dims = std::vector<int32_t>;
using namespace tare::tflite;  // BuiltinOperator codes (ADD, CONV_2D, ...), converters/tflite/builtin_ops.h
using tare::tools::MakeQ;  // QParams, MakeQ, QuantizeWeights: tools/tflite_quant.h
using tare::tools::QParams;
using tare::tools::QuantizeWeights;
using tare::tools::QWeights;


uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

/// splitmix64; Uniform() is k * 2^-23 - 1 for a 24-bit k: [-1, 1), exact in float32.
class Rng {
 public:
  explicit Rng(const std::string& seed) : s_(Fnv1a(seed)) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  float Uniform() { return static_cast<float>(static_cast<double>(Next() >> 40) * (1.0 / 8388608.0) - 1.0); }

 private:
  uint64_t s_;
};

int64_t Numel(const Dims& d) {
  int64_t n = 1;
  for (int32_t v : d) n *= v;
  return n;
}

/// One test model under construction: tare's TFLite model builder (converters/tflite/
/// tflite_builder.h) with seeded values for its weights and inputs.
class Writer : public tare::tflite::ModelBuilder {
 public:
  explicit Writer(std::string name) : case_(std::move(name)) {}

  const std::string& name() const { return case_; }
  /// Values for input k instead of the seeded uniform ones (the int16 sweeps).
  void SetInputValues(size_t k, std::vector<float> v) { input_values_[k] = std::move(v); }
  const std::vector<float>* InputValuesOf(size_t k) const {
    auto it = input_values_.find(k);
    return it == input_values_.end() ? nullptr : &it->second;
  }
  /// Values uniform on [-scale, scale), seeded by "<case>/<name>".
  std::vector<float> Rand(const std::string& name, int64_t n, float scale) const {
    Rng r(case_ + "/" + name);
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = r.Uniform() * scale;
    return v;
  }
  int Weights(const std::string& name, const Dims& shape, float scale) { return ConstF(name, shape, Rand(name, Numel(shape), scale)); }
  std::vector<uint8_t> Finish() { return ModelBuilder::Finish("tare tools/make_tflite_ops.cc: " + case_); }

 private:
  std::string case_;
  std::map<size_t, std::vector<float>> input_values_;
};

// ---- op helpers (output shapes computed as TFLite does) ----------------------------------------

int OutSize(int in, int k, int stride, int dil, tfl::Padding pad) {
  const int ek = (k - 1) * dil + 1;
  return pad == tfl::Padding::SAME ? (in + stride - 1) / stride : (in - ek + stride) / stride;
}

struct ConvSpec {
  int cout = 4, kh = 3, kw = 3, groups = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  tfl::Padding pad = tfl::Padding::SAME;
  A act = A::NONE;
  float wscale = 1;  // weights uniform on +-wscale / sqrt(fan in)
  int version = 1;
};

/// CONV_2D: filter [cout, kh, kw, cin / groups] (OHWI), bias [cout] uniform on +-0.5. Always with a
/// bias: LiteRT's CONV_2D fails to prepare without one (conv.cc: "has_bias was not true").
int Conv(Writer& w, int x, const std::string& name, const ConvSpec& c) {
  const Dims xs = w.shape(x);
  const int ci = xs[3] / c.groups;
  const float a = c.wscale / std::sqrt(static_cast<float>(c.kh * c.kw * ci));
  const int wt = w.Weights(name + "/filter", {c.cout, c.kh, c.kw, ci}, a);
  const int b = w.Weights(name + "/bias", {c.cout}, 0.5f);
  const int y = w.Act(name, {xs[0], OutSize(xs[1], c.kh, c.sh, c.dh, c.pad), OutSize(xs[2], c.kw, c.sw, c.dw, c.pad), c.cout});
  const auto o = tfl::CreateConv2DOptions(w.fbb(), c.pad, c.sw, c.sh, c.act, c.dw, c.dh);
  w.Op(CONV_2D, c.version, {x, wt, b}, {y}, BO::Conv2DOptions, o.Union());
  return y;
}

/// DEPTHWISE_CONV_2D: filter [1, kh, kw, cin * multiplier].
int Depthwise(Writer& w, int x, const std::string& name, int mult, int k, int stride, int dil, tfl::Padding pad, A act) {
  const Dims xs = w.shape(x);
  const int co = xs[3] * mult;
  const int wt = w.Weights(name + "/filter", {1, k, k, co}, 1.0f / static_cast<float>(k));
  const int b = w.Weights(name + "/bias", {co}, 0.5f);
  const int y = w.Act(name, {xs[0], OutSize(xs[1], k, stride, dil, pad), OutSize(xs[2], k, stride, dil, pad), co});
  const auto o = tfl::CreateDepthwiseConv2DOptions(w.fbb(), pad, stride, stride, mult, act, dil, dil);
  w.Op(DEPTHWISE_CONV_2D, dil > 1 ? 2 : 1, {x, wt, b}, {y}, BO::DepthwiseConv2DOptions, o.Union());
  return y;
}

int Pool(Writer& w, int code, int x, const std::string& name, int k, int stride, tfl::Padding pad) {
  const Dims xs = w.shape(x);
  const int y = w.Act(name, {xs[0], OutSize(xs[1], k, stride, 1, pad), OutSize(xs[2], k, stride, 1, pad), xs[3]});
  const auto o = tfl::CreatePool2DOptions(w.fbb(), pad, stride, stride, k, k, A::NONE);
  w.Op(code, 1, {x}, {y}, BO::Pool2DOptions, o.Union());
  return y;
}

/// A unary op without options (RELU, TANH, ...), output shaped as the input.
int Unary(Writer& w, int code, int x, const std::string& name) {
  const int y = w.Act(name, w.shape(x));
  w.Op(code, 1, {x}, {y});
  return y;
}

int Reduce(Writer& w, int code, int x, const std::string& name, const std::vector<int32_t>& axes, bool keep) {
  const Dims xs = w.shape(x);
  Dims ys;
  for (int d = 0; d < static_cast<int>(xs.size()); ++d) {
    bool red = false;
    for (int a : axes) red = red || (a < 0 ? a + static_cast<int>(xs.size()) : a) == d;
    if (!red) ys.push_back(xs[static_cast<size_t>(d)]);
    else if (keep) ys.push_back(1);
  }
  const int ax = w.ConstI32(name + "/axes", {static_cast<int32_t>(axes.size())}, axes);
  const int y = w.Act(name, ys);
  const auto o = tfl::CreateReducerOptions(w.fbb(), keep);
  w.Op(code, 1, {x, ax}, {y}, BO::ReducerOptions, o.Union());
  return y;
}

/// FULLY_CONNECTED with weights [units, depth] uniform on +-1/sqrt(depth), bias [units] (or none).
int FullyConnected(Writer& w, int x, const std::string& name, int units, int depth, const Dims& yshape, A act, bool keep,
                   bool bias) {
  const int wt = w.Weights(name + "/weights", {units, depth}, 1.0f / std::sqrt(static_cast<float>(depth)));
  const int b = bias ? w.Weights(name + "/bias", {units}, 0.5f) : -1;
  const int y = w.Act(name, yshape);
  const auto o = tfl::CreateFullyConnectedOptions(w.fbb(), act, 0, keep, false);
  w.Op(FULLY_CONNECTED, keep ? 5 : 1, {x, wt, b}, {y}, BO::FullyConnectedOptions, o.Union());
  return y;
}

int Resize(Writer& w, int code, int x, const std::string& name, int oh, int ow, bool align, bool half) {
  const Dims xs = w.shape(x);
  const int size = w.ConstI32(name + "/size", {2}, {oh, ow});
  const int y = w.Act(name, {xs[0], oh, ow, xs[3]});
  if (code == RESIZE_BILINEAR) {
    const auto o = tfl::CreateResizeBilinearOptions(w.fbb(), 0, 0, align, half);
    w.Op(code, half ? 3 : 1, {x, size}, {y}, BO::ResizeBilinearOptions, o.Union());
  } else {
    const auto o = tfl::CreateResizeNearestNeighborOptions(w.fbb(), align, half);
    w.Op(code, half ? 3 : 1, {x, size}, {y}, BO::ResizeNearestNeighborOptions, o.Union());
  }
  return y;
}

/// UNIDIRECTIONAL_SEQUENCE_LSTM, float, no projection or layer norm; cell activation TANH.
int Lstm(Writer& w, int x, const std::string& name, int hidden, bool time_major, bool peephole) {
  const Dims xs = w.shape(x);
  const int batch = time_major ? xs[1] : xs[0], input = xs[2];
  const float a = 1.0f / std::sqrt(static_cast<float>(hidden));
  std::vector<int> in(24, -1);
  in[0] = x;
  const char* gates[4] = {"input", "forget", "cell", "output"};
  for (int g = 0; g < 4; ++g) in[static_cast<size_t>(1 + g)] = w.Weights(name + "/" + gates[g] + "_weights", {hidden, input}, a);
  for (int g = 0; g < 4; ++g) in[static_cast<size_t>(5 + g)] = w.Weights(name + "/" + gates[g] + "_recurrent", {hidden, hidden}, a);
  if (peephole)
    for (int g : {0, 1, 3}) in[static_cast<size_t>(9 + (g == 3 ? 2 : g))] = w.Weights(name + "/" + gates[g] + "_peephole", {hidden}, 0.5f);
  for (int g = 0; g < 4; ++g) in[static_cast<size_t>(12 + g)] = w.Weights(name + "/" + gates[g] + "_bias", {hidden}, 0.5f);
  in[18] = w.Act(name + "/output_state", {batch, hidden}, TT::FLOAT32, 0, true);
  in[19] = w.Act(name + "/cell_state", {batch, hidden}, TT::FLOAT32, 0, true);
  const int y = w.Act(name, {xs[0], xs[1], hidden});
  const auto o = tfl::CreateUnidirectionalSequenceLSTMOptions(w.fbb(), A::TANH, 0.0f, 0.0f, time_major, false, false);
  w.Op(UNIDIRECTIONAL_SEQUENCE_LSTM, 1, in, {y}, BO::UnidirectionalSequenceLSTMOptions, o.Union());
  return y;
}

// ---- the float32 cases -------------------------------------------------------------------------

struct Case {
  const char* name;
  const char* covers;
  std::function<void(Writer&)> build;
};

using P = tfl::Padding;

std::vector<Case> FloatCases() {
  std::vector<Case> c;
  c.push_back({"conv_same_relu6", "CONV_2D 3x3 stride 1 SAME, fused RELU6 (weights large enough to clip at 6)", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 ConvSpec s;
                 s.act = A::RELU6, s.wscale = 8;
                 w.Output(Conv(w, x, "conv", s));
               }});
  c.push_back({"conv_stride2_same_relu", "CONV_2D 3x3 stride 2 SAME on 6x9 (pads 0/1 top/bottom, 1/1 left/right), fused RELU",
               [](Writer& w) {
                 const int x = w.Input("input", {1, 6, 9, 3});
                 ConvSpec s;
                 s.cout = 5, s.sh = s.sw = 2, s.act = A::RELU, s.wscale = 1.5f;
                 w.Output(Conv(w, x, "conv", s));
               }});
  c.push_back({"conv_valid_dilated", "CONV_2D 3x3 dilation 2 VALID", [](Writer& w) {
                 const int x = w.Input("input", {1, 9, 11, 2});
                 ConvSpec s;
                 s.cout = 5, s.dh = s.dw = 2, s.pad = P::VALID, s.version = 2;
                 w.Output(Conv(w, x, "conv", s));
               }});
  c.push_back({"conv_same_dilated_strided", "CONV_2D 3x2 kernel, strides (1,2), dilations (2,3), SAME, fused RELU_N1_TO_1",
               [](Writer& w) {
                 const int x = w.Input("input", {1, 8, 9, 3});
                 ConvSpec s;
                 s.kh = 3, s.kw = 2, s.sw = 2, s.dh = 2, s.dw = 3, s.act = A::RELU_N1_TO_1, s.wscale = 2, s.version = 2;
                 w.Output(Conv(w, x, "conv", s));
               }});
  c.push_back({"conv_groups", "CONV_2D with 2 groups (input 6 channels, filter [4,3,3,3])", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 6});
                 ConvSpec s;
                 s.groups = 2;
                 w.Output(Conv(w, x, "conv", s));
               }});
  c.push_back({"depthwise_multiplier2", "DEPTHWISE_CONV_2D depth_multiplier 2 (3 -> 6 channels), SAME, fused RELU", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 w.Output(Depthwise(w, x, "depthwise", 2, 3, 1, 1, P::SAME, A::RELU));
               }});
  c.push_back({"depthwise_dilated_strided", "DEPTHWISE_CONV_2D dilation 2 SAME with fused RELU6; stride 2 VALID", [](Writer& w) {
                 const int x = w.Input("input", {1, 9, 8, 4});
                 w.Output(Depthwise(w, x, "depthwise_dilated", 1, 3, 1, 2, P::SAME, A::RELU6));
                 w.Output(Depthwise(w, x, "depthwise_stride2", 1, 3, 2, 1, P::VALID, A::NONE));
               }});
  c.push_back({"pool_same", "AVERAGE_POOL_2D and MAX_POOL_2D 3x3 stride 2 SAME (borders: pads 0/1 and 1/1); AVERAGE_POOL_2D 2x2 stride 1 SAME",
               [](Writer& w) {
                 const int x = w.Input("input", {1, 6, 7, 3});
                 w.Output(Pool(w, AVERAGE_POOL_2D, x, "avg_pool", 3, 2, P::SAME));
                 w.Output(Pool(w, MAX_POOL_2D, x, "max_pool", 3, 2, P::SAME));
                 w.Output(Pool(w, AVERAGE_POOL_2D, x, "avg_pool_2x2", 2, 1, P::SAME));
               }});
  c.push_back({"transpose_conv_same", "TRANSPOSE_CONV 3x3 stride 2 SAME, odd output 5x7 (pads 1/1), bias (v3)", [](Writer& w) {
                 const int x = w.Input("input", {1, 3, 4, 3});
                 const int os = w.ConstI32("transpose_conv/output_shape", {4}, {1, 5, 7, 2});
                 const int wt = w.Weights("transpose_conv/filter", {2, 3, 3, 3}, 0.5f);
                 const int b = w.Weights("transpose_conv/bias", {2}, 0.5f);
                 const int y = w.Act("transpose_conv", {1, 5, 7, 2});
                 const auto o = tfl::CreateTransposeConvOptions(w.fbb(), P::SAME, 2, 2, A::NONE);
                 w.Op(TRANSPOSE_CONV, 3, {os, wt, x, b}, {y}, BO::TransposeConvOptions, o.Union());
                 w.Output(y);
               }});
  c.push_back({"transpose_conv_valid_relu", "TRANSPOSE_CONV 2x3 kernel, strides (2,1), VALID, no bias, fused RELU (v4)",
               [](Writer& w) {
                 const int x = w.Input("input", {1, 3, 4, 2});
                 const int os = w.ConstI32("transpose_conv/output_shape", {4}, {1, 6, 6, 3});
                 const int wt = w.Weights("transpose_conv/filter", {3, 2, 3, 2}, 0.7f);
                 const int y = w.Act("transpose_conv", {1, 6, 6, 3});
                 const auto o = tfl::CreateTransposeConvOptions(w.fbb(), P::VALID, 1, 2, A::RELU);
                 w.Op(TRANSPOSE_CONV, 4, {os, wt, x}, {y}, BO::TransposeConvOptions, o.Union());
                 w.Output(y);
               }});
  c.push_back({"sub_relu_n1_to_1", "SUB of a graph input and a CONV_2D output, fused RELU_N1_TO_1", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 const int x1 = w.Input("input_1", {1, 5, 7, 4});
                 ConvSpec s;
                 s.wscale = 2;
                 const int c1 = Conv(w, x, "conv", s);
                 const int y = w.Act("sub", {1, 5, 7, 4});
                 const auto o = tfl::CreateSubOptions(w.fbb(), A::RELU_N1_TO_1);
                 w.Op(SUB, 1, {x1, c1}, {y}, BO::SubOptions, o.Union());
                 w.Output(y);
               }});
  c.push_back({"div_broadcast_relu", "DIV of a CONV_2D output by a constant [7,1] (broadcast over W), fused RELU", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 const int c1 = Conv(w, x, "conv", ConvSpec{});
                 std::vector<float> d = w.Rand("divisor", 7, 0.5f);
                 for (float& v : d) v += 1.0f;  // in [0.5, 1.5)
                 const int dv = w.ConstF("divisor", {7, 1}, d);
                 const int y = w.Act("div", {1, 5, 7, 4});
                 const auto o = tfl::CreateDivOptions(w.fbb(), A::RELU);
                 w.Op(DIV, 1, {c1, dv}, {y}, BO::DivOptions, o.Union());
                 w.Output(y);
               }});
  // Fused TANH: TFLite's float ADD (like CONV_2D, DEPTHWISE_CONV_2D, MUL, ...) clamps to the range
  // CalculateActivationRange gives, which is unbounded for TANH: the activation is ignored.
  c.push_back({"add_tanh", "ADD of a rank-3 input and a constant [5], fused TANH (which TFLite ignores)", [](Writer& w) {
                 const int x = w.Input("input", {2, 3, 5});
                 const int k = w.Weights("addend", {5}, 2.0f);
                 const int y = w.Act("add", {2, 3, 5});
                 const auto o = tfl::CreateAddOptions(w.fbb(), A::TANH);
                 w.Op(ADD, 1, {x, k}, {y}, BO::AddOptions, o.Union());
                 w.Output(y);
               }});
  c.push_back({"activations", "RELU, RELU6, RELU_N1_TO_1 and TANH as operators, on MUL by a constant [3] = (4.5, -7, 9)",
               [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 const int k = w.ConstF("scale", {3}, {4.5f, -7.0f, 9.0f});
                 const int m = w.Act("scaled", {1, 5, 7, 3});
                 const auto o = tfl::CreateMulOptions(w.fbb(), A::NONE);
                 w.Op(MUL, 1, {x, k}, {m}, BO::MulOptions, o.Union());
                 w.Output(Unary(w, RELU, m, "relu"));
                 w.Output(Unary(w, RELU6, m, "relu6"));
                 w.Output(Unary(w, RELU_N1_TO_1, m, "relu_n1_to_1"));
                 w.Output(Unary(w, TANH, m, "tanh"));
               }});
  c.push_back({"softmax_conv", "SOFTMAX (beta 1) over the channels of a CONV_2D output", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 ConvSpec s;
                 s.wscale = 3;
                 const int c1 = Conv(w, x, "conv", s);
                 const int y = w.Act("softmax", {1, 5, 7, 4});
                 const auto o = tfl::CreateSoftmaxOptions(w.fbb(), 1.0f);
                 w.Op(SOFTMAX, 1, {c1}, {y}, BO::SoftmaxOptions, o.Union());
                 w.Output(y);
               }});
  c.push_back({"softmax_beta", "SOFTMAX with beta 2.5 on a [3,10] input", [](Writer& w) {
                 const int x = w.Input("input", {3, 10});
                 const int y = w.Act("softmax", {3, 10});
                 const auto o = tfl::CreateSoftmaxOptions(w.fbb(), 2.5f);
                 w.Op(SOFTMAX, 1, {x}, {y}, BO::SoftmaxOptions, o.Union());
                 w.Output(y);
               }});
  c.push_back({"prelu", "PRELU after a CONV_2D with alpha [5,7,4] (per position and channel); PRELU of the input with alpha [1,1,3]",
               [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 const int c1 = Conv(w, x, "conv", ConvSpec{});
                 const int a1 = w.Weights("alpha_hwc", {5, 7, 4}, 0.5f);
                 const int y1 = w.Act("prelu_hwc", {1, 5, 7, 4});
                 w.Op(PRELU, 1, {c1, a1}, {y1});
                 const int a2 = w.Weights("alpha_c", {1, 1, 3}, 0.5f);
                 const int y2 = w.Act("prelu_c", {1, 5, 7, 3});
                 w.Op(PRELU, 1, {x, a2}, {y2});
                 w.Output(y1);
                 w.Output(y2);
               }});
  c.push_back({"leaky_relu", "LEAKY_RELU alpha 0.2 after a CONV_2D", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 const int c1 = Conv(w, x, "conv", ConvSpec{});
                 const int y = w.Act("leaky_relu", {1, 5, 7, 4});
                 const auto o = tfl::CreateLeakyReluOptions(w.fbb(), 0.2f);
                 w.Op(LEAKY_RELU, 1, {c1}, {y}, BO::LeakyReluOptions, o.Union());
                 w.Output(y);
               }});
  c.push_back({"strided_slice", "STRIDED_SLICE of a CONV_2D output: begin_mask, end_mask, shrink_axis_mask, a negative stride, an end past the dim",
               [](Writer& w) {
                 const int x = w.Input("input", {1, 6, 7, 3});
                 ConvSpec s;
                 s.cout = 5;
                 const int c1 = Conv(w, x, "conv", s);
                 const int b = w.ConstI32("strided_slice/begin", {4}, {0, 1, -1, 1});
                 const int e = w.ConstI32("strided_slice/end", {4}, {1, 100, 0, 4});
                 const int st = w.ConstI32("strided_slice/strides", {4}, {1, 2, -2, 2});
                 // dim 0 shrunk at 0; dim 1 begin masked: 0, 2, 4; dim 2: 6, 4, 2; dim 3 end masked: 1, 3.
                 const int y = w.Act("strided_slice", {3, 3, 2});
                 const auto o = tfl::CreateStridedSliceOptions(w.fbb(), 0b0010, 0b1000, 0, 0, 0b0001, false);
                 w.Op(STRIDED_SLICE, 1, {c1, b, e, st}, {y}, BO::StridedSliceOptions, o.Union());
                 w.Output(y);
               }});
  c.push_back({"slice", "SLICE with a size of -1", [](Writer& w) {
                 const int x = w.Input("input", {2, 5, 7});
                 const int b = w.ConstI32("slice/begin", {3}, {1, 1, 2});
                 const int s = w.ConstI32("slice/size", {3}, {1, -1, 4});
                 const int y = w.Act("slice", {1, 4, 4});
                 const auto o = tfl::CreateUnused48(w.fbb());  // SliceOptions (empty)
                 w.Op(SLICE, 1, {x, b, s}, {y}, BO::Unused48, o.Union());
                 w.Output(y);
               }});
  c.push_back({"gather", "GATHER axis 1 with indices [2,2]; GATHER axis -1 with indices [3]", [](Writer& w) {
                 const int x = w.Input("input", {3, 5, 4});
                 const int i1 = w.ConstI32("indices_2d", {2, 2}, {4, 0, 2, 2});
                 const int y1 = w.Act("gather_axis1", {3, 2, 2, 4});
                 const auto o1 = tfl::CreateGatherOptions(w.fbb(), 1, 0);
                 w.Op(GATHER, 1, {x, i1}, {y1}, BO::GatherOptions, o1.Union());
                 const int i2 = w.ConstI32("indices_1d", {3}, {3, 0, 3});
                 const int y2 = w.Act("gather_axis_last", {3, 5, 3});
                 const auto o2 = tfl::CreateGatherOptions(w.fbb(), -1, 0);
                 w.Op(GATHER, 1, {x, i2}, {y2}, BO::GatherOptions, o2.Union());
                 w.Output(y1);
                 w.Output(y2);
               }});
  c.push_back({"transpose", "TRANSPOSE of a CONV_2D output, perm (2,0,3,1); TRANSPOSE of the input NHWC -> NCHW", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 const int c1 = Conv(w, x, "conv", ConvSpec{});
                 const int p1 = w.ConstI32("perm_2031", {4}, {2, 0, 3, 1});
                 const int y1 = w.Act("transpose_conv_out", {7, 1, 4, 5});
                 const auto o1 = tfl::CreateUnused26(w.fbb());  // TransposeOptions (empty)
                 w.Op(TRANSPOSE, 1, {c1, p1}, {y1}, BO::Unused26, o1.Union());
                 const int p2 = w.ConstI32("perm_0312", {4}, {0, 3, 1, 2});
                 const int y2 = w.Act("transpose_input", {1, 3, 5, 7});
                 const auto o2 = tfl::CreateUnused26(w.fbb());
                 w.Op(TRANSPOSE, 1, {x, p2}, {y2}, BO::Unused26, o2.Union());
                 w.Output(y1);
                 w.Output(y2);
               }});
  c.push_back({"squeeze_expand_dims", "SQUEEZE of dim 2 then EXPAND_DIMS at -1 (rank-4 result); SQUEEZE of every 1 dim", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 1, 3});
                 const std::vector<int32_t> dims = {2};
                 const auto d = w.fbb().CreateVector(dims);
                 const auto o1 = tfl::CreateSqueezeOptions(w.fbb(), d);
                 const int s1 = w.Act("squeeze", {1, 5, 3});
                 w.Op(SQUEEZE, 1, {x}, {s1}, BO::SqueezeOptions, o1.Union());
                 const int ax = w.ConstI32("expand_dims/axis", {}, {-1});
                 const int e = w.Act("expand_dims", {1, 5, 3, 1});
                 const auto o2 = tfl::CreateUnused52(w.fbb());  // ExpandDimsOptions (empty)
                 w.Op(EXPAND_DIMS, 1, {s1, ax}, {e}, BO::Unused52, o2.Union());
                 const auto o3 = tfl::CreateSqueezeOptions(w.fbb());
                 const int s2 = w.Act("squeeze_all", {5, 3});
                 w.Op(SQUEEZE, 1, {x}, {s2}, BO::SqueezeOptions, o3.Union());
                 w.Output(e);
                 w.Output(s2);
               }});
  c.push_back({"pack", "PACK of two inputs and a constant on axis 1; PACK of two inputs on axis -1", [](Writer& w) {
                 const int x0 = w.Input("input", {2, 3});
                 const int x1 = w.Input("input_1", {2, 3});
                 const int k = w.Weights("constant", {2, 3}, 1.0f);
                 const int y1 = w.Act("pack_axis1", {2, 3, 3});
                 const auto o1 = tfl::CreatePackOptions(w.fbb(), 3, 1);
                 w.Op(PACK, 1, {x0, x1, k}, {y1}, BO::PackOptions, o1.Union());
                 const int y2 = w.Act("pack_axis_last", {2, 3, 2});
                 const auto o2 = tfl::CreatePackOptions(w.fbb(), 2, -1);
                 w.Op(PACK, 1, {x1, x0}, {y2}, BO::PackOptions, o2.Union());
                 w.Output(y1);
                 w.Output(y2);
               }});
  c.push_back({"unpack", "UNPACK of [2,3,4] on axis -1 into 4 outputs", [](Writer& w) {
                 const int x = w.Input("input", {2, 3, 4});
                 std::vector<int> ys;
                 for (int k = 0; k < 4; ++k) ys.push_back(w.Act("unpack_" + std::to_string(k), {2, 3}));
                 const auto o = tfl::CreateUnpackOptions(w.fbb(), 4, -1);
                 w.Op(UNPACK, 1, {x}, ys, BO::UnpackOptions, o.Union());
                 for (int y : ys) w.Output(y);
               }});
  c.push_back({"split", "SPLIT of a CONV_2D output on the channel axis (3 ways); SPLIT of the input on axis -2 (2 ways)", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 6, 3});
                 ConvSpec s;
                 s.cout = 6;
                 const int c1 = Conv(w, x, "conv", s);
                 const int a1 = w.ConstI32("split_c/axis", {}, {3});
                 std::vector<int> y1;
                 for (int k = 0; k < 3; ++k) y1.push_back(w.Act("split_c_" + std::to_string(k), {1, 5, 6, 2}));
                 const auto o1 = tfl::CreateSplitOptions(w.fbb(), 3);
                 w.Op(SPLIT, 1, {a1, c1}, y1, BO::SplitOptions, o1.Union());
                 const int a2 = w.ConstI32("split_w/axis", {}, {-2});
                 std::vector<int> y2;
                 for (int k = 0; k < 2; ++k) y2.push_back(w.Act("split_w_" + std::to_string(k), {1, 5, 3, 3}));
                 const auto o2 = tfl::CreateSplitOptions(w.fbb(), 2);
                 w.Op(SPLIT, 1, {a2, x}, y2, BO::SplitOptions, o2.Union());
                 for (int y : y1) w.Output(y);
                 for (int y : y2) w.Output(y);
               }});
  c.push_back({"sum", "SUM of a CONV_2D output over axes (1,3), keep_dims false", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 const int c1 = Conv(w, x, "conv", ConvSpec{});
                 w.Output(Reduce(w, SUM, c1, "sum", {1, 3}, false));
               }});
  c.push_back({"reduce_max", "REDUCE_MAX of a CONV_2D output over axis -1 keep_dims true; of the input over (0,2) keep_dims false",
               [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 const int c1 = Conv(w, x, "conv", ConvSpec{});
                 w.Output(Reduce(w, REDUCE_MAX, c1, "reduce_max_c", {-1}, true));
                 w.Output(Reduce(w, REDUCE_MAX, x, "reduce_max_nw", {0, 2}, false));
               }});
  c.push_back({"mean", "MEAN of a CONV_2D output over (1,2) with keep_dims true and false", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 const int c1 = Conv(w, x, "conv", ConvSpec{});
                 w.Output(Reduce(w, MEAN, c1, "mean_keep", {1, 2}, true));
                 w.Output(Reduce(w, MEAN, c1, "mean", {1, 2}, false));
               }});
  c.push_back({"batch_matmul", "BATCH_MATMUL [2,3,4] x [2,5,4] with adj_y; [2,3,4] x constant [4,5] (broadcast)", [](Writer& w) {
                 const int x0 = w.Input("input", {2, 3, 4});
                 const int x1 = w.Input("input_1", {2, 5, 4});
                 const int y1 = w.Act("batch_matmul_adj_y", {2, 3, 5});
                 const auto o1 = tfl::CreateBatchMatMulOptions(w.fbb(), false, true, false);
                 w.Op(BATCH_MATMUL, 1, {x0, x1}, {y1}, BO::BatchMatMulOptions, o1.Union());
                 const int k = w.Weights("rhs", {4, 5}, 1.0f);
                 const int y2 = w.Act("batch_matmul_const", {2, 3, 5});
                 const auto o2 = tfl::CreateBatchMatMulOptions(w.fbb(), false, false, false);
                 w.Op(BATCH_MATMUL, 1, {x0, k}, {y2}, BO::BatchMatMulOptions, o2.Union());
                 w.Output(y1);
                 w.Output(y2);
               }});
  c.push_back({"resize_nearest_legacy", "RESIZE_NEAREST_NEIGHBOR 5x7 -> 8x11, neither align_corners nor half_pixel_centers", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 w.Output(Resize(w, RESIZE_NEAREST_NEIGHBOR, x, "resize", 8, 11, false, false));
               }});
  c.push_back({"resize_nearest_align_corners", "RESIZE_NEAREST_NEIGHBOR 5x7 -> 8x11, align_corners", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 w.Output(Resize(w, RESIZE_NEAREST_NEIGHBOR, x, "resize", 8, 11, true, false));
               }});
  c.push_back({"resize_nearest_half_pixel", "RESIZE_NEAREST_NEIGHBOR 5x7 -> 3x10 (down, up), half_pixel_centers", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 w.Output(Resize(w, RESIZE_NEAREST_NEIGHBOR, x, "resize", 3, 10, false, true));
               }});
  c.push_back({"resize_bilinear_legacy", "RESIZE_BILINEAR 5x7 -> 8x11, neither align_corners nor half_pixel_centers", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 w.Output(Resize(w, RESIZE_BILINEAR, x, "resize", 8, 11, false, false));
               }});
  c.push_back({"resize_bilinear_align_corners", "RESIZE_BILINEAR 5x7 -> 8x11, align_corners", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 w.Output(Resize(w, RESIZE_BILINEAR, x, "resize", 8, 11, true, false));
               }});
  c.push_back({"resize_bilinear_half_pixel", "RESIZE_BILINEAR 5x7 -> 9x4 (up, down), half_pixel_centers", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 w.Output(Resize(w, RESIZE_BILINEAR, x, "resize", 9, 4, false, true));
               }});
  c.push_back({"l2_normalization", "L2_NORMALIZATION of a CONV_2D output (channels) and of a rank-3 input", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 const int x1 = w.Input("input_1", {2, 3, 6});
                 const int c1 = Conv(w, x, "conv", ConvSpec{});
                 const int y1 = w.Act("l2_norm_conv", {1, 5, 7, 4});
                 const auto o1 = tfl::CreateL2NormOptions(w.fbb(), A::NONE);
                 w.Op(L2_NORMALIZATION, 1, {c1}, {y1}, BO::L2NormOptions, o1.Union());
                 const int y2 = w.Act("l2_norm_rank3", {2, 3, 6});
                 const auto o2 = tfl::CreateL2NormOptions(w.fbb(), A::NONE);
                 w.Op(L2_NORMALIZATION, 1, {x1}, {y2}, BO::L2NormOptions, o2.Union());
                 w.Output(y1);
                 w.Output(y2);
               }});
  c.push_back({"lstm", "UNIDIRECTIONAL_SEQUENCE_LSTM batch-major [2,5,3] -> hidden 4, no peepholes, zero initial state", [](Writer& w) {
                 const int x = w.Input("input", {2, 5, 3});
                 w.Output(Lstm(w, x, "lstm", 4, false, false));
               }});
  c.push_back({"lstm_peephole_time_major", "UNIDIRECTIONAL_SEQUENCE_LSTM time-major [5,2,3] -> hidden 4, with peepholes", [](Writer& w) {
                 const int x = w.Input("input", {5, 2, 3});
                 w.Output(Lstm(w, x, "lstm", 4, true, true));
               }});
  c.push_back({"pad", "PAD of a CONV_2D output, paddings ((0,0),(1,2),(0,1),(1,0)) (channels padded too)", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 const int c1 = Conv(w, x, "conv", ConvSpec{});
                 const int p = w.ConstI32("pad/paddings", {4, 2}, {0, 0, 1, 2, 0, 1, 1, 0});
                 const int y = w.Act("pad", {1, 8, 8, 5});
                 const auto o = tfl::CreateUnused22(w.fbb());  // PadOptions (empty)
                 w.Op(PAD, 1, {c1, p}, {y}, BO::Unused22, o.Union());
                 w.Output(y);
               }});
  c.push_back({"padv2", "PADV2 of the input with constant_values -0.75, paddings ((0,0),(2,0),(1,1),(0,2))", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 const int p = w.ConstI32("padv2/paddings", {4, 2}, {0, 0, 2, 0, 1, 1, 0, 2});
                 const int v = w.ConstF("padv2/constant_values", {}, {-0.75f});
                 const int y = w.Act("padv2", {1, 7, 9, 5});
                 const auto o = tfl::CreateUnused43(w.fbb());  // PadV2Options (empty)
                 w.Op(PADV2, 1, {x, p, v}, {y}, BO::Unused43, o.Union());
                 w.Output(y);
               }});
  c.push_back({"concat_channels_mean", "two CONV_2D -> CONCATENATION axis 3 -> MEAN over (1,2)", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 const int a = Conv(w, x, "conv_a", ConvSpec{});
                 ConvSpec s;
                 s.cout = 2, s.kh = s.kw = 1;
                 const int b = Conv(w, x, "conv_b", s);
                 const int cat = w.Act("concat", {1, 5, 7, 6});
                 const auto o = tfl::CreateConcatenationOptions(w.fbb(), 3, A::NONE);
                 w.Op(CONCATENATION, 1, {a, b}, {cat}, BO::ConcatenationOptions, o.Union());
                 w.Output(cat);
                 w.Output(Reduce(w, MEAN, cat, "mean", {1, 2}, false));
               }});
  // No fused activation: TFLite's CONCATENATION kernel refuses one (Prepare: activation must be
  // NONE); LiteRT.js's XNNPACK delegate takes the node and ignores it.
  c.push_back({"concat_axes", "CONCATENATION of the input and a CONV_2D output on axis 1 and on axis -2", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 ConvSpec s;
                 s.cout = 3;
                 const int c1 = Conv(w, x, "conv", s);
                 const int y1 = w.Act("concat_h", {1, 10, 7, 3});
                 const auto o1 = tfl::CreateConcatenationOptions(w.fbb(), 1, A::NONE);
                 w.Op(CONCATENATION, 1, {x, c1}, {y1}, BO::ConcatenationOptions, o1.Union());
                 const int y2 = w.Act("concat_w", {1, 5, 14, 3});
                 const auto o2 = tfl::CreateConcatenationOptions(w.fbb(), -2, A::NONE);
                 w.Op(CONCATENATION, 1, {c1, x}, {y2}, BO::ConcatenationOptions, o2.Union());
                 w.Output(y1);
                 w.Output(y2);
               }});
  c.push_back({"depth_to_space", "DEPTH_TO_SPACE block 2, [1,3,5,12] -> [1,6,10,3]", [](Writer& w) {
                 const int x = w.Input("input", {1, 3, 5, 12});
                 const int y = w.Act("depth_to_space", {1, 6, 10, 3});
                 const auto o = tfl::CreateDepthToSpaceOptions(w.fbb(), 2);
                 w.Op(DEPTH_TO_SPACE, 1, {x}, {y}, BO::DepthToSpaceOptions, o.Union());
                 w.Output(y);
               }});
  c.push_back({"space_to_depth", "SPACE_TO_DEPTH block 2, [1,6,10,3] -> [1,3,5,12]", [](Writer& w) {
                 const int x = w.Input("input", {1, 6, 10, 3});
                 const int y = w.Act("space_to_depth", {1, 3, 5, 12});
                 const auto o = tfl::CreateSpaceToDepthOptions(w.fbb(), 2);
                 w.Op(SPACE_TO_DEPTH, 1, {x}, {y}, BO::SpaceToDepthOptions, o.Union());
                 w.Output(y);
               }});
  c.push_back({"reshape_after_conv", "RESHAPE of a CONV_2D output to [1,35,4] and to [-1,20] (NHWC element order)", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 const int c1 = Conv(w, x, "conv", ConvSpec{});
                 const int s1 = w.ConstI32("reshape_3d/shape", {3}, {1, 35, 4});
                 const int y1 = w.Act("reshape_3d", {1, 35, 4});
                 w.Op(RESHAPE, 1, {c1, s1}, {y1});
                 const int s2 = w.ConstI32("reshape_2d/shape", {2}, {-1, 20});
                 const int y2 = w.Act("reshape_2d", {7, 20});
                 w.Op(RESHAPE, 1, {c1, s2}, {y2});
                 w.Output(y1);
                 w.Output(y2);
               }});
  c.push_back({"fc_after_conv", "CONV_2D -> FULLY_CONNECTED (flattens [1,5,7,4] in NHWC order to 140), fused RELU", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 const int c1 = Conv(w, x, "conv", ConvSpec{});
                 w.Output(FullyConnected(w, c1, "fc", 6, 140, {1, 6}, A::RELU, false, true));
               }});
  c.push_back({"fc_rank4", "FULLY_CONNECTED of a rank-4 input [1,5,7,3] with weights [4,3] -> [35,4], no bias", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 w.Output(FullyConnected(w, x, "fc", 4, 3, {35, 4}, A::NONE, false, false));
               }});
  c.push_back({"fc_keep_num_dims", "CONV_2D -> FULLY_CONNECTED keep_num_dims (weights [5,4]) -> [1,5,7,5], fused RELU6", [](Writer& w) {
                 const int x = w.Input("input", {1, 5, 7, 3});
                 ConvSpec s;
                 s.wscale = 4;
                 const int c1 = Conv(w, x, "conv", s);
                 w.Output(FullyConnected(w, c1, "fc", 5, 4, {1, 5, 7, 5}, A::RELU6, true, true));
               }});
  return c;
}

// ---- the quantized pair ------------------------------------------------------------------------

/// A scale that is a multiple of 2^-16 at least `v` (so it prints exactly).
float NiceScale(double v) { return static_cast<float>(std::ceil(v * 65536.0) / 65536.0); }

std::string QJson(const QParams& q) {
  std::string s = "{\"scale\": [";
  char buf[64];
  for (size_t i = 0; i < q.scale.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%.9g", i ? ", " : "", static_cast<double>(q.scale[i]));
    s += buf;
  }
  s += "], \"zero_point\": [";
  for (size_t i = 0; i < q.zero_point.size(); ++i) s += (i ? ", " : "") + std::to_string(q.zero_point[i]);
  s += "], \"quantized_dimension\": " + std::to_string(q.axis) + "}";
  return s;
}

/// QUANTIZE -> CONV_2D 3x3 SAME (+bias, fused RELU) -> FULLY_CONNECTED (+bias) -> DEQUANTIZE on a
/// float [1,5,7,3] input. int8: per-channel symmetric conv weights, per-tensor symmetric FC weights;
/// uint8: everything per tensor with non-zero weight zero points. Biases int32 with scale
/// input scale * weight scale, zero point 0. Activation scales come from a float pass over the
/// committed input (dequantized), so nothing saturates much. Returns the params as JSON.
std::string QuantCase(Writer& w, bool u8, const std::vector<float>& input) {
  const TT qt = u8 ? TT::UINT8 : TT::INT8;
  const int64_t qmin = u8 ? 0 : -128, qmax = u8 ? 255 : 127;
  const int H = 5, W = 7, C = 3, CO = 4, K = 3, UNITS = 6, DEPTH = H * W * CO;
  auto quant = [&](double v, float s, int64_t z) {
    return std::min<int64_t>(qmax, std::max<int64_t>(qmin, static_cast<int64_t>(std::llround(v / s)) + z));
  };
  // Input: scale 1/127.5 (no ties on the committed input), zero point 0 (int8) or 128 (uint8).
  QParams qx{{1.0f / 127.5f}, {u8 ? 128 : 0}, 0};
  std::vector<double> xd(input.size());
  for (size_t i = 0; i < input.size(); ++i) xd[i] = static_cast<double>(quant(input[i], qx.scale[0], qx.zero_point[0]) - qx.zero_point[0]) * qx.scale[0];
  // Conv weights [CO, K, K, C] and bias.
  const std::vector<float> wf = w.Rand("conv/filter", CO * K * K * C, 0.4f);
  const std::vector<float> bf = w.Rand("conv/bias", CO, 0.1f);
  QParams qw;
  std::vector<int64_t> wq(wf.size());
  if (!u8) {
    qw.axis = 0;
    for (int o = 0; o < CO; ++o) {
      float m = 0;
      for (int i = 0; i < K * K * C; ++i) m = std::max(m, std::fabs(wf[static_cast<size_t>(o * K * K * C + i)]));
      qw.scale.push_back(m / 127.0f);
      qw.zero_point.push_back(0);
    }
  } else {
    float lo = 0, hi = 0;
    for (float v : wf) lo = std::min(lo, v), hi = std::max(hi, v);
    qw.scale = {(hi - lo) / 255.0f};
    qw.zero_point = {std::llround(-lo / qw.scale[0])};
  }
  std::vector<double> wd(wf.size());
  for (size_t i = 0; i < wf.size(); ++i) {
    const size_t c = qw.scale.size() > 1 ? i / static_cast<size_t>(K * K * C) : 0;
    wq[i] = quant(wf[i], qw.scale[c], qw.zero_point[c]);
    wd[i] = static_cast<double>(wq[i] - qw.zero_point[c]) * qw.scale[c];
  }
  QParams qb;
  qb.axis = 0;
  std::vector<int32_t> bq(CO);
  std::vector<double> bd(CO);
  for (int o = 0; o < CO; ++o) {
    const float s = qx.scale[0] * qw.scale[qw.scale.size() > 1 ? static_cast<size_t>(o) : 0];
    if (qw.scale.size() > 1 || o == 0) qb.scale.push_back(s), qb.zero_point.push_back(0);
    bq[static_cast<size_t>(o)] = static_cast<int32_t>(std::llround(bf[static_cast<size_t>(o)] / s));
    bd[static_cast<size_t>(o)] = bq[static_cast<size_t>(o)] * static_cast<double>(s);
  }
  // Float pass: conv (SAME, pads 1) + relu.
  std::vector<double> cd(static_cast<size_t>(DEPTH));
  double cmax = 0;
  for (int h = 0; h < H; ++h)
    for (int x = 0; x < W; ++x)
      for (int o = 0; o < CO; ++o) {
        double acc = bd[static_cast<size_t>(o)];
        for (int i = 0; i < K; ++i)
          for (int j = 0; j < K; ++j) {
            const int hh = h + i - 1, ww = x + j - 1;
            if (hh < 0 || hh >= H || ww < 0 || ww >= W) continue;
            for (int c = 0; c < C; ++c)
              acc += xd[static_cast<size_t>((hh * W + ww) * C + c)] * wd[static_cast<size_t>(((o * K + i) * K + j) * C + c)];
          }
        acc = std::max(acc, 0.0);
        cd[static_cast<size_t>((h * W + x) * CO + o)] = acc;
        cmax = std::max(cmax, acc);
      }
  // Conv output: [0, cmax] onto the whole range.
  QParams qc{{NiceScale(cmax / 255.0)}, {qmin}, 0};
  // FC weights [UNITS, DEPTH], per tensor, and bias.
  const std::vector<float> ff = w.Rand("fc/weights", UNITS * DEPTH, 0.15f);
  const std::vector<float> fb = w.Rand("fc/bias", UNITS, 0.2f);
  QParams qf;
  if (!u8) {
    float m = 0;
    for (float v : ff) m = std::max(m, std::fabs(v));
    qf.scale = {m / 127.0f};
    qf.zero_point = {0};
  } else {
    float lo = 0, hi = 0;
    for (float v : ff) lo = std::min(lo, v), hi = std::max(hi, v);
    qf.scale = {(hi - lo) / 255.0f};
    qf.zero_point = {std::llround(-lo / qf.scale[0])};
  }
  std::vector<int64_t> fq(ff.size());
  std::vector<double> fd(ff.size());
  for (size_t i = 0; i < ff.size(); ++i) {
    fq[i] = quant(ff[i], qf.scale[0], qf.zero_point[0]);
    fd[i] = static_cast<double>(fq[i] - qf.zero_point[0]) * qf.scale[0];
  }
  const float fbs = qc.scale[0] * qf.scale[0];
  QParams qfb{{fbs}, {0}, 0};
  std::vector<int32_t> fbq(UNITS);
  double lo = 0, hi = 0;
  for (int u = 0; u < UNITS; ++u) {
    fbq[static_cast<size_t>(u)] = static_cast<int32_t>(std::llround(fb[static_cast<size_t>(u)] / fbs));
    double acc = fbq[static_cast<size_t>(u)] * static_cast<double>(fbs);
    for (int i = 0; i < DEPTH; ++i) {
      const double cq = static_cast<double>(quant(cd[static_cast<size_t>(i)], qc.scale[0], qc.zero_point[0]) - qc.zero_point[0]) * qc.scale[0];
      acc += cq * fd[static_cast<size_t>(u * DEPTH + i)];
    }
    lo = std::min(lo, acc), hi = std::max(hi, acc);
  }
  // FC output: [lo, hi] widened by 25% on each side (other inputs), zero point from lo.
  const double span = (hi - lo) * 1.5;
  const float so = NiceScale(span / 255.0);
  const double lo2 = lo - 0.25 * (hi - lo);
  QParams qo{{so}, {std::min<int64_t>(qmax, std::max<int64_t>(qmin, qmin + std::llround(-lo2 / so)))}, 0};

  // The model.
  const int x = w.Input("input", {1, H, W, C});
  const auto qxo = MakeQ(w, qx);
  const int xq = w.Act("input_quantized", {1, H, W, C}, qt, qxo);
  w.Op(QUANTIZE, 1, {x}, {xq});
  std::vector<uint8_t> wb(wq.size());
  for (size_t i = 0; i < wq.size(); ++i) wb[i] = static_cast<uint8_t>(wq[i]);
  const auto qwo = MakeQ(w, qw);
  const int wt = w.ConstBytes("conv/filter", {CO, K, K, C}, qt, wb.data(), wb.size(), qwo);
  const auto qbo = MakeQ(w, qb);
  const int bt = w.ConstBytes("conv/bias", {CO}, TT::INT32, bq.data(), bq.size() * 4, qbo);
  const auto qco = MakeQ(w, qc);
  const int ct = w.Act("conv", {1, H, W, CO}, qt, qco);
  const auto co = tfl::CreateConv2DOptions(w.fbb(), P::SAME, 1, 1, A::RELU, 1, 1);
  w.Op(CONV_2D, u8 ? 1 : 3, {xq, wt, bt}, {ct}, BO::Conv2DOptions, co.Union());
  std::vector<uint8_t> fwb(fq.size());
  for (size_t i = 0; i < fq.size(); ++i) fwb[i] = static_cast<uint8_t>(fq[i]);
  const auto qfo = MakeQ(w, qf);
  const int ft = w.ConstBytes("fc/weights", {UNITS, DEPTH}, qt, fwb.data(), fwb.size(), qfo);
  const auto qfbo = MakeQ(w, qfb);
  const int fbt = w.ConstBytes("fc/bias", {UNITS}, TT::INT32, fbq.data(), fbq.size() * 4, qfbo);
  const auto qoo = MakeQ(w, qo);
  const int yt = w.Act("fc", {1, UNITS}, qt, qoo);
  const auto fo = tfl::CreateFullyConnectedOptions(w.fbb(), A::NONE, 0, false, false);
  w.Op(FULLY_CONNECTED, u8 ? 1 : 4, {ct, ft, fbt}, {yt}, BO::FullyConnectedOptions, fo.Union());
  const int y = w.Act("output", {1, UNITS});
  w.Op(DEQUANTIZE, u8 ? 1 : 2, {yt}, {y});
  w.Output(y);

  std::string j = "{\n \"model\": \"" + w.name() + "\",\n \"tensors\": {\n";
  j += "  \"input_quantized\": " + QJson(qx) + ",\n";
  j += "  \"conv/filter\": " + QJson(qw) + ",\n";
  j += "  \"conv/bias\": " + QJson(qb) + ",\n";
  j += "  \"conv\": " + QJson(qc) + ",\n";
  j += "  \"fc/weights\": " + QJson(qf) + ",\n";
  j += "  \"fc/bias\": " + QJson(qfb) + ",\n";
  j += "  \"fc\": " + QJson(qo) + "\n },\n";
  char buf[160];
  std::snprintf(buf, sizeof buf, " \"float_pass\": {\"conv_max\": %.9g, \"fc_min\": %.9g, \"fc_max\": %.9g}\n}\n", cmax, lo, hi);
  return j + buf;
}

// ---- int16 ("16x8") cases ---------------------------------------------------------------------
// int16 activations with zero point 0 (TFLite requires it), int8 symmetric weights, int64 biases.
// LiteRT.js takes only float32, int32 and uint8 tensors in and out, so every model has a float32
// input, QUANTIZEs it, and DEQUANTIZEs each int16 result (exact: code / 32768 or code * scale).

/// A multiple of 2^-24 at least v (v < 1: exact in float32 and printed exactly).
float FineScale(double v) { return static_cast<float>(std::ceil(v * 16777216.0) / 16777216.0); }

QParams Sym16(float scale) { return QParams{{scale}, {0}, 0}; }

int QAct(Writer& w, const std::string& name, const Dims& shape, TT type, const QParams& q) {
  const auto qo = MakeQ(w, q);
  return w.Act(name, shape, type, qo);
}

/// The int8 weight constant and its int64 bias (scale input scale * weight scale of the channel,
/// as float32, zero point 0) for a conv-like op; returns {weights, bias} tensor ids and fills the
/// dequantized bias.
std::pair<int, int> ConstWeightsBias(Writer& w, const std::string& name, const Dims& wshape, const QWeights& qw,
                                     const std::vector<float>& bias, float in_scale, std::vector<double>* bias_real) {
  const auto qwo = MakeQ(w, qw.p);
  const int wt = w.ConstBytes(name + "/filter", wshape, TT::INT8, qw.q.data(), qw.q.size(), qwo);
  QParams qb;
  std::vector<int64_t> bq;
  for (size_t c = 0; c < bias.size(); ++c) {
    const float s = in_scale * qw.p.scale[qw.p.scale.size() > 1 ? c : 0];
    if (qw.p.scale.size() > 1 || c == 0) qb.scale.push_back(s), qb.zero_point.push_back(0);
    bq.push_back(std::llround(bias[c] / s));
    bias_real->push_back(static_cast<double>(bq.back()) * s);
  }
  const auto qbo = MakeQ(w, qb);
  const int bt = w.ConstBytes(name + "/bias", {static_cast<int32_t>(bias.size())}, TT::INT64, bq.data(), bq.size() * 8, qbo);
  return {wt, bt};
}

/// Input values uniform on [-1, 1) (seeded as InputValues), each nudged up by 2^-23 until x / s
/// (float32, as TFLite's QUANTIZE divides) is at least 1e-3 away from a rounding tie for every
/// scale s in `scales`: QUANTIZE rounds ties away from zero, XNNPACK's would round them to even.
std::vector<float> UntiedInput(const std::string& case_name, int64_t n, const std::vector<float>& scales) {
  Rng r(case_name + "/input_0");
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) {
    x = r.Uniform();
    for (bool tie = true; tie;) {
      tie = false;
      for (float s : scales) {
        const float q = x / s;
        tie = tie || std::fabs(std::fabs(q - std::trunc(q)) - 0.5f) < 1e-3f;
      }
      if (tie) x += 1.0f / 8388608.0f;
    }
  }
  return v;
}

/// QUANTIZE (float32 -> int16 s, or requantize int16 -> int16/int8) -> new tensor.
int Quantize(Writer& w, int x, const std::string& name, TT type, const QParams& q) {
  const int y = QAct(w, name, w.shape(x), type, q);
  w.Op(QUANTIZE, type == TT::INT16 ? 2 : 1, {x}, {y});
  return y;
}

/// DEQUANTIZE of an int16 (or int8) tensor to a float32 model output.
int DequantizeOut(Writer& w, int x, const std::string& name) {
  const int y = w.Act(name, w.shape(x));
  w.Op(DEQUANTIZE, 3, {x}, {y});
  w.Output(y);
  return y;
}

/// The int16 chain: float [1,6,6,3] -> QUANTIZE (int16, 1/32767) -> CONV_2D 3x3 SAME (4 channels,
/// per-channel int8 weights, int64 bias) -> DEPTHWISE_CONV_2D 3x3 SAME (per-channel, int64 bias,
/// fused RELU) -> ADD of the two (general scales) -> AVERAGE_POOL_2D 2x2/2 VALID -> MAX_POOL_2D
/// 3x3/1 SAME -> MUL of the two pools -> QUANTIZE int16 -> int16 (rescale) -> FULLY_CONNECTED 36 ->
/// 6 (per-tensor int8 weights, int64 bias) -> SOFTMAX and LOGISTIC; plus QUANTIZE int16 -> int8 of
/// the ADD output and an ADD on the power-of-two path (input QUANTIZEd at 2^-14 and 2^-13). Scales
/// are symmetric bounds (largest possible |value| / 32767, rounded up to a multiple of 2^-24), so
/// nothing saturates. Returns the params as JSON.
std::string Int16Chain(Writer& w) {
  const int H = 6, W = 6, C = 3, CO = 4, K = 3, UNITS = 6;
  const float sx = 1.0f / 32767.0f, s_pot1 = 1.0f / 16384.0f, s_pot2 = 1.0f / 8192.0f;
  w.SetInputValues(0, UntiedInput(w.name(), H * W * C, {sx, s_pot1, s_pot2}));
  const int x = w.Input("input", {1, H, W, C});
  const int xq = Quantize(w, x, "input_quantized", TT::INT16, Sym16(sx));
  // CONV_2D: bound = max over channels of sum |w| * 1 + |b| (|x| <= 1).
  const QWeights cw = QuantizeWeights(w.Rand("conv/filter", CO * K * K * C, 0.4f), CO, false, 0);
  std::vector<double> cb;
  const auto [cwt, cbt] = ConstWeightsBias(w, "conv", {CO, K, K, C}, cw, w.Rand("conv/bias", CO, 0.1f), sx, &cb);
  double conv_bound = 0;
  for (int o = 0; o < CO; ++o) {
    double a = std::fabs(cb[static_cast<size_t>(o)]);
    for (int i = 0; i < K * K * C; ++i) a += std::fabs(cw.real[static_cast<size_t>(o * K * K * C + i)]);
    conv_bound = std::max(conv_bound, a);
  }
  const QParams qc = Sym16(FineScale(conv_bound / 32767.0));
  const int ct = QAct(w, "conv", {1, H, W, CO}, TT::INT16, qc);
  const auto co = tfl::CreateConv2DOptions(w.fbb(), P::SAME, 1, 1, A::NONE, 1, 1);
  w.Op(CONV_2D, 4, {xq, cwt, cbt}, {ct}, BO::Conv2DOptions, co.Union());
  // DEPTHWISE_CONV_2D on the conv output, filter [1, K, K, CO] (channel = last dim).
  const QWeights dw = QuantizeWeights(w.Rand("depthwise/filter", K * K * CO, 0.5f), CO, true, 3);
  std::vector<double> db;
  const auto [dwt, dbt] = ConstWeightsBias(w, "depthwise", {1, K, K, CO}, dw, w.Rand("depthwise/bias", CO, 0.1f), qc.scale[0], &db);
  double dw_bound = 0;
  for (int o = 0; o < CO; ++o) {
    double a = std::fabs(db[static_cast<size_t>(o)]);
    for (int i = 0; i < K * K; ++i) a += std::fabs(dw.real[static_cast<size_t>(i * CO + o)]) * conv_bound;
    dw_bound = std::max(dw_bound, a);
  }
  const QParams qd = Sym16(FineScale(dw_bound / 32767.0));
  const int dt = QAct(w, "depthwise", {1, H, W, CO}, TT::INT16, qd);
  const auto dopt = tfl::CreateDepthwiseConv2DOptions(w.fbb(), P::SAME, 1, 1, 1, A::RELU, 1, 1);
  w.Op(DEPTHWISE_CONV_2D, 5, {ct, dwt, dbt}, {dt}, BO::DepthwiseConv2DOptions, dopt.Union());
  // ADD (general path: the scales are not powers of two).
  const double add_bound = conv_bound + dw_bound;
  const QParams qa = Sym16(FineScale(add_bound / 32767.0));
  const int at = QAct(w, "add", {1, H, W, CO}, TT::INT16, qa);
  const auto ao = tfl::CreateAddOptions(w.fbb(), A::NONE);
  w.Op(ADD, 3, {ct, dt}, {at}, BO::AddOptions, ao.Union());
  // Pools keep the quantization.
  const int p1 = QAct(w, "avg_pool", {1, 3, 3, CO}, TT::INT16, qa);
  const auto po1 = tfl::CreatePool2DOptions(w.fbb(), P::VALID, 2, 2, 2, 2, A::NONE);
  w.Op(AVERAGE_POOL_2D, 3, {at}, {p1}, BO::Pool2DOptions, po1.Union());
  const int p2 = QAct(w, "max_pool", {1, 3, 3, CO}, TT::INT16, qa);
  const auto po2 = tfl::CreatePool2DOptions(w.fbb(), P::SAME, 1, 1, 3, 3, A::NONE);
  w.Op(MAX_POOL_2D, 3, {p1}, {p2}, BO::Pool2DOptions, po2.Union());
  // MUL of the two pools, then a requantization to a 1.37x coarser scale.
  const double mul_bound = add_bound * add_bound;
  const QParams qm = Sym16(FineScale(mul_bound / 32767.0));
  const int mt = QAct(w, "mul", {1, 3, 3, CO}, TT::INT16, qm);
  const auto mo = tfl::CreateMulOptions(w.fbb(), A::NONE);
  w.Op(MUL, 4, {p1, p2}, {mt}, BO::MulOptions, mo.Union());
  const QParams qr = Sym16(FineScale(mul_bound * 1.37 / 32767.0));
  const int rt = Quantize(w, mt, "mul_requantized", TT::INT16, qr);
  // FULLY_CONNECTED 36 -> UNITS, per-tensor weights; its output feeds SOFTMAX and LOGISTIC, so its
  // scale comes from the weights' size times the typical input, not the bound (a few units wide).
  const int DEPTH = 3 * 3 * CO;
  const QWeights fw = QuantizeWeights(w.Rand("fc/weights", UNITS * DEPTH, 0.3f), 1, false, 0);
  std::vector<double> fb;
  const auto [fwt, fbt] = ConstWeightsBias(w, "fc", {UNITS, DEPTH}, fw, w.Rand("fc/bias", UNITS, 0.5f), qr.scale[0], &fb);
  double fc_bound = 0;
  for (int u = 0; u < UNITS; ++u) {
    double a = std::fabs(fb[static_cast<size_t>(u)]);
    for (int i = 0; i < DEPTH; ++i) a += std::fabs(fw.real[static_cast<size_t>(u * DEPTH + i)]) * mul_bound * 1.37;
    fc_bound = std::max(fc_bound, a);
  }
  const QParams qf = Sym16(FineScale(fc_bound / 32767.0));
  const int ft = QAct(w, "fc", {1, UNITS}, TT::INT16, qf);
  const auto fo = tfl::CreateFullyConnectedOptions(w.fbb(), A::NONE, 0, false, false);
  w.Op(FULLY_CONNECTED, 7, {rt, fwt, fbt}, {ft}, BO::FullyConnectedOptions, fo.Union());
  const QParams q15 = Sym16(1.0f / 32768.0f);
  const int st = QAct(w, "softmax_int16", {1, UNITS}, TT::INT16, q15);
  const auto so = tfl::CreateSoftmaxOptions(w.fbb(), 1.0f);
  w.Op(SOFTMAX, 3, {ft}, {st}, BO::SoftmaxOptions, so.Union());
  const int lt = QAct(w, "logistic_int16", {1, UNITS}, TT::INT16, q15);
  w.Op(LOGISTIC, 3, {ft}, {lt});
  // Outputs: the ADD output (all 144 codes of conv + depthwise + add), softmax, logistic, the
  // ADD output requantized to int8, the power-of-two ADD.
  DequantizeOut(w, at, "add_out");
  DequantizeOut(w, st, "softmax");
  DequantizeOut(w, lt, "logistic");
  const QParams q8{{FineScale(add_bound / 127.0)}, {0}, 0};
  const int a8 = Quantize(w, at, "add_int8", TT::INT8, q8);
  DequantizeOut(w, a8, "add_int8_out");
  const int xa = Quantize(w, x, "input_pot14", TT::INT16, Sym16(s_pot1));
  const int xb = Quantize(w, x, "input_pot13", TT::INT16, Sym16(s_pot2));
  const int apt = QAct(w, "add_pot", {1, H, W, C}, TT::INT16, Sym16(s_pot2));
  const auto apo = tfl::CreateAddOptions(w.fbb(), A::NONE);
  w.Op(ADD, 3, {xa, xb}, {apt}, BO::AddOptions, apo.Union());
  DequantizeOut(w, apt, "add_pot_out");

  std::string j = "{\n \"model\": \"" + w.name() + "\",\n \"tensors\": {\n";
  const std::vector<std::pair<const char*, QParams>> all = {
      {"input_quantized", Sym16(sx)}, {"conv/filter", cw.p}, {"conv", qc}, {"depthwise/filter", dw.p}, {"depthwise", qd},
      {"add", qa}, {"avg_pool", qa}, {"max_pool", qa}, {"mul", qm}, {"mul_requantized", qr}, {"fc/weights", fw.p},
      {"fc", qf}, {"softmax_int16", q15}, {"logistic_int16", q15}, {"add_int8", q8}, {"input_pot14", Sym16(s_pot1)},
      {"input_pot13", Sym16(s_pot2)}, {"add_pot", Sym16(s_pot2)}};
  for (size_t i = 0; i < all.size(); ++i)
    j += std::string("  \"") + all[i].first + "\": " + QJson(all[i].second) + (i + 1 < all.size() ? ",\n" : "\n");
  j += " },\n \"biases\": \"int64, scale input scale * weight scale per channel, zero point 0\"\n}\n";
  return j;
}

/// MUL of the float input by s * 32768 (exact: a power-of-two factor), so QUANTIZE at scale s
/// gives back the code k of the input value k / 32768 (x / s is within 1e-3 of k).
int ScaledCodes(Writer& w, int x, const std::string& tag, float s) {
  const int c = w.ConstF(tag + "/factor", {1}, {s * 32768.0f});
  const int m = w.Act(tag + "/scaled", w.shape(x));
  const auto o = tfl::CreateMulOptions(w.fbb(), A::NONE);
  w.Op(MUL, 1, {x, c}, {m}, BO::MulOptions, o.Union());
  return m;
}

constexpr int kCodes = 65536;

/// LOGISTIC on every int16 code at three input scales: 0.001 (the table kernel with a general
/// multiplier), 2^-12 (TFLite's default resolver takes gemmlowp's int16 logistic) and 2^-10 (a power
/// of two that still goes to the table kernel). Input [1, 65536]: value (i - 32768) / 32768.
void LogisticSweep(Writer& w) {
  std::vector<float> v(kCodes);
  for (int i = 0; i < kCodes; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i - 32768) / 32768.0f;
  w.SetInputValues(0, v);
  const int x = w.Input("input", {1, kCodes});
  const std::vector<std::pair<const char*, float>> scales = {{"s0p001", 0.001f}, {"s2m12", 1.0f / 4096}, {"s2m10", 1.0f / 1024}};
  for (const auto& [tag, s] : scales) {
    const std::string t = tag;
    const int q = Quantize(w, ScaledCodes(w, x, t, s), t + "/quantized", TT::INT16, Sym16(s));
    const int l = QAct(w, t + "/logistic", {1, kCodes}, TT::INT16, Sym16(1.0f / 32768.0f));
    w.Op(LOGISTIC, 3, {q}, {l});
    DequantizeOut(w, l, "logistic_" + t);
  }
}

/// SOFTMAX on every int16 code (a seeded permutation of them), in rows of 256 (scale 0.001, beta
/// 1), one row of 65536 (scale 1e-4, beta 1: every difference inside the exp table's [-10, 0]) and
/// rows of 16 (scale 2^-11, beta 2.5). Input [1, 65536]: value (perm[i] - 32768) / 32768.
void SoftmaxSweep(Writer& w) {
  std::vector<int> perm(kCodes);
  for (int i = 0; i < kCodes; ++i) perm[static_cast<size_t>(i)] = i;
  Rng r(w.name() + "/perm");
  for (int i = kCodes - 1; i > 0; --i) std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(r.Next() % static_cast<uint64_t>(i + 1))]);
  std::vector<float> v(kCodes);
  for (int i = 0; i < kCodes; ++i) v[static_cast<size_t>(i)] = static_cast<float>(perm[static_cast<size_t>(i)] - 32768) / 32768.0f;
  w.SetInputValues(0, v);
  const int x = w.Input("input", {1, kCodes});
  struct Cfg {
    const char* tag;
    float scale, beta;
    int row;
  };
  for (const Cfg& c : {Cfg{"s0p001_b1_row256", 0.001f, 1.0f, 256}, Cfg{"s1em4_b1_row65536", 1e-4f, 1.0f, kCodes},
                       Cfg{"s2m11_b2p5_row16", 1.0f / 2048, 2.5f, 16}}) {
    const std::string t = c.tag;
    int m = ScaledCodes(w, x, t, c.scale);
    const Dims shape = {kCodes / c.row, c.row};
    if (c.row != kCodes) {
      const int sh = w.ConstI32(t + "/shape", {2}, {shape[0], shape[1]});
      const int rs = w.Act(t + "/rows", shape);
      w.Op(RESHAPE, 1, {m, sh}, {rs});
      m = rs;
    }
    const int q = Quantize(w, m, t + "/quantized", TT::INT16, Sym16(c.scale));
    const int sm = QAct(w, t + "/softmax", shape, TT::INT16, Sym16(1.0f / 32768.0f));
    const auto o = tfl::CreateSoftmaxOptions(w.fbb(), c.beta);
    w.Op(SOFTMAX, 3, {q}, {sm}, BO::SoftmaxOptions, o.Union());
    DequantizeOut(w, sm, "softmax_" + t);
  }
}

// ---- files -------------------------------------------------------------------------------------

bool WriteFile(const fs::path& p, const void* data, size_t n) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
  return static_cast<bool>(f);
}

std::vector<float> InputValues(const std::string& case_name, int k, int64_t n) {
  Rng r(case_name + "/input_" + std::to_string(k));
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = r.Uniform();
  return v;
}

bool WriteInput(const fs::path& dir, int k, const Dims& shape, const std::vector<float>& v) {
  tare::Shape s(shape.begin(), shape.end());
  tare::Result<tare::Tensor> t = tare::Tensor::Alloc(tare::DType::kFloat32, s);
  if (!t.ok()) return false;
  std::memcpy(t->data, v.data(), v.size() * sizeof(float));
  const tare::Status st = tare::WriteNpy((dir / ("input_" + std::to_string(k) + ".npy")).string(), *t);
  if (!st.ok()) std::fprintf(stderr, "make_tflite_ops: %s\n", st.message().c_str());
  return st.ok();
}

bool Emit(const fs::path& root, Writer& w, const char* covers, const std::string& label) {
  const std::vector<uint8_t> bytes = w.Finish();
  const fs::path dir = root / w.name();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !WriteFile(root / (w.name() + ".tflite"), bytes.data(), bytes.size())) {
    std::fprintf(stderr, "make_tflite_ops: cannot write %s\n", (root / (w.name() + ".tflite")).string().c_str());
    return false;
  }
  for (size_t k = 0; k < w.inputs().size(); ++k) {
    const Dims s = w.shape(w.inputs()[k]);
    const std::vector<float>* custom = w.InputValuesOf(k);
    if (!WriteInput(dir, static_cast<int>(k), s, custom ? *custom : InputValues(w.name(), static_cast<int>(k), Numel(s))))
      return false;
  }
  std::printf("%s\t%s\t%zu\t%s\n", label.c_str(), w.name().c_str(), w.inputs().size(), covers);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3 || std::string(argv[1]).rfind("-", 0) == 0) {
    std::fprintf(stderr, "usage: tare_make_tflite_ops OPS_DIR [QUANT_DIR]\n");
    return 2;
  }
  const fs::path ops = argv[1];
  for (const Case& c : FloatCases()) {
    Writer w(c.name);
    c.build(w);
    if (!Emit(ops, w, c.covers, "ops")) return 1;
  }
  if (argc == 3) {
    const fs::path quant = argv[2];
    for (bool u8 : {false, true}) {
      Writer w(u8 ? "conv_fc_uint8" : "conv_fc_int8");
      const std::string params = QuantCase(w, u8, InputValues(w.name(), 0, 5 * 7 * 3));
      const char* covers = u8 ? "QUANTIZE -> uint8 CONV_2D (per-tensor) + RELU -> uint8 FULLY_CONNECTED -> DEQUANTIZE"
                              : "QUANTIZE -> int8 CONV_2D (per-channel weight scales) + RELU -> int8 FULLY_CONNECTED -> DEQUANTIZE";
      if (!Emit(quant, w, covers, "quant")) return 1;
      if (!WriteFile(quant / w.name() / "quant_params.json", params.data(), params.size())) {
        std::fprintf(stderr, "make_tflite_ops: cannot write quant_params.json\n");
        return 1;
      }
    }
    {
      Writer w("int16_chain");
      const std::string params = Int16Chain(w);
      const char* covers =
          "int16 (16x8): QUANTIZE -> CONV_2D (per-channel int8, int64 bias) -> DEPTHWISE_CONV_2D + RELU -> ADD -> "
          "AVERAGE_POOL_2D -> MAX_POOL_2D -> MUL -> QUANTIZE (requantize) -> FULLY_CONNECTED -> SOFTMAX, LOGISTIC; "
          "QUANTIZE int16 -> int8; ADD power-of-two path; DEQUANTIZE";
      if (!Emit(quant, w, covers, "quant")) return 1;
      if (!WriteFile(quant / w.name() / "quant_params.json", params.data(), params.size())) {
        std::fprintf(stderr, "make_tflite_ops: cannot write quant_params.json\n");
        return 1;
      }
    }
    {
      Writer w("logistic_int16_sweep");
      LogisticSweep(w);
      if (!Emit(quant, w, "int16 LOGISTIC on all 65536 codes, input scales 0.001, 2^-12 (gemmlowp kernel), 2^-10", "quant"))
        return 1;
    }
    {
      Writer w("softmax_int16_sweep");
      SoftmaxSweep(w);
      if (!Emit(quant, w,
                "int16 SOFTMAX on all 65536 codes: rows of 256 (scale 0.001, beta 1), one row of 65536 (scale 1e-4, "
                "beta 1), rows of 16 (scale 2^-11, beta 2.5)",
                "quant"))
        return 1;
    }
  }
  return 0;
}
