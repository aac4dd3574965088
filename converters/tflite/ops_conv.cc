// TFLite convolutions, pools and matrix products -> ONNX-domain ops (converter.h lists the files).

#include <algorithm>
#include <cstring>

#include "converters/tflite/converter.h"

namespace tare {
namespace tflite {

using A = tfl::ActivationFunctionType;

/// TFLite CONV_2D (v1-v3) and DEPTHWISE_CONV_2D (float): ONNX Conv on the NCHW input, weights
/// permuted at conversion (OHWI -> OIHW; depthwise [1, KH, KW, C*M] -> [C*M, 1, KH, KW], group = C),
/// SAME padding as auto_pad SAME_UPPER, fused activation as its own node.
Status Converter::Conv(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  const bool depthwise = args.code == DEPTHWISE_CONV_2D;
  const tfl::Operator& op = args.op;
  if (in.size() < 2 || out.size() != 1) return Error("expects inputs (input, filter[, bias]) and one output");
  const int x = in[0], w = in[1], b = in.size() > 2 ? in[2] : -1, y = out[0];
  if (Rank(x) != 4 || Rank(w) != 4) return Error("input and filter must have rank 4 (NHWC, OHWI)");
  int64_t sh, sw, dh, dw;
  tfl::Padding pad;
  tfl::ActivationFunctionType act;
  int64_t group = 1;
  if (depthwise) {
    const auto* o = op.builtin_options_as_DepthwiseConv2DOptions();
    if (!o) return Error("missing DepthwiseConv2DOptions");
    sh = o->stride_h(), sw = o->stride_w(), dh = o->dilation_h_factor(), dw = o->dilation_w_factor();
    pad = o->padding(), act = o->fused_activation_function();
    group = S(x).shape[3];
  } else {
    const auto* o = op.builtin_options_as_Conv2DOptions();
    if (!o) return Error("missing Conv2DOptions");
    sh = o->stride_h(), sw = o->stride_w(), dh = o->dilation_h_factor(), dw = o->dilation_w_factor();
    pad = o->padding(), act = o->fused_activation_function();
    const int64_t cin = S(x).shape[3], wi = S(w).shape[3];
    if (wi <= 0 || cin % wi) return Error("input channels " + std::to_string(cin) + " are not a multiple of the filter's " + std::to_string(wi));
    group = cin / wi;
  }
  if (sh < 1 || sw < 1 || dh < 1 || dw < 1) return Error("strides and dilations must be >= 1");
  TARE_RETURN_IF_ERROR(CheckPadding(pad));
  // Weights: CONV_2D OHWI -> OIHW; DEPTHWISE [1, KH, KW, C*M] -> [C*M, 1, KH, KW].
  const std::vector<int64_t> wperm = depthwise ? std::vector<int64_t>{3, 0, 1, 2} : kToNchw;
  int wv;
  if (IsConst(w)) {
    TARE_ASSIGN_OR_RETURN(Tensor wf, ConstFloat(w));
    wv = Const(TName(w) + "/oihw", PermuteTensor(wf, wperm));
  } else {
    TARE_ASSIGN_OR_RETURN(int wp, Plain(w));
    wv = Node1("Transpose", OpName(y) + "/filter_oihw", {wp}, TName(w) + "/oihw", S(w).dtype, {{"perm", IntsAttr(wperm)}});
  }
  std::vector<int> ins;
  TARE_ASSIGN_OR_RETURN(int xv, Nchw(x));
  ins = {xv, wv};
  if (b >= 0) {
    TARE_ASSIGN_OR_RETURN(int bv, Plain(b));
    ins.push_back(bv);
  }
  std::map<std::string, Attr> attrs = {{"strides", IntsAttr({sh, sw})},
                                       {"dilations", IntsAttr({dh, dw})},
                                       {"group", IntAttr(group)},
                                       {"auto_pad", StrAttr(pad == tfl::Padding::SAME ? "SAME_UPPER" : "VALID")}};
  const int core = OutValue(y, true, act);
  AddNode("Conv", OpName(y), ins, {core}, attrs);
  return SetOutput(y, core, true, act);
}

/// TFLite TRANSPOSE_CONV (v1-v3): inputs (output_shape, weights [O, KH, KW, I], input[, bias]);
/// see ConvTransposeNode.
Status Converter::TransposeConv(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  const tfl::Operator& op = args.op;
  // Inputs: output_shape, weights [O, KH, KW, I], input, bias (optional, v3+).
  if (in.size() < 3 || out.size() != 1) return Error("expects inputs (output_shape, weights, input[, bias]) and one output");
  const auto* o = op.builtin_options_as_TransposeConvOptions();
  if (!o) return Error("missing TransposeConvOptions");
  TARE_RETURN_IF_ERROR(CheckPadding(o->padding()));
  return ConvTransposeNode(in[2], in[1], in.size() > 3 ? in[3] : -1, out[0], o->stride_h(), o->stride_w(),
                           o->padding() == tfl::Padding::SAME, o->fused_activation_function());
}

/// CUSTOM operators: MediaPipe's Convolution2DTransposeBias (see ConvTransposeNode); any other
/// custom code is "not supported".
Status Converter::Custom(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  const tfl::Operator& op = args.op;
  const std::string& custom = args.custom;
  if (custom == "Convolution2DTransposeBias") {
    // MediaPipe's custom op: inputs (input, weights [O, KH, KW, I], bias [O]); custom_options
    // are TfLiteTransposeConvParams {int32 padding (1 = SAME, 2 = VALID), stride_w, stride_h}.
    if (in.size() != 3 || out.size() != 1) return Error("expects inputs (input, weights, bias) and one output");
    const auto* co = op.custom_options();
    if (!co || co->size() < 12) return Error("custom_options must hold 3 int32 (padding, stride_w, stride_h)");
    int32_t p[3];
    std::memcpy(p, co->data(), 12);
    if (p[0] != 1 && p[0] != 2) return Error("padding " + std::to_string(p[0]) + " is neither SAME (1) nor VALID (2)");
    return ConvTransposeNode(in[0], in[1], in[2], out[0], p[2], p[1], p[0] == 1, A::NONE);
  }
  return Error("custom op '" + custom + "' is not supported");
}

/// TRANSPOSE_CONV and MediaPipe's Convolution2DTransposeBias on input x (NHWC), weights w
/// [O, KH, KW, I] (constant) and bias b (-1: none) -> ONNX ConvTranspose [I, O, KH, KW] writing
/// tensor `out` in NCHW; explicit pads as TFLite computes them for SAME (total =
/// max(0, (in - 1) * s + k - out), begin = total / 2) or VALID (0), and output_padding for what
/// the output shape adds beyond that. Errors: ranks, strides, channels, an unreachable output size.
Status Converter::ConvTransposeNode(int x, int w, int b, int out, int64_t sh, int64_t sw, bool same,
                                    tfl::ActivationFunctionType act) {
  if (Rank(x) != 4 || Rank(w) != 4 || Rank(out) != 4) return Error("input, filter and output must have rank 4");
  if (sh < 1 || sw < 1) return Error("strides must be >= 1");
  const Shape& xs = S(x).shape;
  const Shape& ws = S(w).shape;
  const Shape& ys = S(out).shape;
  if (ws[3] != xs[3]) return Error("filter input channels " + std::to_string(ws[3]) + " do not match the input's " + std::to_string(xs[3]));
  std::vector<int64_t> pads(4), outpad(2);
  const int64_t s[2] = {sh, sw};
  for (int d = 0; d < 2; ++d) {
    const int64_t in = xs[1 + d], k = ws[1 + d], o = ys[1 + d];
    const int64_t full = (in - 1) * s[d] + k;
    const int64_t total = same ? std::max<int64_t>(0, full - o) : 0;
    pads[d] = total / 2;
    pads[2 + d] = total - total / 2;
    outpad[d] = o - (full - total);
    if (outpad[d] < 0 || outpad[d] >= s[d])
      return Error("output size " + std::to_string(o) + " cannot come from input " + std::to_string(in) + ", kernel " +
                   std::to_string(k) + ", stride " + std::to_string(s[d]));
  }
  TARE_ASSIGN_OR_RETURN(Tensor wf, ConstFloat(w));
  const int wv = Const(TName(w) + "/iohw", PermuteTensor(wf, {3, 0, 1, 2}));
  TARE_ASSIGN_OR_RETURN(int xv, Nchw(x));
  std::vector<int> ins = {xv, wv};
  if (b >= 0) {
    TARE_ASSIGN_OR_RETURN(Tensor bf, ConstFloat(b));
    if (bf.numel() != ws[0]) return Error("bias has " + std::to_string(bf.numel()) + " values for " + std::to_string(ws[0]) + " channels");
    bf.shape = {ws[0]};
    ins.push_back(Const(TName(b) + "/bias", bf));
  }
  const int core = OutValue(out, true, act);
  AddNode("ConvTranspose", OpName(out), ins, {core},
          {{"strides", IntsAttr({sh, sw})}, {"pads", IntsAttr(pads)}, {"output_padding", IntsAttr(outpad)}});
  return SetOutput(out, core, true, act);
}

/// TFLite AVERAGE_POOL_2D and MAX_POOL_2D (float): ONNX AveragePool / MaxPool on the NCHW input.
Status Converter::Pool(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  const bool max = args.code == MAX_POOL_2D;
  const tfl::Operator& op = args.op;
  if (in.size() != 1 || out.size() != 1) return Error("expects one input and one output");
  const auto* o = op.builtin_options_as_Pool2DOptions();
  if (!o) return Error("missing Pool2DOptions");
  if (o->stride_h() < 1 || o->stride_w() < 1 || o->filter_height() < 1 || o->filter_width() < 1)
    return Error("strides and filter sizes must be >= 1");
  TARE_RETURN_IF_ERROR(CheckPadding(o->padding()));
  TARE_ASSIGN_OR_RETURN(int xv, Nchw(in[0]));
  const auto act = o->fused_activation_function();
  const int core = OutValue(out[0], true, act);
  // TFLite's average pool divides by the number of input pixels under the window (padding not
  // counted): ONNX count_include_pad = 0.
  AddNode(max ? "MaxPool" : "AveragePool", OpName(out[0]), {xv}, {core},
          {{"kernel_shape", IntsAttr({o->filter_height(), o->filter_width()})},
           {"strides", IntsAttr({o->stride_h(), o->stride_w()})},
           {"auto_pad", StrAttr(o->padding() == tfl::Padding::SAME ? "SAME_UPPER" : "VALID")}});
  return SetOutput(out[0], core, true, act);
}

/// TFLite FULLY_CONNECTED (float): the input flattened to [-1, depth] in TFLite's (NHWC) order, ONNX
/// Gemm with transB = 1 against weights [units, depth], reshaped back for keep_num_dims.
Status Converter::FullyConnected(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  const tfl::Operator& op = args.op;
  if (in.size() < 2 || out.size() != 1) return Error("expects inputs (input, weights[, bias]) and one output");
  const auto* o = op.builtin_options_as_FullyConnectedOptions();
  const auto act = o ? o->fused_activation_function() : tfl::ActivationFunctionType::NONE;
  if (act == tfl::ActivationFunctionType::TANH || act == tfl::ActivationFunctionType::SIGN_BIT)
    return Error("a fused TANH or SIGN_BIT activation, which TFLite's FULLY_CONNECTED refuses too, is not supported");
  if (o && o->weights_format() != 0) return Error("shuffled weights are not supported");
  const int x = in[0], w = in[1], b = in.size() > 2 ? in[2] : -1, y = out[0];
  if (Rank(w) != 2) return Error("weights must have rank 2 [units, input depth]");
  const int64_t depth = S(w).shape[1];
  TARE_ASSIGN_OR_RETURN(int xv, Plain(x));
  // The input is flattened to [-1, depth] in TFLite's (NHWC) order.
  int x2 = xv;
  if (Rank(x) != 2 || S(x).shape[1] != depth)
    x2 = Node1("Reshape", OpName(y) + "/flatten", {xv, ConstI64(OpName(y) + "/flatten/shape", {-1, depth})},
               OpName(y) + "/flattened", S(x).dtype);
  int wv;
  if (IsConst(w)) {
    TARE_ASSIGN_OR_RETURN(Tensor wf, ConstFloat(w));
    wv = Const(TName(w), wf);
  } else {
    TARE_ASSIGN_OR_RETURN(wv, Plain(w));
  }
  std::vector<int> ins = {x2, wv};
  if (b >= 0) {
    TARE_ASSIGN_OR_RETURN(int bv, Plain(b));
    ins.push_back(bv);
  }
  const bool keep = o && o->keep_num_dims() && Rank(y) != 2;
  const int core = keep ? NewValue(OpName(y) + "/2d", S(y).dtype) : OutValue(y, false, act);
  AddNode("Gemm", OpName(y), ins, {core}, {{"transB", IntAttr(1)}});
  if (!keep) return SetOutput(y, core, false, act);
  std::vector<int64_t> shape(S(y).shape.begin(), S(y).shape.end());
  const int r = OutValue(y, false, act);
  AddNode("Reshape", OpName(y) + "/keep_num_dims", {core, ConstI64(OpName(y) + "/keep_num_dims/shape", shape)}, {r});
  return SetOutput(y, r, false, act);
}

/// TFLite BATCH_MATMUL: ONNX MatMul in TFLite's layout, adj_x / adj_y as a Transpose of the last two dims.
Status Converter::BatchMatMul(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  const tfl::Operator& op = args.op;
  TARE_RETURN_IF_ERROR(Need(args, 2, 1));
  const auto* o = op.builtin_options_as_BatchMatMulOptions();
  const std::string nm = OpName(out[0]);
  std::vector<int> ins;
  for (int k = 0; k < 2; ++k) {
    TARE_ASSIGN_OR_RETURN(int v, Plain(in[static_cast<size_t>(k)]));
    const bool adj = o && (k == 0 ? o->adj_x() : o->adj_y());
    if (adj) {
      const int64_t r = Rank(in[static_cast<size_t>(k)]);
      if (r < 2) return Error("adjoint of a rank < 2 operand");
      std::vector<int64_t> perm(static_cast<size_t>(r));
      for (int64_t d = 0; d < r; ++d) perm[static_cast<size_t>(d)] = d;
      std::swap(perm[static_cast<size_t>(r - 1)], perm[static_cast<size_t>(r - 2)]);
      v = Node1("Transpose", nm + (k == 0 ? "/adj_x" : "/adj_y"), {v}, nm + (k == 0 ? "/x_t" : "/y_t"), S(in[static_cast<size_t>(k)]).dtype,
                {{"perm", IntsAttr(perm)}});
    }
    ins.push_back(v);
  }
  S(out[0]).plain = Node1("MatMul", nm, ins, NameFor(out[0], false), S(out[0]).dtype);
  return Status::Ok();
}

}  // namespace tflite
}  // namespace tare
