// A TFLite model under construction, through FlatBuffers' builder API and tare's schema subset
// (tflite_schema.fbs, namespace tare::tfl): tensors (run-time ones, constants with their own
// 16-byte aligned buffers), operators by builtin code and version (builtin_ops.h), one subgraph.
// Used by tare's TFLite writer (tflite_writer.h) and the test-model tool tools/make_tflite_ops.cc.
// Every call that touches the FlatBufferBuilder is its own statement (argument evaluation order is
// unspecified in C++, and the bytes depend on the order): the same calls give the same bytes.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tflite_schema_generated.h"

namespace tare::tflite {

class ModelBuilder {
 public:
  using Dims = std::vector<int32_t>;
  ModelBuilder() { buffers_.push_back(tfl::CreateBuffer(fbb_)); }  // buffer 0: the empty sentinel

  flatbuffers::FlatBufferBuilder& fbb() { return fbb_; }
  /// Shape and name of tensor t.
  Dims shape(int t) const { return infos_[static_cast<size_t>(t)].shape; }
  const std::string& tname(int t) const { return infos_[static_cast<size_t>(t)].name; }
  const std::vector<int>& inputs() const { return inputs_; }

  /// A run-time tensor (buffer 0, no data).
  int Act(const std::string& name, const Dims& shape, tfl::TensorType type = tfl::TensorType::FLOAT32,
          flatbuffers::Offset<tfl::QuantizationParameters> q = 0, bool variable = false) {
    return AddTensor(name, shape, type, 0, q, variable);
  }
  /// A run-time tensor that is a subgraph input (in call order).
  int Input(const std::string& name, const Dims& shape) {
    const int t = Act(name, shape);
    inputs_.push_back(t);
    return t;
  }
  /// Makes tensor t a subgraph output (in call order).
  void Output(int t) { outputs_.push_back(t); }

  /// A constant with raw little-endian bytes (its own buffer, 16-byte aligned as TFLite's writer does).
  int ConstBytes(const std::string& name, const Dims& shape, tfl::TensorType type, const void* bytes, size_t n,
                 flatbuffers::Offset<tfl::QuantizationParameters> q = 0) {
    fbb_.ForceVectorAlignment(n, 1, 16);
    const auto data = fbb_.CreateVector(static_cast<const uint8_t*>(bytes), n);
    const auto buf = tfl::CreateBuffer(fbb_, data);
    buffers_.push_back(buf);
    return AddTensor(name, shape, type, static_cast<uint32_t>(buffers_.size() - 1), q, false);
  }
  int ConstF(const std::string& name, const Dims& shape, const std::vector<float>& v) {
    return ConstBytes(name, shape, tfl::TensorType::FLOAT32, v.data(), v.size() * sizeof(float));
  }
  int ConstI32(const std::string& name, const Dims& shape, const std::vector<int32_t>& v) {
    return ConstBytes(name, shape, tfl::TensorType::INT32, v.data(), v.size() * sizeof(int32_t));
  }

  /// An operator: builtin `code` (builtin_ops.h) at `version`, reading tensors `in` (-1: omitted
  /// optional input) and writing `out`, with its options table.
  void Op(int code, int version, const std::vector<int>& in, const std::vector<int>& out,
          tfl::BuiltinOptions type = tfl::BuiltinOptions::NONE, flatbuffers::Offset<void> options = 0) {
    const auto key = std::make_pair(code, version);
    auto it = std::find(opcodes_.begin(), opcodes_.end(), key);
    const uint32_t index = static_cast<uint32_t>(it - opcodes_.begin());
    if (it == opcodes_.end()) opcodes_.push_back(key);
    const auto ins = fbb_.CreateVector(in);
    const auto outs = fbb_.CreateVector(out);
    const auto op = tfl::CreateOperator(fbb_, index, ins, outs, type, options);
    ops_.push_back(op);
  }

  /// The finished model's bytes (schema version 3, one subgraph "main"); `description` goes into
  /// the model's description field.
  std::vector<uint8_t> Finish(const std::string& description) {
    std::vector<flatbuffers::Offset<tfl::OperatorCode>> codes;
    for (const auto& [code, version] : opcodes_)
      codes.push_back(tfl::CreateOperatorCode(fbb_, static_cast<int8_t>(std::min(code, 127)), 0, version, code));
    const auto tensors = fbb_.CreateVector(tensors_);
    const auto ins = fbb_.CreateVector(inputs_);
    const auto outs = fbb_.CreateVector(outputs_);
    const auto ops = fbb_.CreateVector(ops_);
    const auto sg_name = fbb_.CreateString("main");
    const auto sg = tfl::CreateSubGraph(fbb_, tensors, ins, outs, ops, sg_name);
    const auto sgs = fbb_.CreateVector(&sg, 1);
    const auto code_vec = fbb_.CreateVector(codes);
    const auto bufs = fbb_.CreateVector(buffers_);
    const auto desc = fbb_.CreateString(description);
    const auto model = tfl::CreateModel(fbb_, 3, code_vec, sgs, desc, bufs);
    tfl::FinishModelBuffer(fbb_, model);
    return std::vector<uint8_t>(fbb_.GetBufferPointer(), fbb_.GetBufferPointer() + fbb_.GetSize());
  }

 private:
  struct Info {
    std::string name;
    Dims shape;
  };
  int AddTensor(const std::string& name, const Dims& shape, tfl::TensorType type, uint32_t buffer,
                flatbuffers::Offset<tfl::QuantizationParameters> q, bool variable) {
    const auto sh = fbb_.CreateVector(shape);
    const auto nm = fbb_.CreateString(name);
    const auto t = tfl::CreateTensor(fbb_, sh, type, buffer, nm, q, variable);
    tensors_.push_back(t);
    infos_.push_back({name, shape});
    return static_cast<int>(tensors_.size() - 1);
  }

  flatbuffers::FlatBufferBuilder fbb_{4096};
  std::vector<flatbuffers::Offset<tfl::Tensor>> tensors_;
  std::vector<flatbuffers::Offset<tfl::Buffer>> buffers_;
  std::vector<flatbuffers::Offset<tfl::Operator>> ops_;
  std::vector<std::pair<int, int>> opcodes_;
  std::vector<Info> infos_;
  std::vector<int> inputs_, outputs_;
};

}  // namespace tare::tflite
