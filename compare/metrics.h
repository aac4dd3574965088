// Metrics that compare one tensor with a reference (docs/ARCHITECTURE.md, the numerics
// contract): max abs, max rel, relative L2, cosine similarity, max ULP distance, top-1 and top-k
// agreement. Pure functions of two tensors' values, used by `tare compare` and the tests.
#pragma once
#include <cstdint>
#include <string>

#include "runtime/ir/tensor.h"

namespace tare {

/// How far `got` is from `want` (element by element, both read as double).
struct Metrics {
  int64_t count = 0;        ///< elements compared
  double max_abs = 0;       ///< max |got - want|
  double max_rel = 0;       ///< max |got - want| / |want| over elements with want != 0; +inf when some want == 0 and got != 0
  double rel_l2 = 0;        ///< ||got - want||_2 / ||want||_2 (0 when both are zero, +inf when only want is, when NaNs mismatch, or when some difference is infinite)
  double cosine = 1;        ///< got . want / (||got|| ||want||); 1 when both are zero vectors, 0 when one is
  uint64_t max_ulp = 0;     ///< max distance in units in the last place of float32 (values rounded to float32)
  int64_t nan_mismatch = 0; ///< elements NaN on one side only (they make max_abs, max_rel and rel_l2 +inf; cosine skips them)
  int64_t worst_index = -1; ///< flat index of the largest |got - want| (-1 when count == 0)
  /// Classification agreement over the last axis (rows = all leading dims): the share of rows
  /// whose argmax agrees (top-1), and whose k largest classes are the same set (top-k). Ties go
  /// to the lower index. Both 1 for an empty tensor; -1 when k exceeds the class count.
  double top1 = 1;
  double topk = 1;
  int k = 5;
};

/// Compares `got` with `want`: numeric tensors of the same shape (any numeric dtypes; they need
/// not match, e.g. float32 against float64). `k` is the top-k of the classification metrics.
/// Errors: shapes differ, a non-numeric or non-tensor value.
Result<Metrics> CompareTensors(const Tensor& got, const Tensor& want, int k = 5);

/// Distance between a and b in units in the last place of float32, counting every representable
/// float32 between them (+0 and -0 are 0 apart; NaN against anything but NaN is UINT64_MAX).
uint64_t UlpDistance32(float a, float b);

/// `v` as "%.3e" (1.234e-07), the form every distance takes in compare's terminal lines.
std::string Sci(double v);

}  // namespace tare
