// Element types. The numbering is ONNX TensorProto.DataType's, so converters and the .tare format
// store the same codes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace tare {

/// Element type of a tensor; values equal ONNX TensorProto.DataType.
enum class DType : int32_t {
  kUndefined = 0,
  kFloat32 = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kFloat64 = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kBFloat16 = 16,
  kFloat8E4M3FN = 17,    ///< float8: one byte per element, its code (runtime/ir/float8.h)
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUInt4 = 21,           ///< one element per byte in tare (packed two per byte in ONNX files)
  kInt4 = 22,
};

/// Bytes per element; 0 for kUndefined and kString (string tensors hold std::string elements,
/// which are not plain data: see Tensor::Alloc).
size_t DTypeSize(DType t);
/// Lower-case name ("float32", "int64", ...); "dtype(N)" for unknown codes.
std::string DTypeName(DType t);
/// True for a code tare knows how to store (every enum value above except kUndefined).
bool DTypeIsValid(int32_t code);
/// True for floating-point types (float16, float32, float64).
inline bool DTypeIsFloat(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat64 || t == DType::kFloat16;
}

}  // namespace tare
