#include "converters/converter_util.h"

#include <openssl/evp.h>

#include <filesystem>

#include "converters/onnx/onnx_converter.h"
#include "converters/tflite/tflite_converter.h"

namespace tare {

std::string Sha256Hex(const uint8_t* data, size_t size) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data, size, md, &len, EVP_sha256(), nullptr);
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (unsigned i = 0; i < len; ++i) s += hex[md[i] >> 4], s += hex[md[i] & 15];
  return s;
}

std::string BaseName(const std::string& path) {
  size_t p = path.find_last_of('/');
  return p == std::string::npos ? path : path.substr(p + 1);
}

Tensor Int64Vector(const std::vector<int64_t>& v) {
  Tensor t = Tensor::Alloc(DType::kInt64, {static_cast<int64_t>(v.size())}).value();
  for (size_t i = 0; i < v.size(); ++i) t.as<int64_t>()[i] = v[i];
  return t;
}

Tensor Float32Scalar(float f) {
  Tensor t = Tensor::Alloc(DType::kFloat32, {}).value();
  *t.as<float>() = f;
  return t;
}

Result<std::shared_ptr<Model>> LoadAnyModel(const std::string& path, const std::string& from) {
  std::string fmt = from;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Status::Error("'" + path + "' is a directory, not a model file");
  if (fmt.empty()) {
    size_t dot = path.find_last_of('.');
    fmt = dot == std::string::npos ? "" : path.substr(dot + 1);
  }
  if (fmt == "tare") return LoadModel(path);
  if (fmt == "onnx") return ConvertOnnxFile(path);
  if (fmt == "tflite") return ConvertTfliteFile(path);
  return Status::Error("cannot tell the format of '" + path + "' (use .onnx, .tflite or .tare, or --from onnx|tflite|tare)");
}

}  // namespace tare
