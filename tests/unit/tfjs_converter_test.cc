// TF.js converter on hand-written model.json texts and shards: the weights are decoded as TF.js
// decodes them (hand-computed values for uint8 / uint16 with min and scale, float16, int32), each
// malformed manifest, shard or graph gives one clear error, and unsupported ops and layers are all
// named with the file.
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "converters/tfjs/tfjs_converter.h"
#include "runtime/session.h"
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {

using Shards = std::map<std::string, std::vector<uint8_t>>;

/// A graph model: Placeholder x [1, n] float32, Const w (the manifest's one weight, `wspec`),
/// y = Mul(x, w); `extra_nodes` are appended to the node list.
std::string GraphJson(const std::string& wspec, const std::string& extra_nodes = "") {
  return R"({"format": "graph-model", "modelTopology": {"node": [
    {"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"}, "shape": {"shape": {"dim": [{"size": "1"}, {"size": "4"}]}}}},
    {"name": "w", "op": "Const", "attr": {"dtype": {"type": "DT_FLOAT"}}},
    {"name": "y", "op": "Mul", "input": ["x", "w"]})" + extra_nodes + R"(]},
    "weightsManifest": [{"paths": ["w.bin"], "weights": [)" + wspec + "]}]}";
}

std::vector<uint8_t> Bytes(const void* p, size_t n) {
  const uint8_t* b = static_cast<const uint8_t*>(p);
  return std::vector<uint8_t>(b, b + n);
}

std::string Error(const std::string& json, const Shards& shards) {
  Result<std::shared_ptr<Model>> m = ConvertTfjsBytes(json, shards, "dir/model.json");
  REQUIRE_FALSE(m.ok());
  return m.status().message();
}

/// Runs the converted graph on ref64 with x = [1, 1, 1, 1]: y = w.
std::vector<double> RunOnes(const std::string& json, const Shards& shards) {
  Result<std::shared_ptr<Model>> m = ConvertTfjsBytes(json, shards, "model.json");
  REQUIRE_MESSAGE(m.ok(), m.status().message());
  SessionOptions o;
  o.backends = {"ref64"};
  auto s = Session::Create(std::shared_ptr<const Graph>(*m, &(*m)->graph), o);
  REQUIRE(s.ok());
  std::vector<NamedTensor> out;
  REQUIRE((*s)->Run({{"x", F32({1, 4}, {1, 1, 1, 1})}}, &out).ok());
  REQUIRE(out.size() == 1);
  std::vector<double> v;
  for (int64_t i = 0; i < out[0].tensor.numel(); ++i) v.push_back(ReadDouble(out[0].tensor, i));
  return v;
}

}  // namespace

TEST_CASE("tfjs: uint8 weights dequantize as TF.js does: float32(q * scale + min)") {
  const uint8_t q[4] = {0, 1, 128, 255};
  const std::string spec = R"({"name": "w", "shape": [4], "dtype": "float32", "quantization": {"dtype": "uint8", "min": -1.0, "scale": 0.01}})";
  const std::vector<double> y = RunOnes(GraphJson(spec), {{"w.bin", Bytes(q, 4)}});
  const double want[4] = {-1.0, -0.99, 0.28, 1.55};  // q * 0.01 - 1, in float32
  for (int i = 0; i < 4; ++i) CHECK(y[i] == static_cast<double>(static_cast<float>(want[i])));
}

TEST_CASE("tfjs: uint16 and float16 weights") {
  const uint16_t q[4] = {0, 1000, 40000, 65535};
  const std::string s16 = R"({"name": "w", "shape": [4], "dtype": "float32", "quantization": {"dtype": "uint16", "min": 0.5, "scale": 0.0001}})";
  std::vector<double> y = RunOnes(GraphJson(s16), {{"w.bin", Bytes(q, 8)}});
  CHECK(y[0] == static_cast<double>(0.5f));
  CHECK(y[1] == static_cast<double>(static_cast<float>(1000 * 0.0001 + 0.5)));
  CHECK(y[3] == static_cast<double>(static_cast<float>(65535 * 0.0001 + 0.5)));
  const uint16_t h[4] = {0x3C00, 0xC000, 0x3555, 0x7BFF};  // 1, -2, 0.333251953125, 65504
  const std::string sh = R"({"name": "w", "shape": [4], "dtype": "float32", "quantization": {"dtype": "float16"}})";
  y = RunOnes(GraphJson(sh), {{"w.bin", Bytes(h, 8)}});
  CHECK(y == std::vector<double>{1.0, -2.0, 0.333251953125, 65504.0});
}

