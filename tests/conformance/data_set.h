// The inputs of one data set of an ONNX backend test case (test_data_set_N/input_K.pb), shared by
// the conformance runner (runner.cc) and the bit-identity checker (tests/bitid/ref_hashes.cc).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "converters/onnx/onnx_converter.h"

namespace tare {

/// input_0.pb, input_1.pb, ... of `set`, bound to the graph's inputs in order (a bfloat16 input
/// stored by numpy as uint16 bits gets its dtype back). Errors: more files than graph inputs, a
/// file that does not parse (ParseValueProto's message).
inline Result<std::vector<NamedTensor>> ReadDataSetInputs(const std::filesystem::path& set, const Graph& g) {
  std::vector<NamedTensor> in;
  for (size_t i = 0;; ++i) {
    const std::filesystem::path p = set / ("input_" + std::to_string(i) + ".pb");
    if (!std::filesystem::exists(p)) break;
    if (i >= g.inputs.size()) return Status::Error("more input files than graph inputs");
    Result<NamedTensor> t = ReadValueProtoFile(p.string(), g.values[g.inputs[i]].kind);
    if (!t.ok()) return t.status();
    if (g.values[g.inputs[i]].dtype == DType::kBFloat16 && t->tensor.dtype == DType::kUInt16)
      t->tensor.dtype = DType::kBFloat16;  // numpy has no bfloat16: ONNX stores the bit patterns as uint16
    in.push_back({g.values[g.inputs[i]].name, t->tensor});
  }
  return in;
}

}  // namespace tare
