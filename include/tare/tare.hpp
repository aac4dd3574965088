// tare's C++ API: header-only C++17 RAII wrappers over the C API (tare/tare.h), as ONNX Runtime's
// C++ API wraps its C API. Handles free themselves; every failure throws tare::Error with the C
// API's code and its one-line message. docs/EMBEDDING.md has a complete example.
//   tare::Model model = tare::Model::Load("lenet5.tare");
//   tare::Session session(model, tare::Options().Backends("cpu,ref").Threads(2));
//   tare::Tensor x = tare::Tensor::View(pixels.data(), {2, 1, 28, 28});
//   session.Run({{"input", x}});
//   tare::TensorView y = session.Output(0);  // y.Data<float>(), y.Shape(); valid until the next Run
#ifndef TARE_TARE_HPP_
#define TARE_TARE_HPP_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tare/tare.h"

namespace tare {

/// A failed call: code() is the C API's tare_status, what() its message (tare_last_error()).
class Error : public std::runtime_error {
 public:
  Error(tare_status code, const std::string& message) : std::runtime_error(message), code_(code) {}
  tare_status code() const noexcept { return code_; }

 private:
  tare_status code_;
};

/// Throws tare::Error for a failed status (with this thread's last error message).
inline void Check(tare_status status) {
  if (status != TARE_OK) throw Error(status, tare_last_error());
}

/// The tare_dtype of a C++ element type (float, double, int8_t ... uint64_t, bool).
template <class T>
constexpr tare_dtype DTypeOf() {
  if constexpr (std::is_same_v<T, float>) return TARE_DTYPE_FLOAT32;
  else if constexpr (std::is_same_v<T, double>) return TARE_DTYPE_FLOAT64;
  else if constexpr (std::is_same_v<T, bool>) return TARE_DTYPE_BOOL;
  else if constexpr (std::is_same_v<T, int8_t>) return TARE_DTYPE_INT8;
  else if constexpr (std::is_same_v<T, uint8_t>) return TARE_DTYPE_UINT8;
  else if constexpr (std::is_same_v<T, int16_t>) return TARE_DTYPE_INT16;
  else if constexpr (std::is_same_v<T, uint16_t>) return TARE_DTYPE_UINT16;
  else if constexpr (std::is_same_v<T, int32_t>) return TARE_DTYPE_INT32;
  else if constexpr (std::is_same_v<T, uint32_t>) return TARE_DTYPE_UINT32;
  else if constexpr (std::is_same_v<T, int64_t>) return TARE_DTYPE_INT64;
  else if constexpr (std::is_same_v<T, uint64_t>) return TARE_DTYPE_UINT64;
  else static_assert(sizeof(T) == 0, "no tare_dtype for this type");
}

/// A graph input or output: name, dtype, shape (-1 for a dynamic dim; rank_known false when the
/// model does not declare the rank).
struct TensorInfo {
  std::string name;
  tare_dtype dtype = TARE_DTYPE_UNDEFINED;
  std::vector<int64_t> shape;
  bool rank_known = false;
};

/// A non-owning view of a tensor owned elsewhere (a session's output, valid until its next Run).
class TensorView {
 public:
  explicit TensorView(const tare_tensor* t) : t_(t) {}
  tare_dtype DType() const { tare_dtype d; Check(tare_tensor_info(t_, &d, nullptr, nullptr, nullptr, nullptr)); return d; }
  std::vector<int64_t> Shape() const {
    const int64_t* dims = nullptr;
    size_t rank = 0;
    Check(tare_tensor_info(t_, nullptr, &dims, &rank, nullptr, nullptr));
    std::vector<int64_t> shape(rank);
    for (size_t i = 0; i < rank; ++i) shape[i] = dims[i];
    return shape;
  }
  /// Bytes of data.
  size_t Bytes() const { size_t b; Check(tare_tensor_info(t_, nullptr, nullptr, nullptr, nullptr, &b)); return b; }
  /// Number of elements.
  size_t Size() const {
    const int64_t* dims = nullptr;
    size_t rank = 0, n = 1;
    Check(tare_tensor_info(t_, nullptr, &dims, &rank, nullptr, nullptr));
    for (size_t i = 0; i < rank; ++i) n *= static_cast<size_t>(dims[i]);
    return n;
  }
  /// The data as T; throws tare::Error (TARE_ERROR_INVALID_ARGUMENT) when T is not the dtype.
  template <class T>
  const T* Data() const {
    const void* p = nullptr;
    tare_dtype d;
    Check(tare_tensor_info(t_, &d, nullptr, nullptr, &p, nullptr));
    if (d != DTypeOf<T>())
      throw Error(TARE_ERROR_INVALID_ARGUMENT, "the tensor's dtype is tare_dtype " + std::to_string(d) + ", not " +
                                                   std::to_string(DTypeOf<T>()) + " as asked (tare/tare.h lists the codes)");
    return static_cast<const T*>(p);
  }
  const tare_tensor* get() const { return t_; }