TEST_CASE("tfjs: a short shard, bytes left over, a bad quantization entry: one error each") {
  const float w[4] = {1, 2, 3, 4};
  const std::string spec = R"({"name": "w", "shape": [4], "dtype": "float32"})";
  std::string e = Error(GraphJson(spec), {{"w.bin", Bytes(w, 12)}});
  CHECK(e.find("weight 'w' needs 16 bytes") != std::string::npos);
  CHECK(e.find("model.json") != std::string::npos);
  std::vector<uint8_t> more = Bytes(w, 16);
  more.push_back(0);
  e = Error(GraphJson(spec), {{"w.bin", more}});
  CHECK(e.find("hold 17 bytes but the manifest's weights take 16") != std::string::npos);
  e = Error(GraphJson(spec), {});
  CHECK(e.find("weight shard 'w.bin' is missing") != std::string::npos);
  e = Error(GraphJson(R"({"name": "w", "shape": [4], "dtype": "float32", "quantization": {"dtype": "uint8", "scale": 0.1}})"),
            {{"w.bin", Bytes(w, 4)}});
  CHECK(e.find("uint8 quantization needs both 'min' and 'scale'") != std::string::npos);
  e = Error(GraphJson(R"({"name": "w", "shape": [4], "dtype": "float32", "quantization": {"dtype": "int4", "min": 0, "scale": 1}})"),
            {{"w.bin", Bytes(w, 4)}});
  CHECK(e.find("quantization dtype 'int4'") != std::string::npos);
  e = Error(GraphJson(R"({"name": "w", "shape": [4], "dtype": "string"})"), {{"w.bin", Bytes(w, 16)}});
  CHECK(e.find("dtype 'string'") != std::string::npos);
  e = Error(GraphJson(R"({"name": "w", "shape": [1099511627776, 1099511627776], "dtype": "float32"})"), {{"w.bin", Bytes(w, 16)}});
  CHECK(e.find("over 2^40 elements") != std::string::npos);
  e = Error(GraphJson(R"({"name": "w", "shape": [-4], "dtype": "float32"})"), {{"w.bin", Bytes(w, 16)}});
  CHECK(e.find("negative dim") != std::string::npos);
  e = Error(GraphJson(R"({"name": "w", "shape": "four", "dtype": "float32"})"), {{"w.bin", Bytes(w, 16)}});
  CHECK(e.find("must have a name, a shape and a dtype") != std::string::npos);
}

TEST_CASE("tfjs: malformed model.json and graphs") {
  CHECK(Error("{\"modelTopology\": ", {}).find("is not valid JSON") != std::string::npos);
  CHECK(Error("[1, 2]", {}).find("no modelTopology") != std::string::npos);
  const float w[4] = {1, 2, 3, 4};
  const std::string spec = R"({"name": "w", "shape": [4], "dtype": "float32"})";
  // Two unsupported ops, both named, with the file.
  std::string e = Error(GraphJson(spec, R"(, {"name": "u1", "op": "FooBar", "input": ["y"]}, {"name": "u2", "op": "TensorListScatter", "input": ["u1"]})"),
                        {{"w.bin", Bytes(w, 16)}});
  CHECK(e.find("model.json: 2 unsupported op(s): node 'u1' (FooBar); node 'u2' (TensorListScatter)") != std::string::npos);
  // A cycle, a missing input, an attribute of the wrong JSON type.
  e = Error(GraphJson(spec, R"(, {"name": "a", "op": "Relu", "input": ["b"]}, {"name": "b", "op": "Relu", "input": ["a"]})"), {{"w.bin", Bytes(w, 16)}});
  CHECK(e.find("cycle through node") != std::string::npos);
  e = Error(GraphJson(spec, R"(, {"name": "a", "op": "Relu", "input": ["nothing:0"]})"), {{"w.bin", Bytes(w, 16)}});
  CHECK(e.find("node 'a' reads 'nothing', which no node writes") != std::string::npos);
  e = Error(GraphJson(spec, R"(, {"name": "p", "op": "MaxPool", "input": ["y"], "attr": {"ksize": {"list": {"i": ["1", "2"]}}}})"),
            {{"w.bin", Bytes(w, 16)}});
  CHECK(e.find("node 'p' (MaxPool)") != std::string::npos);
}

