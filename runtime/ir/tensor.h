// Tensor: a dtype, a shape and a pointer to dense row-major data, with shared ownership of the
// storage (a heap block, the session arena or the mmapped model file).
#pragma once
#include <cstdint>
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

/// Dense row-major tensor. Copying a Tensor shares its storage.
struct Tensor {
  DType dtype = DType::kUndefined;
  Shape shape;
  void* data = nullptr;
  std::shared_ptr<void> owner;  ///< keeps `data` alive; may be null for borrowed views

  /// Product of dims (shape must be fully known and valid).
  int64_t numel() const;
  /// numel() * DTypeSize(dtype).
  size_t nbytes() const;
  template <class T> T* as() { return static_cast<T*>(data); }
  template <class T> const T* as() const { return static_cast<const T*>(data); }

  /// Allocates zero-filled, 64-byte aligned storage. Errors: invalid shape, too many elements.
  static Result<Tensor> Alloc(DType dtype, const Shape& shape);
  /// A view of existing memory (no ownership unless `owner` is given).
  static Tensor View(DType dtype, Shape shape, void* data, std::shared_ptr<void> owner = nullptr);
};

/// Reads element i of an integer or bool tensor as int64 (for shape arithmetic and indices).
int64_t ReadInt(const Tensor& t, int64_t i);
/// Reads element i of any numeric tensor as double.
double ReadDouble(const Tensor& t, int64_t i);
/// Writes v to element i: integers truncate toward zero and saturate (NaN -> 0), bool is v != 0,
/// float16 rounds to nearest even (via float).
void WriteDouble(Tensor& t, int64_t i, double v);
/// Writes an integer v to element i (exact for integer types).
void WriteInt(Tensor& t, int64_t i, int64_t v);
/// Copies a tensor, converting its elements to `to` (float->int truncates toward zero, as C++).
Result<Tensor> ConvertTensor(const Tensor& t, DType to);
/// IEEE half <-> float conversions (round to nearest even).
float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);

}  // namespace tare
