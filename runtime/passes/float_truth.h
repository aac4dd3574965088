// The float truth of a quantized model (issue 6): ref64 runs a graph with TFLite's quantized ops
// (domain "tflite": QConv2D, QFullyConnected, ..., Quantize, Dequantize; runtime/ops/tflite_quant.cc)
// as the real-valued function those integers approximate. Every quantized tensor is held as its
// real value, scale * (code - zero_point); weights and biases are dequantized (a bias by the scale
// TFLite's integer kernels give it, input scale * filter scale of its channel); each quantized op
// becomes the float ops it stands for, computed on ref64 in double without rounding, requantizing
// or saturating between layers. A quantized model's distance from its float truth is then one
// `tare compare` away (ref's integer run against ref64's).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/ir/graph.h"

namespace tare {

/// How a quantized tensor's codes map to real values: real = scales[c] * (code - zero_points[c]),
/// c = 0 (per tensor: one scale) or the index along `axis` (per channel).
struct ValueQuant {
  std::vector<float> scales;
  std::vector<int64_t> zero_points;
  int64_t axis = 0;
};

/// Whether the top level of `g` has a quantized op of domain "tflite".
bool HasTfliteQuantOps(const Graph& g);

/// The run-time quantized tensors of `g` (top level) by value id: the inputs and outputs of the
/// domain "tflite" ops (their x_/x2_/y_ scale and zero point attributes; Dequantize's x_scales,
/// x_zero_points and axis) and, per tensor, what layout-only ops (Reshape, Transpose, Squeeze,
/// Unsqueeze, Flatten, Identity, Gather's data, Slice, Pad: FloatTruth gives its padding code as a
/// real value) pass on, either way. Constants (weights,
/// biases) are not listed. Errors: a tensor given two different quantizations, a quantization
/// attribute of the wrong kind.
Result<std::map<int, ValueQuant>> QuantizedValues(const Graph& g);

/// `g` with every domain "tflite" quantized op replaced by the float ops of its real-valued
/// function (NHWC kept: Transposes around Conv and the pools), quantized graph inputs dequantized
/// where they enter (they are still fed as codes) and quantized outputs given as real values
/// (float32 declared; ref64 holds them in double). Value ids of the original graph are kept, with
/// their names (so traces of the two graphs line up); new values are named
/// "<tensor>/float_truth/<step>". Per op (x NHWC real, W and B dequantized constants):
///   QConv2D -> Transpose, Conv (group C/I, auto_pad SAME_UPPER = TFLite SAME, or VALID),
///     activation, Transpose; QDepthwiseConv2D likewise (group C); QFullyConnected -> Reshape
///     [-1, K] (keep_num_dims 0), MatMul by W^T, Add B, activation; QAdd / QMul -> Add / Mul,
///     activation; QAveragePool2D / QMaxPool2D -> AveragePool (count_include_pad 0) / MaxPool
///     between Transposes, activation; QSoftmax -> Mul by beta, Softmax over the last axis;
///     QLogistic -> Sigmoid; Quantize, Dequantize -> Identity. Activations: RELU -> Relu, RELU6 ->
///     Clip(0, 6), RELU_N1_TO_1 -> Clip(-1, 1).
/// Errors: what QuantizedValues reports; a non-layout op of another domain reading a quantized
/// tensor; quantized ops inside control-flow bodies; a conv whose input channel count is unknown.
Result<Graph> FloatTruth(const Graph& g);

/// The real values of `codes` (an integer tensor) as float64 of the same shape. Errors: a
/// non-integer tensor, a per-channel axis outside the rank or a scale count that does not match
/// that axis.
Result<Tensor> DequantizeCodes(const Tensor& codes, const ValueQuant& q);

}  // namespace tare
