#include "runtime/plan/arena.h"

#include <algorithm>
#include <numeric>

namespace tare {

ArenaPlan PlanArena(const std::vector<BufferUse>& uses) {
  ArenaPlan plan;
  plan.offsets.assign(uses.size(), 0);
  std::vector<size_t> order(uses.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return uses[a].bytes > uses[b].bytes; });
  auto aligned = [](size_t n) { return (n + 63) / 64 * 64; };
  std::vector<size_t> placed;
  for (size_t i : order) {
    const BufferUse& u = uses[i];
    // Memory ranges of already placed buffers whose lifetimes overlap this one, by offset.
    std::vector<std::pair<size_t, size_t>> busy;
    for (size_t j : placed) {
      const BufferUse& v = uses[j];
      if (v.first <= u.last && u.first <= v.last) busy.emplace_back(plan.offsets[j], plan.offsets[j] + aligned(v.bytes));
    }
    std::sort(busy.begin(), busy.end());
    size_t offset = 0;
    for (const auto& [lo, hi] : busy) {
      if (offset + aligned(u.bytes) <= lo) break;
      offset = std::max(offset, hi);
    }
    plan.offsets[i] = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + aligned(u.bytes));
    placed.push_back(i);
  }
  return plan;
}

}  // namespace tare
