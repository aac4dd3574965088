// TF.js weights: the `weightsManifest` of a model.json and its binary shards, decoded as TF.js 4.x
// does (tfjs-core io `decodeWeights`).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/ir/tensor.h"
#include "runtime/status.h"

namespace tare {
namespace tfjs {

/// One weight entry of the manifest.
struct WeightSpec {
  std::string name;
  std::string dtype;  // float32 | int32 | bool (the decoded type)
  Shape shape;
  std::string quant;  // "" | uint8 | uint16 | float16 (quantization.dtype)
  double min = 0, scale = 1;  // uint8/uint16: value = q * scale + min
  bool has_min = false, has_scale = false;
};

/// One weight group: its shard files (relative to model.json) and its weights, in order.
struct WeightGroup {
  std::vector<std::string> paths;
  std::vector<WeightSpec> weights;
};

/// Decodes one group's weights from its shards' bytes concatenated in order. float32 and int32 are
/// read as stored (little endian), bool one byte each (nonzero is true, as a Uint8Array in TF.js); quantized entries are dequantized as
/// TF.js does: uint8 / uint16 codes q to float32(q * scale + min) computed in double (int32 weights:
/// round half up of it), float16 to float32 exactly. Errors (one line naming `where`, the weight
/// and the numbers): a negative dim or over 2^40 elements, an unknown dtype or quantization dtype,
/// uint8/uint16 without min and scale, the bytes running out, bytes left over after the last weight.
Status DecodeGroup(const WeightGroup& g, const uint8_t* data, size_t size, const std::string& where,
                   std::map<std::string, Tensor>* out);

}  // namespace tfjs
}  // namespace tare
