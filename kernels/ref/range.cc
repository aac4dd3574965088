// Reference kernel of Range (semantics: runtime/ops/range.cc). y[i] = start + i * delta:
// integers exactly (in int64, wrapping like the storage type), floats evaluated in double and
// rounded once to the storage type (T for float32 data), so `ref` is ref64 rounded once.
#include <cstdint>

#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// Fills y (storage type S) with start + i * delta computed in double.
template <class S>
void FillFloat(const Tensor& s, const Tensor& d, Tensor& y) {
  const double start = ReadDouble(s, 0), delta = ReadDouble(d, 0);
  S* p = y.as<S>();
  for (int64_t i = 0, n = y.numel(); i < n; ++i) p[i] = static_cast<S>(start + static_cast<double>(i) * delta);
}

/// Fills y (integer storage type S) with start + i * delta in wrapping 64-bit arithmetic.
template <class S>
void FillInt(const Tensor& s, const Tensor& d, Tensor& y) {
  const uint64_t start = static_cast<uint64_t>(ReadInt(s, 0)), delta = static_cast<uint64_t>(ReadInt(d, 0));
  S* p = y.as<S>();
  for (int64_t i = 0, n = y.numel(); i < n; ++i) p[i] = static_cast<S>(start + static_cast<uint64_t>(i) * delta);
}

}  // namespace

template <class T>
Result<KernelFn> MakeRange(const Node&) {
  return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& s = *in[0];
    const Tensor& d = *in[2];
    Tensor& y = *out[0];
    switch (y.dtype) {
      case DType::kFloat32: FillFloat<float>(s, d, y); break;
      case DType::kFloat64: FillFloat<double>(s, d, y); break;
      case DType::kInt16: FillInt<int16_t>(s, d, y); break;
      case DType::kInt32: FillInt<int32_t>(s, d, y); break;
      case DType::kInt64: FillInt<int64_t>(s, d, y); break;
      default: return Status::Error("Range: unsupported dtype " + DTypeName(y.dtype));
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Range)

}  // namespace tare
