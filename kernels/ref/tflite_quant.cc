// Reference kernels of the quantized TFLite ops (semantics: runtime/ops/tflite_quant.cc; the
// arithmetic, bit for bit TFLite's: kernels/quant/quant.h).
//
// Numerics: the integer ops compute the same integers on ref and ref64 (T is not used for them:
// integer tensors keep their types). Quantize reads its float32 input held in T back as float
// (exact for float32 data) and runs TFLite's float32 arithmetic; Dequantize computes TFLite's
// float32 result and stores it in T (exact). So both compute types agree bit for bit (a Session
// on ref64 runs the ops' float truth instead: runtime/passes/float_truth.h).
//
// Preparation: quant.h's Prepare* functions run here, once, when the kernel is made. The node
// does not say its input dtype, so they run for each of int8, uint8 and int16, and the kernel
// uses the parameters of the dtype it is given (shape inference has already run Prepare* with the
// real dtype and reported its errors with the node named); when no dtype prepares, making the
// kernel fails with each type's reason.
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/quant/quant.h"
#include "kernels/ref/ref_kernels.h"
#include "runtime/ops/tflite_quant.h"

namespace tare {

namespace {

using quant::QType;
using tflite_quant::QTypeOf;
using tflite_quant::ReadActivation;
using tflite_quant::ReadQuant;

constexpr QType kTypes[3] = {QType::kInt8, QType::kUInt8, QType::kInt16};

/// Prepared parameters for each activation type (index = QType), errors kept.
template <class P>
struct PerType {
  std::vector<Result<P>> r;
  Result<const P*> Get(const Node& node, DType t) const {
    TARE_ASSIGN_OR_RETURN(QType q, QTypeOf(node, t, "x"));
    const Result<P>& p = r[static_cast<size_t>(q)];
    if (!p.ok()) return Status::Error(node.Where() + ": " + p.status().message());
    return &p.value();
  }
};

template <class P, class F>
Result<PerType<P>> PrepareAll(const Node& node, F prepare) {
  PerType<P> p;
  bool any = false;
  for (QType t : kTypes) {
    p.r.push_back(prepare(t));
    any = any || p.r.back().ok();
  }
  // The node does not say its input type: name each type's reason (shape inference names the one).
  if (!any)
    return Status::Error(node.Where() + ": as int8: " + p.r[0].status().message() + "; as uint8: " +
                         p.r[1].status().message() + "; as int16: " + p.r[2].status().message());
  return p;
}

quant::Nhwc ToNhwc(const Shape& s) { return quant::Nhwc{s[0], s[1], s[2], s[3]}; }

/// Strides, dilations and padding kind of a conv or pool node.
struct Window {
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  bool same = true;
  static Result<Window> Read(const Node& node, bool dilated) {
    Window w;
    TARE_ASSIGN_OR_RETURN(std::vector<int64_t> s, node.GetInts("strides", {1, 1}));
    std::vector<int64_t> d = {1, 1};
    if (dilated) {
      TARE_ASSIGN_OR_RETURN(d, node.GetInts("dilations", {1, 1}));
    }
    if (s.size() != 2 || d.size() != 2) return Status::Error(node.Where() + ": strides/dilations need 2 values");
    w.sh = s[0];
    w.sw = s[1];
    w.dh = d[0];
    w.dw = d[1];
    TARE_ASSIGN_OR_RETURN(w.same, tflite_quant::ReadSame(node));
    return w;
  }
  /// quant::ConvWindow for input [N,H,W,C] and a kh x kw filter.
  Result<quant::ConvWindow> Conv(const Shape& x, int64_t kh, int64_t kw) const {
    TARE_ASSIGN_OR_RETURN(quant::Padding1D ph, quant::ComputePadding(same, x[1], kh, sh, dh));
    TARE_ASSIGN_OR_RETURN(quant::Padding1D pw, quant::ComputePadding(same, x[2], kw, sw, dw));
    quant::ConvWindow c;
    c.stride_h = sh;
    c.stride_w = sw;
    c.dilation_h = dh;
    c.dilation_w = dw;
    c.pad_top = ph.before;
    c.pad_left = pw.before;
    return c;
  }
};

// ---- QConv2D, QDepthwiseConv2D ----------------------------------------------------------------

Status RunConv(const quant::ConvParams& p, const quant::ConvWindow& win, bool depthwise, int64_t m, const Tensor& X,
               const Tensor& W, const Tensor* B, Tensor& Y) {
  const quant::Nhwc in = ToNhwc(X.shape), f = ToNhwc(W.shape), out = ToNhwc(Y.shape);
  const int32_t* b32 = B && B->dtype == DType::kInt32 ? B->as<int32_t>() : nullptr;
  const int64_t* b64 = B && B->dtype == DType::kInt64 ? B->as<int64_t>() : nullptr;
  switch (X.dtype) {
    case DType::kInt8:
      if (depthwise)
        return quant::DepthwiseConv2D(p, win, m, in, X.as<int8_t>(), f, W.as<int8_t>(), b32, out, Y.as<int8_t>());
      return quant::Conv2D(p, win, in, X.as<int8_t>(), f, W.as<int8_t>(), b32, out, Y.as<int8_t>());
    case DType::kUInt8:
      if (depthwise)
        return quant::DepthwiseConv2D(p, win, m, in, X.as<uint8_t>(), f, W.as<uint8_t>(), b32, out,
                                      Y.as<uint8_t>());
      return quant::Conv2D(p, win, in, X.as<uint8_t>(), f, W.as<uint8_t>(), b32, out, Y.as<uint8_t>());
    default:  // int16: the bias type picks the accumulator (no bias: int32 for conv, int64 for depthwise)
      if (depthwise)
        return quant::DepthwiseConv2D(p, win, m, in, X.as<int16_t>(), f, W.as<int8_t>(), b64, out, Y.as<int16_t>());
      if (b64) return quant::Conv2D(p, win, in, X.as<int16_t>(), f, W.as<int8_t>(), b64, out, Y.as<int16_t>());
      return quant::Conv2D(p, win, in, X.as<int16_t>(), f, W.as<int8_t>(), b32, out, Y.as<int16_t>());
  }
}

Result<KernelFn> MakeConvLike(const Node& node, bool depthwise) {
  TARE_ASSIGN_OR_RETURN(Window win, Window::Read(node, true));
  TARE_ASSIGN_OR_RETURN(int64_t m, node.GetInt("depth_multiplier", 0));
  TARE_ASSIGN_OR_RETURN(quant::ConvQuantInfo q, tflite_quant::ReadConvQuant(node, QType::kInt8, 0));
  TARE_ASSIGN_OR_RETURN(PerType<quant::ConvParams> prep, (PrepareAll<quant::ConvParams>(node, [&](QType t) {
                          quant::ConvQuantInfo qt = q;
                          qt.input_type = t;
                          return quant::PrepareConv(qt);
                        })));
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
    Tensor& Y = *out[0];
    if (Y.numel() == 0) return Status::Ok();
    const Tensor& X = *in[0];
    const Tensor& W = *in[1];
    TARE_ASSIGN_OR_RETURN(const quant::ConvParams* p, prep.Get(node, X.dtype));
    TARE_ASSIGN_OR_RETURN(quant::ConvWindow cw, win.Conv(X.shape, W.shape[1], W.shape[2]));
    const int64_t mult = depthwise ? (m > 0 ? m : W.shape[3] / X.shape[3]) : 1;
    return RunConv(*p, cw, depthwise, mult, X, W, in.size() > 2 ? in[2] : nullptr, Y);
  });
}

