// TF.js graph models: constants, identities, convolutions, matrix products, batch normalization, pools, activations -> ONNX-domain ops (graph_converter.h lists the files).

#include <optional>
#include "converters/tfjs/graph_converter.h"

namespace tare {
namespace tfjs {

/// TensorFlow Const.
Status GraphConverter::Const(const NodeView& n) {
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(Tensor t, ConstOf(n));
  b_->SetConst(y, t);
  return Status::Ok();
}

/// TensorFlow NoOp (control dependencies only: nothing to compute).
Status GraphConverter::NoOp(const NodeView&) {
  return Status::Ok();
}

/// TensorFlow Identity, StopGradient, Snapshot, PlaceholderWithDefault.
Status GraphConverter::Identity(const NodeView& n) {
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  return b_->Alias(y, x);
}

/// TensorFlow IdentityN.
Status GraphConverter::IdentityN(const NodeView& n) {
  const std::string& y = n.name;
  for (size_t k = 0; k < n.ins.size(); ++k) TARE_RETURN_IF_ERROR(b_->Alias(k == 0 ? y : y + ":" + std::to_string(k), n.ins[k]));
  return Status::Ok();
}

/// TensorFlow _FusedConv2D.
Status GraphConverter::FusedConv2D(const NodeView& n) {
  return Fused(n, true, false);
}

/// TensorFlow FusedDepthwiseConv2dNative.
Status GraphConverter::FusedDepthwiseConv2dNative(const NodeView& n) {
  return Fused(n, true, true);
}

/// TensorFlow _FusedMatMul.
Status GraphConverter::FusedMatMul(const NodeView& n) {
  return Fused(n, false, false);
}

/// TensorFlow Conv2D, DepthwiseConv2dNative.
Status GraphConverter::Conv2D(const NodeView& n) {
  const std::string& op = n.op;
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string f, In(n, 1));
  TARE_ASSIGN_OR_RETURN(Tensor w, b_->ConstFloat(f, "the filter"));
  TARE_ASSIGN_OR_RETURN(Padding pad, Pad(n));
  TARE_ASSIGN_OR_RETURN(auto strides, Hw(n, "strides", 1));
  TARE_ASSIGN_OR_RETURN(auto dil, Hw(n, "dilations", 1));
  auto d = dilations_.find(y);
  if (d != dilations_.end()) {
    // TensorFlow's dilated convolution: SpaceToBatchND -> this (VALID, stride 1) -> BatchToSpaceND
    // is this convolution dilated by the block on the SpaceToBatchND's input, padded by its
    // paddings less the crops.
    if (pad.kind != "VALID" || strides != std::vector<int64_t>{1, 1} || dil != std::vector<int64_t>{1, 1})
      return Error("a convolution between SpaceToBatchND and BatchToSpaceND must be VALID with strides and dilations 1");
    Padding p;
    p.kind = "EXPLICIT";
    p.explicit_hw = d->second.pads;
    return b_->Conv(y, d->second.input, w, nullptr, {1, 1}, d->second.block, p, op != "Conv2D", Activation());
  }
  return b_->Conv(y, x, w, nullptr, strides, dil, pad, op != "Conv2D", Activation());
}

/// TensorFlow MatMul, BatchMatMul, BatchMatMulV2.
Status GraphConverter::MatMul(const NodeView& n) {
  const std::string& op = n.op;
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string a, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string c, In(n, 1));
  const bool ta = op == "MatMul" ? n.B("transpose_a", false) : n.B("adj_x", false);
  const bool tb = op == "MatMul" ? n.B("transpose_b", false) : n.B("adj_y", false);
  return b_->MatMul(y, a, c, ta, tb, nullptr, Activation());
}

/// TensorFlow FusedBatchNorm, FusedBatchNormV2, FusedBatchNormV3.
Status GraphConverter::FusedBatchNorm(const NodeView& n) {
  const std::string& y = n.name;
  if (n.ins.size() < 5) return Error("expects inputs (x, scale, offset, mean, variance)");
  std::vector<Tensor> p;
  for (size_t k = 1; k < 5; ++k) {
    TARE_ASSIGN_OR_RETURN(Tensor t, b_->ConstFloat(n.ins[k], "a batch normalization parameter"));
    p.push_back(t);
  }
  return b_->BatchNorm(y, n.ins[0], p[0], p[1], p[2], p[3], n.F("epsilon", 1e-3f), Activation());
}

