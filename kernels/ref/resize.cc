// Reference kernel of Resize (semantics: runtime/ops/resize.cc).
//
// Per axis, every output index gets its taps (input index, weight) computed in double from
// x_original: nearest 1 tap, linear 2, cubic 4 (Keys kernel with cubic_coeff_a; exclude_outside
// zeroes out-of-range taps and divides by the remaining sum; all of them out of range: no taps).
// With antialias on an axis of scale s < 1 (Resize-18), linear and cubic take every input index j
// with |j - x| < support / s (support 1 linear, 2 cubic), weight kernel(|j - x| * s), divided by
// their sum (exclude_outside: by the sum of those inside X, the others 0). Indices are then clamped to
// [0, in-1]; taps landing on the same index are merged (weights summed in double) and taps of
// weight exactly 0 are dropped (no taps left: 0), so an axis whose taps are all "index o, weight 1"
// is the identity.
// The same taps serve `ref` and `ref64`; each weight is then rounded once to the storage type.
//
// Nearest: one gather over the whole output (exact, any dtype). Linear/cubic: the nested 1-D
// interpolations of the ONNX reference, evaluated one axis at a time: axes that shrink first, then those
// that grow, last axis first within each (identity
// axes skipped): y[.., o, ..] = w_0 * x[.., i_0, ..] + w_1 * x[.., i_1, ..] + ..., taps in
// ascending input index, acc starting at the first product, each product and sum rounded to the
// storage type; intermediate tensors are stored in that type. Rows along the inner axes are
// independent, so the loops vectorize over them.
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/resize_taps.h"
#include "runtime/ops/resize.h"