// ---- QFullyConnected --------------------------------------------------------------------------

Result<KernelFn> MakeFullyConnected(const Node& node) {
  TARE_ASSIGN_OR_RETURN(quant::ConvQuantInfo q, tflite_quant::ReadConvQuant(node, QType::kInt8, 0));
  TARE_ASSIGN_OR_RETURN(PerType<quant::ConvParams> prep, (PrepareAll<quant::ConvParams>(node, [&](QType t) {
                          quant::ConvQuantInfo qt = q;
                          qt.input_type = t;
                          return quant::PrepareFullyConnected(qt);
                        })));
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
    Tensor& Y = *out[0];
    if (Y.numel() == 0) return Status::Ok();
    const Tensor& X = *in[0];
    const Tensor& W = *in[1];
    const Tensor* B = in.size() > 2 ? in[2] : nullptr;
    TARE_ASSIGN_OR_RETURN(const quant::ConvParams* p, prep.Get(node, X.dtype));
    const int64_t units = W.shape[0], K = W.shape[1], batches = X.numel() / K;
    const int32_t* b32 = B && B->dtype == DType::kInt32 ? B->as<int32_t>() : nullptr;
    const int64_t* b64 = B && B->dtype == DType::kInt64 ? B->as<int64_t>() : nullptr;
    switch (X.dtype) {
      case DType::kInt8:
        return quant::FullyConnected(*p, batches, K, units, X.as<int8_t>(), W.as<int8_t>(), b32, Y.as<int8_t>());
      case DType::kUInt8:
        return quant::FullyConnected(*p, batches, K, units, X.as<uint8_t>(), W.as<uint8_t>(), b32, Y.as<uint8_t>());
      default:
        if (b64) return quant::FullyConnected(*p, batches, K, units, X.as<int16_t>(), W.as<int8_t>(), b64, Y.as<int16_t>());
        return quant::FullyConnected(*p, batches, K, units, X.as<int16_t>(), W.as<int8_t>(), b32, Y.as<int16_t>());
    }
  });
}

