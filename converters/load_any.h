// LoadAnyModel: one entry point for every model file tare reads, above both converters.
#pragma once
#include <memory>
#include <string>

#include "format/model_file.h"

namespace tare {

/// Converts any model file tare reads, chosen by extension (.onnx, .tflite; .tare is loaded) or by
/// `from` ("onnx", "tflite", "tare"; empty = by extension). Errors: unknown extension or format,
/// and those of the converter or loader.
Result<std::shared_ptr<Model>> LoadAnyModel(const std::string& path, const std::string& from = "");

}  // namespace tare
