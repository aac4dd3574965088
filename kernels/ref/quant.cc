// Reference kernels of the quantization ops (semantics and exact formulas: runtime/ops/quant.cc).
//
// Numerics: every float step is done in float32 on both backends (float32 tensors held in T are
// read back as float, which is exact for float32 data), so ref and ref64 agree bit for bit.
// Integer sums are exact modulo 2^32 (uint32 wraparound, then read as two's complement int32), so
// their value does not depend on the order; the order is still fixed: a conv output element adds
// its terms over (c' = input channel of the group, k1, ..., kn) in lexicographic order, a matmul
// element over k = 0..K-1, then QLinearConv adds B[m].
//
// Loop structure: zero points are subtracted once into int32 copies of the operands; conv rows
// and matmul rows then accumulate contiguous runs of output elements (vectorizable).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "kernels/ref/conv_geometry.h"
#include "kernels/ref/ref_kernels.h"
#include "runtime/ir/float8.h"

namespace tare {
namespace {

/// Nearest integer, ties to even (numpy.round); NaN counts as 0.
double RoundHalfEven(double v) {
  if (std::isnan(v)) return 0;
  const double t = std::trunc(v);
  const double frac = v - t;  // exact (Sterbenz lemma, or t == 0)
  if (std::fabs(frac) != 0.5) return std::round(v);
  return std::fmod(t, 2.0) == 0 ? t : t + (v > 0 ? 1 : -1);
}

/// sat(rne(v) + zp) to [lo, hi].
int64_t Requant(double v, int64_t zp, int64_t lo, int64_t hi) {
  const double r = std::min(std::max(RoundHalfEven(v), -1e12), 1e12);  // far outside any 8-bit range
  return std::min(std::max(static_cast<int64_t>(r) + zp, lo), hi);
}

/// The range of an 8-bit output type.
void Range8(DType t, int64_t* lo, int64_t* hi) {
  *lo = t == DType::kInt8 ? -128 : 0;
  *hi = t == DType::kInt8 ? 127 : 255;
}

/// Stores v (already in range) as element i of a uint8 or int8 tensor.
inline void Put8(Tensor& y, int64_t i, int64_t v) {
  if (y.dtype == DType::kInt8) y.as<int8_t>()[i] = static_cast<int8_t>(v);
  else y.as<uint8_t>()[i] = static_cast<uint8_t>(v);
}

/// Elements of an integer tensor (uint8, int8, int32) minus zp(i) for element i, as int32.
template <class F>
std::vector<int32_t> Shifted(const Tensor& t, F zp) {
  std::vector<int32_t> v(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<int32_t>(ReadInt(t, static_cast<int64_t>(i)) - zp(static_cast<int64_t>(i)));
  return v;
}

/// Values of an optional integer parameter tensor (zero point); {0} when absent.
std::vector<int64_t> Ints(const Tensor* t) {
  if (!t) return {0};
  std::vector<int64_t> v(static_cast<size_t>(t->numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = ReadInt(*t, static_cast<int64_t>(i));
  return v;
}

/// Values of a float32 parameter tensor held in T, rounded to float32.
template <class T>
std::vector<float> Floats(const Tensor& t) {
  std::vector<float> v(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(t.as<T>()[i]);
  return v;
}

/// QuantizeLinear / DequantizeLinear: the scale / zero point index of element i of x: 0 (per
/// tensor), (i / inner) % len (per axis), or for blocks of B along the axis
/// ((i / (len * inner)) * ceil(len / B) + ((i / inner) % len) / B) * inner + i % inner.
struct AxisMap {
  int64_t inner = 1, len = 1, block = 0, blocks = 1;
  bool per_tensor = true;
  AxisMap(int64_t axis, const Shape& x, int64_t params, int64_t block_size) {
    if (params == 1 && block_size == 0) return;
    per_tensor = false;
    const size_t ax = static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(x.size()) : axis);
    len = x[ax];
    for (size_t d = ax + 1; d < x.size(); ++d) inner *= x[d];
    block = block_size;
    if (block) blocks = (len + block - 1) / block;
  }
  int64_t operator()(int64_t i) const {
    if (per_tensor) return 0;
    const int64_t j = (i / inner) % len;
    if (!block) return j;
    return ((i / (len * inner)) * blocks + j / block) * inner + i % inner;
  }
};

/// The output range of an integer quantized type.
void RangeOf(DType t, int64_t* lo, int64_t* hi) {
  switch (t) {
    case DType::kInt16: *lo = -32768; *hi = 32767; return;
    case DType::kUInt16: *lo = 0; *hi = 65535; return;
    case DType::kInt4: case DType::kUInt4: *lo = Int4Lo(t); *hi = Int4Hi(t); return;
    default: Range8(t, lo, hi);
  }
}

/// y = sat(rne(f32(x / scale[c])) + zp[c]) for x float32 (held in T) or int32; a float8 y gets
/// float8(f32(f32(x / scale[c]) + zp[c])) with `saturate` (zp[c] its value).
template <class T>
Status Quantize(const AxisMap& c, const Tensor& x, const std::vector<float>& s, const Tensor* zpt, bool saturate,
                Tensor& y) {
  const bool int_x = x.dtype == DType::kInt32;
  const int64_t n = x.numel();
  auto xval = [&](int64_t i) {
    return int_x ? static_cast<float>(x.as<int32_t>()[i]) : static_cast<float>(x.as<T>()[i]);
  };
  if (DTypeIsFloat8(y.dtype)) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = c(i);
      const float zp = zpt ? static_cast<float>(ReadDouble(*zpt, k)) : 0.0f;
      const float q = xval(i) / s[static_cast<size_t>(k)] + zp;
      y.as<uint8_t>()[i] = DoubleToFloat8(y.dtype, q, saturate);
    }
    return Status::Ok();
  }
  int64_t lo, hi;
  RangeOf(y.dtype, &lo, &hi);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = c(i);
    const float q = xval(i) / s[static_cast<size_t>(k)];
    WriteInt(y, i, Requant(q, zpt ? ReadInt(*zpt, k) : 0, lo, hi));
  }
  return Status::Ok();
}

/// y = f32(f32(x - zp[c]) * scale[c]) into y of T (float32 held in T), float16 or bfloat16.
template <class T>
Status Dequantize(const AxisMap& c, const Tensor& x, const std::vector<float>& s, const Tensor* zpt, Tensor& y) {
  const bool f8 = DTypeIsFloat8(x.dtype);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t k = c(i);
    const float d = f8 ? static_cast<float>(ReadDouble(x, i)) - (zpt ? static_cast<float>(ReadDouble(*zpt, k)) : 0.0f)
                       : static_cast<float>(ReadInt(x, i) - (zpt ? ReadInt(*zpt, k) : 0));
    const float v = d * s[static_cast<size_t>(k)];
    if (y.dtype == DType::kFloat16) y.as<uint16_t>()[i] = FloatToHalf(v);
    else if (y.dtype == DType::kBFloat16) y.as<uint16_t>()[i] = FloatToBFloat16Nearest(v);
    else y.as<T>()[i] = static_cast<T>(v);
  }
  return Status::Ok();
}

/// DynamicQuantizeLinear (formula: runtime/ops/quant.cc); outputs y, y_scale (T), y_zero_point.
template <class T>
Status DynamicQuantize(const Tensor& x, const std::vector<Tensor*>& out) {
  const T* xv = x.as<T>();
  float lo = 0, hi = 0;  // min(0, min x), max(0, max x); NaN never compares less/greater
  for (int64_t i = 0; i < x.numel(); ++i) {
    const float v = static_cast<float>(xv[i]);
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  const float scale = (hi - lo) / 255.0f;
  const float zp_fp = std::min(std::max(0.0f - lo / scale, 0.0f), 255.0f);  // NaN passes through
  const int64_t zp = static_cast<int64_t>(RoundHalfEven(zp_fp));
  if (out.size() > 1 && out[1]) out[1]->as<T>()[0] = static_cast<T>(scale);
  if (out.size() > 2 && out[2]) out[2]->as<uint8_t>()[0] = static_cast<uint8_t>(zp);
  if (!out[0]) return Status::Ok();
  uint8_t zp8 = static_cast<uint8_t>(zp);
  const Tensor zpt = Tensor::View(DType::kUInt8, {}, &zp8);
  return Quantize<T>(AxisMap(0, x.shape, 1, 0), x, {scale}, &zpt, true, *out[0]);
}

/// acc[n, m, o] = sum over (c', kd, kh, kw) of xs * ws (modulo 2^32); padding contributes 0.
void ConvAcc(const ConvAttrs& a, const Shape& xsh, const Shape& wsh, const Shape& ysh, const int32_t* x,
             const int32_t* w, uint32_t* acc) {
  const ConvGeometry g(a, xsh, wsh, ysh);
  const int64_t N = xsh[0], C = xsh[1], M = wsh[0], G = a.group, Cg = C / G, Mg = M / G;
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2], out_plane = g.out[0] * g.out[1] * g.out[2];
  const int64_t ksz = g.k[0] * g.k[1] * g.k[2], OW = g.out[2], s = g.s[2];
  // Valid output columns [lo, hi) of kernel column kw: 0 <= o * s + kw * d - pb < in.
  std::vector<int64_t> lo(static_cast<size_t>(g.k[2])), hi(lo.size());
  for (size_t kw = 0; kw < lo.size(); ++kw) {
    const int64_t off = static_cast<int64_t>(kw) * g.d[2] - g.pb[2];
    hi[kw] = g.in[2] - off <= 0 ? 0 : std::min(OW, (g.in[2] - off + s - 1) / s);
    lo[kw] = std::min(off >= 0 ? 0 : (-off + s - 1) / s, hi[kw]);
  }
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m) {
      const int64_t grp = m / Mg;
      for (int64_t od = 0; od < g.out[0]; ++od)
        for (int64_t oh = 0; oh < g.out[1]; ++oh) {
          uint32_t* row = acc + (n * M + m) * out_plane + (od * g.out[1] + oh) * OW;
          std::fill(row, row + OW, 0u);
          for (int64_t ci = 0; ci < Cg; ++ci)
            for (int64_t kd = 0; kd < g.k[0]; ++kd) {
              const int64_t id = od * g.s[0] + kd * g.d[0] - g.pb[0];
              if (id < 0 || id >= g.in[0]) continue;
              for (int64_t kh = 0; kh < g.k[1]; ++kh) {
                const int64_t ih = oh * g.s[1] + kh * g.d[1] - g.pb[1];
                if (ih < 0 || ih >= g.in[1]) continue;
                const int32_t* xr = x + (n * C + grp * Cg + ci) * in_plane + (id * g.in[1] + ih) * g.in[2];
                const int32_t* wr = w + m * Cg * ksz + ((ci * g.k[0] + kd) * g.k[1] + kh) * g.k[2];
                for (size_t kw = 0; kw < lo.size(); ++kw) {
                  if (lo[kw] >= hi[kw]) continue;
                  const int32_t wv = wr[kw];
                  // Output column lo reads input column lo * s + kw * d - pb (>= 0).
                  const int32_t* xs = xr + lo[kw] * s + static_cast<int64_t>(kw) * g.d[2] - g.pb[2];
                  uint32_t* r = row + lo[kw];
                  for (int64_t o = 0; o < hi[kw] - lo[kw]; ++o) r[o] += static_cast<uint32_t>(xs[o * s] * wv);
                }
              }
            }
        }
    }
}

