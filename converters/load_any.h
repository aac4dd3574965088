// LoadAnyModel: one entry point for every model file tare reads, above both converters.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "format/model_file.h"

namespace tare {

/// Converts any model file tare reads, chosen by the text after the path's last '.' (onnx, tflite,
/// json = a TF.js model.json; tare is loaded; case-sensitive) or by `from` ("onnx", "tflite",
/// "tfjs", "tare"; empty = by extension). Errors: `path` is a directory; an unknown extension (the message suggests the CLI's
/// --from); those of the converter or loader.
Result<std::shared_ptr<Model>> LoadAnyModel(const std::string& path, const std::string& from = "");
/// The files loading `path` reads (the model file; for a TF.js model.json also its shards), for
/// callers that must not overwrite them.
std::vector<std::string> SourceFiles(const std::string& path, const std::string& from = "");

}  // namespace tare
