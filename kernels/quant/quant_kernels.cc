// kernels/quant op kernels (semantics and sources: kernels/quant/quant.h). Loop orders follow
// TFLite's reference kernels; integer sums are exact (or wrap modulo 2^32 where TFLite's int32
// accumulator would overflow), so their order does not change the result, while the float32 sum of
// the table softmax is done in TFLite's order (row elements ascending).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/quant/fixed_point.h"
#include "kernels/quant/quant.h"

namespace tare {
namespace quant {

namespace fp = fixedpoint;

namespace {

constexpr int64_t kMaxDim = std::numeric_limits<int32_t>::max();

std::string ShapeStr(const Nhwc& s) {
  return "[" + std::to_string(s.n) + ", " + std::to_string(s.h) + ", " + std::to_string(s.w) +
         ", " + std::to_string(s.c) + "]";
}

/// Every dim in [1, 2^31) and the element count representable.
Status CheckShape(const char* what, const Nhwc& s) {
  const int64_t d[4] = {s.n, s.h, s.w, s.c};
  int64_t total = 1;
  for (int64_t v : d) {
    if (v < 1 || v > kMaxDim)
      return Status::Error(std::string(what) + " shape " + ShapeStr(s) +
                           " must have dims in [1, 2^31)");
    if (__builtin_mul_overflow(total, v, &total))
      return Status::Error(std::string(what) + " shape " + ShapeStr(s) + " is too large");
  }
  return Status::Ok();
}

Status CheckCount(const char* what, int64_t v) {
  if (v < 1 || v > kMaxDim)
    return Status::Error(std::string(what) + " must be in [1, 2^31), got " + std::to_string(v));
  return Status::Ok();
}

Status CheckConvWindow(const ConvWindow& win) {
  if (win.stride_h < 1 || win.stride_w < 1 || win.dilation_h < 1 || win.dilation_w < 1 ||
      win.stride_h > kMaxDim || win.stride_w > kMaxDim || win.dilation_h > kMaxDim ||
      win.dilation_w > kMaxDim)
    return Status::Error("conv strides and dilations must be in [1, 2^31)");
  if (win.pad_top < 0 || win.pad_left < 0 || win.pad_top > kMaxDim || win.pad_left > kMaxDim)
    return Status::Error("conv padding must be in [0, 2^31)");
  return Status::Ok();
}

Status CheckMultipliers(const ConvParams& p, int64_t channels) {
  if (p.multiplier.size() != p.shift.size() ||
      !(p.multiplier.size() == 1 || static_cast<int64_t>(p.multiplier.size()) == channels))
    return Status::Error("expected 1 or " + std::to_string(channels) +
                         " output multipliers, got " + std::to_string(p.multiplier.size()));
  if (p.act.min > p.act.max) return Status::Error("activation range min > max");
  return Status::Ok();
}

template <typename Acc>
int32_t Rescale(Acc acc, int32_t m, int shift) {
  return MultiplyByQuantizedMultiplier(acc, m, shift);
}

/// acc + v with 32-bit wrapping for int32 accumulators (TFLite's int32 sums; exact in practice).
inline int32_t AccAdd(int32_t acc, int64_t v) {
  return static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(v));
}
inline int64_t AccAdd(int64_t acc, int64_t v) { return acc + v; }

template <typename X>
constexpr bool kIs16 = std::is_same<X, int16_t>::value;

template <typename X, typename W, typename B, typename Y, typename Acc>
Status ConvImpl(const ConvParams& p, const ConvWindow& win, const Nhwc& in, const X* x,
                const Nhwc& f, const W* w, const B* bias, const Nhwc& out, Y* y) {
  TARE_RETURN_IF_ERROR(CheckShape("conv input", in));
  TARE_RETURN_IF_ERROR(CheckShape("conv filter", f));
  TARE_RETURN_IF_ERROR(CheckShape("conv output", out));
  TARE_RETURN_IF_ERROR(CheckConvWindow(win));
  if (in.n != out.n || f.n != out.c || in.c % f.c != 0)
    return Status::Error("conv shapes do not match: input " + ShapeStr(in) + ", filter (OHWI) " +
                         ShapeStr(f) + ", output " + ShapeStr(out));
  const int64_t groups = in.c / f.c;
  if (out.c % groups != 0)
    return Status::Error("conv output channels " + std::to_string(out.c) +
                         " not divisible by the groups " + std::to_string(groups));
  TARE_RETURN_IF_ERROR(CheckMultipliers(p, out.c));
  const bool per_channel = p.multiplier.size() > 1;
  const int64_t filters_per_group = out.c / groups;
  const int32_t in_off = kIs16<X> ? 0 : p.input_offset;
  const int32_t w_off = kIs16<X> ? 0 : p.weights_offset;
  const int32_t out_off = kIs16<X> ? 0 : p.output_offset;
  for (int64_t b = 0; b < out.n; ++b)
    for (int64_t oy = 0; oy < out.h; ++oy) {
      const int64_t iy0 = oy * win.stride_h - win.pad_top;
      for (int64_t ox = 0; ox < out.w; ++ox) {
        const int64_t ix0 = ox * win.stride_w - win.pad_left;
        for (int64_t oc = 0; oc < out.c; ++oc) {
          const int64_t group = oc / filters_per_group;
          Acc acc = 0;
          for (int64_t ky = 0; ky < f.h; ++ky) {
            const int64_t iy = iy0 + win.dilation_h * ky;
            if (iy < 0 || iy >= in.h) continue;
            for (int64_t kx = 0; kx < f.w; ++kx) {
              const int64_t ix = ix0 + win.dilation_w * kx;
              if (ix < 0 || ix >= in.w) continue;
              const X* xp = x + ((b * in.h + iy) * in.w + ix) * in.c + group * f.c;
              const W* wp = w + ((oc * f.h + ky) * f.w + kx) * f.c;
              for (int64_t ic = 0; ic < f.c; ++ic)
                acc = AccAdd(acc, (static_cast<int64_t>(wp[ic]) + w_off) *
                                      (static_cast<int64_t>(xp[ic]) + in_off));
            }
          }
          if (bias) acc = AccAdd(acc, static_cast<int64_t>(bias[oc]));
          const size_t mi = per_channel ? static_cast<size_t>(oc) : 0;
          int32_t v = Rescale(acc, p.multiplier[mi], p.shift[mi]);
          v = static_cast<int32_t>(static_cast<uint32_t>(v) + static_cast<uint32_t>(out_off));
          v = std::min(std::max(v, p.act.min), p.act.max);
          y[((b * out.h + oy) * out.w + ox) * out.c + oc] = static_cast<Y>(v);
        }
      }
    }
  return Status::Ok();
}

template <typename X, typename W, typename B, typename Y, typename Acc>
Status DepthwiseImpl(const ConvParams& p, const ConvWindow& win, int64_t depth_multiplier,
                     const Nhwc& in, const X* x, const Nhwc& f, const W* w, const B* bias,
                     const Nhwc& out, Y* y) {
  TARE_RETURN_IF_ERROR(CheckShape("depthwise conv input", in));
  TARE_RETURN_IF_ERROR(CheckShape("depthwise conv filter", f));
  TARE_RETURN_IF_ERROR(CheckShape("depthwise conv output", out));
  TARE_RETURN_IF_ERROR(CheckConvWindow(win));
  TARE_RETURN_IF_ERROR(CheckCount("depth multiplier", depth_multiplier));
  if (in.n != out.n || f.n != 1 || f.c != out.c || out.c != in.c * depth_multiplier)
    return Status::Error("depthwise conv shapes do not match: input " + ShapeStr(in) +
                         ", filter " + ShapeStr(f) + " (expected [1, KH, KW, " +
                         std::to_string(in.c * depth_multiplier) + "]), output " +
                         ShapeStr(out) + ", depth multiplier " + std::to_string(depth_multiplier));
  TARE_RETURN_IF_ERROR(CheckMultipliers(p, out.c));
  const bool per_channel = p.multiplier.size() > 1;
  const int32_t in_off = kIs16<X> ? 0 : p.input_offset;
  const int32_t w_off = kIs16<X> ? 0 : p.weights_offset;
  const int32_t out_off = kIs16<X> ? 0 : p.output_offset;
  for (int64_t b = 0; b < out.n; ++b)
    for (int64_t oy = 0; oy < out.h; ++oy) {
      const int64_t iy0 = oy * win.stride_h - win.pad_top;
      for (int64_t ox = 0; ox < out.w; ++ox) {
        const int64_t ix0 = ox * win.stride_w - win.pad_left;
        for (int64_t ic = 0; ic < in.c; ++ic)
          for (int64_t m = 0; m < depth_multiplier; ++m) {
            const int64_t oc = ic * depth_multiplier + m;
            Acc acc = 0;
            for (int64_t ky = 0; ky < f.h; ++ky) {
              const int64_t iy = iy0 + win.dilation_h * ky;
              if (iy < 0 || iy >= in.h) continue;
              for (int64_t kx = 0; kx < f.w; ++kx) {
                const int64_t ix = ix0 + win.dilation_w * kx;
                if (ix < 0 || ix >= in.w) continue;
                const int64_t xv = x[((b * in.h + iy) * in.w + ix) * in.c + ic];
                const int64_t wv = w[(ky * f.w + kx) * f.c + oc];
                acc = AccAdd(acc, (wv + w_off) * (xv + in_off));
              }
            }
            if (bias) acc = AccAdd(acc, static_cast<int64_t>(bias[oc]));
            const size_t mi = per_channel ? static_cast<size_t>(oc) : 0;
            int32_t v = Rescale(acc, p.multiplier[mi], p.shift[mi]);
            v = static_cast<int32_t>(static_cast<uint32_t>(v) + static_cast<uint32_t>(out_off));
            v = std::min(std::max(v, p.act.min), p.act.max);
            y[((b * out.h + oy) * out.w + ox) * out.c + oc] = static_cast<Y>(v);
          }
      }
    }
  return Status::Ok();
}

template <typename X, typename W, typename B, typename Y, typename Acc>
Status FullyConnectedImpl(const ConvParams& p, int64_t batches, int64_t depth, int64_t units,
                          const X* x, const W* w, const B* bias, Y* y) {
  TARE_RETURN_IF_ERROR(CheckCount("fully connected batches", batches));
  TARE_RETURN_IF_ERROR(CheckCount("fully connected accumulation depth", depth));
  TARE_RETURN_IF_ERROR(CheckCount("fully connected output depth", units));
  int64_t total = 0;
  if (__builtin_mul_overflow(batches, depth, &total) ||
      __builtin_mul_overflow(units, depth, &total) ||
      __builtin_mul_overflow(batches, units, &total))
    return Status::Error("fully connected sizes are too large");
  TARE_RETURN_IF_ERROR(CheckMultipliers(p, units));
  const bool per_channel = p.multiplier.size() > 1;
  const int32_t in_off = kIs16<X> ? 0 : p.input_offset;
  const int32_t w_off = kIs16<X> ? 0 : p.weights_offset;
  const int32_t out_off = kIs16<X> ? 0 : p.output_offset;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t o = 0; o < units; ++o) {
      Acc acc = 0;
      const X* xp = x + b * depth;
      const W* wp = w + o * depth;
      for (int64_t d = 0; d < depth; ++d)
        acc = AccAdd(acc, (static_cast<int64_t>(wp[d]) + w_off) *
                              (static_cast<int64_t>(xp[d]) + in_off));
      if (bias) acc = AccAdd(acc, static_cast<int64_t>(bias[o]));
      const size_t mi = per_channel ? static_cast<size_t>(o) : 0;
      int32_t v = Rescale(acc, p.multiplier[mi], p.shift[mi]);
      v = static_cast<int32_t>(static_cast<uint32_t>(v) + static_cast<uint32_t>(out_off));
      v = std::min(std::max(v, p.act.min), p.act.max);
      y[b * units + o] = static_cast<Y>(v);
    }
  return Status::Ok();
}

// ---- broadcasting -----------------------------------------------------------------------------

constexpr size_t kMaxBroadcastRank = 6;

/// Calls fn(i1, i2, io) for every output element in row-major order, i1/i2 the flat indices of
/// the (broadcast) inputs.
template <typename Fn>
Status ForEachBroadcast(const std::vector<int64_t>& s1, const std::vector<int64_t>& s2, Fn fn) {
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> out, BroadcastShape(s1, s2));
  const size_t r = out.size();
  int64_t total = 1;
  for (int64_t d : out) total *= d;  // checked by BroadcastShape
  if (total == 0) return Status::Ok();
  std::vector<int64_t> st1(r, 0), st2(r, 0);
  int64_t a = 1, b = 1;
  for (size_t k = r; k-- > 0;) {
    const size_t o1 = r - s1.size(), o2 = r - s2.size();
    const int64_t d1 = k >= o1 ? s1[k - o1] : 1;
    const int64_t d2 = k >= o2 ? s2[k - o2] : 1;
    st1[k] = d1 == 1 ? 0 : a;
    st2[k] = d2 == 1 ? 0 : b;
    a *= d1;
    b *= d2;
  }
  std::vector<int64_t> idx(r, 0);
  int64_t i1 = 0, i2 = 0;
  for (int64_t io = 0; io < total; ++io) {
    fn(i1, i2, io);
    for (size_t k = r; k-- > 0;) {
      ++idx[k];
      i1 += st1[k];
      i2 += st2[k];
      if (idx[k] < out[k]) break;
      i1 -= st1[k] * idx[k];
      i2 -= st2[k] * idx[k];
      idx[k] = 0;
    }
  }
  return Status::Ok();
}

