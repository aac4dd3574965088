// tare's TFLite writer (issue 24): a float32 graph of tare's IR written as a .tflite flatbuffer, for
// the ops whose TFLite builtins compute what ONNX specifies, with no layout change (tare fuzz runs
// its generated models on LiteRT.js through it), and that tare's TFLite converter reads back (so
// the round trip is tested). The subset, ONNX -> TFLite builtin:
//   Relu RELU, Tanh TANH, Sigmoid LOGISTIC, Exp EXP, Sqrt SQRT, Abs ABS, Neg NEG, LeakyRelu
//   LEAKY_RELU;
//   Add ADD, Sub SUB, Mul MUL, Div DIV, Max MAXIMUM, Min MINIMUM (two inputs, rank <= 4, numpy
//   broadcasting);
//   Clip MAXIMUM then MINIMUM (constant bounds);
//   MatMul BATCH_MATMUL (both ranks 2 to 4);
//   Softmax SOFTMAX, LogSoftmax LOG_SOFTMAX (the last axis, opset 13 or later);
//   Transpose TRANSPOSE, Concat CONCATENATION, Reshape RESHAPE (to its static output shape);
//   ReduceMean MEAN, ReduceSum SUM, ReduceMax REDUCE_MAX, ReduceMin REDUCE_MIN (constant axes, or
//   all axes).
// Anything else (Conv and pooling, which are NCHW in tare's IR and NHWC in TFLite, among them) is
// refused with the node named.
#pragma once
#include <string>

#include "runtime/ir/graph.h"
#include "runtime/status.h"

namespace tare {

/// "" when WriteTfliteModel can write `g`, else why not (the first node or value it cannot
/// express, named).
std::string TfliteInexpressible(const Graph& g);

/// Writes `g` as a TFLite model at `path`: graph inputs and outputs in order, under their names;
/// constants as buffers. Errors: what TfliteInexpressible says; a file that cannot be written.
Status WriteTfliteModel(const Graph& g, const std::string& path);

}  // namespace tare