 private:
  const tare_tensor* t_;
};

/// An input tensor viewing the caller's memory (not copied: it must outlive the runs it is used in).
class Tensor {
 public:
  /// A view of `data` with `shape`, its dtype from T.
  template <class T>
  static Tensor View(const T* data, const std::vector<int64_t>& shape) {
    size_t n = 1;
    for (int64_t d : shape) n *= d < 0 ? 0 : static_cast<size_t>(d);
    return View(DTypeOf<T>(), data, n * sizeof(T), shape);
  }
  /// A view of `bytes` bytes of `data` of `dtype` with `shape` (the C API checks that they agree).
  static Tensor View(tare_dtype dtype, const void* data, size_t bytes, const std::vector<int64_t>& shape) {
    tare_tensor* t = nullptr;
    Check(tare_tensor_create(dtype, shape.data(), shape.size(), data, bytes, &t));
    return Tensor(t);
  }
  Tensor(Tensor&& o) noexcept : t_(std::exchange(o.t_, nullptr)) {}
  Tensor& operator=(Tensor&& o) noexcept { std::swap(t_, o.t_); return *this; }
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  ~Tensor() { tare_tensor_free(t_); }
  const tare_tensor* get() const { return t_; }

 private:
  explicit Tensor(tare_tensor* t) : t_(t) {}
  tare_tensor* t_;
};

/// A loaded model (tare_model_load): shared by any number of sessions, which may outlive it.
class Model {
 public:
  /// Loads a .tare file (or .onnx / .tflite when the converter library is linked).
  static Model Load(const std::string& path) {
    tare_model* m = nullptr;
    Check(tare_model_load(path.c_str(), &m));
    return Model(m);
  }
  /// Loads a .tare image from the caller's 64-byte-aligned memory, used in place (see tare_model_load_buffer).
  static Model FromBuffer(const void* data, size_t bytes) {
    tare_model* m = nullptr;
    Check(tare_model_load_buffer(data, bytes, &m));
    return Model(m);
  }
  Model(Model&& o) noexcept : m_(std::exchange(o.m_, nullptr)) {}
  Model& operator=(Model&& o) noexcept { std::swap(m_, o.m_); return *this; }
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  ~Model() { tare_model_free(m_); }
  std::vector<TensorInfo> Inputs() const { return Infos(TARE_INPUT); }
  std::vector<TensorInfo> Outputs() const { return Infos(TARE_OUTPUT); }
  const tare_model* get() const { return m_; }

