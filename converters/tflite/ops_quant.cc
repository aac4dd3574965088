// TFLite quantization: QUANTIZE, DEQUANTIZE (constants folded, run-time tensors), DENSIFY, and the
// quantized forms of operators whose input is an int8/uint8/int16 tensor with scales: ops of the
// "tflite" domain (runtime/ops/tflite_quant.cc, kernels/quant/) in TFLite's NHWC layout, carrying
// the float scales and zero points as attributes.

#include <cmath>
#include <cstring>

#include "converters/tflite/converter.h"

namespace tare {
namespace tflite {

namespace {

/// Zero point i of a tensor's quantization (0 when absent). The int64 vector may sit at an address
/// that is only 4-aligned (the FlatBuffers verifier checks 4), so its bytes are copied, not loaded.
int64_t ZeroPoint(const tfl::QuantizationParameters& q, size_t i) {
  if (!q.zero_point() || q.zero_point()->size() <= i) return 0;
  int64_t v;
  std::memcpy(&v, reinterpret_cast<const uint8_t*>(q.zero_point()->Data()) + 8 * i, sizeof v);
  return flatbuffers::EndianScalar(v);
}

}  // namespace

/// A fused activation as the tflite-domain ops' `activation` attribute: RELU, RELU6, RELU_N1_TO_1,
/// else NONE (TFLite's quantized kernels clamp only for those three; TANH and SIGN_BIT leave the
/// type's range, as NONE does); a value outside TFLite's enum is refused (Error).
Result<std::string> Converter::QuantActivation(tfl::ActivationFunctionType a) const {
  switch (a) {
    case tfl::ActivationFunctionType::RELU: return std::string("RELU");
    case tfl::ActivationFunctionType::RELU6: return std::string("RELU6");
    case tfl::ActivationFunctionType::RELU_N1_TO_1: return std::string("RELU_N1_TO_1");
    case tfl::ActivationFunctionType::NONE:
    case tfl::ActivationFunctionType::TANH:
    case tfl::ActivationFunctionType::SIGN_BIT: return std::string("NONE");
    default: return Error("fused activation " + std::to_string(static_cast<int>(a)) + " is not one of TFLite's");
  }
}

bool Converter::IsQuant(int t) const {
  if (t < 0 || static_cast<size_t>(t) >= ts_.size()) return false;
  const DType d = S(t).dtype;
  if (d != DType::kInt8 && d != DType::kUInt8 && d != DType::kInt16) return false;
  const auto* q = sg_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(t))->quantization();
  return q && q->scale() && q->scale()->size();
}

Status Converter::QuantAttrs(int t, const std::string& scale_key, const std::string& zp_key, std::map<std::string, Attr>* attrs,
                             bool allow_per_channel) {
  const auto* q = sg_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(t))->quantization();
  if (!q || !q->scale() || !q->scale()->size()) return Error("tensor " + std::to_string(t) + " has no quantization scale");
  const size_t n = q->scale()->size();
  if (n > 1 && !allow_per_channel) return Error("tensor " + std::to_string(t) + " has per-channel scales where TFLite takes one");
  Attr sc;
  sc.kind = allow_per_channel ? Attr::Kind::kFloats : Attr::Kind::kFloat;
  std::vector<int64_t> zps;
  for (size_t i = 0; i < n; ++i) {
    const float v = q->scale()->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (allow_per_channel) sc.floats.push_back(v); else sc.f = v;
    zps.push_back(ZeroPoint(*q, i));
  }
  (*attrs)[scale_key] = sc;
  (*attrs)[zp_key] = allow_per_channel ? IntsAttr(zps) : IntAttr(zps[0]);
  return Status::Ok();
}

