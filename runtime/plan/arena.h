// Arena planner: places every tensor computed at run time in one host arena, reusing memory of
// tensors whose lifetimes do not overlap (greedy by size, as TFLite's arena planner does).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tare {

/// One buffer to place: `bytes` long, live from step `first` to step `last` inclusive.
struct BufferUse {
  size_t bytes;
  int first;
  int last;
};

/// The result of planning: an offset per buffer (64-byte aligned) and the arena size in bytes.
struct ArenaPlan {
  std::vector<size_t> offsets;
  size_t arena_bytes = 0;
};

/// Assigns offsets so that buffers whose [first, last] intervals overlap never overlap in memory.
/// Largest buffers are placed first, each at the lowest offset that fits among those already
/// placed and live at the same time. Deterministic.
ArenaPlan PlanArena(const std::vector<BufferUse>& uses);

}  // namespace tare
