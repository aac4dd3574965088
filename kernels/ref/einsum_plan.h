// ONNX Einsum-12's equation resolved on concrete input shapes, shared by the reference kernel
// (kernels/ref/einsum.cc) and the cpu backend's contractions (backends/cpu/einsum.cc). Each input
// dim gets a label id: letters 0..51 in ASCII order (A-Z, then a-z), "..." dims 52 + their
// right-aligned position among the equation's "..." dims. Shape inference (InferEinsum) has
// validated the equation against the shapes before this runs.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/ir/tensor.h"

namespace tare {

/// The equation for concrete shapes: per input the label id of each dim, the output's label ids,
/// the summed label ids (by first appearance in the inputs), and each label's size (1 only where
/// every dim with that label is 1).
struct EinsumPlan {
  std::vector<std::vector<int>> labels;  ///< per input, the label id of each dim
  std::vector<int> out;                  ///< label ids of the output dims
  std::vector<int> summed;               ///< summed label ids, by first appearance
  std::vector<int64_t> size;             ///< size of each label id
};

/// Resolves `equation` (spaces ignored; explicit "->" output, or implicit: the "..." dims, then
/// the letters that appear exactly once, in ASCII order) for inputs of shapes `in`.
EinsumPlan MakeEinsumPlan(const std::string& equation, const std::vector<Shape>& in);

}  // namespace tare
