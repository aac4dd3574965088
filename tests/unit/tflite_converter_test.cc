// TFLite converter on hand-built flatbuffers: each malformed or unsupported model gives one clear
// error (operators named by index, builtin name or custom code, and version), and a minimal valid
// model converts and runs with hand-computed values.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "converters/tflite/builtin_ops.h"
#include "converters/tflite/tflite_builder.h"
#include "converters/tflite/tflite_converter.h"
#include "runtime/session.h"
#include "tests/ops/op_test_util.h"
#include "tflite_schema_generated.h"

using namespace tare;
using namespace tare::test;
namespace tfl = tare::tfl;

namespace {

struct OpDesc {
  int builtin = 0;  // BuiltinOperator code (32 = CUSTOM)
  std::string custom;
  int version = 1;
};

/// A model: input tensor 0 float32 [1,4]; `ops` each read tensor 0 and write tensor k+1 [1,4];
/// the last op's output is the graph output. Tensor 0 may get a buffer index via `buffer_of_input`;
/// `extra_buffer` adds a buffer stored outside the flatbuffer at (offset, size).
std::vector<uint8_t> Build(const std::vector<OpDesc>& ops, uint32_t buffer_of_input = 0, uint64_t extra_offset = 0,
                           uint64_t extra_size = 0, int subgraphs = 1) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<tfl::Buffer>> buffers = {tfl::CreateBuffer(b)};
  if (extra_offset) buffers.push_back(tfl::CreateBuffer(b, 0, extra_offset, extra_size));
  std::vector<flatbuffers::Offset<tfl::Tensor>> tensors;
  const std::vector<int32_t> shape = {1, 4};
  for (size_t t = 0; t <= ops.size(); ++t)
    tensors.push_back(tfl::CreateTensor(b, b.CreateVector(shape), tfl::TensorType::FLOAT32, t == 0 ? buffer_of_input : 0,
                                        b.CreateString("t" + std::to_string(t))));
  std::vector<flatbuffers::Offset<tfl::OperatorCode>> codes;
  std::vector<flatbuffers::Offset<tfl::Operator>> operators;
  for (size_t k = 0; k < ops.size(); ++k) {
    const OpDesc& o = ops[k];
    codes.push_back(tfl::CreateOperatorCode(b, static_cast<int8_t>(o.builtin < 127 ? o.builtin : 127),
                                            o.custom.empty() ? 0 : b.CreateString(o.custom), o.version, o.builtin));
    std::vector<int32_t> in = {0}, out = {static_cast<int32_t>(k + 1)};
    operators.push_back(tfl::CreateOperator(b, static_cast<uint32_t>(k), b.CreateVector(in), b.CreateVector(out)));
  }
  std::vector<int32_t> gin = {0}, gout = {static_cast<int32_t>(ops.size())};
  std::vector<flatbuffers::Offset<tfl::SubGraph>> sgs;
  for (int s = 0; s < subgraphs; ++s)
    sgs.push_back(tfl::CreateSubGraph(b, b.CreateVector(tensors), b.CreateVector(gin), b.CreateVector(gout), b.CreateVector(operators)));
  auto model = tfl::CreateModel(b, 3, b.CreateVector(codes), b.CreateVector(sgs), 0, b.CreateVector(buffers));
  tfl::FinishModelBuffer(b, model);
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

std::string ConvertError(const std::vector<uint8_t>& bytes) {
  Result<std::shared_ptr<Model>> m = ConvertTfliteBytes(bytes.data(), bytes.size(), "case.tflite");
  return m.ok() ? "" : m.status().message();
}

}  // namespace

TEST_CASE("tflite: a minimal model converts and runs (RELU then LOGISTIC, hand-computed)") {
  std::vector<uint8_t> bytes = Build({{19, "", 1}});  // RELU
  Result<std::shared_ptr<Model>> m = ConvertTfliteBytes(bytes.data(), bytes.size(), "relu.tflite");
  REQUIRE_MESSAGE(m.ok(), m.status().message());
  SessionOptions o;
  auto s = Session::Create(std::shared_ptr<const Graph>(*m, &(*m)->graph), o);
  REQUIRE(s.ok());
  std::vector<NamedTensor> out;
  REQUIRE((*s)->Run({{"t0", F32({1, 4}, {-2, -0.5, 0, 3})}}, &out).ok());
  REQUIRE(out.size() == 1);
  CHECK(out[0].name == "t1");
  for (int i = 0; i < 4; ++i) CHECK(ReadDouble(out[0].tensor, i) == std::vector<double>{0, 0, 0, 3}[i]);
}

TEST_CASE("tflite: unsupported operators are all named, with index, builtin name or custom code, and version") {
  const std::string e = ConvertError(Build({{19, "", 1}, {32, "MyCustomOp", 2}, {131, "", 1}, {19, "", 1}}));
  CHECK(e.find("2 unsupported operator(s)") != std::string::npos);
  CHECK(e.find("operator 1 (custom 'MyCustomOp' v2)") != std::string::npos);
  CHECK(e.find("operator 2 (RFFT2D v1)") != std::string::npos);
  CHECK(e.find("case.tflite") != std::string::npos);
}

