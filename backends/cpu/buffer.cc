#include "backends/cpu/buffer.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>

namespace tare::cpu {

void FreeDeleter::operator()(void* p) const { std::free(p); }

std::unique_ptr<void, FreeDeleter> AllocBytes(size_t bytes) {
  constexpr size_t kHuge = size_t(2) << 20;
  const bool huge = bytes >= kHuge;
  const size_t align = huge ? kHuge : 64;
  const size_t size = (bytes + 64 + align - 1) / align * align;  // slack for vector over-reads
  void* p = std::aligned_alloc(align, size);
  if (!p) return nullptr;
#ifdef MADV_HUGEPAGE
  if (huge) madvise(p, size, MADV_HUGEPAGE);
#endif
  std::memset(p, 0, size);
  return std::unique_ptr<void, FreeDeleter>(p);
}

}  // namespace tare::cpu
