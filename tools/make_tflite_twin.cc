// tare_make_tflite_twin: writes a .tflite twin of a small sequential ONNX CNN (LeNet-5 style:
// Conv, Relu, Pad, AveragePool/MaxPool, Flatten, Gemm, a BatchNormalization after a Gemm), with
// the same weights, as TensorFlow's
// converter lays such a network out: NHWC activations, OHWI filters, a TRANSPOSE from the NCHW
// input the ONNX model takes, explicit PAD before VALID convolutions and pools, and a TRANSPOSE back
// to NCHW before the flatten (so FULLY_CONNECTED sees PyTorch's feature order). Tensor names are
// TensorFlow-like ("sequential/conv2d/Conv2D"), not the ONNX ones, so `tare compare` must align the
// two models by structure.
//
// A BatchNormalization after the flatten becomes MUL by scale = gamma / sqrt(var + eps) and ADD of
// beta - mean * scale, both computed in float32 (what TensorFlow's converter writes for an unfused
// Keras BatchNormalization in inference).
//
//   tare_make_tflite_twin MODEL.onnx OUT.tflite [BATCH]
//
// BATCH: the twin's batch (TFLite inputs have a fixed shape); required when the ONNX input's batch
// dim is symbolic, else it must match it.
//
// Exit status 0; 1 with one line on stderr for an op outside that subset or a file error.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "converters/load_any.h"
#include "converters/tflite/builtin_ops.h"
#include "tflite_schema_generated.h"

using namespace tare;
namespace tfl = tare::tfl;

namespace {

class Writer {
 public:
  Writer() { buffers_.push_back(tfl::CreateBuffer(fbb_)); }  // buffer 0: the empty sentinel

  int Tensor(const std::string& name, std::vector<int32_t> shape, const float* data = nullptr) {
    uint32_t buffer = 0;
    if (data) {
      size_t n = 1;
      for (int32_t d : shape) n *= static_cast<size_t>(d);
      fbb_.ForceVectorAlignment(n * 4, 1, 16);
      auto vec = fbb_.CreateVector(reinterpret_cast<const uint8_t*>(data), n * 4);
      buffer = static_cast<uint32_t>(buffers_.size());
      buffers_.push_back(tfl::CreateBuffer(fbb_, vec));
    }
    // Sub-objects are made in a fixed order (last argument first), not in the compiler's argument
    // evaluation order, so the bytes are the same whichever compiler built the tool.
    const auto nm = fbb_.CreateString(name);
    const auto sh = fbb_.CreateVector(shape);
    tensors_.push_back(tfl::CreateTensor(fbb_, sh, tfl::TensorType::FLOAT32, buffer, nm));
    return static_cast<int>(tensors_.size()) - 1;
  }
  int I32(const std::string& name, std::vector<int32_t> shape, const std::vector<int32_t>& v) {
    fbb_.ForceVectorAlignment(v.size() * 4, 1, 16);
    auto vec = fbb_.CreateVector(reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4);
    const uint32_t buffer = static_cast<uint32_t>(buffers_.size());
    buffers_.push_back(tfl::CreateBuffer(fbb_, vec));
    const auto nm = fbb_.CreateString(name);
    const auto sh = fbb_.CreateVector(shape);
    tensors_.push_back(tfl::CreateTensor(fbb_, sh, tfl::TensorType::INT32, buffer, nm));
    return static_cast<int>(tensors_.size()) - 1;
  }
  uint32_t Code(int builtin) {
    for (size_t i = 0; i < codes_used_.size(); ++i)
      if (codes_used_[i] == builtin) return static_cast<uint32_t>(i);
    codes_used_.push_back(builtin);
    codes_.push_back(tfl::CreateOperatorCode(fbb_, static_cast<int8_t>(builtin), 0, 1, builtin));
    return static_cast<uint32_t>(codes_.size()) - 1;
  }
  void Op(int builtin, std::vector<int32_t> in, std::vector<int32_t> out, tfl::BuiltinOptions type = tfl::BuiltinOptions::NONE,
          flatbuffers::Offset<void> options = 0) {
    const auto o = fbb_.CreateVector(out);
    const auto i = fbb_.CreateVector(in);
    ops_.push_back(tfl::CreateOperator(fbb_, Code(builtin), i, o, type, options));
  }
  flatbuffers::FlatBufferBuilder& fbb() { return fbb_; }