TEST_CASE("tflite: malformed files give one clear error") {
  const std::vector<uint8_t> good = Build({{19, "", 1}});
  // Not a TFLite file, empty, truncated, identifier changed.
  CHECK(ConvertError({}).find("is empty") != std::string::npos);
  std::vector<uint8_t> junk(64, 7);
  CHECK(ConvertError(junk).find("not a TFLite model") != std::string::npos);
  std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(good.size() / 2));
  CHECK(!ConvertError(cut).empty());
  // A tensor whose buffer index is out of range, and a buffer stored outside the file.
  CHECK(ConvertError(Build({{19, "", 1}}, 5)).find("refers to buffer 5, out of range") != std::string::npos);
  CHECK(ConvertError(Build({{19, "", 1}}, 1, 1u << 30, 16)).find("lies outside the file") != std::string::npos);
  // Control flow subgraphs are refused by name.
  CHECK(ConvertError(Build({{19, "", 1}}, 0, 0, 0, 2)).find("control flow") != std::string::npos);
}

TEST_CASE("tflite: a padding or fused activation outside TFLite's enums is refused, float and int8") {
  // CONV_2D 2x2 on [1,4,4,1] (float, or int8 with scales), and AVERAGE_POOL_2D: each with one bad
  // enum value, which TFLite's flatbuffer accepts but no kernel defines.
  const auto bad_pad = static_cast<tfl::Padding>(7);
  const auto bad_act = static_cast<tfl::ActivationFunctionType>(9);
  auto conv = [&](bool int8, tfl::Padding pad, tfl::ActivationFunctionType act) {
    tflite::ModelBuilder b;
    auto q = [&](float s) {
      const std::vector<float> sc = {s};
      const std::vector<int64_t> zp = {0};
      const auto sv = b.fbb().CreateVector(sc);
      const auto zv = b.fbb().CreateVector(zp);
      return tfl::CreateQuantizationParameters(b.fbb(), 0, 0, sv, zv);
    };
    const tfl::TensorType tt = int8 ? tfl::TensorType::INT8 : tfl::TensorType::FLOAT32;
    const int xf = b.Input("xf", {1, 4, 4, 1});
    int x = xf;
    if (int8) {
      x = b.Act("x", {1, 4, 4, 1}, tt, q(0.5f));
      b.Op(tflite::QUANTIZE, 1, {xf}, {x});
    }
    const std::vector<int8_t> w8(4, 1);
    const std::vector<int32_t> b32(1, 0);
    const int w = int8 ? b.ConstBytes("w", {1, 2, 2, 1}, tt, w8.data(), 4, q(0.25f)) : b.ConstF("w", {1, 2, 2, 1}, {1, 1, 1, 1});
    const int bias = int8 ? b.ConstBytes("b", {1}, tfl::TensorType::INT32, b32.data(), 4, q(0.125f)) : b.ConstF("b", {1}, {0});
    const int y = b.Act("y", {1, 3, 3, 1}, tt, int8 ? q(1.0f) : 0);
    const auto opt = tfl::CreateConv2DOptions(b.fbb(), pad, 1, 1, act);
    b.Op(tflite::CONV_2D, int8 ? 3 : 1, {x, w, bias}, {y}, tfl::BuiltinOptions::Conv2DOptions, opt.Union());
    b.Output(y);
    return ConvertError(b.Finish("enums"));
  };
  CHECK(conv(false, tfl::Padding::VALID, tfl::ActivationFunctionType::NONE).empty());
  CHECK(conv(false, bad_pad, tfl::ActivationFunctionType::NONE).find("padding 7 is neither SAME nor VALID") != std::string::npos);
  CHECK(conv(false, tfl::Padding::VALID, bad_act).find("fused activation 9") != std::string::npos);
  CHECK(conv(true, tfl::Padding::VALID, tfl::ActivationFunctionType::RELU).empty());
  CHECK(conv(true, bad_pad, tfl::ActivationFunctionType::NONE).find("padding 7 is neither SAME nor VALID") != std::string::npos);
  CHECK(conv(true, tfl::Padding::VALID, bad_act).find("fused activation 9 is not one of TFLite's") != std::string::npos);
  tflite::ModelBuilder b;
  const int x = b.Input("x", {1, 4, 4, 1});
  const int y = b.Act("y", {1, 2, 2, 1});
  const auto opt = tfl::CreatePool2DOptions(b.fbb(), bad_pad, 2, 2, 2, 2);
  b.Op(tflite::AVERAGE_POOL_2D, 1, {x}, {y}, tfl::BuiltinOptions::Pool2DOptions, opt.Union());
  b.Output(y);
  CHECK(ConvertError(b.Finish("pool")).find("padding 7 is neither SAME nor VALID") != std::string::npos);
}
