// The per-op case table shared by the cpu backend's tests (tests/backends/cpu_test.cc checks every
// case against ref64 within the op's budget) and the per-op benchmarks (bench/op_bench.cc times
// them with Google Benchmark). The layers are those of the models in docs/PERFORMANCE.md (ResNet,
// MobileNetV2, SqueezeNet, VGG-16 on CIFAR, the LSTM text model, Silero VAD), at batch 1.
// No doctest here, so the benchmark binary can link it.
#pragma once
#include <string>
#include <vector>

#include "runtime/ir/graph.h"

namespace tare::test {

/// One op case: the node (attributes set, inputs/outputs filled by the user), its inputs (input 0
/// is the run-time input; the others are weights, known at plan time), the reduction length k
/// used in the error budget, and the multiply-adds per output element (0 when not a GEMM-like op).
struct OpCase {
  std::string name;  ///< "<model>/<layer>", e.g. "resnet18/layer1.conv3x3"
  Node node;
  std::vector<Tensor> inputs;
  double k = 1;
  double macs_per_output = 0;
};

/// The table, built once (inputs drawn from a fixed seed, uniform in [-1, 1)).
const std::vector<OpCase>& PerfOpCases();

/// The transformer, ConvNeXt and EfficientNet layers of issue 23 (MatMul, batched MatMul, Softmax,
/// ReduceMean, Pow, Erf, Tanh, Transpose, a 7 x 7 depthwise Conv, Sigmoid), built once like
/// PerfOpCases; checked on cpu by cpu_math_test.cc (the backend suite's table stays the classic
/// one), timed by bench/op_bench.cc.
const std::vector<OpCase>& TransformerOpCases();

/// A chain of nodes one fused step computes on the fast backends (issue 23), as PyTorch, Keras or
/// a transformer exports it, at a model's shape: the graph (run-time input "x", constants inside,
/// one output) and its input. Timed by bench/op_bench.cc beside the ops run one by one; each
/// fusion's results are tested in tests/backends/cpu_math_test.cc and onednn_test.cc.
struct ChainCase {
  std::string name;  ///< "<model>/<chain>", e.g. "vit_b_16/layernorm.decomposed"
  std::shared_ptr<Graph> graph;
  Tensor x;
};
/// LayerNorm (9 nodes), erf Gelu (5), tanh Gelu (9), SiLU (2), hard_swish (4) and attention's
/// MatMul, Div, Softmax, MatMul, built once from a fixed seed.
const std::vector<ChainCase>& ChainCases();

/// A graph of the case's node alone: input 0 is the graph input "x", the others constants; one
/// float32 output "y". Fills *feed with the input tensor.
std::shared_ptr<Graph> CaseGraph(const OpCase& c, Tensor* feed);

}  // namespace tare::test
