// Bilinear sampling of one 2-D image with zeros outside it, shared by GridSample (mode linear on
// 4-D inputs, after its padding mode has moved the coordinate) and DeformConv (ONNX DeformConv-19:
// "bilinear interpolation, zero outside").
#pragma once
#include <cmath>
#include <cstdint>

namespace tare {

/// True when the pixel coordinate v lies in [0, size) (false for NaN).
inline bool PixelInRange(double v, int64_t size) { return v >= 0 && v < static_cast<double>(size); }

/// img [h, w] (row-major) at the pixel position (y, x): the four taps (y0, x0), (y0, x1),
/// (y1, x0), (y1, x1) in that order, each weight computed in double and rounded once to T, added to
/// a T accumulator starting at 0; taps outside the image contribute nothing, and a NaN or infinite
/// coordinate gives 0.
template <class T>
T BilinearZeros(const T* img, int64_t h, int64_t w, double y, double x) {
  if (!std::isfinite(x) || !std::isfinite(y)) return T(0);
  const double x0 = std::floor(x), y0 = std::floor(y), x1 = x0 + 1, y1 = y0 + 1;
  const double xs[4] = {x0, x1, x0, x1}, ys[4] = {y0, y0, y1, y1};
  const double ws[4] = {(x1 - x) * (y1 - y), (x - x0) * (y1 - y), (x1 - x) * (y - y0), (x - x0) * (y - y0)};
  T acc = T(0);
  for (int t = 0; t < 4; ++t)
    if (PixelInRange(xs[t], w) && PixelInRange(ys[t], h))
      acc = acc + static_cast<T>(ws[t]) * img[static_cast<int64_t>(ys[t]) * w + static_cast<int64_t>(xs[t])];
  return acc;
}

}  // namespace tare
