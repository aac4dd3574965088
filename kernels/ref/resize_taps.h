// The per-axis taps of the reference Resize (kernels/ref/resize.cc), for backends that run the
// same interpolation: every output index's input indices and weights, computed in double from
// the ONNX Resize-19 coordinate transformation exactly as the reference kernel computes them.
#pragma once
#include <cstdint>
#include <vector>

#include "runtime/ir/graph.h"

namespace tare {

/// The taps of one axis: output index o uses taps [begin[o], begin[o+1]) (input index idx[k],
/// weight w[k]; ascending index, clamped, merged, zero weights dropped); `outside[o]` marks an
/// extrapolated output (tf_crop_and_resize); `identity` when the axis is unchanged.
struct ResizeTaps {
  std::vector<int64_t> begin, idx;
  std::vector<double> w;
  std::vector<char> outside;
  bool identity = true;
};

/// Resize `node`'s mode (0 nearest, 1 linear, 2 cubic) and per-axis taps for input shape x and
/// output shape y, with its roi, scales and sizes inputs (nullptr when absent or empty; scales and
/// sizes both absent: y's dims are the sizes, which Resize-18's keep_aspect_ratio_policy other
/// than stretch cannot use). `axes` (Resize-18) and antialias are honoured as in the reference
/// kernel. Errors: invalid attributes (as MakeResize), inputs that do not give y (see
/// ResizeGeometryOf in runtime/ops/resize.h).
Result<std::vector<ResizeTaps>> ResizeAxisTaps(const Node& node, const Shape& x, const Shape& y, const Tensor* roi,
                                               const Tensor* scales, int* mode, const Tensor* sizes = nullptr);

}  // namespace tare
