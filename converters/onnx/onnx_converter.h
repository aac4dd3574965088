// ONNX (opsets 7 to 17) to tare's IR. The converter only translates: initializers and Constant
// nodes become weights; ops whose older opsets carried operands as attributes are rewritten to the
// newest form the IR uses (e.g. Squeeze-11 axes attribute -> Squeeze-13 axes input, Upsample ->
// Resize with explicit coordinate_transformation_mode and nearest_mode, Softmax-11 -> Softmax with
// legacy_2d=1), so no kernel has to know which opset a model came from.
#pragma once
#include <memory>
#include <string>

#include "converters/converter_util.h"
#include "format/model_file.h"
#include "runtime/session.h"

namespace tare {

/// Converts the ONNX model at `path`. Errors (one line): unreadable or empty file, protobuf parse
/// failure, opset outside 7..17, external data, malformed tensors (size does not match dims,
/// bad dtype), and — all in one message — every node whose op tare does not support, each with
/// its node name, op, domain and opset.
Result<std::shared_ptr<Model>> ConvertOnnxFile(const std::string& path);
/// Same from bytes; `name` is used in messages and provenance.
Result<std::shared_ptr<Model>> ConvertOnnxBytes(const uint8_t* data, size_t size, const std::string& name);

/// Reads a serialized ONNX TensorProto (.pb, as in the ONNX backend test data). Returns the tensor
/// and its name (may be empty). Errors: parse failure, unsupported dtype, size mismatch.
Result<NamedTensor> ReadTensorProtoFile(const std::string& path);
/// Reads a serialized ONNX value of the given kind: a TensorProto (kTensor), a SequenceProto of
/// tensors (kSequence) or an OptionalProto holding a tensor, a sequence or nothing (kOptional), as
/// the ONNX backend test data stores them. Errors: parse failure, maps, nested sequences, bad tensors.
Result<NamedTensor> ReadValueProtoFile(const std::string& path, ValueKind kind);
/// The same from bytes (`name` is used in messages).
Result<NamedTensor> ParseValueProto(const uint8_t* data, size_t size, const std::string& name, ValueKind kind);


}  // namespace tare