 private:
  explicit Model(tare_model* m) : m_(m) {}
  std::vector<TensorInfo> Infos(tare_io io) const {
    size_t n = 0;
    Check(tare_model_io_count(m_, io, &n));
    std::vector<TensorInfo> out(n);
    for (size_t i = 0; i < n; ++i) {
      const char* name = nullptr;
      const int64_t* dims = nullptr;
      int64_t rank = -1;
      Check(tare_model_io(m_, io, i, &name, &out[i].dtype, &dims, &rank));
      out[i].name = name;
      out[i].rank_known = rank >= 0;
      for (int64_t d = 0; d < rank; ++d) out[i].shape.push_back(dims[d]);
    }
    return out;
  }
  tare_model* m_;
};

/// Session options (tare_options_*); setters chain and throw on a bad value.
class Options {
 public:
  Options() { Check(tare_options_create(&o_)); }
  Options(Options&& o) noexcept : o_(std::exchange(o.o_, nullptr)) {}
  Options& operator=(Options&& o) noexcept { std::swap(o_, o.o_); return *this; }
  Options(const Options&) = delete;
  Options& operator=(const Options&) = delete;
  ~Options() { tare_options_free(o_); }
  /// Backend priority list, e.g. "cpu,ref".
  Options& Backends(const std::string& list) { Check(tare_options_set_backends(o_, list.c_str())); return *this; }
  Options& Threads(int n) { Check(tare_options_set_threads(o_, n)); return *this; }
  Options& MaxTensorBytes(uint64_t bytes) { Check(tare_options_set_max_tensor_bytes(o_, bytes)); return *this; }
  Options& MaxArenaBytes(uint64_t bytes) { Check(tare_options_set_max_arena_bytes(o_, bytes)); return *this; }
  /// Keeps a value (its source tensor name; "*" for every node's output) after each run.
  Options& Trace(const std::string& value) { Check(tare_options_add_trace(o_, value.c_str())); return *this; }
  const tare_options* get() const { return o_; }

 private:
  tare_options* o_ = nullptr;
};

/// A model prepared to run (tare_session_*). One Run at a time per session; one session per thread.
class Session {
 public:
  explicit Session(const Model& model) { Check(tare_session_create(model.get(), nullptr, &s_)); }
  Session(const Model& model, const Options& options) { Check(tare_session_create(model.get(), options.get(), &s_)); }
  Session(Session&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Session& operator=(Session&& o) noexcept { std::swap(s_, o.s_); return *this; }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() { tare_session_free(s_); }

  /// Runs on named inputs; the outputs are readable until the next Run.
  void Run(const std::vector<std::pair<std::string, const Tensor*>>& inputs) {
    std::vector<const char*> names;
    std::vector<const tare_tensor*> tensors;
    for (const auto& [name, t] : inputs) {
      names.push_back(name.c_str());
      tensors.push_back(t ? t->get() : nullptr);
    }
    Run(names, tensors);
  }
  /// Same, with the tensors given by reference: session.Run({{"input", x}}).
  void Run(std::initializer_list<std::pair<const char*, const Tensor&>> inputs) {
    std::vector<const char*> names;
    std::vector<const tare_tensor*> tensors;
    for (const auto& in : inputs) {
      names.push_back(in.first);
      tensors.push_back(in.second.get());
    }
    Run(names, tensors);
  }
  size_t OutputCount() const { size_t n = 0; Check(tare_session_output_count(s_, &n)); return n; }
  std::string OutputName(size_t index) const {
    const char* name = nullptr;
    Check(tare_session_output(s_, index, &name, nullptr));
    return name;
  }
  /// Output `index` of the last run (owned by the session, valid until the next Run).
  TensorView Output(size_t index) const {
    const tare_tensor* t = nullptr;
    Check(tare_session_output(s_, index, nullptr, &t));
    return TensorView(t);
  }
  /// A copy of output `index` as a vector of T (T must be its dtype).
  template <class T>
  std::vector<T> OutputCopy(size_t index) const {
    TensorView v = Output(index);
    const T* p = v.Data<T>();
    const size_t n = v.Size();
    std::vector<T> out(n);
    for (size_t i = 0; i < n; ++i) out[i] = p[i];
    return out;
  }
  /// Arena bytes of the current plan.
  uint64_t ArenaBytes() const { uint64_t b = 0; Check(tare_session_arena_bytes(s_, &b)); return b; }
  tare_session* get() const { return s_; }

 private:
  void Run(const std::vector<const char*>& names, const std::vector<const tare_tensor*>& tensors) {
    Check(tare_session_run(s_, names.data(), tensors.data(), names.size()));
  }
  tare_session* s_ = nullptr;
};

/// Converts an .onnx or .tflite file to .tare (tare_convert: needs the converter library linked).
inline void Convert(const std::string& src, const std::string& dst) { Check(tare_convert(src.c_str(), dst.c_str())); }

}  // namespace tare

#endif  // TARE_TARE_HPP_