TEST_CASE("tfjs: TF1 control flow that does not form a while loop is refused, naming the node") {
  const float w[4] = {1, 2, 3, 4};
  const std::string spec = R"({"name": "w", "shape": [4], "dtype": "float32"})";
  const Shards sh = {{"w.bin", Bytes(w, 16)}};
  const std::string frame = R"("attr": {"frame_name": {"s": "bG9vcA=="}})";  // "loop"
  // A Switch that no Merge joins (neither a while loop's nor a tf.cond's); a Merge of two conds.
  std::string e = Error(GraphJson(spec, R"(, {"name": "p", "op": "Less", "input": ["x", "y"]}, {"name": "s", "op": "Switch", "input": ["y", "p"]},
      {"name": "r", "op": "Relu", "input": ["s:1"]})"), sh);
  CHECK(e.find("node 's' (Switch): Switch outside a while loop and not part of a tf.cond") != std::string::npos);
  e = Error(GraphJson(spec, R"(, {"name": "p", "op": "Less", "input": ["x", "y"]}, {"name": "q", "op": "Less", "input": ["y", "x"]},
      {"name": "s", "op": "Switch", "input": ["y", "p"]}, {"name": "t", "op": "Switch", "input": ["y", "q"]}, {"name": "m", "op": "Merge", "input": ["s", "t:1"]})"), sh);
  CHECK(e.find("node 'm' (Merge): a Merge that does not join the two branches of one tf.cond") != std::string::npos);
  // An Enter without its frame; a loop variable whose Merge has no NextIteration; no LoopCond.
  e = Error(GraphJson(spec, R"(, {"name": "e", "op": "Enter", "input": ["y"]})"), sh);
  CHECK(e.find("node 'e' (Enter): an Enter without a frame_name") != std::string::npos);
  e = Error(GraphJson(spec, R"(, {"name": "e", "op": "Enter", "input": ["y"], )" + frame + R"(}, {"name": "m", "op": "Merge", "input": ["e", "y"]},
      {"name": "c", "op": "Less", "input": ["m", "m"]}, {"name": "lc", "op": "LoopCond", "input": ["c"]})"), sh);
  CHECK(e.find("node 'm' (Merge): a loop Merge must read its Enter and a NextIteration") != std::string::npos);
  e = Error(GraphJson(spec, R"(, {"name": "e", "op": "Enter", "input": ["y"], )" + frame + R"(}, {"name": "m", "op": "Merge", "input": ["e", "e"]})"), sh);
  CHECK(e.find("while loop 'loop' has no LoopCond") != std::string::npos);
  // An output read from inside the loop other than through an Exit.
  e = Error(GraphJson(spec, R"(, {"name": "e", "op": "Enter", "input": ["y"], )" + frame + R"(}, {"name": "m", "op": "Merge", "input": ["e", "n"]},
      {"name": "c", "op": "Less", "input": ["m", "m"]}, {"name": "lc", "op": "LoopCond", "input": ["c"]}, {"name": "s", "op": "Switch", "input": ["m", "lc"]},
      {"name": "b", "op": "Relu", "input": ["s:1"]}, {"name": "n", "op": "NextIteration", "input": ["b"]}, {"name": "x2", "op": "Exit", "input": ["s"]},
      {"name": "out", "op": "Relu", "input": ["b"]})"), sh);
  CHECK(e.find("output 'out' is inside while loop 'loop' (a value leaves a loop only through an Exit)") != std::string::npos);
}

TEST_CASE("tfjs: layers models: unsupported layers all named; a missing weight") {
  const std::string layers = R"({"modelTopology": {"model_config": {"class_name": "Sequential", "config": {"name": "s", "layers": [
    {"class_name": "Dense", "config": {"name": "d", "units": 2, "batch_input_shape": [null, 3]}},
    {"class_name": "Lambda", "config": {"name": "l1"}}, {"class_name": "Frobnicate", "config": {"name": "l2"}}]}}},
    "weightsManifest": []})";
  const std::string e = Error(layers, {});
  CHECK(e.find("model.json: 2 unsupported layer(s): layer 'l1' (Lambda); layer 'l2' (Frobnicate)") != std::string::npos);
  const std::string dense = R"({"modelTopology": {"model_config": {"class_name": "Sequential", "config": {"name": "s", "layers": [
    {"class_name": "Dense", "config": {"name": "d", "units": 2, "batch_input_shape": [null, 3]}}]}}}, "weightsManifest": []})";
  CHECK(Error(dense, {}).find("layer 'd' (Dense): its weight 'd/kernel' is not in the weights manifest") != std::string::npos);
}

