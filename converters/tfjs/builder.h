// The TF.js converter's internals (private to converters/tfjs/; the entry points are in
// tfjs_converter.h):
//   weights.{h,cc}     the weights manifest and its shards, dequantized as TF.js does
//   builder.{h,cc}     `Builder`: TensorFlow tensors (NHWC) held as IR values, lazily in NCHW too,
//                      and the NHWC-semantics ops both model kinds share (convolutions, pools, ...)
//   graph_model.cc     `format: graph-model` (GraphDef nodes with `attr` maps)
//   layers_model.cc    layers models (Keras `model_config`: Sequential and functional)
//   tfjs_converter.cc  model.json, the choice of kind, provenance
//
// Layout (as the TFLite converter, docs/ARCHITECTURE.md "TF.js converter"): TensorFlow's tensors
// are NHWC. Each has up to two IR values, `plain` (TensorFlow's layout) and `nchw` (rank 4 only),
// made lazily; convolutions, pools, resizes, pads, concatenations, Softmax and reductions read and
// write NCHW; elementwise ops follow their inputs; Reshape, MatMul, Squeeze, Transpose, ... read
// `plain`. Names: the NCHW value has the tensor's name (graph inputs and outputs excepted, where the
// NHWC value has it and the NCHW one gets `/nchw`); a plain copy of an NCHW tensor is `<name>/nhwc`.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "converters/converter_util.h"
#include "converters/nhwc.h"
#include "runtime/ir/graph.h"

namespace tare {
namespace tfjs {

// kToNchw, kToNhwc, NhwcAxisToNchw, PermuteTensor, GraphWriter: converters/nhwc.h.

/// A fused or standalone activation, by TensorFlow's name: "" (none, Keras "linear"), "Relu",
/// "Relu6", "Elu", "Selu", "Sigmoid", "Tanh", "LeakyRelu" (alpha), "Prelu" (per-channel alpha
/// tensor in NHWC broadcasting), "Softplus", "Softsign", "HardSigmoid" (Keras: 0.2x + 0.5),
/// "Swish" (x sigmoid x).
struct Activation {
  std::string kind;
  float alpha = 0.2f;
  std::string prelu_alpha;  // the alpha tensor's name (Prelu)
};

/// A window's padding: TensorFlow's SAME (ONNX auto_pad SAME_UPPER: the extra one at the end) or
/// VALID, or EXPLICIT pads in NHWC order ([top, bottom, left, right]).
struct Padding {
  std::string kind = "VALID";
  std::vector<int64_t> explicit_hw;  // top, bottom, left, right
};

/// Builds one Graph from TensorFlow tensors named as the source names them. Not reusable.
class Builder {
 public:
  /// `file`: the model.json path for messages.
  Builder(Graph* g, std::string file) : g_(g), w_(g), file_(std::move(file)) {}

  // ---- tensors --------------------------------------------------------------------------------
  struct TState {
    int plain = -1, nchw = -1;
    int rank = -1;  // -1: unknown
    bool is_const = false;
    Tensor data;  // constants (TensorFlow layout)
    DType dtype = DType::kFloat32;
    ValueKind kind = ValueKind::kTensor;  // kSequence: a TensorList / TensorArray (graph_control_flow.cc)
    int64_t len = -1;  // a run-time rank-1 tensor's length where known (a shape's rank), else -1
  };
  bool Known(const std::string& t) const { return ts_.count(t) != 0; }
  TState& S(const std::string& t) { return ts_[t]; }
  int Rank(const std::string& t) const;
  /// The length of rank-1 t where known here (a constant's, or recorded with SetLen), else -1:
  /// the rank of a tensor that t is the run-time shape of.
  int64_t Len(const std::string& t) const;
  void SetLen(const std::string& t, int64_t len) { ts_[t].len = len; }
  bool IsConst(const std::string& t) const;
  bool HasNchw(const std::string& t) const;
  const Tensor& Data(const std::string& t) { return ts_[t].data; }
  /// Marks t as a graph output (its NHWC value gets its name).
  void MarkOutput(const std::string& t) { outputs_.insert(t); }
  /// A graph input (TensorFlow layout; -1 dims are dynamic).
  int AddInput(const std::string& t, DType dt, const Shape& shape);
  void SetConst(const std::string& t, Tensor data);
  /// A graph input standing for a value shaped like `like` (a loop body's carried or captured
  /// value): its dtype and kind, its rank with unknown dims (no shape when the rank is unknown).
  int AddFormalInput(const std::string& t, const TState& like);
  /// Records sequence value v (a TensorList's, element type dt) as t's value.
  void SetSeq(const std::string& t, int v, DType dt);
  /// t as an alias of src (Identity, Dropout): shares its values.
  Status Alias(const std::string& t, const std::string& src);
  /// The IR value of t in TensorFlow's layout. Errors: t has no value.
  Result<int> Plain(const std::string& t);
  /// The IR value of rank-4 t in NCHW. Errors: t has no value or another rank.
  Result<int> Nchw(const std::string& t);
  /// Records v as t's value in the given layout.
  void Set(const std::string& t, int v, bool nchw, int rank, DType dt = DType::kFloat32);
  /// A constant tensor as float32 / as integers. Errors: t is not a constant (`what` names it).
  Result<Tensor> ConstFloat(const std::string& t, const char* what);
  Result<std::vector<int64_t>> ConstInts(const std::string& t, const char* what);
  std::string NameFor(const std::string& t, bool nchw) const;

