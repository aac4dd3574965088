#include "backends/cpu/threadpool.h"

#include <pthreadpool.h>

#include <atomic>

#include "backends/common/table_backend.h"

namespace tare::cpu {
namespace {

struct ForContext {
  void (*call)(const void*, size_t, size_t);
  const void* fn;
  size_t n;
};

void RunTile(void* ctx, size_t start, size_t tile) {
  const ForContext* c = static_cast<const ForContext*>(ctx);
  const size_t end = start + tile < c->n ? start + tile : c->n;
  c->call(c->fn, start, end);
}

}  // namespace

ThreadPool::ThreadPool(int threads) : threads_(threads < 1 ? 1 : threads) {
  if (threads_ > 1) pool_ = pthreadpool_create(static_cast<size_t>(threads_));
  if (!pool_) threads_ = 1;
}

ThreadPool::~ThreadPool() {
  if (pool_) pthreadpool_destroy(pool_);
}

void ThreadPool::Parallel(size_t n, size_t tile, void (*call)(const void*, size_t, size_t), const void* fn) const {
  if (n == 0) return;
  if (tile == 0) tile = 1;
  if (!pool_ || n <= tile) {
    call(fn, 0, n);
    return;
  }
  ForContext ctx{call, fn, n};
  pthreadpool_parallelize_1d_tile_1d(pool_, RunTile, &ctx, n, tile, 0);
}

bool AllFiniteParallel(const float* x, size_t n, const ThreadPool* pool) {
  constexpr size_t kTile = size_t(1) << 14;
  if (!pool || pool->threads() < 2 || n <= kTile) return AllFinite(x, n);
  std::atomic<bool> bad{false};
  pool->ParallelFor(n, kTile, [&](size_t b, size_t e) {
    if (!bad.load(std::memory_order_relaxed) && !AllFinite(x + b, e - b)) bad.store(true, std::memory_order_relaxed);
  });
  return !bad.load();
}

}  // namespace tare::cpu