/// gemmlowp RoundingDivideByPOT<int16_t> (masks and threshold in int16).
int16_t Rdbp16(int16_t x, int e) {
  const int16_t mask = static_cast<int16_t>((int64_t{1} << e) - 1);
  const int16_t remainder = static_cast<int16_t>(x & mask);
  const int16_t threshold = static_cast<int16_t>((mask >> 1) + (x < 0 ? 1 : 0));
  return static_cast<int16_t>((x >> e) + (remainder > threshold ? 1 : 0));
}

template <typename T>
Status AddImpl(const AddParams& p, const std::vector<int64_t>& s1, const T* x1,
               const std::vector<int64_t>& s2, const T* x2, T* y) {
  if (p.act.min > p.act.max) return Status::Error("activation range min > max");
  if (p.pot_int16) {
    if (!std::is_same<T, int16_t>::value)
      return Status::Error("the power-of-two add path is for int16 only");
    if (!(p.input1.shift == 0 || p.input2.shift == 0) || p.input1.shift > 0 ||
        p.input2.shift > 0 || p.input1.shift < -31 || p.input2.shift < -31)
      return Status::Error("int16 power-of-two add: bad input shifts");
    const bool first_plain = p.input1.shift == 0;
    const int right_shift = first_plain ? -p.input2.shift : -p.input1.shift;
    return ForEachBroadcast(s1, s2, [&](int64_t i1, int64_t i2, int64_t io) {
      const int16_t plain = static_cast<int16_t>(first_plain ? x1[i1] : x2[i2]);
      const int16_t shifted = static_cast<int16_t>(first_plain ? x2[i2] : x1[i1]);
      const int32_t sum = static_cast<int32_t>(Rdbp16(shifted, right_shift)) + plain;
      const int32_t sat = std::min(32767, std::max(-32768, sum));
      y[io] = static_cast<T>(std::min(p.act.max, std::max(p.act.min, sat)));
    });
  }
  if (p.left_shift < 0 || p.left_shift > 30) return Status::Error("add: bad left shift");
  return ForEachBroadcast(s1, s2, [&](int64_t i1, int64_t i2, int64_t io) {
    const int32_t v1 = fp::WrapAdd(p.input1_offset, static_cast<int32_t>(x1[i1]));
    const int32_t v2 = fp::WrapAdd(p.input2_offset, static_cast<int32_t>(x2[i2]));
    const int32_t sh1 = fp::WrapShl(v1, p.left_shift);
    const int32_t sh2 = fp::WrapShl(v2, p.left_shift);
    const int32_t sc1 =
        MultiplyByQuantizedMultiplierSmallerThanOneExp(sh1, p.input1.multiplier, p.input1.shift);
    const int32_t sc2 =
        MultiplyByQuantizedMultiplierSmallerThanOneExp(sh2, p.input2.multiplier, p.input2.shift);
    const int32_t raw_sum = fp::WrapAdd(sc1, sc2);
    const int32_t raw_out = fp::WrapAdd(
        MultiplyByQuantizedMultiplierSmallerThanOneExp(raw_sum, p.output.multiplier,
                                                       p.output.shift),
        p.output_offset);
    y[io] = static_cast<T>(std::min(p.act.max, std::max(p.act.min, raw_out)));
  });
}