namespace tare {
namespace {

enum class Ctm { kHalfPixel, kHalfPixelSymmetric, kPytorchHalfPixel, kAlignCorners, kAsymmetric, kCrop, kTfHalfPixelNn };
enum class Nearest { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };

struct ResizeAttrs {
  int mode = 0;  // 0 nearest, 1 linear, 2 cubic
  Ctm ctm = Ctm::kHalfPixel;
  Nearest nearest = Nearest::kRoundPreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  bool antialias = false;  // Resize-18: linear/cubic kernels stretched by 1/scale when scale < 1
  double extrapolation = 0;
  ResizeForm form;  // axes and keep_aspect_ratio_policy (runtime/ops/resize.h)
};

using AxisTaps = ResizeTaps;

/// One axis's geometry: lengths, the coordinate transformation's scale, the fractional output
/// length in * scale (half_pixel_symmetric) and the roi (tf_crop_and_resize).
struct AxisGeom {
  int64_t in, out;
  double scale, width, start, end;
};

/// x_original of output index o along an axis (see the spec).
double Original(const ResizeAttrs& a, int64_t o, const AxisGeom& g) {
  const double xr = static_cast<double>(o), li = static_cast<double>(g.in), lo = static_cast<double>(g.out);
  const int64_t out = g.out;
  const double scale = g.scale, start = g.start, end = g.end;
  switch (a.ctm) {
    case Ctm::kHalfPixel: return (xr + 0.5) / scale - 0.5;
    case Ctm::kHalfPixelSymmetric: {
      // Resize-19: the centre of the implicit roi maps to the centre of the output.
      const double offset = 0.5 * li * (1 - lo / g.width);
      return offset + (xr + 0.5) / scale - 0.5;
    }
    case Ctm::kPytorchHalfPixel: return out > 1 ? (xr + 0.5) / scale - 0.5 : 0.0;
    case Ctm::kAlignCorners: return out > 1 ? xr * (li - 1) / (lo - 1) : 0.0;
    case Ctm::kAsymmetric: return xr / scale;
    case Ctm::kTfHalfPixelNn: return (xr + 0.5) / scale;
    case Ctm::kCrop:
      return out > 1 ? start * (li - 1) + xr * (end - start) * (li - 1) / (lo - 1) : 0.5 * (start + end) * (li - 1);
  }
  return 0;
}

/// Keys cubic convolution kernel at distance t >= 0 (0 beyond 2).
double Cubic(double t, double A) {
  if (t <= 1) return ((A + 2) * t - (A + 3)) * t * t + 1;
  if (t < 2) return ((A * t - 5 * A) * t + 8 * A) * t - 4 * A;
  return 0;
}

/// Linear (triangle) kernel at distance t >= 0.
double Triangle(double t) { return t < 1 ? 1 - t : 0; }

AxisTaps MakeTaps(const ResizeAttrs& a, const AxisGeom& g) {
  const int64_t in = g.in, out = g.out;
  // Antialias stretches linear / cubic kernels by 1/scale on a shrinking axis (Resize-18).
  const bool stretch = a.antialias && a.mode != 0 && g.scale < 1;
  const double support = stretch ? (a.mode == 1 ? 1.0 : 2.0) / g.scale : 0.0;
  AxisTaps t;
  t.begin.push_back(0);
  std::vector<int64_t> raw;
  std::vector<double> w;
  for (int64_t o = 0; o < out; ++o) {
    double x = Original(a, o, g);
    const bool outside = a.ctm == Ctm::kCrop && !(x >= 0 && x <= static_cast<double>(in - 1));  // NaN roi too
    // Beyond [-4 - support, in + 3 + support] every tap clamps to the edge (weights summing to 1):
    // bounding x keeps the index arithmetic in range whatever the roi/scales (NaN included). Valid
    // models never get there.
    if (!(x >= -4 - support)) x = -4 - support;
    if (x > static_cast<double>(in + 3) + support) x = static_cast<double>(in + 3) + support;
    t.outside.push_back(outside);
    if (outside) t.identity = false;
    const double fl = std::floor(x), r = x - fl;
    const int64_t i0 = static_cast<int64_t>(fl);
    raw.clear();
    w.clear();
    if (outside) {
      // no taps: the extrapolation value
    } else if (a.mode == 0) {
      bool up = false;
      if (r != 0) {
        switch (a.nearest) {
          case Nearest::kRoundPreferFloor: up = r > 0.5; break;
          case Nearest::kRoundPreferCeil: up = r >= 0.5; break;
          case Nearest::kFloor: up = false; break;
          case Nearest::kCeil: up = true; break;
        }
      }
      raw.push_back(i0 + (up ? 1 : 0)), w.push_back(1);
    } else if (stretch) {
      // Every j with |j - x| < support (the kernel is 0 from there on), ascending.
      const int64_t lo = static_cast<int64_t>(std::floor(x - support)), hi = static_cast<int64_t>(std::ceil(x + support));
      double sum = 0;
      for (int64_t j = lo; j <= hi; ++j) {
        const double d = std::fabs(static_cast<double>(j) - x) * g.scale;
        const double wj = a.mode == 1 ? Triangle(d) : Cubic(d, a.cubic_a);
        raw.push_back(j), w.push_back(wj), sum += wj;
      }
      if (a.exclude_outside) {
        sum = 0;
        for (size_t k = 0; k < raw.size(); ++k) {
          if (raw[k] < 0 || raw[k] >= in) w[k] = 0;
          sum += w[k];
        }
      }
      for (double& wk : w) wk = sum != 0 ? wk / sum : 0.0;
    } else if (a.mode == 1) {
      raw = {i0, i0 + 1}, w = {1 - r, r};
    } else {
      for (int k = 0; k < 4; ++k) raw.push_back(i0 - 1 + k), w.push_back(Cubic(std::fabs(r + 1 - k), a.cubic_a));
      if (a.exclude_outside) {
        double sum = 0;
        for (int k = 0; k < 4; ++k) {
          if (raw[k] < 0 || raw[k] >= in) w[k] = 0;
          sum += w[k];
        }
        for (int k = 0; k < 4; ++k) w[k] = sum != 0 ? w[k] / sum : 0.0;  // all outside: no taps (0)
      }
    }
    for (size_t k = 0; k < raw.size(); ++k) {
      const int64_t i = raw[k] < 0 ? 0 : raw[k] >= in ? in - 1 : raw[k];
      if (t.idx.size() > static_cast<size_t>(t.begin.back()) && t.idx.back() == i) {
        t.w.back() += w[k];  // clamped taps coincide: merge
      } else {
        t.idx.push_back(i);
        t.w.push_back(w[k]);
      }
    }
    // Drop zero-weight taps of this output.
    size_t keep = static_cast<size_t>(t.begin.back());
    for (size_t k = keep; k < t.idx.size(); ++k)
      if (t.w[k] != 0) t.idx[keep] = t.idx[k], t.w[keep] = t.w[k], ++keep;
    t.idx.resize(keep);
    t.w.resize(keep);
    t.begin.push_back(static_cast<int64_t>(keep));
    if (outside || keep != static_cast<size_t>(t.begin[o]) + 1 || t.idx.back() != o || t.w.back() != 1)
      t.identity = false;
  }
  if (in != out) t.identity = false;
  return t;
}

/// Nearest: one gather. Element type E only moves bytes of the right size. An output row whose
/// source row is the previous output row's (upsampling along an outer axis) is copied from it.
template <class E>
void Gather(const Tensor& x, Tensor& y, const std::vector<AxisTaps>& taps, E ev) {
  const size_t r = x.shape.size();
  const int64_t n = y.shape[r - 1], rows = n ? y.numel() / n : 0;
  const E* xs = x.as<E>();
  E* ys = y.as<E>();
  std::vector<int64_t> in_stride(r, 1), o(r, 0);
  for (size_t d = r - 1; d-- > 0;) in_stride[d] = in_stride[d + 1] * x.shape[d + 1];
  std::vector<int64_t> src(static_cast<size_t>(n));  // last-axis source index, -1 = extrapolated
  bool any_outside = false;
  for (int64_t j = 0; j < n; ++j) {
    const AxisTaps& t = taps[r - 1];
    src[j] = t.outside[j] ? -1 : t.idx[t.begin[j]];
    any_outside = any_outside || t.outside[j];
  }
  int64_t prev_off = -2;  // source offset of the previous row (-1: extrapolated row)
  for (int64_t row = 0; row < rows; ++row) {
    int64_t off = 0;
    for (size_t d = 0; d + 1 < r && off >= 0; ++d) {
      const AxisTaps& t = taps[d];
      off = t.outside[o[d]] ? -1 : off + t.idx[t.begin[o[d]]] * in_stride[d];
    }
    E* yr = ys + row * n;
    if (off == prev_off) {
      std::memcpy(yr, yr - n, static_cast<size_t>(n) * sizeof(E));
    } else if (off < 0) {
      for (int64_t j = 0; j < n; ++j) yr[j] = ev;
    } else if (any_outside) {
      for (int64_t j = 0; j < n; ++j) yr[j] = src[j] < 0 ? ev : xs[off + src[j]];
    } else {
      const E* xr = xs + off;
      for (int64_t j = 0; j < n; ++j) yr[j] = xr[src[j]];
    }
    prev_off = off;
    for (size_t d = r - 1; d-- > 0;) {  // odometer over the outer output dims
      if (++o[d] < y.shape[d]) break;
      o[d] = 0;
    }
  }
}

/// One linear/cubic pass along an axis: x is [outer, n_in, inner], y is [outer, n_out, inner].
template <class V>
void Pass(const V* x, V* y, int64_t outer, int64_t n_in, int64_t n_out, int64_t inner, const AxisTaps& t, V ev) {
  const std::vector<V> wv(t.w.begin(), t.w.end());  // weights rounded once to V
  const V* w = wv.data();
  const int64_t* idx = t.idx.data();
  const int64_t* beg = t.begin.data();
  for (int64_t b = 0; b < outer; ++b) {
    if (inner == 1) {  // the last axis: one dot product per output element
      const V* xr = x + b * n_in;
      V* yr = y + b * n_out;
      for (int64_t o = 0; o < n_out; ++o) {
        if (t.outside[o] || beg[o] == beg[o + 1]) {
          yr[o] = t.outside[o] ? ev : V(0);
          continue;
        }
        V acc = static_cast<V>(w[beg[o]] * xr[idx[beg[o]]]);
        for (int64_t k = beg[o] + 1; k < beg[o + 1]; ++k) acc = static_cast<V>(acc + static_cast<V>(w[k] * xr[idx[k]]));
        yr[o] = acc;
      }
      continue;
    }
    for (int64_t o = 0; o < n_out; ++o) {
      V* yr = y + (b * n_out + o) * inner;
      if (t.outside[o] || beg[o] == beg[o + 1]) {
        const V v = t.outside[o] ? ev : V(0);
        for (int64_t i = 0; i < inner; ++i) yr[i] = v;
        continue;
      }
      for (int64_t k = beg[o]; k < beg[o + 1]; ++k) {
        const V wk = w[k];
        const V* xr = x + (b * n_in + idx[k]) * inner;
        if (k == beg[o]) {
          for (int64_t i = 0; i < inner; ++i) yr[i] = static_cast<V>(wk * xr[i]);
        } else {
          for (int64_t i = 0; i < inner; ++i) yr[i] = static_cast<V>(yr[i] + static_cast<V>(wk * xr[i]));
        }
      }
    }
  }
}

template <class V>
void Interpolate(const Tensor& x, Tensor& y, const std::vector<AxisTaps>& taps, double extrapolation) {
  const size_t r = x.shape.size();
  Shape cur = x.shape;
  std::unique_ptr<V[]> buf[2];
  const V* src = x.as<V>();
  // Pass order: the axes that shrink first, then those that grow, each group last axis first. So
  // every intermediate is at most as large as the input or the output (shrinking one axis by
  // 1250x after growing another by 2400x would hold gigabytes in between: fuzz finding 11).
  std::vector<size_t> order;
  for (int grow = 0; grow < 2; ++grow)
    for (size_t d = r; d-- > 0;)
      if (!taps[d].identity && (y.shape[d] > x.shape[d]) == (grow == 1)) order.push_back(d);
  if (order.empty()) {
    if (x.nbytes()) std::memcpy(y.data, x.data, x.nbytes());
    return;
  }
  int which = 0;
  for (size_t p = 0; p < order.size(); ++p) {
    const size_t d = order[p];
    int64_t outer = 1, inner = 1;
    for (size_t k = 0; k < d; ++k) outer *= cur[k];
    for (size_t k = d + 1; k < r; ++k) inner *= cur[k];
    const int64_t n_in = cur[d], n_out = y.shape[d];
    V* dst;
    if (p + 1 == order.size()) {
      dst = y.as<V>();
    } else {
      buf[which].reset(new V[static_cast<size_t>(outer * n_out * inner)]);  // fully overwritten
      dst = buf[which].get();
      which ^= 1;
    }
    Pass<V>(src, dst, outer, n_in, n_out, inner, taps[d], static_cast<V>(extrapolation));
    cur[d] = n_out;
    src = dst;
  }
}

Result<ResizeAttrs> ParseAttrs(const Node& node) {
  ResizeAttrs a;
  TARE_ASSIGN_OR_RETURN(std::string mode, node.GetString("mode", "nearest"));
  TARE_ASSIGN_OR_RETURN(std::string ctm, node.GetString("coordinate_transformation_mode", "half_pixel"));
  TARE_ASSIGN_OR_RETURN(std::string nm, node.GetString("nearest_mode", "round_prefer_floor"));
  TARE_ASSIGN_OR_RETURN(int64_t exclude, node.GetInt("exclude_outside", 0));
  TARE_ASSIGN_OR_RETURN(float cubic_a, node.GetFloat("cubic_coeff_a", -0.75f));
  TARE_ASSIGN_OR_RETURN(float ev, node.GetFloat("extrapolation_value", 0.0f));
  TARE_ASSIGN_OR_RETURN(int64_t antialias, node.GetInt("antialias", 0));
  Result<ResizeForm> form = ReadResizeForm(node);
  if (!form.ok()) return Status::Error(node.Where() + ": " + form.status().message());
  a.form = *form;
  auto bad = [&](const char* attr, const std::string& v) {
    return Status::Error(node.Where() + ": invalid Resize attribute '" + attr + "' = '" + v + "'");
  };
  if (mode == "nearest") a.mode = 0;
  else if (mode == "linear") a.mode = 1;
  else if (mode == "cubic") a.mode = 2;
  else return bad("mode", mode);
  if (ctm == "half_pixel") a.ctm = Ctm::kHalfPixel;
  else if (ctm == "half_pixel_symmetric") a.ctm = Ctm::kHalfPixelSymmetric;
  else if (ctm == "pytorch_half_pixel") a.ctm = Ctm::kPytorchHalfPixel;
  else if (ctm == "align_corners") a.ctm = Ctm::kAlignCorners;
  else if (ctm == "asymmetric") a.ctm = Ctm::kAsymmetric;
  else if (ctm == "tf_crop_and_resize") a.ctm = Ctm::kCrop;
  else if (ctm == "tf_half_pixel_for_nn") a.ctm = Ctm::kTfHalfPixelNn;
  else return bad("coordinate_transformation_mode", ctm);
  if (nm == "round_prefer_floor") a.nearest = Nearest::kRoundPreferFloor;
  else if (nm == "round_prefer_ceil") a.nearest = Nearest::kRoundPreferCeil;
  else if (nm == "floor") a.nearest = Nearest::kFloor;
  else if (nm == "ceil") a.nearest = Nearest::kCeil;
  else return bad("nearest_mode", nm);
  if (antialias != 0 && antialias != 1)
    return Status::Error(node.Where() + ": attribute 'antialias' must be 0 or 1, got " + std::to_string(antialias));
  a.exclude_outside = exclude != 0;
  a.antialias = antialias == 1;
  a.cubic_a = cubic_a;
  a.extrapolation = ev;
  return a;
}

/// The taps of every axis of x -> y (shared by the kernel and ResizeAxisTaps): the geometry of
/// runtime/ops/resize.h from roi (nullptr unless tf_crop_and_resize), scales or sizes (nullptr when
/// absent or empty; both absent: sizes = y, policy stretch). Errors: as ResizeGeometryOf, or a
/// geometry whose dims are not y's.
Result<std::vector<AxisTaps>> AllTaps(const ResizeAttrs& a, const Shape& x, const Shape& y, const Tensor* roi,
                                      const Tensor* scales, const Tensor* sizes) {
  const size_t r = x.size();
  Tensor y_sizes;
  ResizeForm form = a.form;
  if (!scales && !sizes) {
    if (form.policy != ResizePolicy::kStretch)
      return Status::Error("Resize: keep_aspect_ratio_policy needs the 'sizes' input to compute its scale");
    form.axes.clear();
    TARE_ASSIGN_OR_RETURN(y_sizes, Tensor::Alloc(DType::kInt64, {static_cast<int64_t>(r)}));
    for (size_t d = 0; d < r; ++d) WriteInt(y_sizes, static_cast<int64_t>(d), y[d]);
    sizes = &y_sizes;
  }
  Result<ResizeGeometry> g = ResizeGeometryOf(form, x, roi, scales, sizes);
  if (!g.ok()) return Status::Error("Resize: " + g.status().message());
  if (g->out != y) return Status::Error("Resize: output shape " + ShapeStr(y) + " is not " + ShapeStr(g->out));
  std::vector<AxisTaps> taps;
  for (size_t d = 0; d < r; ++d)
    taps.push_back(MakeTaps(a, AxisGeom{x[d], y[d], g->scale[d], g->width[d], g->roi_start[d], g->roi_end[d]}));
  return taps;
}

}  // namespace

Result<std::vector<ResizeTaps>> ResizeAxisTaps(const Node& node, const Shape& x, const Shape& y, const Tensor* roi,
                                               const Tensor* scales, int* mode, const Tensor* sizes) {
  TARE_ASSIGN_OR_RETURN(ResizeAttrs a, ParseAttrs(node));
  *mode = a.mode;
  return AllTaps(a, x, y, a.ctm == Ctm::kCrop ? roi : nullptr, scales, scales ? nullptr : sizes);
}

template <class T>
Result<KernelFn> MakeResize(const Node& node) {
  TARE_ASSIGN_OR_RETURN(ResizeAttrs a, ParseAttrs(node));
  return KernelFn([a](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    Tensor& y = *out[0];
    const Tensor* scales = in.size() > 2 && in[2] && in[2]->numel() > 0 ? in[2] : nullptr;
    const Tensor* sizes = !scales && in.size() > 3 && in[3] && in[3]->numel() > 0 ? in[3] : nullptr;
    const Tensor* roi = a.ctm == Ctm::kCrop && in.size() > 1 ? in[1] : nullptr;
    // An empty output writes nothing; and one of its dims may be huge (taps are built per dim).
    if (y.numel() == 0) return Status::Ok();
    TARE_ASSIGN_OR_RETURN(const std::vector<AxisTaps> taps, AllTaps(a, x.shape, y.shape, roi, scales, sizes));
    if (a.mode == 0) {
      Tensor ev_t = Tensor::Alloc(y.dtype, {}).value();  // the extrapolation value in Y's type
      WriteDouble(ev_t, 0, a.extrapolation);
      switch (DTypeSize(y.dtype)) {
        case 1: Gather<uint8_t>(x, y, taps, *ev_t.as<uint8_t>()); break;
        case 2: Gather<uint16_t>(x, y, taps, *ev_t.as<uint16_t>()); break;
        case 4: Gather<uint32_t>(x, y, taps, *ev_t.as<uint32_t>()); break;
        case 8: Gather<uint64_t>(x, y, taps, *ev_t.as<uint64_t>()); break;
        default: return Status::Error("Resize: unsupported dtype " + DTypeName(y.dtype));
      }
      return Status::Ok();
    }
    if (y.dtype == DType::kFloat32) Interpolate<float>(x, y, taps, a.extrapolation);
    else if (y.dtype == DType::kFloat64) Interpolate<double>(x, y, taps, a.extrapolation);
    else return Status::Error("Resize: mode linear/cubic needs float data, got " + DTypeName(y.dtype));
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Resize)

}  // namespace tare
