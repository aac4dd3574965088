#include "converters/tfjs/weights.h"

#include <cmath>
#include <cstring>

namespace tare {
namespace tfjs {

Status DecodeGroup(const WeightGroup& g, const uint8_t* data, size_t size, const std::string& where,
                   std::map<std::string, Tensor>* out) {
  size_t off = 0;
  for (const WeightSpec& w : g.weights) {
    const std::string what = where + ": weight '" + w.name + "'";
    int64_t n = 1;
    for (int64_t d : w.shape) {
      if (d < 0) return Status::Error(what + " has a negative dim in shape " + ShapeStr(w.shape));
      if (d > 0 && n > (int64_t(1) << 40) / d) return Status::Error(what + ": shape " + ShapeStr(w.shape) + " has over 2^40 elements");
      n *= d;
    }
    DType dt;
    if (w.dtype == "float32") dt = DType::kFloat32;
    else if (w.dtype == "int32") dt = DType::kInt32;
    else if (w.dtype == "bool") dt = DType::kBool;
    else return Status::Error(what + " has dtype '" + w.dtype + "' (tare reads float32, int32 and bool weights)");
    size_t es = DTypeSize(dt);
    if (w.quant == "uint8") es = 1;
    else if (w.quant == "uint16" || w.quant == "float16") es = 2;
    else if (!w.quant.empty()) return Status::Error(what + " has quantization dtype '" + w.quant + "' (uint8, uint16 or float16)");
    if ((w.quant == "uint8" || w.quant == "uint16") && (!w.has_min || !w.has_scale))
      return Status::Error(what + ": " + w.quant + " quantization needs both 'min' and 'scale'");
    if ((w.quant == "uint8" || w.quant == "uint16") && (!std::isfinite(w.min) || !std::isfinite(w.scale)))
      return Status::Error(what + ": quantization min and scale must be finite");
    if (w.quant == "float16" && dt != DType::kFloat32) return Status::Error(what + ": float16 quantization of a " + w.dtype + " weight");
    const uint64_t bytes = static_cast<uint64_t>(n) * es;
    if (bytes > size - off)
      return Status::Error(what + " needs " + std::to_string(bytes) + " bytes at offset " + std::to_string(off) + ", but the group's shards hold " +
                           std::to_string(size) + " bytes in all (a missing or short shard?)");
    TARE_ASSIGN_OR_RETURN(Tensor t, Tensor::Alloc(dt, w.shape));
    const uint8_t* p = data + off;
    if (w.quant.empty() && dt == DType::kBool) {
      uint8_t* b = static_cast<uint8_t*>(t.data);  // TF.js's Uint8Array: any nonzero byte is true
      for (int64_t i = 0; i < n; ++i) b[i] = p[i] != 0;
    } else if (w.quant.empty()) {
      if (bytes) std::memcpy(t.data, p, bytes);
    } else if (w.quant == "float16") {
      float* f = static_cast<float*>(t.data);
      for (int64_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, p + 2 * i, 2);
        f[i] = HalfToFloat(h);
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        uint32_t q;
        if (es == 1) {
          q = p[i];
        } else {
          uint16_t h;
          std::memcpy(&h, p + 2 * i, 2);
          q = h;
        }
        const double v = static_cast<double>(q) * w.scale + w.min;  // JavaScript's double arithmetic
        if (dt == DType::kFloat32) static_cast<float*>(t.data)[i] = static_cast<float>(v);
        else if (dt == DType::kInt32) static_cast<int32_t*>(t.data)[i] = static_cast<int32_t>(std::floor(v + 0.5));  // Math.round
        else static_cast<uint8_t*>(t.data)[i] = v != 0;
      }
    }
    off += bytes;
    (*out)[w.name] = std::move(t);
  }
  if (off != size)
    return Status::Error(where + ": the shards hold " + std::to_string(size) + " bytes but the manifest's weights take " + std::to_string(off));
  return Status::Ok();
}

}  // namespace tfjs
}  // namespace tare
