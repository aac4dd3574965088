#include "runtime/plan/arena.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace tare {

ArenaPlan PlanArena(const std::vector<BufferUse>& uses) {
  ArenaPlan plan;
  plan.offsets.assign(uses.size(), 0);
  std::vector<size_t> order(uses.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return uses[a].bytes > uses[b].bytes; });
  // Offsets are computed in 64 bits: where size_t has 32 (WebAssembly) an arena past its range
  // saturates to SIZE_MAX, which no session limit allows, instead of wrapping.
  auto aligned = [](uint64_t n) { return (n + 63) / 64 * 64; };
  std::vector<uint64_t> offsets(uses.size(), 0);
  uint64_t arena = 0;
  std::vector<size_t> placed;
  for (size_t i : order) {
    const BufferUse& u = uses[i];
    // Memory ranges of already placed buffers whose lifetimes overlap this one, by offset.
    std::vector<std::pair<uint64_t, uint64_t>> busy;
    for (size_t j : placed) {
      const BufferUse& v = uses[j];
      if (v.first <= u.last && u.first <= v.last) busy.emplace_back(offsets[j], offsets[j] + aligned(v.bytes));
    }
    std::sort(busy.begin(), busy.end());
    uint64_t offset = 0;
    for (const auto& [lo, hi] : busy) {
      if (offset + aligned(u.bytes) <= lo) break;
      offset = std::max(offset, hi);
    }
    offsets[i] = offset;
    arena = std::max(arena, offset + aligned(u.bytes));
    placed.push_back(i);
  }
  if (arena > SIZE_MAX) {
    plan.arena_bytes = SIZE_MAX;
    return plan;
  }
  for (size_t i = 0; i < uses.size(); ++i) plan.offsets[i] = static_cast<size_t>(offsets[i]);
  plan.arena_bytes = static_cast<size_t>(arena);
  return plan;
}

}  // namespace tare