  // ---- IR building ----------------------------------------------------------------------------
  int NewValue(const std::string& name, DType dt, const Shape* shape = nullptr) { return w_.NewValue(name, dt, shape); }
  int Const(const std::string& name, const Tensor& t) { return w_.Const(name, t); }
  int ConstI64(const std::string& name, const std::vector<int64_t>& v) { return Const(name, Int64Vector(v)); }
  void AddNode(const std::string& op, const std::string& name, std::vector<int> inputs, std::vector<int> outputs,
               std::map<std::string, Attr> attrs = {}) {
    w_.AddNode(op, name, std::move(inputs), std::move(outputs), std::move(attrs));
  }
  int Node1(const std::string& op, const std::string& name, std::vector<int> inputs, const std::string& out_name, DType dt,
            std::map<std::string, Attr> attrs = {}) {
    return w_.Node1(op, name, std::move(inputs), out_name, dt, std::move(attrs));
  }

  // ---- ops, in TensorFlow's (NHWC) semantics; each writes tensor y ------------------------------
  /// Conv2D (w [KH, KW, I, O], HWIO) or DepthwiseConv2dNative (w [KH, KW, C, M], depthwise): ONNX
  /// Conv on NCHW (OIHW weights; depthwise [C*M, 1, KH, KW], group = C), then bias [O] and the
  /// activation. strides and dilations are [h, w].
  Status Conv(const std::string& y, const std::string& x, const Tensor& w, const Tensor* bias,
              std::vector<int64_t> strides, std::vector<int64_t> dilations, const Padding& pad, bool depthwise,
              const Activation& act);
  /// FusedBatchNorm folded after a convolution or standalone (x NHWC, parameters [C]): ONNX
  /// BatchNormalization on NCHW (rank 4) or on the plain tensor with C last (any rank).
  Status BatchNorm(const std::string& y, const std::string& x, const Tensor& scale, const Tensor& offset,
                   const Tensor& mean, const Tensor& var, float epsilon, const Activation& act);
  /// MaxPool / AvgPool (TensorFlow: SAME averages exclude the padding, count_include_pad = 0).
  Status Pool(const std::string& y, const std::string& x, bool max, std::vector<int64_t> ksize,
              std::vector<int64_t> strides, const Padding& pad);
  /// MatMul of x [.., K] by constant or run-time w [K, N] (transposes as given), bias [N], activation.
  Status MatMul(const std::string& y, const std::string& a, const std::string& b, bool ta, bool tb, const Tensor* bias,
                const Activation& act);
  /// An ONNX elementwise op over inputs with numpy broadcasting (NCHW when every rank-4 run-time
  /// input is held in NCHW and constants broadcast NHWC-style, else plain).
  Status Elementwise(const std::string& y, const std::string& ir_op, const std::vector<std::string>& ins,
                     std::map<std::string, Attr> attrs = {}, DType out_dt = DType::kUndefined);
  /// Applies `act` to tensor x's current value, writing y (x == y allowed when x's value is a core value).
  Status Activate(const std::string& y, const std::string& x, const Activation& act);
  /// Reduction over constant axes (TensorFlow Mean/Sum/Max/Min/Prod, keep_dims).
  Status Reduce(const std::string& y, const std::string& x, const std::string& ir_op, std::vector<int64_t> axes, bool keep);
  /// Softmax / LogSoftmax over the last axis.
  Status Softmax(const std::string& y, const std::string& x, bool log);
  /// Concat along TensorFlow axis `axis`.
  Status Concat(const std::string& y, const std::vector<std::string>& xs, int64_t axis);
  /// Pad with per-dim [before, after] pads in TensorFlow order; mode "constant" (value) or "reflect".
  Status Pad(const std::string& y, const std::string& x, const std::vector<int64_t>& pads, const std::string& mode, float value);
  /// Reshape to a constant shape (TensorFlow's, -1 allowed once).
  Status Reshape(const std::string& y, const std::string& x, const std::vector<int64_t>& shape);
  /// Resize of an NHWC tensor to [h, w]: bilinear (align_corners / half_pixel_centers as TF) or nearest.
  Status Resize(const std::string& y, const std::string& x, int64_t h, int64_t w, bool bilinear, bool align_corners,
                bool half_pixel);

  /// "<file>: <where>: msg".
  Status Error(const std::string& msg) const { return Status::Error(file_ + ": " + where_ + ": " + msg); }
  void SetWhere(std::string w) { where_ = std::move(w); }
  const std::string& file() const { return file_; }
  Graph* graph() { return g_; }

 private:
  /// Whether a binary op on these inputs runs in NCHW.
  bool UseNchw(const std::vector<std::string>& ins) const;
  /// Input t for an NCHW elementwise op: its NCHW value, or a constant of rank <= 4 expanded
  /// NHWC-style and permuted.
  Result<int> NchwOperand(const std::string& t);

  Graph* g_;
  GraphWriter w_;
  std::string file_, where_;
  std::map<std::string, TState> ts_;
  std::set<std::string> outputs_, inputs_;
};

}  // namespace tfjs
}  // namespace tare