template <typename T>
Status MulImpl(const MulParams& p, const std::vector<int64_t>& s1, const T* x1,
               const std::vector<int64_t>& s2, const T* x2, T* y) {
  if (p.act.min > p.act.max) return Status::Error("activation range min > max");
  return ForEachBroadcast(s1, s2, [&](int64_t i1, int64_t i2, int64_t io) {
    const int32_t v1 = fp::WrapAdd(p.input1_offset, static_cast<int32_t>(x1[i1]));
    const int32_t v2 = fp::WrapAdd(p.input2_offset, static_cast<int32_t>(x2[i2]));
    const int32_t prod =
        static_cast<int32_t>(static_cast<uint32_t>(static_cast<int64_t>(v1) * v2));
    const int32_t r = fp::WrapAdd(
        p.output_offset, MultiplyByQuantizedMultiplier(prod, p.output.multiplier, p.output.shift));
    y[io] = static_cast<T>(std::min(p.act.max, std::max(p.act.min, r)));
  });
}

// ---- pooling ------------------------------------------------------------------------------------

Status CheckPool(const PoolWindow& win, const Nhwc& in, const Nhwc& out, ActivationRange act) {
  TARE_RETURN_IF_ERROR(CheckShape("pool input", in));
  TARE_RETURN_IF_ERROR(CheckShape("pool output", out));
  if (in.n != out.n || in.c != out.c)
    return Status::Error("pool shapes do not match: input " + ShapeStr(in) + ", output " +
                         ShapeStr(out));
  if (win.filter_h < 1 || win.filter_w < 1 || win.stride_h < 1 || win.stride_w < 1 ||
      win.filter_h > kMaxDim || win.filter_w > kMaxDim || win.stride_h > kMaxDim ||
      win.stride_w > kMaxDim || win.pad_top < 0 || win.pad_left < 0 || win.pad_top > kMaxDim ||
      win.pad_left > kMaxDim)
    return Status::Error("pool filter and strides must be in [1, 2^31), padding in [0, 2^31)");
  if (act.min > act.max) return Status::Error("activation range min > max");
  return Status::Ok();
}