TEST_CASE("tfjs: a shard path outside model.json's folder is refused") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "tare_tfjs_test";
  fs::create_directories(dir);
  std::string json = GraphJson(R"({"name": "w", "shape": [4], "dtype": "float32"})");
  json.replace(json.find("\"w.bin\""), 7, "\"../w.bin\"");
  std::ofstream(dir / "model.json") << json;
  Result<std::shared_ptr<Model>> m = ConvertTfjsFile((dir / "model.json").string());
  REQUIRE_FALSE(m.ok());
  CHECK(m.status().message().find("leaves model.json's folder") != std::string::npos);
  std::ofstream(dir / "model.json") << GraphJson(R"({"name": "w", "shape": [4], "dtype": "float32"})");
  m = ConvertTfjsFile((dir / "model.json").string());
  REQUIRE_FALSE(m.ok());
  CHECK(m.status().message().find("is missing") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("tfjs: inputs that would multiply their bytes or escape are refused (a shard listed twice, a symlink out, an inline bomb)") {
  const float w[4] = {1, 2, 3, 4};
  std::string json = GraphJson(R"({"name": "w", "shape": [4], "dtype": "float32"})");
  json.replace(json.find("[\"w.bin\"]"), 9, "[\"w.bin\", \"w.bin\"]");
  CHECK(Error(json, {{"w.bin", Bytes(w, 16)}}).find("weight shard 'w.bin' is listed twice") != std::string::npos);
  // A Const whose inline value repeats its last element over 2^31 elements.
  const std::string bomb = R"({"format": "graph-model", "modelTopology": {"node": [{"name": "c", "op": "Const", "attr": {"value":
    {"tensor": {"dtype": "DT_FLOAT", "tensorShape": {"dim": [{"size": "16777216"}, {"size": "128"}]}, "floatVal": [1.0]}}}},
    {"name": "y", "op": "Identity", "input": ["c"]}]}})";
  CHECK(Error(bomb, {}).find("an inline constant of 2147483648 elements") != std::string::npos);
  // A shard that is a symbolic link out of model.json's folder.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "tare_tfjs_link_test";
  fs::remove_all(dir);
  fs::create_directories(dir / "m");
  std::ofstream(dir / "outside.bin", std::ios::binary).write(reinterpret_cast<const char*>(w), 16);
  fs::create_symlink(dir / "outside.bin", dir / "m" / "w.bin");
  std::ofstream(dir / "m" / "model.json") << GraphJson(R"({"name": "w", "shape": [4], "dtype": "float32"})");
  Result<std::shared_ptr<Model>> m = ConvertTfjsFile((dir / "m" / "model.json").string());
  REQUIRE_FALSE(m.ok());
  CHECK(m.status().message().find("leads out of model.json's folder") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("tfjs: layers models: duplicate names, a name clashing with a call's tensor, a recurrent kernel of the wrong dtype") {
  auto model = [](const std::string& layers) {
    return R"({"modelTopology": {"model_config": {"class_name": "Model", "config": {"name": "m", "layers": [)" + layers +
           R"(], "input_layers": [["in", 0, 0]], "output_layers": [["a", 0, 0]]}}}, "weightsManifest": []})";
  };
  const std::string in = R"({"class_name": "InputLayer", "name": "in", "config": {"name": "in", "batch_input_shape": [null, 4]}, "inbound_nodes": []})";
  const std::string relu = R"({"class_name": "Activation", "name": "a", "config": {"name": "a", "activation": "relu"}, "inbound_nodes": [[["in", 0, 0, {}]]]})";
  CHECK(Error(model(in + ", " + relu + ", " + relu), {}).find("two layers are named 'a'") != std::string::npos);
  const std::string twice = R"({"class_name": "Activation", "name": "a", "config": {"name": "a", "activation": "relu"},
    "inbound_nodes": [[["in", 0, 0, {}]], [["in", 0, 0, {}]]]})";
  const std::string clash = R"({"class_name": "Activation", "name": "a/call_1", "config": {"name": "a/call_1", "activation": "sigmoid"}, "inbound_nodes": [[["in", 0, 0, {}]]]})";
  CHECK(Error(model(in + ", " + twice + ", " + clash), {}).find("has the name tare gives the call 1 of layer 'a'") != std::string::npos);
  // An LSTM whose kernel is stored as bool: refused, not read as float.
  const std::string lstm = R"({"modelTopology": {"model_config": {"class_name": "Sequential", "config": {"name": "s", "layers": [
    {"class_name": "LSTM", "config": {"name": "l", "units": 1, "batch_input_shape": [null, 2, 1]}}]}}},
    "weightsManifest": [{"paths": ["w.bin"], "weights": [{"name": "l/kernel", "shape": [1, 4], "dtype": "bool"},
      {"name": "l/recurrent_kernel", "shape": [1, 4], "dtype": "float32"}, {"name": "l/bias", "shape": [4], "dtype": "float32"}]}]})";
  std::vector<uint8_t> bytes(4 + 16 + 16, 0);
  CHECK(Error(lstm, {{"w.bin", bytes}}).find("its weight 'l/kernel' is bool, not float32") != std::string::npos);
}