/// TFLite DEQUANTIZE (float path): a constant is folded (float16 exactly; int8/uint8/int16 per tensor or
/// per channel as TFLite computes it, float(q - zero_point) * scale); a run-time float16 tensor is
/// an ONNX Cast. (A run-time quantized input is Quantized's.)
Status Converter::Dequantize(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  TARE_RETURN_IF_ERROR(Need(args, 1, 1));
  const int x = in[0], y = out[0];
  const tfl::Tensor* tt = sg_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(x));
  const auto* q = tt->quantization();
  const bool has_q = q && q->scale() && q->scale()->size();
  if (IsConst(x)) {
    // Folded now: float16 -> float32 exactly; int8/uint8/int16 as TFLite does: float(q - zp) * scale.
    Tensor f;
    if (S(x).dtype == DType::kFloat16) {
      TARE_ASSIGN_OR_RETURN(f, ConvertTensor(S(x).data, DType::kFloat32));
    } else if (has_q) {
      const Tensor& d = S(x).data;
      const int64_t nscale = q->scale()->size();
      const int64_t axis = q->quantized_dimension();
      if (nscale > 1 && (axis < 0 || axis >= static_cast<int64_t>(d.shape.size()) || d.shape[axis] != nscale))
        return Error("per-channel scales do not match quantized_dimension");
      int64_t inner = 1;
      for (size_t k = static_cast<size_t>(nscale > 1 ? axis + 1 : 0); nscale > 1 && k < d.shape.size(); ++k) inner *= d.shape[k];
      TARE_ASSIGN_OR_RETURN(f, Tensor::Alloc(DType::kFloat32, d.shape));
      for (int64_t i = 0; i < d.numel(); ++i) {
        const int64_t c = nscale > 1 ? (i / inner) % nscale : 0;
        const float scale = q->scale()->Get(static_cast<flatbuffers::uoffset_t>(c));
        const int64_t zp = q->zero_point() && q->zero_point()->size() > static_cast<size_t>(c)
                               ? ZeroPoint(*q, static_cast<size_t>(c)) : 0;
        f.as<float>()[i] = static_cast<float>(ReadInt(d, i) - zp) * scale;
      }
    } else {
      return Error("dequantizes a constant of type " + DTypeName(S(x).dtype) + " without scales");
    }
    S(y).is_const = true;
    S(y).data = f;
    return Status::Ok();
  }
  if (S(x).dtype == DType::kFloat16) {
    TARE_ASSIGN_OR_RETURN(int xv, Plain(x));
    S(y).plain = Node1("Cast", OpName(y), {xv}, NameFor(y, false), DType::kFloat32, {{"to", IntAttr(static_cast<int>(DType::kFloat32))}});
    return Status::Ok();
  }
  return Error("dequantizing a run-time " + DTypeName(S(x).dtype) + " tensor (quantized models) is not supported yet");
}

/// TFLite DENSIFY: a no-op on the constant input, densified when read (BufferData).
Status Converter::DensifyOp(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  TARE_RETURN_IF_ERROR(Need(args, 1, 1));
  if (!IsConst(in[0])) return Error("the input must be a constant (sparse weights)");
  S(out[0]).is_const = true;
  S(out[0]).data = S(in[0]).data;  // already dense: sparse buffers are densified when read
  return Status::Ok();
}

Status Converter::Quantized(const OpArgs& args, bool* handled) {
  *handled = false;
  const std::vector<int>& in = args.in, &out = args.out;
  const int code = args.code;
  if (out.size() != 1 || in.empty() || in[0] < 0) return Status::Ok();
  const int x = in[0], y = out[0];
  const bool qin = IsQuant(x), qout = IsQuant(y);
  // QUANTIZE (float -> int, or int -> int) and DEQUANTIZE of run-time tensors.
  if (code == QUANTIZE) {
    if (!qout) return Error("QUANTIZE to a tensor without scales");
    std::map<std::string, Attr> a = {{"to", IntAttr(static_cast<int>(S(y).dtype))}};
    TARE_RETURN_IF_ERROR(QuantAttrs(y, "y_scale", "y_zero_point", &a));
    if (qin) TARE_RETURN_IF_ERROR(QuantAttrs(x, "x_scale", "x_zero_point", &a));
    TARE_ASSIGN_OR_RETURN(int xv, Plain(x));
    S(y).plain = Node1("Quantize", OpName(y), {xv}, NameFor(y, false), S(y).dtype, a);
    g_->nodes.back().domain = "tflite";
    *handled = true;
    return Status::Ok();
  }
  if (code == DEQUANTIZE && !IsConst(x) && qin) {
    std::map<std::string, Attr> a;
    TARE_RETURN_IF_ERROR(QuantAttrs(x, "x_scales", "x_zero_points", &a, true));
    a["axis"] = IntAttr(sg_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(x))->quantization()->quantized_dimension());
    TARE_ASSIGN_OR_RETURN(int xv, Plain(x));
    S(y).plain = Node1("Dequantize", OpName(y), {xv}, NameFor(y, false), DType::kFloat32, a);
    g_->nodes.back().domain = "tflite";
    *handled = true;
    return Status::Ok();
  }
  if (!qin) return Status::Ok();
  // Layout-only ops on quantized tensors keep the quantization: the float mapping handles them.
  if (args.entry && args.entry->copies_codes) return Status::Ok();
  QuantOp q;
  TARE_ASSIGN_OR_RETURN(int xv, Plain(x));
  q.ins.push_back(xv);
  if (!qout) return Error("quantized input with a float output is not supported");
  // The TFLite (NHWC) shapes of the operands are declared: ref64's float truth of a grouped
  // convolution needs the input's channel count before planning.
  if (!g_->values[xv].has_shape) g_->values[xv].shape = DeclaredShape(x), g_->values[xv].has_shape = true;
  TARE_RETURN_IF_ERROR(QuantAttrs(x, "x_scale", "x_zero_point", &q.attrs));
  TARE_RETURN_IF_ERROR(QuantAttrs(y, "y_scale", "y_zero_point", &q.attrs));
  if (!args.entry || !args.entry->quantized) return Error("the quantized form is not supported");
  TARE_RETURN_IF_ERROR((this->*args.entry->quantized)(args, &q));
  const Shape ys = DeclaredShape(y);
  S(y).plain = NewValue(NameFor(y, false), S(y).dtype, &ys);
  AddNode(q.ir, OpName(y), q.ins, {S(y).plain}, q.attrs);
  g_->nodes.back().domain = "tflite";
  *handled = true;
  return Status::Ok();
}