// ---- QAdd, QMul -------------------------------------------------------------------------------

template <class P, class F>
Result<KernelFn> MakeBinary(const Node& node, PerType<P> prep, F run) {
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
    Tensor& Y = *out[0];
    if (Y.numel() == 0) return Status::Ok();
    const Tensor& A = *in[0];
    const Tensor& B = *in[1];
    TARE_ASSIGN_OR_RETURN(const P* p, prep.Get(node, A.dtype));
    switch (A.dtype) {
      case DType::kInt8: return run(*p, A.shape, A.as<int8_t>(), B.shape, B.as<int8_t>(), Y.as<int8_t>());
      case DType::kUInt8: return run(*p, A.shape, A.as<uint8_t>(), B.shape, B.as<uint8_t>(), Y.as<uint8_t>());
      default: return run(*p, A.shape, A.as<int16_t>(), B.shape, B.as<int16_t>(), Y.as<int16_t>());
    }
  });
}

struct AddRun {
  template <class E>
  Status operator()(const quant::AddParams& p, const Shape& s1, const E* x1, const Shape& s2, const E* x2,
                    E* y) const {
    return quant::Add(p, s1, x1, s2, x2, y);
  }
};
struct MulRun {
  template <class E>
  Status operator()(const quant::MulParams& p, const Shape& s1, const E* x1, const Shape& s2, const E* x2,
                    E* y) const {
    return quant::Mul(p, s1, x1, s2, x2, y);
  }
};

Result<KernelFn> MakeAddMul(const Node& node, bool add) {
  TARE_ASSIGN_OR_RETURN(quant::TensorQuant q1, ReadQuant(node, "x_scale", "x_zero_point"));
  TARE_ASSIGN_OR_RETURN(quant::TensorQuant q2, ReadQuant(node, "x2_scale", "x2_zero_point"));
  TARE_ASSIGN_OR_RETURN(quant::TensorQuant qo, ReadQuant(node, "y_scale", "y_zero_point"));
  TARE_ASSIGN_OR_RETURN(quant::Activation act, ReadActivation(node));
  if (add) {
    TARE_ASSIGN_OR_RETURN(int64_t pot, node.GetInt("pot_scale_int16", 1));
    TARE_ASSIGN_OR_RETURN(PerType<quant::AddParams> prep, (PrepareAll<quant::AddParams>(node, [&](QType t) {
                            return quant::PrepareAdd(t, q1, q2, qo, act, pot != 0);
                          })));
    return MakeBinary(node, prep, AddRun());
  }
  TARE_ASSIGN_OR_RETURN(PerType<quant::MulParams> prep, (PrepareAll<quant::MulParams>(node, [&](QType t) {
                          return quant::PrepareMul(t, q1, q2, qo, act);
                        })));
  return MakeBinary(node, prep, MulRun());
}

// ---- QAveragePool2D, QMaxPool2D ---------------------------------------------------------------

