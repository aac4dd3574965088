// Helpers shared by the converters (ONNX, TFLite): digests and names for provenance, small
// constant tensors. (LoadAnyModel, which picks a converter: converters/load_any.h.)
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
/// SHA-256 over bytes given in pieces (a model read from several files); Hex() as Sha256Hex of
/// their concatenation.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void Update(const uint8_t* data, size_t size);
  std::string Hex();

 private:
  void* ctx_;  // EVP_MD_CTX
};
/// The last path component of `path`.
std::string BaseName(const std::string& path);
/// An int64 tensor of shape [v.size()] holding v (shapes, axes, pads the converters add).
Tensor Int64Vector(const std::vector<int64_t>& v);
/// A float32 scalar tensor.
Tensor Float32Scalar(float f);

}  // namespace tare
