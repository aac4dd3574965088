// Helpers shared by the converters (ONNX, TFLite): digests and names for provenance, and
// LoadAnyModel, which picks the converter from the file name.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "format/model_file.h"

namespace tare {

/// Lower-case hex SHA-256 of the bytes (provenance: Provenance::source_sha256).
std::string Sha256Hex(const uint8_t* data, size_t size);
/// The last path component of `path`.
std::string BaseName(const std::string& path);
/// An int64 tensor of shape [v.size()] holding v (shapes, axes, pads the converters add).
Tensor Int64Vector(const std::vector<int64_t>& v);
/// A float32 scalar tensor.
Tensor Float32Scalar(float f);

/// Converts any model file tare reads, chosen by extension (.onnx, .tflite; .tare is loaded) or by
/// `from` ("onnx", "tflite", "tare"; empty = by extension). Errors: unknown extension or format,
/// and those of the converter or loader.
Result<std::shared_ptr<Model>> LoadAnyModel(const std::string& path, const std::string& from = "");

}  // namespace tare