template <typename T>
Status AveragePoolImpl(ActivationRange act, const PoolWindow& win, const Nhwc& in, const T* x,
                       const Nhwc& out, T* y) {
  TARE_RETURN_IF_ERROR(CheckPool(win, in, out, act));
  for (int64_t b = 0; b < out.n; ++b)
    for (int64_t oy = 0; oy < out.h; ++oy)
      for (int64_t ox = 0; ox < out.w; ++ox) {
        const int64_t iy0 = oy * win.stride_h - win.pad_top;
        const int64_t ix0 = ox * win.stride_w - win.pad_left;
        const int64_t fy0 = std::max<int64_t>(0, -iy0), fy1 = std::min(win.filter_h, in.h - iy0);
        const int64_t fx0 = std::max<int64_t>(0, -ix0), fx1 = std::min(win.filter_w, in.w - ix0);
        for (int64_t c = 0; c < out.c; ++c) {
          int64_t acc = 0, count = 0;
          for (int64_t fy = fy0; fy < fy1; ++fy)
            for (int64_t fx = fx0; fx < fx1; ++fx) {
              acc += x[((b * in.h + iy0 + fy) * in.w + ix0 + fx) * in.c + c];
              ++count;
            }
          if (count == 0)
            return Status::Error("average pool window at output (" + std::to_string(oy) + ", " +
                                 std::to_string(ox) + ") has no input element (TFLite error)");
          if (std::is_same<T, uint8_t>::value)
            acc = (acc + count / 2) / count;
          else
            acc = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
          acc = std::min<int64_t>(std::max<int64_t>(acc, act.min), act.max);
          y[((b * out.h + oy) * out.w + ox) * out.c + c] = static_cast<T>(acc);
        }
      }
  return Status::Ok();
}

template <typename T>
Status MaxPoolImpl(ActivationRange act, const PoolWindow& win, const Nhwc& in, const T* x,
                   const Nhwc& out, T* y) {
  TARE_RETURN_IF_ERROR(CheckPool(win, in, out, act));
  for (int64_t b = 0; b < out.n; ++b)
    for (int64_t oy = 0; oy < out.h; ++oy)
      for (int64_t ox = 0; ox < out.w; ++ox) {
        const int64_t iy0 = oy * win.stride_h - win.pad_top;
        const int64_t ix0 = ox * win.stride_w - win.pad_left;
        const int64_t fy0 = std::max<int64_t>(0, -iy0), fy1 = std::min(win.filter_h, in.h - iy0);
        const int64_t fx0 = std::max<int64_t>(0, -ix0), fx1 = std::min(win.filter_w, in.w - ix0);
        for (int64_t c = 0; c < out.c; ++c) {
          int32_t m = std::numeric_limits<T>::lowest();
          for (int64_t fy = fy0; fy < fy1; ++fy)
            for (int64_t fx = fx0; fx < fx1; ++fx)
              m = std::max<int32_t>(m, x[((b * in.h + iy0 + fy) * in.w + ix0 + fx) * in.c + c]);
          m = std::min(std::max(m, act.min), act.max);
          y[((b * out.h + oy) * out.w + ox) * out.c + c] = static_cast<T>(m);
        }
      }
  return Status::Ok();
}

// ---- softmax -------------------------------------------------------------------------------------

Status CheckRows(int64_t outer, int64_t depth) {
  TARE_RETURN_IF_ERROR(CheckCount("softmax rows", outer));
  TARE_RETURN_IF_ERROR(CheckCount("softmax depth", depth));
  int64_t total = 0;
  if (__builtin_mul_overflow(outer, depth, &total))
    return Status::Error("softmax size is too large");
  return Status::Ok();
}

template <typename T>
Status SoftmaxFixedPointImpl(const SoftmaxFixedPointParams& p, int64_t outer, int64_t depth,
                             const T* x, T* y) {
  TARE_RETURN_IF_ERROR(CheckRows(outer, depth));
  if (p.input_left_shift < 0 || p.input_left_shift > 30 || p.diff_min > 0)
    return Status::Error("softmax: bad fixed-point parameters");
  constexpr int32_t kMin = std::numeric_limits<T>::min();
  constexpr int32_t kMax = std::numeric_limits<T>::max();
  constexpr int kScaledDiffIntegerBits = 5;
  constexpr int kAccumulationIntegerBits = 12;
  for (int64_t i = 0; i < outer; ++i) {
    const T* xr = x + i * depth;
    T* yr = y + i * depth;
    int32_t max_in_row = kMin;
    for (int64_t c = 0; c < depth; ++c) max_in_row = std::max<int32_t>(max_in_row, xr[c]);
    int32_t sum_of_exps = 0;  // Q12.19
    for (int64_t c = 0; c < depth; ++c) {
      const int32_t diff = static_cast<int32_t>(xr[c]) - max_in_row;
      if (diff >= p.diff_min) {
        const int32_t scaled = MultiplyByQuantizedMultiplierGreaterThanOne(
            diff, p.input_multiplier, p.input_left_shift);  // Q5.26
        const int32_t e = fp::ExpOnNegativeValues(scaled, kScaledDiffIntegerBits);  // Q0.31
        sum_of_exps = fp::WrapAdd(sum_of_exps, fp::Rdbp(e, kAccumulationIntegerBits));
      }
    }
    int num_bits_over_unit = 0;
    const int32_t shifted_scale =
        fp::GetReciprocal(sum_of_exps, kAccumulationIntegerBits, &num_bits_over_unit);
    const int exponent = num_bits_over_unit + 31 - 8;
    if (exponent < 0 || exponent > 31)
      return Status::Error("softmax row " + std::to_string(i) + ": output shift " +
                           std::to_string(exponent) +
                           " outside [0, 31] (TFLite's reference kernel aborts here: too many "
                           "elements near the row maximum)");
    for (int64_t c = 0; c < depth; ++c) {
      const int32_t diff = static_cast<int32_t>(xr[c]) - max_in_row;
      if (diff >= p.diff_min) {
        const int32_t scaled = MultiplyByQuantizedMultiplierGreaterThanOne(
            diff, p.input_multiplier, p.input_left_shift);
        const int32_t e = fp::ExpOnNegativeValues(scaled, kScaledDiffIntegerBits);
        const int32_t unsat = fp::Rdbp(fp::Srdhm(shifted_scale, e), exponent);
        const int32_t shifted = unsat + kMin;
        yr[c] = static_cast<T>(std::max(std::min(shifted, kMax), kMin));
      } else {
        yr[c] = static_cast<T>(kMin);
      }
    }
  }
  return Status::Ok();
}