/// ConvInteger (bias == nullptr, y int32) or QLinearConv (inputs in ONNX order, y 8-bit).
template <class T>
Status RunConv(const ConvAttrs& a, const std::vector<const Tensor*>& in, Tensor& y, bool qlinear) {
  const Tensor& X = *in[0];
  const Tensor& W = *in[qlinear ? 3 : 1];
  const Tensor* xz = in.size() > 2 ? in[2] : nullptr;
  const Tensor* wz = qlinear ? in[5] : in.size() > 3 ? in[3] : nullptr;
  const int64_t xzp = Ints(xz)[0], M = W.shape[0], per_m = M ? W.numel() / M : 0;
  const std::vector<int64_t> wzp = Ints(wz);
  const std::vector<int32_t> xs = Shifted(X, [xzp](int64_t) { return xzp; });
  const std::vector<int32_t> ws = Shifted(W, [&](int64_t i) { return wzp[wzp.size() == 1 ? 0 : size_t(i / per_m)]; });
  if (!qlinear) {  // int32 and uint32 may alias: write the sums straight into y
    ConvAcc(a, X.shape, W.shape, y.shape, xs.data(), ws.data(), static_cast<uint32_t*>(y.data));
    return Status::Ok();
  }
  std::vector<uint32_t> acc(static_cast<size_t>(y.numel()));
  ConvAcc(a, X.shape, W.shape, y.shape, xs.data(), ws.data(), acc.data());
  const float xsc = Floats<T>(*in[1])[0], ysc = Floats<T>(*in[6])[0];
  const std::vector<float> wsc = Floats<T>(*in[4]);
  const int64_t yzp = Ints(in[7])[0];
  int64_t plane = 1;
  for (size_t d = 2; d < y.shape.size(); ++d) plane *= y.shape[d];
  const Tensor* B = in.size() > 8 ? in[8] : nullptr;
  int64_t lo, hi;
  Range8(y.dtype, &lo, &hi);
  for (int64_t i = 0; i < y.numel(); ++i) {
    const size_t m = static_cast<size_t>((i / plane) % M);
    const float mult = (xsc * wsc[wsc.size() == 1 ? 0 : m]) / ysc;
    const uint32_t sum = acc[static_cast<size_t>(i)] + (B ? static_cast<uint32_t>(B->as<int32_t>()[m]) : 0u);
    Put8(y, i, Requant(static_cast<double>(static_cast<int32_t>(sum)) * static_cast<double>(mult), yzp, lo, hi));
  }
  return Status::Ok();
}