Result<KernelFn> MakePool(const Node& node, bool average) {
  TARE_ASSIGN_OR_RETURN(Window win, Window::Read(node, false));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> k, node.GetInts("kernel_shape"));
  if (k.size() != 2) return Status::Error(node.Where() + ": attribute 'kernel_shape' must have 2 values");
  TARE_ASSIGN_OR_RETURN(quant::TensorQuant qi, ReadQuant(node, "x_scale", "x_zero_point"));
  TARE_ASSIGN_OR_RETURN(quant::TensorQuant qo, ReadQuant(node, "y_scale", "y_zero_point"));
  TARE_ASSIGN_OR_RETURN(quant::Activation act, ReadActivation(node));
  TARE_ASSIGN_OR_RETURN(PerType<quant::ActivationRange> prep, (PrepareAll<quant::ActivationRange>(node, [&](QType t) {
                          return quant::PreparePool(t, qi, qo, act);
                        })));
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
    Tensor& Y = *out[0];
    if (Y.numel() == 0) return Status::Ok();
    const Tensor& X = *in[0];
    TARE_ASSIGN_OR_RETURN(const quant::ActivationRange* a, prep.Get(node, X.dtype));
    TARE_ASSIGN_OR_RETURN(quant::ConvWindow cw, win.Conv(X.shape, k[0], k[1]));
    quant::PoolWindow pw;
    pw.filter_h = k[0];
    pw.filter_w = k[1];
    pw.stride_h = cw.stride_h;
    pw.stride_w = cw.stride_w;
    pw.pad_top = cw.pad_top;
    pw.pad_left = cw.pad_left;
    const quant::Nhwc is = ToNhwc(X.shape), os = ToNhwc(Y.shape);
    switch (X.dtype) {
      case DType::kInt8:
        return average ? quant::AveragePool(*a, pw, is, X.as<int8_t>(), os, Y.as<int8_t>())
                       : quant::MaxPool(*a, pw, is, X.as<int8_t>(), os, Y.as<int8_t>());
      case DType::kUInt8:
        return average ? quant::AveragePool(*a, pw, is, X.as<uint8_t>(), os, Y.as<uint8_t>())
                       : quant::MaxPool(*a, pw, is, X.as<uint8_t>(), os, Y.as<uint8_t>());
      default:
        return average ? quant::AveragePool(*a, pw, is, X.as<int16_t>(), os, Y.as<int16_t>())
                       : quant::MaxPool(*a, pw, is, X.as<int16_t>(), os, Y.as<int16_t>());
    }
  });
}

// ---- QSoftmax, QLogistic ----------------------------------------------------------------------

Result<bool> ReadTable(const Node& node) {
  TARE_ASSIGN_OR_RETURN(std::string k, node.GetString("kernel", "table"));
  if (k != "table" && k != "fixed_point")
    return Status::Error(node.Where() + ": attribute 'kernel' must be table or fixed_point, got '" + k + "'");
  return k == "table";
}

/// Runs f(x, y) with x and y typed as the 8-bit dtype of X (int8 or uint8; int16 is dispatched before).
template <class F>
Status Dispatch8(const Tensor& X, Tensor& Y, F f) {
  if (X.dtype == DType::kInt8) return f(X.as<int8_t>(), Y.as<int8_t>());
  return f(X.as<uint8_t>(), Y.as<uint8_t>());
}

/// The prepared parameters of one dtype: 8-bit types use `lut` or `fp` (by the kernel attribute),
/// int16 uses `i16` (TFLite's int16 softmax is the same kernel for both resolvers).
struct SoftmaxPrep {
  quant::SoftmaxLutParams lut;
  quant::SoftmaxFixedPointParams fp;
  quant::SoftmaxInt16Params i16;
};
struct LogisticPrep {
  quant::Lut8 lut;
  quant::LogisticFixedPointParams fp;
  quant::LogisticInt16Params i16;
};

Result<KernelFn> MakeSoftmax(const Node& node) {
  TARE_ASSIGN_OR_RETURN(bool table, ReadTable(node));
  TARE_ASSIGN_OR_RETURN(float beta, node.GetFloat("beta", 1.f));
  TARE_ASSIGN_OR_RETURN(quant::TensorQuant qi, ReadQuant(node, "x_scale", "x_zero_point"));
  TARE_ASSIGN_OR_RETURN(quant::TensorQuant qo, ReadQuant(node, "y_scale", "y_zero_point"));
  TARE_ASSIGN_OR_RETURN(PerType<SoftmaxPrep> prep, (PrepareAll<SoftmaxPrep>(node, [&](QType t) -> Result<SoftmaxPrep> {
                          SoftmaxPrep p;
                          if (t == QType::kInt16) {
                            TARE_ASSIGN_OR_RETURN(p.i16, quant::PrepareSoftmaxInt16(beta, qi, qo));
                          } else if (table) {
                            TARE_ASSIGN_OR_RETURN(p.lut, quant::PrepareSoftmaxLut(t, beta, qi, qo));
                          } else {
                            TARE_ASSIGN_OR_RETURN(p.fp, quant::PrepareSoftmaxFixedPoint(t, beta, qi, qo));
                          }
                          return p;
                        })));
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
    const Tensor& X = *in[0];
    Tensor& Y = *out[0];
    if (Y.numel() == 0) return Status::Ok();
    TARE_ASSIGN_OR_RETURN(const SoftmaxPrep* p, prep.Get(node, X.dtype));
    const int64_t depth = X.shape.back(), outer = X.numel() / depth;
    if (X.dtype == DType::kInt16) return quant::SoftmaxInt16(p->i16, outer, depth, X.as<int16_t>(), Y.as<int16_t>());
    if (table)
      return Dispatch8(X, Y, [&](const auto* x, auto* y) { return quant::SoftmaxLut(p->lut, outer, depth, x, y); });
    return Dispatch8(X, Y, [&](const auto* x, auto* y) { return quant::SoftmaxFixedPoint(p->fp, outer, depth, x, y); });
  });
}