template <typename T>
Status SoftmaxLutImpl(const SoftmaxLutParams& p, int64_t outer, int64_t depth, const T* x, T* y) {
  TARE_RETURN_IF_ERROR(CheckRows(outer, depth));
  if (!(std::isfinite(p.output_scale) && p.output_scale > 0))
    return Status::Error("softmax: bad output scale");
  constexpr int32_t kMin = std::numeric_limits<T>::min();
  constexpr int32_t kMax = std::numeric_limits<T>::max();
  for (int64_t i = 0; i < outer; ++i) {
    const T* xr = x + i * depth;
    T* yr = y + i * depth;
    int32_t max_val = kMin;
    for (int64_t j = 0; j < depth; ++j) max_val = std::max<int32_t>(max_val, xr[j]);
    // TFLite's table_offset[x] = table[255 - max + x]; 0 <= 255 - (max - x) <= 255.
    auto t = [&](T v) { return p.table[static_cast<size_t>(255 - max_val + v)]; };
    float sum_exp = 0.0f;
    for (int64_t j = 0; j < depth; ++j) sum_exp += t(xr[j]);
    const float inv_sum_exp = 1.0f / (sum_exp * p.output_scale);
    for (int64_t j = 0; j < depth; ++j) {
      const float prob_rescaled = t(xr[j]) * inv_sum_exp;
      int32_t q;
      if (std::is_same<T, uint8_t>::value)
        q = static_cast<int32_t>(prob_rescaled + 0.5f);
      else
        q = static_cast<int32_t>(std::round(prob_rescaled)) + p.output_zero_point;
      yr[j] = static_cast<T>(std::max(std::min(kMax, q), kMin));
    }
  }
  return Status::Ok();
}

template <typename In, typename Out>
void RequantizeImpl(QuantizedMultiplier m, int32_t zp_in, int32_t zp_out, int64_t n, const In* x,
                    Out* y) {
  constexpr int32_t kMin = std::numeric_limits<Out>::min();
  constexpr int32_t kMax = std::numeric_limits<Out>::max();
  for (int64_t i = 0; i < n; ++i) {
    const int32_t input = fp::WrapSub(static_cast<int32_t>(x[i]), zp_in);
    const int32_t output =
        fp::WrapAdd(MultiplyByQuantizedMultiplier(input, m.multiplier, m.shift), zp_out);
    y[i] = static_cast<Out>(std::max(std::min(output, kMax), kMin));
  }
}

template <typename T>
Status QuantizeImpl(TensorQuant q, int64_t n, const float* x, T* y) {
  constexpr int32_t kMin = std::numeric_limits<T>::min();
  constexpr int32_t kMax = std::numeric_limits<T>::max();
  if (!(std::isfinite(q.scale) && q.scale > 0))
    return Status::Error("quantize: scale must be finite and > 0");
  if (q.zero_point < kMin || q.zero_point > kMax)
    return Status::Error("quantize: zero point " + std::to_string(q.zero_point) +
                         " outside the output type");
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    if (std::isnan(v)) {
      y[i] = static_cast<T>(q.zero_point);
      continue;
    }
    const double unclamped = static_cast<double>(std::round(v / q.scale)) +
                             static_cast<double>(q.zero_point);
    const double clamped = std::min(std::max(unclamped, static_cast<double>(kMin)),
                                    static_cast<double>(kMax));
    y[i] = static_cast<T>(clamped);
  }
  return Status::Ok();
}

template <typename T>
void DequantizeImpl(TensorQuant q, int64_t n, const T* x, float* y) {
  const double scale = q.scale;
  for (int64_t i = 0; i < n; ++i)
    y[i] = static_cast<float>(scale * static_cast<double>(static_cast<int32_t>(x[i]) -
                                                          q.zero_point));
}

}  // namespace

// ---- public entry points ---------------------------------------------------------------------------

Status Conv2D(const ConvParams& p, const ConvWindow& win, const Nhwc& in, const int8_t* x,
              const Nhwc& filter, const int8_t* w, const int32_t* bias, const Nhwc& out,
              int8_t* y) {
  return ConvImpl<int8_t, int8_t, int32_t, int8_t, int32_t>(p, win, in, x, filter, w, bias, out, y);
}
Status Conv2D(const ConvParams& p, const ConvWindow& win, const Nhwc& in, const uint8_t* x,
              const Nhwc& filter, const uint8_t* w, const int32_t* bias, const Nhwc& out,
              uint8_t* y) {
  return ConvImpl<uint8_t, uint8_t, int32_t, uint8_t, int32_t>(p, win, in, x, filter, w, bias, out,
                                                               y);
}
Status Conv2D(const ConvParams& p, const ConvWindow& win, const Nhwc& in, const int16_t* x,
              const Nhwc& filter, const int8_t* w, const int64_t* bias, const Nhwc& out,
              int16_t* y) {
  return ConvImpl<int16_t, int8_t, int64_t, int16_t, int64_t>(p, win, in, x, filter, w, bias, out,
                                                              y);
}
Status Conv2D(const ConvParams& p, const ConvWindow& win, const Nhwc& in, const int16_t* x,
              const Nhwc& filter, const int8_t* w, const int32_t* bias, const Nhwc& out,
              int16_t* y) {
  return ConvImpl<int16_t, int8_t, int32_t, int16_t, int32_t>(p, win, in, x, filter, w, bias, out,
                                                              y);
}