Status Converter::QuantWeights(int w, int b, QuantOp* q) {
  std::map<std::string, Attr>& a = q->attrs;
  if (!IsConst(w)) return Error("quantized weights must be constants");
  TARE_RETURN_IF_ERROR(QuantAttrs(w, "w_scales", "w_zero_points", &a, true));
  q->ins.push_back(Const(TName(w), S(w).data));
  if (b >= 0) {
    if (!IsConst(b)) return Error("the bias must be a constant");
    // A per-tensor bias scale goes to the kernels, which check it as TFLite's Prepare does.
    const auto* bq = sg_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(b))->quantization();
    if (bq && bq->scale() && bq->scale()->size() == 1) {
      const float bs = bq->scale()->Get(0);
      if (!(std::isfinite(bs) && bs > 0))
        return Error("bias tensor " + std::to_string(b) + " has scale " + std::to_string(bs) + "; it must be finite and > 0");
      a["bias_scale"] = FloatAttr(bs);
    }
    q->ins.push_back(Const(TName(b), S(b).data));
  }
  return Status::Ok();
}

/// TFLite CONV_2D / DEPTHWISE_CONV_2D (int8 per-channel, uint8, int16x8): QConv2D / QDepthwiseConv2D
/// with weights [O, KH, KW, I] / [1, KH, KW, C*M] as stored.
Status Converter::QConv(const OpArgs& args, QuantOp* q) {
  const std::vector<int>& in = args.in;
  const tfl::Operator& op = args.op;
  std::map<std::string, Attr>& a = q->attrs;
  if (in.size() < 2) return Error("expects inputs (input, filter[, bias])");
  int64_t sh, sw, dh, dw;
  tfl::Padding pad;
  tfl::ActivationFunctionType act;
  if (args.code == CONV_2D) {
    const auto* o = op.builtin_options_as_Conv2DOptions();
    if (!o) return Error("missing Conv2DOptions");
    sh = o->stride_h(), sw = o->stride_w(), dh = o->dilation_h_factor(), dw = o->dilation_w_factor(), pad = o->padding(),
    act = o->fused_activation_function();
    q->ir = "QConv2D";
  } else {
    const auto* o = op.builtin_options_as_DepthwiseConv2DOptions();
    if (!o) return Error("missing DepthwiseConv2DOptions");
    sh = o->stride_h(), sw = o->stride_w(), dh = o->dilation_h_factor(), dw = o->dilation_w_factor(), pad = o->padding(),
    act = o->fused_activation_function();
    a["depth_multiplier"] = IntAttr(o->depth_multiplier());
    q->ir = "QDepthwiseConv2D";
  }
  a["strides"] = IntsAttr({sh, sw});
  a["dilations"] = IntsAttr({dh, dw});
  TARE_RETURN_IF_ERROR(CheckPadding(pad));
  TARE_ASSIGN_OR_RETURN(const std::string an, QuantActivation(act));
  a["padding"] = StrAttr(pad == tfl::Padding::SAME ? "SAME" : "VALID");
  a["activation"] = StrAttr(an);
  return QuantWeights(in[1], in.size() > 2 ? in[2] : -1, q);
}

