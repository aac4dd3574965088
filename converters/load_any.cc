#include "converters/load_any.h"

#include <filesystem>

#include "converters/onnx/onnx_converter.h"
#include "converters/tfjs/tfjs_converter.h"
#include "converters/tflite/tflite_converter.h"

namespace tare {

Result<std::shared_ptr<Model>> LoadAnyModel(const std::string& path, const std::string& from) {
  std::string fmt = from;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Status::Error(StatusCode::kIO, "'" + path + "' is a directory, not a model file");
  if (fmt.empty()) {
    size_t dot = path.find_last_of('.');
    fmt = dot == std::string::npos ? "" : path.substr(dot + 1);
  }
  if (fmt == "tare") return LoadModel(path);
  if (fmt == "onnx") return ConvertOnnxFile(path);
  if (fmt == "tflite") return ConvertTfliteFile(path);
  if (fmt == "json" || fmt == "tfjs") return ConvertTfjsFile(path);
  return Status::Error(StatusCode::kUnsupported,
                       "cannot tell the format of '" + path + "' (use .onnx, .tflite, .json (TF.js model.json) or .tare, or --from onnx|tflite|tfjs|tare)");
}

std::vector<std::string> SourceFiles(const std::string& path, const std::string& from) {
  std::string fmt = from;
  if (fmt.empty()) {
    size_t dot = path.find_last_of('.');
    fmt = dot == std::string::npos ? "" : path.substr(dot + 1);
  }
  if (fmt == "json" || fmt == "tfjs") return TfjsSourceFiles(path);
  return {path};
}

}  // namespace tare
