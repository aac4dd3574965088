// Reference kernels of GridSample and AffineGrid (semantics: runtime/ops/grid_sample.cc).
// GridSample: for each output point the coordinates, padding and tap weights are computed in double (the same
// numbers for `ref` and `ref64`); each weight is then rounded once to T. Taps are combined in T:
//   bilinear: acc = 0; acc += w * x for the in-range taps in the order (y0,x0), (y0,x1), (y1,x0),
//     (y1,x1), with w = (x1 - x)(y1 - y), (x - x0)(y1 - y), (x1 - x)(y - y0), (x - x0)(y - y0);
//   bicubic: per tap row i = 0..3: r_i = sum_j wx_j * x[row i, col j] (j ascending, out-of-range
//     taps 0), then y = sum_i wy_i * r_i (i ascending);
//   trilinear (5-D): acc = 0; acc += w * x for the in-range taps of the cell in the order
//     (z, y, x) lexicographic, each coordinate's low tap first, w = (wx * wy) * wz in double;
//   tricubic (5-D): per z tap i = 0..3: p_i = sum_j wy_j * r_ij with r_ij = sum_k wx_k *
//     x[tap (i, j, k)] (ascending, out-of-range taps 0), then y = sum_i wz_i * p_i (i ascending);
//   nearest: a copy (exact).
// Coordinates are checked against [0, W) as doubles before any conversion to an integer, so
// NaN, infinite or huge grid values are well defined.
// AffineGrid: the base coordinates in double, each rounded once to T; then per output component
// k: acc = theta[k][0] * x; acc = acc + theta[k][1] * y; (3-D: + theta[k][2] * z;) acc = acc +
// theta[k][last], each product rounded to T and added in T.
#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/ref/bilinear.h"
#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

enum class Mode { kBilinear, kNearest, kBicubic };
enum class Pad { kZeros, kBorder, kReflection };

struct GsAttrs {
  Mode mode = Mode::kBilinear;
  Pad pad = Pad::kZeros;
  bool align = false;
};

double Unnormalize(double c, int64_t size, bool align) {
  return align ? (c + 1) / 2 * static_cast<double>(size - 1) : ((c + 1) * static_cast<double>(size) - 1) / 2;
}

double Clamp(double v, int64_t size) {
  if (std::isnan(v)) return v;
  return std::min(static_cast<double>(size - 1), std::max(v, 0.0));
}

/// Reflects v into [twice_low / 2, twice_high / 2] (PyTorch's reflect_coordinates).
double Reflect(double v, double twice_low, double twice_high) {
  if (twice_low == twice_high) return 0;
  const double lo = twice_low / 2, span = (twice_high - twice_low) / 2;
  v = std::fabs(v - lo);
  const double extra = std::fmod(v, span);
  const double flips = std::floor(v / span);
  return std::fmod(flips, 2.0) == 0 ? extra + lo : span - extra + lo;
}

/// Applies the padding mode to a pixel coordinate along an axis of `size` pixels.
double PadCoord(double v, int64_t size, const GsAttrs& a) {
  if (a.pad == Pad::kBorder) return Clamp(v, size);
  if (a.pad == Pad::kReflection) {
    if (!std::isfinite(v)) return v;
    v = a.align ? Reflect(v, 0, 2.0 * static_cast<double>(size - 1)) : Reflect(v, -1, 2.0 * static_cast<double>(size) - 1);
    return Clamp(v, size);
  }
  return v;
}

bool InRange(double v, int64_t size) { return PixelInRange(v, size); }

