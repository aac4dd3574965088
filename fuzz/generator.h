// The model generator of `tare fuzz` (issue 24): random valid float32 models of one to a few dozen
// nodes, from recipes for the ops of tare's op table (runtime/ops/op_list.inc) that every float
// backend shares: elementwise (unary and broadcasting binary), Conv, pooling, normalizations,
// Softmax, reductions, MatMul/Gemm, and data movement. A recipe proposes a node on values already
// in the graph with attributes drawn over their whole valid range and biased to the edges
// (padding larger than the kernel, dilations, strides larger than the input, size-1 broadcast
// dims, negative axes, ceil modes, group = channels, half-pixel and align-corners modes); the op's
// own shape inference (its OpSpec) decides whether the node is valid, and a rejected proposal is
// dropped, so no model the specification rejects is written. Input values are biased to hard
// cases: ties for rounding, denormals, large magnitudes, and (sometimes) NaN and inf.
// Deterministic: one seed gives one model, on every machine.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "format/model_file.h"
#include "runtime/session.h"

namespace tare::fuzz {

/// Limits of the generated models.
struct GenOptions {
  int max_nodes = 8;           ///< nodes per model, at most (at least 1)
  int64_t max_elements = 4096; ///< elements of any value, at most
  bool special_values = true;  ///< NaN, inf, denormals and huge values among the inputs
};

/// A generated model and its inputs (float32, one per graph input, by name).
struct FuzzCase {
  uint64_t seed = 0;
  std::shared_ptr<Model> model;
  std::vector<NamedTensor> inputs;
};

/// The model of `seed`: 1 to options.max_nodes nodes (fewer when proposals keep failing shape
/// inference), one or two graph inputs, every node's first output reachable from a graph output.
/// Errors: none expected (a seed whose every proposal fails gives a one-node Relu model).
FuzzCase Generate(uint64_t seed, const GenOptions& options = {});

/// The ops the generator's recipes write (for docs and `tare fuzz --help`).
std::vector<std::string> GeneratorOps();

}  // namespace tare::fuzz