Result<KernelFn> MakeLogistic(const Node& node) {
  TARE_ASSIGN_OR_RETURN(bool table, ReadTable(node));
  TARE_ASSIGN_OR_RETURN(quant::TensorQuant qi, ReadQuant(node, "x_scale", "x_zero_point"));
  TARE_ASSIGN_OR_RETURN(quant::TensorQuant qo, ReadQuant(node, "y_scale", "y_zero_point"));
  TARE_ASSIGN_OR_RETURN(PerType<LogisticPrep> prep, (PrepareAll<LogisticPrep>(node, [&](QType t) -> Result<LogisticPrep> {
                          LogisticPrep p;
                          if (t == QType::kInt16) {
                            TARE_ASSIGN_OR_RETURN(p.i16, quant::PrepareLogisticInt16(qi, qo, table));
                          } else if (table) {
                            TARE_ASSIGN_OR_RETURN(p.lut, quant::PrepareLogisticLut(t, qi, qo));
                          } else {
                            TARE_ASSIGN_OR_RETURN(p.fp, quant::PrepareLogisticFixedPoint(t, qi, qo));
                          }
                          return p;
                        })));
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
    const Tensor& X = *in[0];
    Tensor& Y = *out[0];
    TARE_ASSIGN_OR_RETURN(const LogisticPrep* p, prep.Get(node, X.dtype));
    if (X.dtype == DType::kInt16) {
      quant::LogisticInt16(p->i16, X.numel(), X.as<int16_t>(), Y.as<int16_t>());
      return Status::Ok();
    }
    return Dispatch8(X, Y, [&](const auto* x, auto* y) {
      if (table) quant::LookupTable(p->lut, X.numel(), x, y);
      else quant::LogisticFixedPoint(p->fp, X.numel(), x, y);
      return Status::Ok();
    });
  });
}

// ---- Quantize, Dequantize ---------------------------------------------------------------------

template <class T>
Result<KernelFn> MakeQuantize(const Node& node) {
  TARE_ASSIGN_OR_RETURN(quant::TensorQuant qo, ReadQuant(node, "y_scale", "y_zero_point"));
  // Requantization parameters, when the node has an input quantization (integer x).
  quant::TensorQuant qi;
  quant::QuantizedMultiplier m;
  if (node.has("x_scale")) {
    TARE_ASSIGN_OR_RETURN(qi, ReadQuant(node, "x_scale", "x_zero_point"));
    Result<quant::QuantizedMultiplier> r = quant::PrepareRequantize(qi, qo);
    if (!r.ok()) return Status::Error(node.Where() + ": " + r.status().message());
    m = *r;
  }
  const bool has_in = node.has("x_scale");
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
    const Tensor& X = *in[0];
    Tensor& Y = *out[0];
    const int64_t n = X.numel();
    if (DTypeIsFloat(X.dtype)) {  // float32 held in T: back to float (exact), then TFLite's float32 path
      std::vector<float> xf(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) xf[static_cast<size_t>(i)] = static_cast<float>(X.as<T>()[i]);
      switch (Y.dtype) {
        case DType::kInt8: return quant::Quantize(qo, n, xf.data(), Y.as<int8_t>());
        case DType::kUInt8: return quant::Quantize(qo, n, xf.data(), Y.as<uint8_t>());
        default: return quant::Quantize(qo, n, xf.data(), Y.as<int16_t>());
      }
    }
    if (!has_in) return Status::Error(node.Where() + ": requantizing an integer x needs x_scale");
    const int32_t zi = qi.zero_point, zo = qo.zero_point;
    const DType xt = X.dtype, yt = Y.dtype;
    if (xt == DType::kInt8 && yt == DType::kInt8) quant::Requantize(m, zi, zo, n, X.as<int8_t>(), Y.as<int8_t>());
    else if (xt == DType::kInt8 && yt == DType::kUInt8) quant::Requantize(m, zi, zo, n, X.as<int8_t>(), Y.as<uint8_t>());
    else if (xt == DType::kUInt8 && yt == DType::kInt8) quant::Requantize(m, zi, zo, n, X.as<uint8_t>(), Y.as<int8_t>());
    else if (xt == DType::kUInt8 && yt == DType::kUInt8) quant::Requantize(m, zi, zo, n, X.as<uint8_t>(), Y.as<uint8_t>());
    else if (xt == DType::kInt16 && yt == DType::kInt16) quant::Requantize(m, zi, zo, n, X.as<int16_t>(), Y.as<int16_t>());
    else if (xt == DType::kInt16 && yt == DType::kInt8) quant::Requantize(m, zi, zo, n, X.as<int16_t>(), Y.as<int8_t>());
    else return Status::Error(node.Where() + ": requantizing " + DTypeName(xt) + " to " + DTypeName(yt) + " is not supported");
    return Status::Ok();
  });
}

