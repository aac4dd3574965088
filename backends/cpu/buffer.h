// Aligned buffers for the cpu backend's packed weights, tables and private activations. Blocks of
// 2 MiB and more are 2 MiB aligned and advised as transparent huge pages (MADV_HUGEPAGE), which
// makes the first touch (at compile time) and the TLB misses of large weight streams cheaper.
#pragma once
#include <cstddef>
#include <memory>

namespace tare::cpu {

struct FreeDeleter {
  void operator()(void* p) const;
};

/// `bytes` of zeroed memory, 64-byte aligned (2 MiB aligned and huge-page advised when large);
/// nullptr when out of memory.
std::unique_ptr<void, FreeDeleter> AllocBytes(size_t bytes);

/// A zero-initialized array of n T (trivial T) with the alignment rules of AllocBytes.
template <class T>
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(size_t n) : p_(AllocBytes(n * sizeof(T))), n_(p_ ? n : 0) {}
  T* data() { return static_cast<T*>(p_.get()); }
  const T* data() const { return static_cast<const T*>(p_.get()); }
  size_t size() const { return n_; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }

 private:
  std::unique_ptr<void, FreeDeleter> p_;
  size_t n_ = 0;
};

}  // namespace tare::cpu
