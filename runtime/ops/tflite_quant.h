// Attribute readers of the quantized TFLite ops (TFLite CONV_2D, DEPTHWISE_CONV_2D,
// FULLY_CONNECTED, ADD, MUL, pools, SOFTMAX, LOGISTIC, QUANTIZE, DEQUANTIZE as tare's TfliteQuant
// family: docs/OPS.md), shared by shape inference (runtime/ops/tflite_quant.cc, which defines them)
// and the reference kernels (kernels/ref/tflite_quant.cc). Every error names the node.
#pragma once
#include <cstdint>

#include "kernels/quant/quant.h"
#include "runtime/ir/graph.h"

namespace tare {
namespace tflite_quant {
/// The quantized type of a tensor of dtype `t`. Errors: `t` is not int8, uint8 or int16 (`what`
/// names the tensor in the message).
Result<quant::QType> QTypeOf(const Node& n, DType t, const char* what);
/// The fused activation (attribute "activation": NONE, RELU, RELU6, RELU_N1_TO_1).
Result<quant::Activation> ReadActivation(const Node& n);
/// A per-tensor scale and zero point from the float attribute `scale` (required) and the int
/// attribute `zero_point` (default 0). Errors: no scale, a zero point outside [-32768, 65535].
Result<quant::TensorQuant> ReadQuant(const Node& n, const char* scale, const char* zero_point);
/// Padding "SAME" (true) or "VALID" (false); anything else is an error.
Result<bool> ReadSame(const Node& n);
/// The input (x_scale, x_zero_point), filter (w_scales, w_zero_points: one or one per output
/// channel, one zero point for all) and output (y_*) quantization, activation and bias_scale of a
/// conv / depthwise conv / fully connected node. `output_channels`: the op's O when known (shape
/// inference), 0 to take it from the count of w_scales. Errors name the attribute at fault.
Result<quant::ConvQuantInfo> ReadConvQuant(const Node& n, quant::QType type, int64_t output_channels);
}  // namespace tflite_quant
}  // namespace tare