  std::vector<uint8_t> Finish(std::vector<int32_t> inputs, std::vector<int32_t> outputs) {
    const auto sg_name = fbb_.CreateString("main");
    const auto sg_ops = fbb_.CreateVector(ops_);
    const auto sg_out = fbb_.CreateVector(outputs);
    const auto sg_in = fbb_.CreateVector(inputs);
    const auto sg_tensors = fbb_.CreateVector(tensors_);
    auto sg = tfl::CreateSubGraph(fbb_, sg_tensors, sg_in, sg_out, sg_ops, sg_name);
    std::vector<flatbuffers::Offset<tfl::SubGraph>> sgs = {sg};
    const auto m_buffers = fbb_.CreateVector(buffers_);
    const auto m_desc = fbb_.CreateString("tare_make_tflite_twin");
    const auto m_sgs = fbb_.CreateVector(sgs);
    const auto m_codes = fbb_.CreateVector(codes_);
    auto model = tfl::CreateModel(fbb_, 3, m_codes, m_sgs, m_desc, m_buffers);
    tfl::FinishModelBuffer(fbb_, model);
    return std::vector<uint8_t>(fbb_.GetBufferPointer(), fbb_.GetBufferPointer() + fbb_.GetSize());
  }

 private:
  flatbuffers::FlatBufferBuilder fbb_{1 << 20};
  std::vector<flatbuffers::Offset<tfl::Buffer>> buffers_;
  std::vector<flatbuffers::Offset<tfl::Tensor>> tensors_;
  std::vector<flatbuffers::Offset<tfl::OperatorCode>> codes_;
  std::vector<int> codes_used_;
  std::vector<flatbuffers::Offset<tfl::Operator>> ops_;
};

// Builtin codes (TFLite BuiltinOperator, converters/tflite/builtin_ops.h).
namespace tb = tare::tflite;
constexpr int kAveragePool = tb::AVERAGE_POOL_2D, kConv = tb::CONV_2D, kFullyConnected = tb::FULLY_CONNECTED,
              kMaxPool = tb::MAX_POOL_2D, kRelu = tb::RELU, kReshape = tb::RESHAPE, kPad = tb::PAD, kTranspose = tb::TRANSPOSE,
              kMul = tb::MUL, kAdd = tb::ADD;

int Fail(const std::string& msg) {
  std::fprintf(stderr, "make_tflite_twin: %s\n", msg.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) return Fail("usage: tare_make_tflite_twin MODEL.onnx OUT.tflite [BATCH]");
  Result<std::shared_ptr<Model>> m = LoadAnyModel(argv[1]);
  if (!m.ok()) return Fail(m.status().message());
  const Graph& g = (*m)->graph;
  if (g.inputs.size() != 1 || g.outputs.size() != 1) return Fail("the model must have one input and one output");
  const Value& in = g.values[g.inputs[0]];
  if (in.shape.size() != 4 || in.shape[1] < 1 || in.shape[2] < 1 || in.shape[3] < 1) return Fail("the input must be an NCHW tensor of known C, H, W");
  int64_t n = in.shape[0];
  if (argc == 4) {
    char* end = nullptr;
    const long b = std::strtol(argv[3], &end, 10);
    if (!*argv[3] || *end || b < 1 || b > 65536) return Fail(std::string("BATCH must be an integer in [1, 65536], not ") + argv[3]);
    if (n >= 1 && n != b) return Fail("BATCH " + std::string(argv[3]) + " differs from the model's batch " + std::to_string(n));
    n = b;
  }
  if (n < 1) return Fail("the input's batch dim is symbolic: give BATCH");
  Writer w;
  int64_t c = in.shape[1], h = in.shape[2], wd = in.shape[3];
  const int x_nchw = w.Tensor("input", {int32_t(n), int32_t(c), int32_t(h), int32_t(wd)});
  int x = w.Tensor("sequential/to_nhwc", {int32_t(n), int32_t(h), int32_t(wd), int32_t(c)});
  w.Op(kTranspose, {x_nchw, w.I32("sequential/to_nhwc/perm", {4}, {0, 2, 3, 1})}, {x}, tfl::BuiltinOptions::NONE);
  bool flat = false;
  int64_t features = 0;
  int layer = 0;
  auto weight = [&](int v) -> const tare::Tensor* { return v >= 0 && g.values[v].is_constant ? &g.values[v].constant : nullptr; };
  for (const Node& node : g.nodes) {
    const std::string base = "sequential/layer" + std::to_string(layer++);
    if (node.op == "Conv") {
      const tare::Tensor* wt = weight(node.inputs[1]);
      const tare::Tensor* bt = node.inputs.size() > 2 ? weight(node.inputs[2]) : nullptr;
      if (!wt || wt->shape.size() != 4 || wt->dtype != DType::kFloat32) return Fail(node.Where() + ": needs a constant float32 OIHW filter");
      Result<int64_t> grp = node.GetInt("group", 1);
      Result<std::vector<int64_t>> pads = node.GetInts("pads", {0, 0, 0, 0});
      Result<std::vector<int64_t>> strides = node.GetInts("strides", {1, 1});
      Result<std::vector<int64_t>> dil = node.GetInts("dilations", {1, 1});
      if (!grp.ok() || *grp != 1 || !pads.ok() || !strides.ok() || !dil.ok() || (*dil)[0] != 1 || (*dil)[1] != 1)
        return Fail(node.Where() + ": only group 1, dilation 1 convolutions");
      const Shape& ws = wt->shape;  // O I KH KW
      if (ws[1] != c) return Fail(node.Where() + ": filter channels do not match");
      if ((*pads)[0] || (*pads)[1] || (*pads)[2] || (*pads)[3]) {
        h += (*pads)[0] + (*pads)[2], wd += (*pads)[1] + (*pads)[3];
        const int y = w.Tensor(base + "/pad", {int32_t(n), int32_t(h), int32_t(wd), int32_t(c)});
        w.Op(kPad, {x, w.I32(base + "/pad/paddings", {4, 2}, {0, 0, int32_t((*pads)[0]), int32_t((*pads)[2]), int32_t((*pads)[1]),
                                                               int32_t((*pads)[3]), 0, 0})},
             {y});
        x = y;
      }
      std::vector<float> ohwi(static_cast<size_t>(wt->numel()));
      for (int64_t o = 0; o < ws[0]; ++o)
        for (int64_t i = 0; i < ws[1]; ++i)
          for (int64_t kh = 0; kh < ws[2]; ++kh)
            for (int64_t kw = 0; kw < ws[3]; ++kw)
              ohwi[static_cast<size_t>(((o * ws[2] + kh) * ws[3] + kw) * ws[1] + i)] = wt->as<float>()[((o * ws[1] + i) * ws[2] + kh) * ws[3] + kw];
      std::vector<float> bias(static_cast<size_t>(ws[0]), 0.f);
      if (bt) std::memcpy(bias.data(), bt->data, bias.size() * 4);
      const int64_t sh = (*strides)[0], sw = (*strides)[1];
      h = (h - ws[2]) / sh + 1, wd = (wd - ws[3]) / sw + 1, c = ws[0];
      const int wv = w.Tensor(base + "/Conv2D/filter", {int32_t(ws[0]), int32_t(ws[2]), int32_t(ws[3]), int32_t(ws[1])}, ohwi.data());
      const int bv = w.Tensor(base + "/BiasAdd/bias", {int32_t(ws[0])}, bias.data());
      const int y = w.Tensor(base + "/BiasAdd", {int32_t(n), int32_t(h), int32_t(wd), int32_t(c)});
      auto opt = tfl::CreateConv2DOptions(w.fbb(), tfl::Padding::VALID, int32_t(sw), int32_t(sh));
      w.Op(kConv, {x, wv, bv}, {y}, tfl::BuiltinOptions::Conv2DOptions, opt.Union());
      x = y;
    } else if (node.op == "Relu") {
      const int y = flat ? w.Tensor(base + "/Relu", {int32_t(n), int32_t(features)})
                         : w.Tensor(base + "/Relu", {int32_t(n), int32_t(h), int32_t(wd), int32_t(c)});
      w.Op(kRelu, {x}, {y});
      x = y;
    } else if (node.op == "Pad") {
      const tare::Tensor* pt = weight(node.inputs[1]);
      if (!pt || pt->numel() != 8) return Fail(node.Where() + ": needs constant pads for rank 4");
      std::vector<int64_t> p(8);
      for (int k = 0; k < 8; ++k) p[static_cast<size_t>(k)] = ReadInt(*pt, k);
      if (p[0] || p[1] || p[4] || p[5]) return Fail(node.Where() + ": only spatial padding");
      if (node.inputs.size() > 2 && node.inputs[2] >= 0) {
        const tare::Tensor* cv = weight(node.inputs[2]);
        if (!cv || ReadDouble(*cv, 0) != 0) return Fail(node.Where() + ": only zero padding");
      }
      h += p[2] + p[6], wd += p[3] + p[7];
      const int y = w.Tensor(base + "/Pad", {int32_t(n), int32_t(h), int32_t(wd), int32_t(c)});
      w.Op(kPad, {x, w.I32(base + "/Pad/paddings", {4, 2}, {0, 0, int32_t(p[2]), int32_t(p[6]), int32_t(p[3]), int32_t(p[7]), 0, 0})}, {y});
      x = y;
    } else if (node.op == "AveragePool" || node.op == "MaxPool") {
      Result<std::vector<int64_t>> k = node.GetInts("kernel_shape");
      Result<std::vector<int64_t>> s = node.GetInts("strides", {1, 1});
      Result<std::vector<int64_t>> pads = node.GetInts("pads", {0, 0, 0, 0});
      if (!k.ok() || k->size() != 2 || !s.ok() || !pads.ok() || (*pads)[0] || (*pads)[1] || (*pads)[2] || (*pads)[3])
        return Fail(node.Where() + ": only 2-D pools without padding");
      h = (h - (*k)[0]) / (*s)[0] + 1, wd = (wd - (*k)[1]) / (*s)[1] + 1;
      const int y = w.Tensor(base + (node.op == "MaxPool" ? "/MaxPool" : "/AvgPool"), {int32_t(n), int32_t(h), int32_t(wd), int32_t(c)});
      auto opt = tfl::CreatePool2DOptions(w.fbb(), tfl::Padding::VALID, int32_t((*s)[1]), int32_t((*s)[0]), int32_t((*k)[1]), int32_t((*k)[0]));
      w.Op(node.op == "MaxPool" ? kMaxPool : kAveragePool, {x}, {y}, tfl::BuiltinOptions::Pool2DOptions, opt.Union());
      x = y;
    } else if (node.op == "Flatten") {
      // PyTorch flattens C, H, W: back to NCHW first.
      const int t = w.Tensor(base + "/to_nchw", {int32_t(n), int32_t(c), int32_t(h), int32_t(wd)});
      w.Op(kTranspose, {x, w.I32(base + "/to_nchw/perm", {4}, {0, 3, 1, 2})}, {t});
      features = c * h * wd;
      const int y = w.Tensor(base + "/flatten/Reshape", {int32_t(n), int32_t(features)});
      w.Op(kReshape, {t, w.I32(base + "/flatten/shape", {2}, {-1, int32_t(features)})}, {y});
      x = y;
      flat = true;
    } else if (node.op == "Gemm") {
      const tare::Tensor* wt = weight(node.inputs[1]);
      const tare::Tensor* bt = node.inputs.size() > 2 ? weight(node.inputs[2]) : nullptr;
      Result<int64_t> tb = node.GetInt("transB", 0);
      if (!flat || !wt || wt->shape.size() != 2 || !tb.ok() || *tb != 1 || wt->shape[1] != features)
        return Fail(node.Where() + ": only Gemm(transB=1) after Flatten");
      const int64_t units = wt->shape[0];
      std::vector<float> bias(static_cast<size_t>(units), 0.f);
      if (bt) std::memcpy(bias.data(), bt->data, bias.size() * 4);
      const int wv = w.Tensor(base + "/MatMul/weights", {int32_t(units), int32_t(features)}, wt->as<float>());
      const int bv = w.Tensor(base + "/BiasAdd/bias", {int32_t(units)}, bias.data());
      features = units;
      const bool last = &node == &g.nodes.back();
      const int y = w.Tensor(last ? "Identity" : base + "/BiasAdd", {int32_t(n), int32_t(features)});
      auto opt = tfl::CreateFullyConnectedOptions(w.fbb());
      w.Op(kFullyConnected, {x, wv, bv}, {y}, tfl::BuiltinOptions::FullyConnectedOptions, opt.Union());
      x = y;
    } else if (node.op == "BatchNormalization" && flat) {
      const tare::Tensor* p[4];
      for (int k = 0; k < 4; ++k) {
        p[k] = node.inputs.size() > size_t(k + 1) ? weight(node.inputs[size_t(k + 1)]) : nullptr;
        if (!p[k] || p[k]->dtype != DType::kFloat32 || p[k]->numel() != features)
          return Fail(node.Where() + ": needs constant float32 scale, B, mean and var of " + std::to_string(features));
      }
      Result<float> eps = node.GetFloat("epsilon", 1e-5f);
      if (!eps.ok() || node.outputs.size() != 1) return Fail(node.Where() + ": only inference (one output)");
      std::vector<float> scale(static_cast<size_t>(features)), shift(scale.size());
      for (size_t i = 0; i < scale.size(); ++i) {
        scale[i] = p[0]->as<float>()[i] / std::sqrt(p[3]->as<float>()[i] + *eps);
        shift[i] = p[1]->as<float>()[i] - p[2]->as<float>()[i] * scale[i];
      }
      const int sv = w.Tensor(base + "/batchnorm/mul", {int32_t(features)}, scale.data());
      const int tv = w.Tensor(base + "/batchnorm/sub", {int32_t(features)}, shift.data());
      const int y1 = w.Tensor(base + "/batchnorm/mul_1", {int32_t(n), int32_t(features)});
      const int y2 = w.Tensor(base + "/batchnorm/add_1", {int32_t(n), int32_t(features)});
      w.Op(kMul, {x, sv}, {y1}, tfl::BuiltinOptions::MulOptions, tfl::CreateMulOptions(w.fbb()).Union());
      w.Op(kAdd, {y1, tv}, {y2}, tfl::BuiltinOptions::AddOptions, tfl::CreateAddOptions(w.fbb()).Union());
      x = y2;
    } else {
      return Fail(node.Where() + ": op outside the twin's subset");
    }
  }
  const std::vector<uint8_t> bytes = w.Finish({x_nchw}, {x});
  std::ofstream f(argv[2], std::ios::binary);
  if (!f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())))
    return Fail(std::string("cannot write ") + argv[2]);
  std::printf("wrote %s (%zu bytes)\n", argv[2], bytes.size());
  return 0;
}
