// Reference kernel of RoiAlign (semantics: runtime/ops/roi_align.cc).
// RoI geometry, sample positions and the four bilinear weights of every sample are computed in
// double from the RoI coordinates (float32 values, the same in `ref` and `ref64`); each weight is
// then rounded once to T. Per sample, v = w1*v1 + w2*v2 + w3*v3 + w4*v4 evaluated left to right in
// T (out-of-range samples give 0). avg: acc = 0, acc += v over the samples in row-major (iy, ix)
// order, then y = acc / count, in T. max: y = the max over samples of max(w1*v1, w2*v2, w3*v3,
// w4*v4) in T (products rounded to T, then compared exactly).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

constexpr double kMaxGrid = 1024;

/// One sample point: four pixel offsets and weights (valid == false: the point samples 0).
struct Tap {
  bool valid = false;
  int64_t pos[4] = {0, 0, 0, 0};
  double w[4] = {0, 0, 0, 0};
};

Tap MakeTap(double y, double x, int64_t h, int64_t w) {
  Tap t;
  if (h <= 0 || w <= 0 || !(y >= -1.0) || y > static_cast<double>(h) || !(x >= -1.0) || x > static_cast<double>(w))
    return t;
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  int64_t yl = static_cast<int64_t>(y), xl = static_cast<int64_t>(x), yh, xh;
  if (yl >= h - 1) {
    yh = yl = h - 1;
    y = static_cast<double>(yl);
  } else {
    yh = yl + 1;
  }
  if (xl >= w - 1) {
    xh = xl = w - 1;
    x = static_cast<double>(xl);
  } else {
    xh = xl + 1;
  }
  const double ly = y - static_cast<double>(yl), lx = x - static_cast<double>(xl), hy = 1 - ly, hx = 1 - lx;
  t.valid = true;
  t.pos[0] = yl * w + xl;
  t.pos[1] = yl * w + xh;
  t.pos[2] = yh * w + xl;
  t.pos[3] = yh * w + xh;
  t.w[0] = hy * hx;
  t.w[1] = hy * lx;
  t.w[2] = ly * hx;
  t.w[3] = ly * lx;
  return t;
}

struct RoiAttrs {
  bool half_pixel = true, max_mode = false;
  int64_t oh = 1, ow = 1, sr = 0;
  double scale = 1;
};

}  // namespace

template <class T>
Result<KernelFn> MakeRoiAlign(const Node& node) {
  RoiAttrs a;
  TARE_ASSIGN_OR_RETURN(std::string ctm, node.GetString("coordinate_transformation_mode", "half_pixel"));
  TARE_ASSIGN_OR_RETURN(std::string mode, node.GetString("mode", "avg"));
  TARE_ASSIGN_OR_RETURN(a.oh, node.GetInt("output_height", 1));
  TARE_ASSIGN_OR_RETURN(a.ow, node.GetInt("output_width", 1));
  TARE_ASSIGN_OR_RETURN(a.sr, node.GetInt("sampling_ratio", 0));
  TARE_ASSIGN_OR_RETURN(float scale, node.GetFloat("spatial_scale", 1.0f));
  a.half_pixel = ctm != "output_half_pixel";
  a.max_mode = mode == "max";
  a.scale = scale;
  const std::string where = node.Where();
  return KernelFn([a, where](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    const Tensor& rois = *in[1];
    const Tensor& bidx = *in[2];
    Tensor& y = *out[0];
    const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
    const int64_t nr = rois.shape[0];
    const T* xd = x.as<T>();
    const T* rd = rois.as<T>();
    T* yd = y.as<T>();
    const double off = a.half_pixel ? 0.5 : 0.0;
    std::vector<Tap> taps;
    for (int64_t r = 0; r < nr; ++r) {
      const int64_t b = ReadInt(bidx, r);
      if (b < 0 || b >= n)
        return Status::Error(where + ": batch index " + std::to_string(b) + " (RoI " + std::to_string(r) +
                             ") is out of range [0, " + std::to_string(n - 1) + "]");
      const double x1 = static_cast<double>(rd[r * 4]) * a.scale - off, y1 = static_cast<double>(rd[r * 4 + 1]) * a.scale - off;
      const double x2 = static_cast<double>(rd[r * 4 + 2]) * a.scale - off, y2 = static_cast<double>(rd[r * 4 + 3]) * a.scale - off;
      double rw = x2 - x1, rh = y2 - y1;
      if (!a.half_pixel) rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
      const double bin_h = rh / static_cast<double>(a.oh), bin_w = rw / static_cast<double>(a.ow);
      double gh = static_cast<double>(a.sr), gw = static_cast<double>(a.sr);
      if (a.sr <= 0) {
        gh = std::ceil(rh / static_cast<double>(a.oh));
        gw = std::ceil(rw / static_cast<double>(a.ow));
        if (!(gh <= kMaxGrid) || !(gw <= kMaxGrid) || !std::isfinite(x1) || !std::isfinite(y1))
          return Status::Error(where + ": RoI " + std::to_string(r) + " needs a sampling grid larger than 1024 per axis (or is not finite); set sampling_ratio");
        gh = std::max(gh, 0.0);
        gw = std::max(gw, 0.0);
      }
      const int64_t ngh = static_cast<int64_t>(gh), ngw = static_cast<int64_t>(gw);
      const T count = static_cast<T>(std::max<int64_t>(ngh * ngw, 1));
      for (int64_t ph = 0; ph < a.oh; ++ph)
        for (int64_t pw = 0; pw < a.ow; ++pw) {
          taps.clear();
          for (int64_t iy = 0; iy < ngh; ++iy) {
            const double sy = y1 + static_cast<double>(ph) * bin_h + (static_cast<double>(iy) + 0.5) * bin_h / gh;
            for (int64_t ix = 0; ix < ngw; ++ix) {
              const double sx = x1 + static_cast<double>(pw) * bin_w + (static_cast<double>(ix) + 0.5) * bin_w / gw;
              taps.push_back(MakeTap(sy, sx, h, w));
            }
          }
          for (int64_t ch = 0; ch < c; ++ch) {
            const T* img = xd + (b * c + ch) * h * w;
            T acc = T(0);
            bool first = true;
            for (const Tap& t : taps) {
              T v = T(0);
              if (a.max_mode) {
                if (t.valid) {
                  v = static_cast<T>(t.w[0]) * img[t.pos[0]];
                  for (int k = 1; k < 4; ++k) v = std::max(v, static_cast<T>(t.w[k]) * img[t.pos[k]]);
                }
                acc = first ? v : std::max(acc, v);
                first = false;
              } else {
                if (t.valid) {
                  v = static_cast<T>(t.w[0]) * img[t.pos[0]];
                  for (int k = 1; k < 4; ++k) v = v + static_cast<T>(t.w[k]) * img[t.pos[k]];
                }
                acc = acc + v;
              }
            }
            if (!a.max_mode) acc = acc / count;
            yd[((r * c + ch) * a.oh + ph) * a.ow + pw] = acc;
          }
        }
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(RoiAlign)

}  // namespace tare