Status DepthwiseConv2D(const ConvParams& p, const ConvWindow& win, int64_t depth_multiplier,
                       const Nhwc& in, const int8_t* x, const Nhwc& filter, const int8_t* w,
                       const int32_t* bias, const Nhwc& out, int8_t* y) {
  return DepthwiseImpl<int8_t, int8_t, int32_t, int8_t, int32_t>(p, win, depth_multiplier, in, x,
                                                                 filter, w, bias, out, y);
}
Status DepthwiseConv2D(const ConvParams& p, const ConvWindow& win, int64_t depth_multiplier,
                       const Nhwc& in, const uint8_t* x, const Nhwc& filter, const uint8_t* w,
                       const int32_t* bias, const Nhwc& out, uint8_t* y) {
  return DepthwiseImpl<uint8_t, uint8_t, int32_t, uint8_t, int32_t>(p, win, depth_multiplier, in,
                                                                    x, filter, w, bias, out, y);
}
Status DepthwiseConv2D(const ConvParams& p, const ConvWindow& win, int64_t depth_multiplier,
                       const Nhwc& in, const int16_t* x, const Nhwc& filter, const int8_t* w,
                       const int64_t* bias, const Nhwc& out, int16_t* y) {
  return DepthwiseImpl<int16_t, int8_t, int64_t, int16_t, int64_t>(p, win, depth_multiplier, in, x,
                                                                   filter, w, bias, out, y);
}

Status FullyConnected(const ConvParams& p, int64_t batches, int64_t accum_depth,
                      int64_t output_depth, const int8_t* x, const int8_t* w, const int32_t* bias,
                      int8_t* y) {
  return FullyConnectedImpl<int8_t, int8_t, int32_t, int8_t, int32_t>(p, batches, accum_depth,
                                                                      output_depth, x, w, bias, y);
}
Status FullyConnected(const ConvParams& p, int64_t batches, int64_t accum_depth,
                      int64_t output_depth, const uint8_t* x, const uint8_t* w,
                      const int32_t* bias, uint8_t* y) {
  return FullyConnectedImpl<uint8_t, uint8_t, int32_t, uint8_t, int32_t>(
      p, batches, accum_depth, output_depth, x, w, bias, y);
}
Status FullyConnected(const ConvParams& p, int64_t batches, int64_t accum_depth,
                      int64_t output_depth, const int16_t* x, const int8_t* w,
                      const int64_t* bias, int16_t* y) {
  return FullyConnectedImpl<int16_t, int8_t, int64_t, int16_t, int64_t>(
      p, batches, accum_depth, output_depth, x, w, bias, y);
}
Status FullyConnected(const ConvParams& p, int64_t batches, int64_t accum_depth,
                      int64_t output_depth, const int16_t* x, const int8_t* w,
                      const int32_t* bias, int16_t* y) {
  return FullyConnectedImpl<int16_t, int8_t, int32_t, int16_t, int32_t>(
      p, batches, accum_depth, output_depth, x, w, bias, y);
}

Result<std::vector<int64_t>> BroadcastShape(const std::vector<int64_t>& a,
                                            const std::vector<int64_t>& b) {
  if (a.size() > kMaxBroadcastRank || b.size() > kMaxBroadcastRank)
    return Status::Error("broadcast: rank > 6 is not supported (TFLite BroadcastAdd6DSlow)");
  const size_t r = std::max(a.size(), b.size());
  std::vector<int64_t> out(r, 1);
  int64_t total = 1;
  for (size_t k = 0; k < r; ++k) {
    const size_t ka = k + a.size(), kb = k + b.size();  // index from the right: ka - r
    const int64_t da = ka >= r ? a[ka - r] : 1;
    const int64_t db = kb >= r ? b[kb - r] : 1;
    if (da < 0 || db < 0 || da > kMaxDim || db > kMaxDim)
      return Status::Error("broadcast: dims must be in [0, 2^31)");
    if (da != db && da != 1 && db != 1)
      return Status::Error("broadcast: dims " + std::to_string(da) + " and " + std::to_string(db) +
                           " at axis " + std::to_string(k) + " are incompatible");
    out[k] = da == 1 ? db : da;
    if (__builtin_mul_overflow(total, out[k], &total))
      return Status::Error("broadcast: output too large");
  }
  return out;
}

Status Add(const AddParams& p, const std::vector<int64_t>& shape1, const int8_t* x1,
           const std::vector<int64_t>& shape2, const int8_t* x2, int8_t* y) {
  return AddImpl(p, shape1, x1, shape2, x2, y);
}
Status Add(const AddParams& p, const std::vector<int64_t>& shape1, const uint8_t* x1,
           const std::vector<int64_t>& shape2, const uint8_t* x2, uint8_t* y) {
  return AddImpl(p, shape1, x1, shape2, x2, y);
}
Status Add(const AddParams& p, const std::vector<int64_t>& shape1, const int16_t* x1,
           const std::vector<int64_t>& shape2, const int16_t* x2, int16_t* y) {
  return AddImpl(p, shape1, x1, shape2, x2, y);
}

Status Mul(const MulParams& p, const std::vector<int64_t>& shape1, const int8_t* x1,
           const std::vector<int64_t>& shape2, const int8_t* x2, int8_t* y) {
  return MulImpl(p, shape1, x1, shape2, x2, y);
}
Status Mul(const MulParams& p, const std::vector<int64_t>& shape1, const uint8_t* x1,
           const std::vector<int64_t>& shape2, const uint8_t* x2, uint8_t* y) {
  return MulImpl(p, shape1, x1, shape2, x2, y);
}
Status Mul(const MulParams& p, const std::vector<int64_t>& shape1, const int16_t* x1,
           const std::vector<int64_t>& shape2, const int16_t* x2, int16_t* y) {
  return MulImpl(p, shape1, x1, shape2, x2, y);
}