/// Keys cubic kernel weights for fractional offset t in [0, 1), A = -0.75 (PyTorch's coefficients).
void CubicWeights(double t, double w[4]) {
  const double A = -0.75;
  auto near = [&](double d) { return ((A + 2) * d - (A + 3)) * d * d + 1; };    // |d| <= 1
  auto far = [&](double d) { return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A; };  // 1 < |d| < 2
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

template <class T>
T SamplePoint(const T* img, int64_t h, int64_t w, double gx, double gy, const GsAttrs& a) {
  double x = Unnormalize(gx, w, a.align), y = Unnormalize(gy, h, a.align);
  if (a.mode == Mode::kBicubic) {
    if (!std::isfinite(x) || !std::isfinite(y)) return T(0);
    const double x0 = std::floor(x), y0 = std::floor(y);
    double wx[4], wy[4];
    CubicWeights(x - x0, wx);
    CubicWeights(y - y0, wy);
    T acc = T(0);
    for (int i = 0; i < 4; ++i) {
      const double ty = PadCoord(y0 - 1 + i, h, a);
      T row = T(0);
      if (InRange(ty, h))
        for (int j = 0; j < 4; ++j) {
          const double tx = PadCoord(x0 - 1 + j, w, a);
          if (InRange(tx, w))
            row = row + static_cast<T>(wx[j]) * img[static_cast<int64_t>(ty) * w + static_cast<int64_t>(tx)];
        }
      acc = acc + static_cast<T>(wy[i]) * row;
    }
    return acc;
  }
  x = PadCoord(x, w, a);
  y = PadCoord(y, h, a);
  if (a.mode == Mode::kNearest) {
    const double rx = std::nearbyint(x), ry = std::nearbyint(y);
    if (!InRange(rx, w) || !InRange(ry, h)) return T(0);
    return img[static_cast<int64_t>(ry) * w + static_cast<int64_t>(rx)];
  }
  return BilinearZeros(img, h, w, y, x);
}

/// Tricubic sample of img [d, h, w] at the unpadded pixel coordinates u (z, y, x): 4 taps per
/// axis, the padding applied to each tap.
template <class T>
T TricubicPoint(const T* img, const int64_t dims[3], const double u[3], const GsAttrs& a) {
  for (int i = 0; i < 3; ++i)
    if (!std::isfinite(u[i])) return T(0);
  double lo[3], wt[3][4];
  for (int i = 0; i < 3; ++i) {
    lo[i] = std::floor(u[i]);
    CubicWeights(u[i] - lo[i], wt[i]);
  }
  T acc = T(0);
  for (int i = 0; i < 4; ++i) {
    const double tz = PadCoord(lo[0] - 1 + i, dims[0], a);
    T plane = T(0);
    if (InRange(tz, dims[0]))
      for (int j = 0; j < 4; ++j) {
        const double ty = PadCoord(lo[1] - 1 + j, dims[1], a);
        T row = T(0);
        if (InRange(ty, dims[1])) {
          const T* line = img + (static_cast<int64_t>(tz) * dims[1] + static_cast<int64_t>(ty)) * dims[2];
          for (int k = 0; k < 4; ++k) {
            const double tx = PadCoord(lo[2] - 1 + k, dims[2], a);
            if (InRange(tx, dims[2])) row = row + static_cast<T>(wt[2][k]) * line[static_cast<int64_t>(tx)];
          }
        }
        plane = plane + static_cast<T>(wt[1][j]) * row;
      }
    acc = acc + static_cast<T>(wt[0][i]) * plane;
  }
  return acc;
}

/// Samples a volume img [d, h, w] at normalized (gx, gy, gz): trilinear, nearest or tricubic.
template <class T>
T SampleVolume(const T* img, const int64_t dims[3], const double g[3], const GsAttrs& a) {
  double c[3];  // pixel coordinates in the order (z, y, x) of dims
  for (int i = 0; i < 3; ++i) c[i] = Unnormalize(g[2 - i], dims[i], a.align);
  if (a.mode == Mode::kBicubic) return TricubicPoint<T>(img, dims, c, a);
  for (int i = 0; i < 3; ++i) c[i] = PadCoord(c[i], dims[i], a);
  if (a.mode == Mode::kNearest) {
    int64_t off = 0;
    for (int i = 0; i < 3; ++i) {
      const double rc = std::nearbyint(c[i]);
      if (!InRange(rc, dims[i])) return T(0);
      off = off * dims[i] + static_cast<int64_t>(rc);
    }
    return img[off];
  }
  for (double v : c)
    if (!std::isfinite(v)) return T(0);
  double lo[3], wt[3][2];
  for (int i = 0; i < 3; ++i) {
    lo[i] = std::floor(c[i]);
    wt[i][0] = lo[i] + 1 - c[i];
    wt[i][1] = c[i] - lo[i];
  }
  T acc = T(0);
  for (int t = 0; t < 8; ++t) {
    const int bz = t >> 2, by = (t >> 1) & 1, bx = t & 1;
    const double tz = lo[0] + bz, ty = lo[1] + by, tx = lo[2] + bx;
    if (!InRange(tz, dims[0]) || !InRange(ty, dims[1]) || !InRange(tx, dims[2])) continue;
    const double w = (wt[2][bx] * wt[1][by]) * wt[0][bz];
    const int64_t off = (static_cast<int64_t>(tz) * dims[1] + static_cast<int64_t>(ty)) * dims[2] + static_cast<int64_t>(tx);
    acc = acc + static_cast<T>(w) * img[off];
  }
  return acc;
}

/// The base coordinate of index i along an axis of l pixels (AffineGrid-20).
double BaseCoord(int64_t i, int64_t l, bool align) {
  const double di = static_cast<double>(i), dl = static_cast<double>(l);
  if (align) return l == 1 ? -1.0 : -1.0 + 2.0 * di / (dl - 1);
  return (2.0 * di + 1.0 - dl) / dl;
}

/// AffineGrid-20: theta [N, r, r+1] and the grid [N, (D,) H, W, r] whose shape inference set.
template <class T>
Result<KernelFn> MakeAffineGrid(const Node& node) {
  TARE_ASSIGN_OR_RETURN(int64_t align_attr, node.GetInt("align_corners", 0));
  const bool align = align_attr != 0;
  return KernelFn([align](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& theta = *in[0];
    Tensor& grid = *out[0];
    const int64_t n = theta.shape[0], r = theta.shape[1];
    int64_t dims[3] = {1, 1, 1};  // (D, H, W), D = 1 for 2-D
    for (int64_t i = 0; i < r; ++i) dims[3 - r + i] = grid.shape[static_cast<size_t>(1 + i)];
    std::vector<T> bx(static_cast<size_t>(dims[2])), by(static_cast<size_t>(dims[1])), bz(static_cast<size_t>(dims[0]));
    for (int64_t i = 0; i < dims[2]; ++i) bx[static_cast<size_t>(i)] = static_cast<T>(BaseCoord(i, dims[2], align));
    for (int64_t i = 0; i < dims[1]; ++i) by[static_cast<size_t>(i)] = static_cast<T>(BaseCoord(i, dims[1], align));
    for (int64_t i = 0; i < dims[0]; ++i) bz[static_cast<size_t>(i)] = static_cast<T>(BaseCoord(i, dims[0], align));
    const T* th = theta.as<T>();
    T* g = grid.as<T>();
    for (int64_t b = 0; b < n; ++b) {
      const T* tb = th + b * r * (r + 1);
      for (int64_t d = 0; d < dims[0]; ++d)
        for (int64_t h = 0; h < dims[1]; ++h)
          for (int64_t w = 0; w < dims[2]; ++w) {
            const T base[3] = {bx[static_cast<size_t>(w)], by[static_cast<size_t>(h)], bz[static_cast<size_t>(d)]};
            for (int64_t k = 0; k < r; ++k) {
              const T* row = tb + k * (r + 1);
              T acc = row[0] * base[0];
              for (int64_t j = 1; j < r; ++j) acc = acc + row[j] * base[j];
              *g++ = acc + row[r];
            }
          }
    }
    return Status::Ok();
  });
}

}  // namespace

