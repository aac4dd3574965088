#include "runtime/ir/tensor.h"
#include "runtime/ir/float8.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <new>
#include <limits>
#include <type_traits>

namespace tare {

Result<int64_t> NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return Status::Error("shape " + ShapeStr(shape) + " has a negative or unknown dim");
    if (d != 0 && n > kMaxElements / d)
      return Status::Error("shape " + ShapeStr(shape) + " has more than 2^40 elements");
    n *= d;
  }
  return n;
}

std::string ShapeStr(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += shape[i] < 0 ? std::string("?") : std::to_string(shape[i]);
  }
  return s + "]";
}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

size_t Tensor::nbytes() const { return static_cast<size_t>(numel()) * DTypeSize(dtype); }

const char* ValueKindName(ValueKind k) {
  switch (k) {
    case ValueKind::kSequence: return "sequence";
    case ValueKind::kOptional: return "optional";
    default: return "tensor";
  }
}

Result<Tensor> Tensor::Alloc(DType dtype, const Shape& shape) {
  TARE_ASSIGN_OR_RETURN(int64_t n, NumElements(shape));
  if (dtype == DType::kString) {
    std::string* p = new (std::nothrow) std::string[static_cast<size_t>(std::max<int64_t>(n, 1))];
    if (!p) return Status::Error(StatusCode::kLimit, "out of memory allocating " + std::to_string(n) + " strings");
    Tensor t;
    t.dtype = dtype;
    t.shape = shape;
    t.data = p;
    t.owner = std::shared_ptr<void>(p, [](void* q) { delete[] static_cast<std::string*>(q); });
    return t;
  }
  size_t es = DTypeSize(dtype);
  if (es == 0) return Status::Error("cannot allocate a tensor of type " + DTypeName(dtype));
  // In 64 bits: 2^40 elements of 8 bytes would wrap a 32-bit size_t (WebAssembly) to a small size.
  const uint64_t wanted = static_cast<uint64_t>(n) * es;
  if (wanted > SIZE_MAX / 2)
    return Status::Error(StatusCode::kLimit, "a " + DTypeName(dtype) + " tensor of shape " + ShapeStr(shape) + " needs " +
                                                 std::to_string(wanted) + " bytes, more than this platform can address");
  size_t bytes = static_cast<size_t>((wanted + 63) / 64 * 64);
  if (bytes == 0) bytes = 64;
  void* p = std::aligned_alloc(64, bytes);
  if (!p) return Status::Error(StatusCode::kLimit, "out of memory allocating " + std::to_string(bytes) + " bytes");
  std::memset(p, 0, bytes);
  Tensor t;
  t.dtype = dtype;
  t.shape = shape;
  t.data = p;
  t.owner = std::shared_ptr<void>(p, std::free);
  return t;
}

Tensor Tensor::Sequence(DType elem, std::vector<Tensor> items) {
  Tensor t;
  t.kind = ValueKind::kSequence;
  t.dtype = elem;
  t.items = std::make_shared<const std::vector<Tensor>>(std::move(items));
  return t;
}

Tensor Tensor::Optional(DType elem, const Tensor* v) {
  Tensor t;
  t.kind = ValueKind::kOptional;
  t.dtype = elem;
  t.items = std::make_shared<const std::vector<Tensor>>(v ? std::vector<Tensor>{*v} : std::vector<Tensor>{});
  return t;
}

std::string TypeStr(const Tensor& t) {
  if (t.kind == ValueKind::kTensor) return DTypeName(t.dtype) + " " + ShapeStr(t.shape);
  if (t.kind == ValueKind::kSequence) return "sequence of " + DTypeName(t.dtype);
  if (t.items && !t.items->empty()) return "optional of " + TypeStr(t.items->front());
  return "optional (no value)";
}

Tensor Tensor::View(DType dtype, Shape shape, void* data, std::shared_ptr<void> owner) {
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.data = data;
  t.owner = std::move(owner);
  return t;
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  float v;
  if (exp == 0) v = std::ldexp(static_cast<float>(man), -24);
  else if (exp == 31) v = man ? NAN : INFINITY;
  else v = std::ldexp(static_cast<float>(man | 0x400), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

uint16_t FloatToBFloat16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  return static_cast<uint16_t>(x >> 16);
}

uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t ax = x & 0x7fffffff;
  if (ax > 0x7f800000) return static_cast<uint16_t>(sign | 0x7e00);  // NaN
  if (ax >= 0x477ff000) return static_cast<uint16_t>(sign | 0x7c00);  // overflow -> inf
  if (ax < 0x38800000) {  // subnormal half (or zero): round |f| * 2^24 to nearest even
    float a;
    std::memcpy(&a, &ax, 4);
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(a * 16777216.0f)));
  }
  uint32_t mant = ax & 0x7fffff, e = (ax >> 23) - 112;
  uint32_t h = (e << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;
  return static_cast<uint16_t>(sign | h);
}

#define TARE_FOR_EACH_DTYPE(X)                                                          \
  X(kFloat32, float) X(kFloat64, double) X(kInt64, int64_t) X(kInt32, int32_t)          \
  X(kInt16, int16_t) X(kInt8, int8_t) X(kUInt8, uint8_t) X(kUInt16, uint16_t)          \
  X(kUInt32, uint32_t) X(kUInt64, uint64_t) X(kBool, bool)