/// TFLite FULLY_CONNECTED (quantized): QFullyConnected with weights [units, depth] as stored; fused
/// activations other than RELU, RELU6, RELU_N1_TO_1 are refused.
Status Converter::QFullyConnected(const OpArgs& args, QuantOp* q) {
  const std::vector<int>& in = args.in;
  std::map<std::string, Attr>& a = q->attrs;
  if (in.size() < 2) return Error("expects inputs (input, weights[, bias])");
  const auto* o = args.op.builtin_options_as_FullyConnectedOptions();
  const auto act = o ? o->fused_activation_function() : tfl::ActivationFunctionType::NONE;
  if (!Applied(act) && act != tfl::ActivationFunctionType::NONE) return Error("this fused activation is not supported");
  TARE_ASSIGN_OR_RETURN(const std::string an, QuantActivation(act));
  a["activation"] = StrAttr(an);
  a["keep_num_dims"] = IntAttr(o && o->keep_num_dims() ? 1 : 0);
  q->ir = "QFullyConnected";
  return QuantWeights(in[1], in.size() > 2 ? in[2] : -1, q);
}

/// TFLite ADD / MUL of two quantized tensors: QAdd (with pot_scale_int16) / QMul.
Status Converter::QAddMul(const OpArgs& args, QuantOp* q) {
  const std::vector<int>& in = args.in;
  std::map<std::string, Attr>& a = q->attrs;
  if (in.size() != 2 || !IsQuant(in[1])) return Error("expects two quantized inputs");
  TARE_RETURN_IF_ERROR(QuantAttrs(in[1], "x2_scale", "x2_zero_point", &a));
  TARE_ASSIGN_OR_RETURN(int x2, Plain(in[1]));
  q->ins.push_back(x2);
  tfl::ActivationFunctionType act = tfl::ActivationFunctionType::NONE;
  if (args.code == ADD) {
    const auto* o = args.op.builtin_options_as_AddOptions();
    if (o) act = o->fused_activation_function(), a["pot_scale_int16"] = IntAttr(o->pot_scale_int16() ? 1 : 0);
    q->ir = "QAdd";
  } else {
    const auto* o = args.op.builtin_options_as_MulOptions();
    if (o) act = o->fused_activation_function();
    q->ir = "QMul";
  }
  TARE_ASSIGN_OR_RETURN(const std::string an, QuantActivation(act));
  a["activation"] = StrAttr(an);
  return Status::Ok();
}

/// TFLite AVERAGE_POOL_2D / MAX_POOL_2D (quantized): QAveragePool2D / QMaxPool2D.
Status Converter::QPool(const OpArgs& args, QuantOp* q) {
  std::map<std::string, Attr>& a = q->attrs;
  const auto* o = args.op.builtin_options_as_Pool2DOptions();
  if (!o) return Error("missing Pool2DOptions");
  a["kernel_shape"] = IntsAttr({o->filter_height(), o->filter_width()});
  a["strides"] = IntsAttr({o->stride_h(), o->stride_w()});
  TARE_RETURN_IF_ERROR(CheckPadding(o->padding()));
  TARE_ASSIGN_OR_RETURN(const std::string an, QuantActivation(o->fused_activation_function()));
  a["padding"] = StrAttr(o->padding() == tfl::Padding::SAME ? "SAME" : "VALID");
  a["activation"] = StrAttr(an);
  q->ir = args.code == MAX_POOL_2D ? "QMaxPool2D" : "QAveragePool2D";
  return Status::Ok();
}

/// TFLite SOFTMAX (quantized): QSoftmax with the options' beta (1 when absent).
Status Converter::QSoftmax(const OpArgs& args, QuantOp* q) {
  const auto* o = args.op.builtin_options_as_SoftmaxOptions();
  q->attrs["beta"] = FloatAttr(o ? o->beta() : 1.0f);
  q->ir = "QSoftmax";
  return Status::Ok();
}

/// TFLite LOGISTIC (quantized): QLogistic.
Status Converter::QLogistic(const OpArgs& args, QuantOp* q) {
  (void)args;
  q->ir = "QLogistic";
  return Status::Ok();
}

}  // namespace tflite
}  // namespace tare
