// TFLite (.tflite flatbuffers, identifier "TFL3", TensorFlow Lite's mobile export) to tare's IR.
//
// Layout: TFLite activations are NHWC; the IR keeps ONNX's NCHW. Graph inputs and outputs keep
// TFLite's shapes (NHWC, as the interpreter takes and gives them). Inside, each rank-4 tensor is
// carried in NCHW wherever the op that reads it has an NCHW form (Conv, pools, resize,
// depth-to-space, elementwise ops, Concat, Pad, Mean), and converted back to NHWC (a Transpose)
// only where an op needs TFLite's own order (Reshape, FullyConnected, Softmax over the last axis,
// StridedSlice, ...), so a plain CNN has one Transpose after its input and one before each output.
// Weights are permuted at conversion (OHWI -> OIHW). A value carrying a TFLite tensor in NCHW has
// the tensor's name (the graph's outputs excepted: there the NHWC value has it), so layers of a
// TFLite model and of its ONNX twin compare by name.
//
// Constants: float16 weights (DEQUANTIZE of a constant), sparse weights (DENSIFY) and int8/uint8
// weights with scales (DEQUANTIZE) are turned into float32 weights at conversion, as TFLite
// computes them (float(q - zero_point) * scale, rounded once). Buffers may live inside the
// flatbuffer or after it (Buffer.offset/size); every index, offset and length is checked.
// Fused activations RELU, RELU6, RELU_N1_TO_1 become their own nodes; TANH and SIGN_BIT are not
// applied, as TFLite's float kernels do not apply them (an unbounded activation range).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "format/model_file.h"

namespace tare {

/// Converts the .tflite model at `path`. Errors (one line): unreadable or empty file, not a TFLite
/// flatbuffer (identifier, verification), more than one subgraph, a buffer index or offset out of
/// range, a malformed tensor (data size vs shape and type), and, all in one message, every operator
/// tare does not support with its index in the subgraph, builtin name (or custom code) and version.
Result<std::shared_ptr<Model>> ConvertTfliteFile(const std::string& path);
/// Same from bytes; `name` is used in messages and provenance.
Result<std::shared_ptr<Model>> ConvertTfliteBytes(const uint8_t* data, size_t size, const std::string& name);

}  // namespace tare
