// The cpu backend's thread pool: one pthreadpool per backend instance (threads == 1: none, and
// every loop runs on the calling thread). XNNPACK operators take the raw pool; the backend's own
// loops (layout transposes, copies, elementwise maps) use ParallelFor.
#pragma once
#include <cstddef>

struct pthreadpool;

namespace tare::cpu {

class ThreadPool {
 public:
  /// threads <= 1 creates no pool.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  int threads() const { return threads_; }
  /// The pool for XNNPACK calls (nullptr when single-threaded).
  pthreadpool* raw() const { return pool_; }
  /// Calls fn(begin, end) over [0, n) split in tiles of `tile` items; tiles run in parallel, each
  /// on one thread. The split depends only on n and tile, never on timing. Allocates nothing.
  template <class F>
  void ParallelFor(size_t n, size_t tile, const F& fn) const {
    Parallel(n, tile, [](const void* f, size_t b, size_t e) { (*static_cast<const F*>(f))(b, e); }, &fn);
  }

 private:
  void Parallel(size_t n, size_t tile, void (*call)(const void*, size_t, size_t), const void* fn) const;
  pthreadpool* pool_ = nullptr;
  int threads_ = 1;
};

/// True when none of x[0..n) is NaN or +-inf (AllFinite, backends/common/table_backend.h), the
/// scan split over the pool's threads in 64 KB tiles. Each thread then reads mostly what it wrote
/// in the step before (the tiles follow the same contiguous split as the producing step's), where
/// a scan on the calling thread alone pulls the other cores' halves across: at 2 threads on a VM
/// whose cores are far apart that made a small step's guard cost more than the step.
bool AllFiniteParallel(const float* x, size_t n, const ThreadPool* pool);

}  // namespace tare::cpu
