// The TFLite converter's operator table: builtin code -> translator (converter.h lists the files).
// One row per builtin code tare converts; a code without a row is "not supported" (Run collects
// every such operator into one message). QUANTIZE has no row: Converter::Quantized converts it
// (float -> int and int -> int alike) before the table is consulted.

#include <unordered_map>

#include "converters/tflite/converter.h"

namespace tare {
namespace tflite {

const OpEntry* Converter::FindOp(int code) {
  using C = Converter;
  // {code, {float translator, IR op for shared translators, quantized form, copies codes}}
  static const std::unordered_map<int, OpEntry> kTable = {
      // ops_conv.cc
      {CONV_2D, {&C::Conv, "", &C::QConv}},
      {DEPTHWISE_CONV_2D, {&C::Conv, "", &C::QConv}},
      {TRANSPOSE_CONV, {&C::TransposeConv}},
      {CUSTOM, {&C::Custom}},
      {AVERAGE_POOL_2D, {&C::Pool, "", &C::QPool}},
      {MAX_POOL_2D, {&C::Pool, "", &C::QPool}},
      {FULLY_CONNECTED, {&C::FullyConnected, "", &C::QFullyConnected}},
      {BATCH_MATMUL, {&C::BatchMatMul}},
      // ops_elementwise.cc
      {ADD, {&C::Binary, "Add", &C::QAddMul}},
      {SUB, {&C::Binary, "Sub"}},
      {MUL, {&C::Binary, "Mul", &C::QAddMul}},
      {DIV, {&C::Binary, "Div"}},
      {MAXIMUM, {&C::Binary, "Max"}},
      {MINIMUM, {&C::Binary, "Min"}},
      {PRELU, {&C::Binary, "PRelu"}},
      {RELU, {&C::Elementwise, "Relu"}},
      {RELU6, {&C::ClipActivation}},
      {RELU_N1_TO_1, {&C::ClipActivation}},
      {TANH, {&C::Elementwise, "Tanh"}},
      {LOGISTIC, {&C::Elementwise, "Sigmoid", &C::QLogistic}},
      {HARD_SWISH, {&C::Elementwise, "HardSwish"}},
      {EXP, {&C::Elementwise, "Exp"}},
      {SQRT, {&C::Elementwise, "Sqrt"}},
      {ABS, {&C::Elementwise, "Abs"}},
      {NEG, {&C::Elementwise, "Neg"}},
      {RSQRT, {&C::Rsqrt}},
      {SQUARE, {&C::Square}},
      {LEAKY_RELU, {&C::LeakyRelu}},
      {CAST, {&C::Cast}},
      // ops_reduce.cc
      {MEAN, {&C::Reduce, "ReduceMean"}},
      {SUM, {&C::Reduce, "ReduceSum"}},
      {REDUCE_MAX, {&C::Reduce, "ReduceMax"}},
      {REDUCE_MIN, {&C::Reduce, "ReduceMin"}},
      {SOFTMAX, {&C::Softmax, "", &C::QSoftmax}},
      {LOG_SOFTMAX, {&C::Softmax}},
      {L2_NORMALIZATION, {&C::L2Normalization}},
      // ops_shape.cc (the layout-only ones copy quantized codes)
      {RESHAPE, {&C::Reshape, "", nullptr, true}},
      {SQUEEZE, {&C::Squeeze, "", nullptr, true}},
      {EXPAND_DIMS, {&C::ExpandDims, "", nullptr, true}},
      {TRANSPOSE, {&C::Transpose, "", nullptr, true}},
      {GATHER, {&C::Gather, "", nullptr, true}},
      {SLICE, {&C::Slice, "", nullptr, true}},
      {STRIDED_SLICE, {&C::StridedSlice, "", nullptr, true}},
      {CONCATENATION, {&C::Concatenation}},
      {PAD, {&C::Pad, "", nullptr, true}},
      {PADV2, {&C::Pad, "", nullptr, true}},
      {PACK, {&C::Pack}},
      {UNPACK, {&C::Split}},
      {SPLIT, {&C::Split}},
      {RESIZE_BILINEAR, {&C::Resize}},
      {RESIZE_NEAREST_NEIGHBOR, {&C::Resize}},
      {DEPTH_TO_SPACE, {&C::DepthSpace}},
      {SPACE_TO_DEPTH, {&C::DepthSpace}},
      // ops_rnn.cc
      {UNIDIRECTIONAL_SEQUENCE_LSTM, {&C::Lstm}},
      // ops_quant.cc (float paths; quantized run-time inputs go through Quantized)
      {DEQUANTIZE, {&C::Dequantize}},
      {DENSIFY, {&C::DensifyOp}},
  };
  const auto it = kTable.find(code);
  return it == kTable.end() ? nullptr : &it->second;
}

}  // namespace tflite
}  // namespace tare