template <class T>
Result<KernelFn> MakeDequantize(const Node& node) {
  TARE_ASSIGN_OR_RETURN(std::vector<float> scales, node.GetFloats("x_scales"));
  if (scales.empty()) return Status::Error(node.Where() + ": attribute 'x_scales' is required");
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> z64, node.GetInts("x_zero_points", std::vector<int64_t>(scales.size(), 0)));
  if (z64.size() != scales.size())
    return Status::Error(node.Where() + ": attribute 'x_zero_points' must have as many values as x_scales");
  std::vector<int32_t> zps;
  for (int64_t z : z64) {
    if (z < -32768 || z > 65535) return Status::Error(node.Where() + ": zero point out of range");
    zps.push_back(static_cast<int32_t>(z));
  }
  TARE_ASSIGN_OR_RETURN(int64_t axis, node.GetInt("axis", 0));
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
    const Tensor& X = *in[0];
    Tensor& Y = *out[0];
    const int64_t n = X.numel();
    std::vector<float> yf(static_cast<size_t>(n));
    if (scales.size() == 1) {
      const quant::TensorQuant q{scales[0], zps[0]};
      switch (X.dtype) {
        case DType::kInt8: quant::Dequantize(q, n, X.as<int8_t>(), yf.data()); break;
        case DType::kUInt8: quant::Dequantize(q, n, X.as<uint8_t>(), yf.data()); break;
        default: quant::Dequantize(q, n, X.as<int16_t>(), yf.data()); break;
      }
    } else {  // int8, per channel along axis (checked by shape inference)
      const int64_t r = static_cast<int64_t>(X.shape.size());
      const size_t ax = static_cast<size_t>(axis < 0 ? axis + r : axis);
      int64_t outer = 1, inner = 1;
      for (size_t d = 0; d < ax; ++d) outer *= X.shape[d];
      for (size_t d = ax + 1; d < X.shape.size(); ++d) inner *= X.shape[d];
      TARE_RETURN_IF_ERROR(quant::DequantizePerChannel(scales, zps, outer, X.shape[ax], inner, X.as<int8_t>(), yf.data()));
    }
    T* y = Y.as<T>();
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(yf[static_cast<size_t>(i)]);
    return Status::Ok();
  });
}

}  // namespace

/// Prepares the reference kernel of a quantized TFLite node.
template <class T>
Result<KernelFn> MakeTfliteQuant(const Node& node) {
  const std::string& op = node.op;
  if (op == "QConv2D") return MakeConvLike(node, false);
  if (op == "QDepthwiseConv2D") return MakeConvLike(node, true);
  if (op == "QFullyConnected") return MakeFullyConnected(node);
  if (op == "QAdd") return MakeAddMul(node, true);
  if (op == "QMul") return MakeAddMul(node, false);
  if (op == "QAveragePool2D") return MakePool(node, true);
  if (op == "QMaxPool2D") return MakePool(node, false);
  if (op == "QSoftmax") return MakeSoftmax(node);
  if (op == "QLogistic") return MakeLogistic(node);
  if (op == "Quantize") return MakeQuantize<T>(node);
  if (op == "Dequantize") return MakeDequantize<T>(node);
  return Status::Error(node.Where() + ": not a TfliteQuant op");
}

TARE_INSTANTIATE_REF(TfliteQuant)

}  // namespace tare