/// TensorFlow MaxPool, AvgPool.
Status GraphConverter::MaxPool(const NodeView& n) {
  const std::string& op = n.op;
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(Padding pad, Pad(n));
  if (pad.kind == "EXPLICIT") return Error("explicit padding of a pool is not supported");
  TARE_ASSIGN_OR_RETURN(auto k, Hw(n, "ksize", 1));
  TARE_ASSIGN_OR_RETURN(auto s, Hw(n, "strides", 1));
  return b_->Pool(y, x, op == "MaxPool", k, s, pad);
}

/// TensorFlow Relu, Relu6, Elu, Selu, Sigmoid, Tanh, ....
Status GraphConverter::ActivationOp(const NodeView& n) {
  const std::string& op = n.op;
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  Activation a;
  a.kind = op;
  return b_->Activate(y, x, a);
}

/// TensorFlow LeakyRelu.
Status GraphConverter::LeakyRelu(const NodeView& n) {
  const std::string& op = n.op;
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  Activation a;
  a.kind = op;
  a.alpha = n.F("alpha", 0.2f);
  return b_->Activate(y, x, a);
}

/// TensorFlow Prelu.
Status GraphConverter::Prelu(const NodeView& n) {
  const std::string& op = n.op;
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string al, In(n, 1));
  Activation a;
  a.kind = op;
  a.prelu_alpha = al;
  return b_->Activate(y, x, a);
}

/// TensorFlow Conv2DBackpropInput (input_sizes [4] NHWC, filter [KH, KW, C_out, C_in], x):
/// the transposed convolution that has x as the gradient of Conv2D's output: ONNX ConvTranspose
/// on the NCHW x with weights [C_in, C_out, KH, KW] and output_shape the input_sizes' H and W, with
/// auto_pad SAME_UPPER (total = full - out, the first half at the start as TensorFlow's forward
/// SAME; a total below 0, as always for VALID, leaves the extra outputs at the end: zeros).
Status GraphConverter::Conv2DBackpropInput(const NodeView& n) {
  const std::string& y = n.name;
  if (n.ins.size() != 3) return Error("expects inputs (input_sizes, filter, out_backprop)");
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, b_->ConstInts(n.ins[0], "input_sizes"));
  if (sizes.size() != 4 || sizes[1] < 1 || sizes[2] < 1 || sizes[1] > (int64_t(1) << 24) || sizes[2] > (int64_t(1) << 24))
    return Error("input_sizes must be [N, H, W, C] with H and W in [1, 2^24]");
  TARE_ASSIGN_OR_RETURN(Tensor w, b_->ConstFloat(n.ins[1], "the filter"));
  if (w.shape.size() != 4) return Error("the filter must have rank 4 ([KH, KW, C_out, C_in]), has shape " + ShapeStr(w.shape));
  if (sizes[3] != w.shape[2]) return Error("input_sizes' channels " + std::to_string(sizes[3]) + " differ from the filter's " + std::to_string(w.shape[2]));
  TARE_ASSIGN_OR_RETURN(Padding pad, Pad(n));
  if (pad.kind == "EXPLICIT") return Error("explicit padding of Conv2DBackpropInput is not supported");
  TARE_ASSIGN_OR_RETURN(auto strides, Hw(n, "strides", 1));
  TARE_ASSIGN_OR_RETURN(auto dil, Hw(n, "dilations", 1));
  if (strides[0] < 1 || strides[1] < 1 || dil[0] < 1 || dil[1] < 1) return Error("strides and dilations must be >= 1");
  TARE_ASSIGN_OR_RETURN(int xv, b_->Nchw(n.ins[2]));
  const int wv = b_->Const(y + "/filter", PermuteTensor(w, {3, 2, 0, 1}));  // [KH, KW, C_out, C_in] -> [C_in, C_out, KH, KW]
  std::map<std::string, Attr> attrs = {{"strides", IntsAttr(strides)}, {"dilations", IntsAttr(dil)},
                                       {"kernel_shape", IntsAttr({w.shape[0], w.shape[1]})},
                                       {"output_shape", IntsAttr({sizes[1], sizes[2]})}, {"auto_pad", StrAttr("SAME_UPPER")}};
  const int v = b_->Node1("ConvTranspose", y, {xv, wv}, b_->NameFor(y, true), DType::kFloat32, attrs);
  b_->Set(y, v, true, 4);
  return Status::Ok();
}

}  // namespace tfjs
}  // namespace tare
