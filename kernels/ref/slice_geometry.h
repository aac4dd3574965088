// ONNX Slice-13's geometry, shared by the reference Slice kernel (layout_copy.cc) and the cpu
// backend's (backends/cpu/layout_ops.cc): starts/ends/axes/steps resolved on a concrete input shape
// (negative values counted from the end, clamped to the dim; steps larger than the dim take at
// most one element) into the first element's offset and each output dim's source stride. Shape
// inference (InferSlice) has checked the inputs before this runs.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "runtime/ir/graph.h"
#include "runtime/ir/tensor.h"
#include "runtime/status.h"

namespace tare {

/// Resolves a Slice of x (shape xs, row-major) into y (shape ys): *base, the element offset of
/// y's first element in x, and (*stride)[d], x's step in elements along y's dim d. axes empty means
/// 0..n-1, steps empty means 1. Errors: an output dim that disagrees with the resolved count.
inline Status SliceGeometry(const Shape& xs, const Shape& ys, const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                            std::vector<int64_t> axes, std::vector<int64_t> steps, int64_t* base, std::vector<int64_t>* stride) {
  const size_t r = xs.size(), n = starts.size();
  if (axes.empty())
    for (size_t i = 0; i < n; ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(n, 1);
  std::vector<int64_t> xst(r, 1);
  for (size_t i = r; i-- > 1;) xst[i - 1] = xst[i] * xs[i];
  *stride = xst;
  *base = 0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t a = axes[i] < 0 ? axes[i] + static_cast<int64_t>(r) : axes[i], dim = xs[a];
    if (dim == 0) continue;  // y's dim is 0 too: nothing is copied
    int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
    int64_t step = steps[i], count;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      step = std::min(step, dim);  // a larger step takes the same (at most one) element
      count = e > s ? 1 + (e - s - 1) / step : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      step = step < -dim ? -dim : step;
      count = s > e ? 1 + (s - e - 1) / -step : 0;
    }
    if (count != ys[a]) return Status::Error("Slice: output dim " + std::to_string(a) + " mismatch");
    *base += count ? s * xst[a] : 0;
    (*stride)[a] = xst[a] * step;
  }
  return Status::Ok();
}

/// SliceGeometry of Slice node n (inputs: data, starts, ends[, axes[, steps]]) whose index inputs
/// are known: `slot(v)` gives value v's tensor (the backends' slots). Errors as SliceGeometry's.
template <class SlotFn>
Status SliceGeometryOf(const Node& n, const SlotFn& slot, const Shape& xs, const Shape& ys, int64_t* base,
                       std::vector<int64_t>* stride) {
  auto ints = [&](size_t i) {
    std::vector<int64_t> v;
    if (i < n.inputs.size() && n.inputs[i] >= 0)
      for (int64_t k = 0; k < slot(n.inputs[i]).numel(); ++k) v.push_back(ReadInt(slot(n.inputs[i]), k));
    return v;
  };
  return SliceGeometry(xs, ys, ints(1), ints(2), ints(3), ints(4), base, stride);
}

}  // namespace tare