int64_t ReadInt(const Tensor& t, int64_t i) {
  switch (t.dtype) {
#define X(code, T) case DType::code: return static_cast<int64_t>(t.as<T>()[i]);
    TARE_FOR_EACH_DTYPE(X)
#undef X
    case DType::kFloat16: return static_cast<int64_t>(HalfToFloat(t.as<uint16_t>()[i]));
    case DType::kBFloat16: return static_cast<int64_t>(BFloat16ToFloat(t.as<uint16_t>()[i]));
    case DType::kInt4: return t.as<int8_t>()[i];
    case DType::kUInt4: return t.as<uint8_t>()[i];
    default:
      if (DTypeIsFloat8(t.dtype)) {
        const double v = Float8ToDouble(t.dtype, t.as<uint8_t>()[i]);
        return std::isfinite(v) ? static_cast<int64_t>(v) : 0;
      }
      return 0;
  }
}

double ReadDouble(const Tensor& t, int64_t i) {
  switch (t.dtype) {
#define X(code, T) case DType::code: return static_cast<double>(t.as<T>()[i]);
    TARE_FOR_EACH_DTYPE(X)
#undef X
    case DType::kFloat16: return HalfToFloat(t.as<uint16_t>()[i]);
    case DType::kBFloat16: return BFloat16ToFloat(t.as<uint16_t>()[i]);
    case DType::kInt4: return t.as<int8_t>()[i];
    case DType::kUInt4: return t.as<uint8_t>()[i];
    default: return DTypeIsFloat8(t.dtype) ? Float8ToDouble(t.dtype, t.as<uint8_t>()[i]) : 0;
  }
}

namespace {
// double -> T without undefined behaviour: integers truncate toward zero, saturate at the type's
// range, and take 0 for NaN; bool is v != 0; floating types convert as IEEE does.
template <class T>
T FromDouble(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0.0;
  } else if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v)) return 0;
    if (v <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
    if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  } else {
    return static_cast<T>(v);
  }
}
}  // namespace

void WriteDouble(Tensor& t, int64_t i, double v) {
  switch (t.dtype) {
#define X(code, T) case DType::code: t.as<T>()[i] = FromDouble<T>(v); break;
    TARE_FOR_EACH_DTYPE(X)
#undef X
    case DType::kFloat16: t.as<uint16_t>()[i] = FloatToHalf(static_cast<float>(v)); break;
    case DType::kBFloat16: t.as<uint16_t>()[i] = FloatToBFloat16(static_cast<float>(v)); break;
    case DType::kInt4: case DType::kUInt4:  // truncated toward zero, saturated to the range, NaN -> 0
      t.as<int8_t>()[i] = static_cast<int8_t>(
          std::isnan(v) ? 0 : std::min<double>(std::max<double>(std::trunc(v), Int4Lo(t.dtype)), Int4Hi(t.dtype)));
      break;
    default:
      if (DTypeIsFloat8(t.dtype)) t.as<uint8_t>()[i] = DoubleToFloat8(t.dtype, v, true);
      break;
  }
}

void WriteInt(Tensor& t, int64_t i, int64_t v) {
  switch (t.dtype) {
#define X(code, T) case DType::code: t.as<T>()[i] = static_cast<T>(v); break;
    TARE_FOR_EACH_DTYPE(X)
#undef X
    case DType::kFloat16: t.as<uint16_t>()[i] = FloatToHalf(static_cast<float>(v)); break;
    case DType::kBFloat16: t.as<uint16_t>()[i] = FloatToBFloat16(static_cast<float>(v)); break;
    case DType::kInt4: case DType::kUInt4: t.as<int8_t>()[i] = static_cast<int8_t>(WrapInt4(t.dtype, v)); break;
    default:
      if (DTypeIsFloat8(t.dtype)) t.as<uint8_t>()[i] = DoubleToFloat8(t.dtype, static_cast<double>(v), true);
      break;
  }
}

Result<Tensor> ConvertTensor(const Tensor& t, DType to) {
  if (t.kind != ValueKind::kTensor) {
    std::vector<Tensor> items;
    for (const Tensor& item : *t.items) {
      TARE_ASSIGN_OR_RETURN(Tensor c, ConvertTensor(item, to));
      items.push_back(std::move(c));
    }
    Tensor r = t;
    r.dtype = t.dtype == DType::kUndefined ? t.dtype : to;
    r.items = std::make_shared<const std::vector<Tensor>>(std::move(items));
    return r;
  }
  if ((t.dtype == DType::kString) != (to == DType::kString))
    return Status::Error("cannot convert " + DTypeName(t.dtype) + " to " + DTypeName(to));
  TARE_ASSIGN_OR_RETURN(Tensor out, Tensor::Alloc(to, t.shape));
  int64_t n = t.numel();
  if (to == DType::kString) {
    for (int64_t i = 0; i < n; ++i) out.as<std::string>()[i] = t.as<std::string>()[i];
    return out;
  }
  if (to == t.dtype) {
    if (n) std::memcpy(out.data, t.data, t.nbytes());
    return out;
  }
  auto is_float = [](DType d) { return DTypeIsFloat(d) || d == DType::kBFloat16 || DTypeIsFloat8(d); };
  bool int_path = !is_float(t.dtype) && !is_float(to);
  for (int64_t i = 0; i < n; ++i) {
    if (to == DType::kBool) out.as<bool>()[i] = int_path ? ReadInt(t, i) != 0 : ReadDouble(t, i) != 0.0;
    else if (int_path) WriteInt(out, i, ReadInt(t, i));
    else WriteDouble(out, i, ReadDouble(t, i));
  }
  return out;
}

}  // namespace tare