/// Flat index into a broadcast operand batch `op` (right-aligned) of flat index i of batch `out`.
int64_t BatchIndex(const Shape& out, const Shape& op, int64_t i) {
  int64_t idx = 0, stride = 1;
  for (size_t r = 0; r < out.size(); ++r) {
    const int64_t d = out[out.size() - 1 - r], digit = i % d;
    i /= d;
    if (r < op.size() && op[op.size() - 1 - r] != 1) idx += digit * stride;
    if (r < op.size()) stride *= op[op.size() - 1 - r];
  }
  return idx;
}

/// Index of a per-tensor / per-row (1-D [M] or [..., M, 1]) / per-column parameter for matrix
/// `batch` and row-or-column j of length len.
int64_t ParamIndex(const Tensor* p, int64_t batch, int64_t j, int64_t len) {
  if (!p || p->numel() == 1) return 0;
  return p->shape.size() == 1 ? j : batch * len + j;
}

/// MatMulInteger (y int32) or QLinearMatMul (inputs in ONNX order, y 8-bit).
template <class T>
Status RunMatMul(const std::vector<const Tensor*>& in, Tensor& y, bool qlinear) {
  const Tensor& A = *in[0];
  const Tensor& B = *in[qlinear ? 3 : 1];
  const Tensor* az = qlinear ? in[2] : in.size() > 2 ? in[2] : nullptr;
  const Tensor* bz = qlinear ? in[5] : in.size() > 3 ? in[3] : nullptr;
  const int64_t K = A.shape.back(), M = A.shape.size() >= 2 ? A.shape[A.shape.size() - 2] : 1;
  const int64_t N = B.shape.size() >= 2 ? B.shape.back() : 1;
  const Shape ab(A.shape.begin(), A.shape.end() - std::min<size_t>(A.shape.size(), 2));
  const Shape bb(B.shape.begin(), B.shape.end() - std::min<size_t>(B.shape.size(), 2));
  const size_t mat_dims = (A.shape.size() >= 2) + (B.shape.size() >= 2);
  const Shape yb(y.shape.begin(), y.shape.end() - mat_dims);
  const std::vector<int64_t> azp = Ints(az), bzp = Ints(bz);
  // Element i of A is (batch i / (M K), row i / K % M); of B (batch i / (K N), column i % N).
  const std::vector<int32_t> as =
      Shifted(A, [&](int64_t i) { return azp[size_t(ParamIndex(az, i / (M * K), i / K % M, M))]; });
  const std::vector<int32_t> bs =
      Shifted(B, [&](int64_t i) { return bzp[size_t(ParamIndex(bz, i / (K * N), i % N, N))]; });
  std::vector<float> asc, bsc;
  float ysc = 0;
  int64_t yzp = 0, lo = 0, hi = 0;
  if (qlinear) {
    asc = Floats<T>(*in[1]), bsc = Floats<T>(*in[4]), ysc = Floats<T>(*in[6])[0], yzp = Ints(in[7])[0];
    Range8(y.dtype, &lo, &hi);
  }
  std::vector<uint32_t> row(static_cast<size_t>(N));
  int64_t batches = 1;
  for (int64_t d : yb) batches *= d;
  for (int64_t t = 0; t < batches; ++t) {
    const int64_t ia = BatchIndex(yb, ab, t), ib = BatchIndex(yb, bb, t);
    for (int64_t m = 0; m < M; ++m) {
      std::fill(row.begin(), row.end(), 0u);
      for (int64_t k = 0; k < K; ++k) {
        const int32_t av = as[static_cast<size_t>((ia * M + m) * K + k)];
        const int32_t* br = bs.data() + (ib * K + k) * N;
        for (int64_t n = 0; n < N; ++n) row[size_t(n)] += static_cast<uint32_t>(av * br[n]);
      }
      const int64_t base = (t * M + m) * N;
      for (int64_t n = 0; n < N; ++n) {
        const int32_t sum = static_cast<int32_t>(row[size_t(n)]);
        if (!qlinear) {
          y.as<int32_t>()[base + n] = sum;
          continue;
        }
        const float sa = asc[size_t(ParamIndex(in[1], ia, m, M))], sb = bsc[size_t(ParamIndex(in[4], ib, n, N))];
        const float mult = (sa * sb) / ysc;
        Put8(y, base + n, Requant(static_cast<double>(sum) * static_cast<double>(mult), yzp, lo, hi));
      }
    }
  }
  return Status::Ok();
}

}  // namespace