/// Prepares GridSample (4-D and 5-D) or AffineGrid, by the node's op; attributes parsed once.
template <class T>
Result<KernelFn> MakeGridSample(const Node& node) {
  if (node.op == "AffineGrid") return MakeAffineGrid<T>(node);
  GsAttrs a;
  TARE_ASSIGN_OR_RETURN(std::string mode, node.GetString("mode", "bilinear"));
  TARE_ASSIGN_OR_RETURN(std::string pad, node.GetString("padding_mode", "zeros"));
  TARE_ASSIGN_OR_RETURN(int64_t align, node.GetInt("align_corners", 0));
  if (mode == "bilinear" || mode == "linear") a.mode = Mode::kBilinear;
  else if (mode == "nearest") a.mode = Mode::kNearest;
  else if (mode == "bicubic" || mode == "cubic") a.mode = Mode::kBicubic;
  else return Status::Error(node.Where() + ": attribute 'mode' must be bilinear, nearest or bicubic, got '" + mode + "'");
  if (pad == "zeros") a.pad = Pad::kZeros;
  else if (pad == "border") a.pad = Pad::kBorder;
  else if (pad == "reflection") a.pad = Pad::kReflection;
  else return Status::Error(node.Where() + ": attribute 'padding_mode' must be zeros, border or reflection, got '" + pad + "'");
  a.align = align != 0;
  return KernelFn([a](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    const Tensor& grid = *in[1];
    Tensor& y = *out[0];
    if (x.shape.size() == 5) {
      const int64_t n = x.shape[0], c = x.shape[1];
      const int64_t dims[3] = {x.shape[2], x.shape[3], x.shape[4]};
      const int64_t vol = dims[0] * dims[1] * dims[2], pts = grid.shape[1] * grid.shape[2] * grid.shape[3];
      const T* xd = x.as<T>();
      const T* gd = grid.as<T>();
      T* yd = y.as<T>();
      for (int64_t b = 0; b < n; ++b)
        for (int64_t ch = 0; ch < c; ++ch) {
          const T* img = xd + (b * c + ch) * vol;
          for (int64_t p = 0; p < pts; ++p) {
            const T* gp = gd + (b * pts + p) * 3;
            const double gv[3] = {static_cast<double>(gp[0]), static_cast<double>(gp[1]), static_cast<double>(gp[2])};
            yd[(b * c + ch) * pts + p] = SampleVolume<T>(img, dims, gv, a);
          }
        }
      return Status::Ok();
    }
    const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
    const int64_t ho = grid.shape[1], wo = grid.shape[2];
    const T* xd = x.as<T>();
    const T* gd = grid.as<T>();
    T* yd = y.as<T>();
    for (int64_t b = 0; b < n; ++b)
      for (int64_t ch = 0; ch < c; ++ch) {
        const T* img = xd + (b * c + ch) * h * w;
        for (int64_t p = 0; p < ho * wo; ++p) {
          const T* g = gd + (b * ho * wo + p) * 2;
          yd[(b * c + ch) * ho * wo + p] = SamplePoint<T>(img, h, w, static_cast<double>(g[0]), static_cast<double>(g[1]), a);
        }
      }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(GridSample)

}  // namespace tare