Status AveragePool(ActivationRange act, const PoolWindow& win, const Nhwc& in, const int8_t* x,
                   const Nhwc& out, int8_t* y) {
  return AveragePoolImpl(act, win, in, x, out, y);
}
Status AveragePool(ActivationRange act, const PoolWindow& win, const Nhwc& in, const uint8_t* x,
                   const Nhwc& out, uint8_t* y) {
  return AveragePoolImpl(act, win, in, x, out, y);
}
Status AveragePool(ActivationRange act, const PoolWindow& win, const Nhwc& in, const int16_t* x,
                   const Nhwc& out, int16_t* y) {
  return AveragePoolImpl(act, win, in, x, out, y);
}
Status MaxPool(ActivationRange act, const PoolWindow& win, const Nhwc& in, const int8_t* x,
               const Nhwc& out, int8_t* y) {
  return MaxPoolImpl(act, win, in, x, out, y);
}
Status MaxPool(ActivationRange act, const PoolWindow& win, const Nhwc& in, const uint8_t* x,
               const Nhwc& out, uint8_t* y) {
  return MaxPoolImpl(act, win, in, x, out, y);
}
Status MaxPool(ActivationRange act, const PoolWindow& win, const Nhwc& in, const int16_t* x,
               const Nhwc& out, int16_t* y) {
  return MaxPoolImpl(act, win, in, x, out, y);
}

Status SoftmaxFixedPoint(const SoftmaxFixedPointParams& p, int64_t outer, int64_t depth,
                         const int8_t* x, int8_t* y) {
  return SoftmaxFixedPointImpl(p, outer, depth, x, y);
}
Status SoftmaxFixedPoint(const SoftmaxFixedPointParams& p, int64_t outer, int64_t depth,
                         const uint8_t* x, uint8_t* y) {
  return SoftmaxFixedPointImpl(p, outer, depth, x, y);
}
Status SoftmaxLut(const SoftmaxLutParams& p, int64_t outer, int64_t depth, const int8_t* x,
                  int8_t* y) {
  return SoftmaxLutImpl(p, outer, depth, x, y);
}
Status SoftmaxLut(const SoftmaxLutParams& p, int64_t outer, int64_t depth, const uint8_t* x,
                  uint8_t* y) {
  return SoftmaxLutImpl(p, outer, depth, x, y);
}

void LookupTable(const Lut8& lut, int64_t n, const int8_t* x, int8_t* y) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = static_cast<int8_t>(lut.table[static_cast<uint8_t>(x[i])]);
}
void LookupTable(const Lut8& lut, int64_t n, const uint8_t* x, uint8_t* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = lut.table[x[i]];
}

void LogisticFixedPoint(const LogisticFixedPointParams& p, int64_t n, const int8_t* x,
                        int8_t* y) {
  for (int64_t i = 0; i < n; ++i) {
    const int32_t input = fp::WrapSub(static_cast<int32_t>(x[i]), p.input_zero_point);
    if (input <= -p.input_range_radius) {
      y[i] = -128;
    } else if (input >= p.input_range_radius) {
      y[i] = 127;
    } else {
      const int32_t in_q4 = MultiplyByQuantizedMultiplier(input, p.input_multiplier,
                                                          p.input_left_shift);
      const int32_t out_q0 = fp::Logistic(in_q4, 4);
      const int32_t out = fp::Rdbp(out_q0, 31 - 8) - 128;
      y[i] = static_cast<int8_t>(std::min(std::max(out, -128), 127));
    }
  }
}

void LogisticFixedPoint(const LogisticFixedPointParams& p, int64_t n, const uint8_t* x,
                        uint8_t* y) {
  for (int64_t i = 0; i < n; ++i) {
    const int32_t centered = fp::WrapSub(static_cast<int32_t>(x[i]), p.input_zero_point);
    if (centered <= -p.input_range_radius) {
      y[i] = 0;
    } else if (centered >= p.input_range_radius) {
      y[i] = 255;
    } else {
      const int32_t in_q4 = MultiplyByQuantizedMultiplierGreaterThanOne(
          centered, p.input_multiplier, p.input_left_shift);
      int32_t out = fp::Rdbp(fp::Logistic(in_q4, 4), 23);
      if (out == 256) out = 255;
      y[i] = static_cast<uint8_t>(std::min(std::max(out, 0), 255));
    }
  }
}

int16_t LutLookupInt16(int16_t v, const int16_t* lut) {
  const int index = 256 + (v >> 7);  // arithmetic shift: [0, 511]
  const int offset = v & 0x7F;
  const int base = lut[index];
  const int slope = static_cast<int16_t>(lut[index + 1] - lut[index]);
  const int delta = (slope * offset + 64) >> 7;
  return static_cast<int16_t>(base + delta);
}

