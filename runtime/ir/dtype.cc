#include "runtime/ir/dtype.h"

namespace tare {

size_t DTypeSize(DType t) {
  switch (t) {
    case DType::kFloat32: case DType::kInt32: case DType::kUInt32: return 4;
    case DType::kUInt8: case DType::kInt8: case DType::kBool: return 1;
    case DType::kFloat8E4M3FN: case DType::kFloat8E4M3FNUZ: case DType::kFloat8E5M2: case DType::kFloat8E5M2FNUZ:
    case DType::kUInt4: case DType::kInt4: return 1;
    case DType::kUInt16: case DType::kInt16: case DType::kFloat16: case DType::kBFloat16: return 2;
    case DType::kInt64: case DType::kFloat64: case DType::kUInt64: return 8;
    default: return 0;
  }
}

std::string DTypeName(DType t) {
  switch (t) {
    case DType::kFloat32: return "float32";
    case DType::kUInt8: return "uint8";
    case DType::kInt8: return "int8";
    case DType::kUInt16: return "uint16";
    case DType::kInt16: return "int16";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
    case DType::kString: return "string";
    case DType::kBool: return "bool";
    case DType::kFloat16: return "float16";
    case DType::kFloat64: return "float64";
    case DType::kUInt32: return "uint32";
    case DType::kUInt64: return "uint64";
    case DType::kBFloat16: return "bfloat16";
    case DType::kFloat8E4M3FN: return "float8e4m3fn";
    case DType::kFloat8E4M3FNUZ: return "float8e4m3fnuz";
    case DType::kFloat8E5M2: return "float8e5m2";
    case DType::kFloat8E5M2FNUZ: return "float8e5m2fnuz";
    case DType::kUInt4: return "uint4";
    case DType::kInt4: return "int4";
    default: return "dtype(" + std::to_string(static_cast<int>(t)) + ")";
  }
}

bool DTypeIsValid(int32_t code) {
  return (code >= 1 && code <= 13) || (code >= 16 && code <= 22);
}

}  // namespace tare