/// Prepares the reference kernel of a quantization op (attributes parsed once).
template <class T>
Result<KernelFn> MakeQuant(const Node& node) {
  const std::string& op = node.op;
  using Ins = std::vector<const Tensor*>;
  using Outs = std::vector<Tensor*>;
  if (op == "QuantizeLinear" || op == "DequantizeLinear") {
    TARE_ASSIGN_OR_RETURN(int64_t axis, node.GetInt("axis", 1));
    TARE_ASSIGN_OR_RETURN(int64_t block, node.GetInt("block_size", 0));
    TARE_ASSIGN_OR_RETURN(int64_t saturate, node.GetInt("saturate", 1));
    if (op == "QuantizeLinear")
      return KernelFn([axis, block, saturate](const Ins& in, const Outs& out) {
        const std::vector<float> s = Floats<T>(*in[1]);
        const Tensor* zp = in.size() > 2 ? in[2] : nullptr;
        return Quantize<T>(AxisMap(axis, in[0]->shape, in[1]->numel(), block), *in[0], s, zp, saturate != 0, *out[0]);
      });
    return KernelFn([axis, block](const Ins& in, const Outs& out) {
      const std::vector<float> s = Floats<T>(*in[1]);
      const Tensor* zp = in.size() > 2 ? in[2] : nullptr;
      return Dequantize<T>(AxisMap(axis, in[0]->shape, in[1]->numel(), block), *in[0], s, zp, *out[0]);
    });
  }
  if (op == "DynamicQuantizeLinear")
    return KernelFn([](const Ins& in, const Outs& out) { return DynamicQuantize<T>(*in[0], out); });
  if (op == "ConvInteger" || op == "QLinearConv") {
    TARE_ASSIGN_OR_RETURN(ConvAttrs a, ConvAttrs::Parse(node));
    const bool q = op == "QLinearConv";
    return KernelFn([a, q](const Ins& in, const Outs& out) { return RunConv<T>(a, in, *out[0], q); });
  }
  if (op == "MatMulInteger" || op == "QLinearMatMul") {
    const bool q = op == "QLinearMatMul";
    return KernelFn([q](const Ins& in, const Outs& out) { return RunMatMul<T>(in, *out[0], q); });
  }
  return Status::Error(node.Where() + ": not a quantization op");
}

TARE_INSTANTIATE_REF(Quant)

}  // namespace tare