Status SoftmaxInt16(const SoftmaxInt16Params& p, int64_t outer, int64_t depth, const int16_t* x,
                    int16_t* y) {
  TARE_RETURN_IF_ERROR(CheckRows(outer, depth));
  for (int64_t i = 0; i < outer; ++i) {
    const int16_t* xr = x + i * depth;
    int16_t* yr = y + i * depth;
    int32_t max_in_row = std::numeric_limits<int16_t>::min();
    for (int64_t c = 0; c < depth; ++c) max_in_row = std::max<int32_t>(max_in_row, xr[c]);
    // exp(x - max) in Q0.15 (cached in y, as TFLite does), and their int32 sum.
    int64_t sum = 0;
    for (int64_t c = 0; c < depth; ++c) {
      const int32_t diff = static_cast<int32_t>(xr[c]) - max_in_row;
      const int32_t scaled = MultiplyByQuantizedMultiplier(diff, p.input_multiplier, p.input_shift);
      const int32_t sym = std::min(std::max(fp::WrapAdd(scaled, 32767), -32768), 32767);
      yr[c] = LutLookupInt16(static_cast<int16_t>(sym), p.exp_lut.data());
      sum += yr[c];
    }
    if (sum > std::numeric_limits<int32_t>::max() || sum < 1)
      return Status::Error("softmax row " + std::to_string(i) + ": the int32 sum of exps (" + std::to_string(sum) +
                           ") is out of range (TFLite's int16 kernel overflows there)");
    const int32_t sum_of_exps = static_cast<int32_t>(sum);
    const int headroom_plus_one = __builtin_clz(static_cast<uint32_t>(sum_of_exps));  // in [1, 31]
    const int32_t shifted_sum = static_cast<int32_t>(
        ((static_cast<int64_t>(sum_of_exps) << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
    const int32_t sym_sum = std::min(std::max(shifted_sum - ((1 << 15) + (1 << 16)), -32768), 32767);
    const int32_t reciprocal =
        LutLookupInt16(static_cast<int16_t>(sym_sum), p.one_over_one_plus_x_lut.data());  // Q0.15
    const int right_shift = 31 - headroom_plus_one;
    const int64_t round = right_shift > 0 ? int64_t{1} << (right_shift - 1) : 0;
    for (int64_t c = 0; c < depth; ++c) {
      const int64_t r = (static_cast<int64_t>(yr[c]) * reciprocal + round) >> right_shift;
      yr[c] = static_cast<int16_t>(std::min<int64_t>(std::max<int64_t>(r, 0), 32767));
    }
  }
  return Status::Ok();
}

void LogisticInt16(const LogisticInt16Params& p, int64_t n, const int16_t* x, int16_t* y) {
  if (p.gemmlowp) {
    for (int64_t i = 0; i < n; ++i) y[i] = fp::Logistic16(x[i], 3);
    return;
  }
  const std::array<uint16_t, 256>& table = SigmoidTableUint16();
  const int shift = std::min(std::max(p.input_left_shift, 0), 31);
  const uint32_t round = shift > 0 ? uint32_t{1} << (shift - 1) : 0;
  for (int64_t i = 0; i < n; ++i) {
    // (x * m + round) >> shift in int32, the product wrapping as TFLite's does in practice.
    const uint32_t prod = static_cast<uint32_t>(static_cast<int32_t>(x[i])) * static_cast<uint32_t>(p.input_multiplier);
    const int32_t v = static_cast<int32_t>(prod + round) >> shift;
    const uint32_t a = v < 0 ? 0u - static_cast<uint32_t>(v) : static_cast<uint32_t>(v);
    const uint32_t u = a >> 9;
    uint32_t r;
    if (u >= 255) {
      r = uint32_t{0x7FFF} << 10;
    } else {
      const uint32_t ta = table[u], tb = table[u + 1];
      r = (ta << 9) + (a & 0x1FF) * (tb - ta);
    }
    r = v >= 0 ? r + (1u << 9) : (1u << 25) - r + (1u << 9) - 1;
    y[i] = static_cast<int16_t>(r >> 10);
  }
}

Status Quantize(TensorQuant out, int64_t n, const float* x, int8_t* y) {
  return QuantizeImpl(out, n, x, y);
}
Status Quantize(TensorQuant out, int64_t n, const float* x, uint8_t* y) {
  return QuantizeImpl(out, n, x, y);
}
Status Quantize(TensorQuant out, int64_t n, const float* x, int16_t* y) {
  return QuantizeImpl(out, n, x, y);
}

void Requantize(QuantizedMultiplier m, int32_t zp_in, int32_t zp_out, int64_t n, const int8_t* x,
                int8_t* y) {
  RequantizeImpl(m, zp_in, zp_out, n, x, y);
}
void Requantize(QuantizedMultiplier m, int32_t zp_in, int32_t zp_out, int64_t n, const int8_t* x,
                uint8_t* y) {
  RequantizeImpl(m, zp_in, zp_out, n, x, y);
}
void Requantize(QuantizedMultiplier m, int32_t zp_in, int32_t zp_out, int64_t n,
                const uint8_t* x, int8_t* y) {
  RequantizeImpl(m, zp_in, zp_out, n, x, y);
}
void Requantize(QuantizedMultiplier m, int32_t zp_in, int32_t zp_out, int64_t n,
                const uint8_t* x, uint8_t* y) {
  RequantizeImpl(m, zp_in, zp_out, n, x, y);
}
void Requantize(QuantizedMultiplier m, int32_t zp_in, int32_t zp_out, int64_t n,
                const int16_t* x, int16_t* y) {
  RequantizeImpl(m, zp_in, zp_out, n, x, y);
}
void Requantize(QuantizedMultiplier m, int32_t zp_in, int32_t zp_out, int64_t n,
                const int16_t* x, int8_t* y) {
  RequantizeImpl(m, zp_in, zp_out, n, x, y);
}

void Dequantize(TensorQuant in, int64_t n, const int8_t* x, float* y) {
  DequantizeImpl(in, n, x, y);
}
void Dequantize(TensorQuant in, int64_t n, const uint8_t* x, float* y) {
  DequantizeImpl(in, n, x, y);
}
void Dequantize(TensorQuant in, int64_t n, const int16_t* x, float* y) {
  DequantizeImpl(in, n, x, y);
}

Status DequantizePerChannel(const std::vector<float>& scales, const std::vector<int32_t>& zps,
                            int64_t outer, int64_t channels, int64_t inner, const int8_t* x,
                            float* y) {
  if (outer < 0 || channels < 1 || inner < 0)
    return Status::Error("per-channel dequantize: bad sizes");
  if (static_cast<int64_t>(scales.size()) != channels ||
      static_cast<int64_t>(zps.size()) != channels)
    return Status::Error("per-channel dequantize: expected " + std::to_string(channels) +
                         " scales and zero points, got " + std::to_string(scales.size()) +
                         " and " + std::to_string(zps.size()));
  int64_t total = 0;
  if (__builtin_mul_overflow(outer, channels, &total) ||
      __builtin_mul_overflow(total, inner, &total))
    return Status::Error("per-channel dequantize: too large");
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t k = (o * channels + c) * inner + i;
        const float diff = static_cast<float>(static_cast<int32_t>(x[k]) -
                                              zps[static_cast<size_t>(c)]);
        y[k] = scales[static_cast<size_t>(c)] * diff;
      }
  return Status::Ok();
}

}  // namespace quant
}  // namespace tare
