// Computations whose result sizes depend on the data, shared by shape inference (which must know
// the output count before allocating: runtime/ops/nms.cc, unique.cc) and the reference kernels
// (kernels/ref/nms.cc, unique.cc), which compute the same selection again on the real inputs.
#pragma once
#include <cstdint>
#include <vector>

#include "runtime/ir/tensor.h"

namespace tare {

/// NonMaxSuppression-11 selection (runtime/ops/data_dependent.cc): boxes [B, N, 4] (corners, or centers
/// when `center`), scores [B, C, N], both float in the storage type. Appends (batch, class, box)
/// triples to `sel`, greedy by descending score per (batch, class), at most `max_out` each.
void NmsSelect(const Tensor& boxes, const Tensor& scores, int64_t max_out, double iou_threshold,
               bool has_score_threshold, double score_threshold, bool center, std::vector<int64_t>* sel);

/// Unique-11 grouping (runtime/ops/data_dependent.cc) of the slices of `x` along `axis` (-1: elements of
/// the flattened tensor): first occurrence and count of each distinct slice (sorted ascending when
/// `sorted`), and each slice's group. Returns false when the input type is not supported.
bool UniqueGroupSlices(const Tensor& x, int64_t axis, bool sorted, std::vector<int64_t>* first,
                       std::vector<int64_t>* counts, std::vector<int64_t>* inverse);

/// Split-18's chunk sizes of a dim split into n outputs (n >= 1): ceil(dim / n) each, the last
/// one what remains (<= 0 when dim cannot give n chunks of that size; the spec rejects that).
/// When n divides dim, these are Split-13's equal parts.
inline std::vector<int64_t> SplitSizes(int64_t dim, int64_t n) {
  const int64_t chunk = (dim + n - 1) / n;
  std::vector<int64_t> sizes(static_cast<size_t>(n), chunk);
  sizes.back() = dim - chunk * (n - 1);
  return sizes;
}

}  // namespace tare
