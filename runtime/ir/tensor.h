// Tensor: a dtype, a shape and a pointer to dense row-major data, with shared ownership of the
// storage (a heap block, the session arena or the mmapped model file).
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/ir/dtype.h"
#include "runtime/status.h"

namespace tare {

/// Dimensions, outermost first. In a graph's declared shapes a negative dim means "unknown".
using Shape = std::vector<int64_t>;

/// Largest element count tare accepts for one tensor (2^40): anything larger is a malformed
/// model or input, not a real tensor.
constexpr int64_t kMaxElements = int64_t(1) << 40;

/// Element count of a fully known shape; error on a negative dim or when the product overflows
/// or exceeds kMaxElements.
Result<int64_t> NumElements(const Shape& shape);
/// "[1,3,224,224]" ("?" for unknown dims).
std::string ShapeStr(const Shape& shape);

/// What a value is, as in ONNX's TypeProto: a tensor, a sequence of tensors, or an optional
/// (holding nothing, a tensor or a sequence).
enum class ValueKind : uint8_t { kTensor = 0, kSequence = 1, kOptional = 2 };
/// "tensor", "sequence", "optional".
const char* ValueKindName(ValueKind k);

/// Dense row-major tensor, or (kind != kTensor) a sequence or optional value. Copying a Tensor
/// shares its storage. String tensors (dtype kString) hold std::string elements.
struct Tensor {
  DType dtype = DType::kUndefined;  ///< for sequences and optionals: the element type (may be kUndefined)
  Shape shape;                      ///< unused ({}) for sequences and optionals
  void* data = nullptr;
  std::shared_ptr<void> owner;  ///< keeps `data` alive; may be null for borrowed views
  ValueKind kind = ValueKind::kTensor;
  /// kSequence: the elements (tensors). kOptional: empty for "no value", else the one contained
  /// value (a tensor or a sequence). Unused for tensors.
  std::shared_ptr<const std::vector<Tensor>> items;

  /// Product of dims (shape must be fully known and valid).
  int64_t numel() const;
  /// numel() * DTypeSize(dtype).
  size_t nbytes() const;
  template <class T> T* as() { return static_cast<T*>(data); }
  template <class T> const T* as() const { return static_cast<const T*>(data); }

  /// Allocates zero-filled, 64-byte aligned storage (string tensors: empty strings). Errors: invalid
  /// shape, too many elements, a dtype without storage (kUndefined).
  static Result<Tensor> Alloc(DType dtype, const Shape& shape);
  /// A sequence of `items` (each a tensor of element type `elem`).
  static Tensor Sequence(DType elem, std::vector<Tensor> items);
  /// An optional holding `v` (a tensor or a sequence), or nothing when `v` is null.
  static Tensor Optional(DType elem, const Tensor* v);
  bool is_tensor() const { return kind == ValueKind::kTensor; }
  /// A view of existing memory (no ownership unless `owner` is given).
  static Tensor View(DType dtype, Shape shape, void* data, std::shared_ptr<void> owner = nullptr);
};

/// Reads element i of an integer or bool tensor as int64 (for shape arithmetic and indices).
int64_t ReadInt(const Tensor& t, int64_t i);
/// Reads element i of any numeric tensor as double.
double ReadDouble(const Tensor& t, int64_t i);
/// Writes v to element i: integers truncate toward zero and saturate (NaN -> 0), bool is v != 0,
/// float16 rounds to nearest even (via float); int4/uint4 truncate and saturate to their range;
/// float8 rounds to nearest even, saturating (runtime/ir/float8.h).
void WriteDouble(Tensor& t, int64_t i, double v);
/// Writes an integer v to element i (exact for integer types; wider integers wrap, int4/uint4 keep
/// the low four bits as ONNX Cast-21 says).
void WriteInt(Tensor& t, int64_t i, int64_t v);
/// Copies a tensor, converting its elements to `to` (float->int truncates toward zero, as C++;
/// float->bfloat16 truncates the float32 bit pattern, as ONNX's Cast-13 reference does). Sequences
/// and optionals are copied item by item, each converted to `to`. Errors: string <-> other types
/// (see Cast for those), allocation failures.
Result<Tensor> ConvertTensor(const Tensor& t, DType to);
/// "float32 [1,3]", "sequence of float32", "optional of ...": a value's type for messages.
std::string TypeStr(const Tensor& t);
/// IEEE half <-> float conversions (round to nearest even).
float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);
/// bfloat16 (the upper 16 bits of a float32) <-> float. FloatToBFloat16 truncates (NaN stays NaN).
/// Inline: the cpu backend's elementwise rounding loops call them per element.
inline float BFloat16ToFloat(uint16_t h) {
  const uint32_t x = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}
uint16_t FloatToBFloat16(float f);
/// The bfloat16 nearest to f, ties to even (NaN stays NaN, a carry past the largest value gives inf).
inline uint16_t FloatToBFloat16Nearest(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  if ((b & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((b >> 16) | 0x40);
  b += 0x7fffu + ((b >> 16) & 1u);  // a carry into the exponent rounds up correctly (to inf at the top)
  return static_cast<uint16_t>(b >> 16);
}

}  // namespace tare
