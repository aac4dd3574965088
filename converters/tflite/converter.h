// The TFLite converter's internals (private to converters/tflite/; the public entry points are in
// tflite_converter.h). One `Converter` reads one .tflite flatbuffer into a Graph:
//   tflite_converter.cc  tensors, buffers, sparse densification, the NHWC/NCHW value tracking, Run
//   ops_table.cc         the table: builtin code -> translator (and quantized form)
//   ops_conv.cc          CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, pools, FULLY_CONNECTED,
//                        BATCH_MATMUL, MediaPipe's Convolution2DTransposeBias (CUSTOM)
//   ops_elementwise.cc   binary arithmetic, unary math, activations, CAST
//   ops_reduce.cc        MEAN / SUM / REDUCE_MAX / REDUCE_MIN, SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION
//   ops_shape.cc         RESHAPE, SQUEEZE, EXPAND_DIMS, TRANSPOSE, CONCATENATION, PAD, GATHER, SLICE,
//                        STRIDED_SLICE, PACK, UNPACK, SPLIT, RESIZE_*, DEPTH_TO_SPACE, SPACE_TO_DEPTH
//   ops_quant.cc         QUANTIZE, DEQUANTIZE, DENSIFY and the tflite-domain quantized forms
//   ops_rnn.cc           UNIDIRECTIONAL_SEQUENCE_LSTM
// Layout and naming rules: tflite_converter.h and docs/ARCHITECTURE.md ("TFLite converter").
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "converters/converter_util.h"
#include "converters/nhwc.h"
#include "converters/tflite/builtin_ops.h"
#include "runtime/ir/graph.h"
#include "tflite_schema_generated.h"

namespace tare {
namespace tflite {

namespace tfl = tare::tfl;

// kToNchw, kToNhwc, NhwcAxisToNchw, PermuteTensor: converters/nhwc.h.
/// Whether TFLite's float kernels apply the fused activation (they clamp to its range; TANH and
/// SIGN_BIT have none, so they are not applied).
bool Applied(tfl::ActivationFunctionType act);

class Converter;
struct OpArgs;

/// Where a translator takes one operator's quantized form (ops_quant.cc): the tflite-domain op,
/// its inputs (the input tensor's value first) and attributes (scales and zero points of the
/// input and output already set).
struct QuantOp {
  std::string ir;
  std::vector<int> ins;
  std::map<std::string, Attr> attrs;
};

/// One row of the operator table (ops_table.cc): how a builtin code converts.
struct OpEntry {
  /// Float (and layout) translator; nullptr: none ("is not supported" unless the quantized form applies).
  Status (Converter::*translate)(const OpArgs&) = nullptr;
  /// The IR op the translator makes, for translators shared by several codes ("Add", "Tanh").
  const char* ir = "";
  /// Quantized form (int8/uint8/int16 input with scales); nullptr: none ("the quantized form is
  /// not supported").
  Status (Converter::*quantized)(const OpArgs&, QuantOp*) = nullptr;
  /// Layout-only op: on quantized tensors the float translator copies the codes and keeps the
  /// quantization.
  bool copies_codes = false;
};

/// One operator as a translator sees it: the flatbuffer operator, its builtin code (CUSTOM for
/// custom ops) and custom code, its input and output tensor indices (checked in range; -1 is an
/// absent optional input) and its table row (nullptr for a code tare does not know).
struct OpArgs {
  const tfl::Operator& op;
  int code;
  const std::string& custom;
  std::vector<int> in, out;
  const OpEntry* entry;
  /// The table row's IR op ("" without a row).
  const char* ir() const { return entry ? entry->ir : ""; }
};

/// Converts one TFLite flatbuffer (one subgraph) into a Graph. Not reusable: one Run per object.
class Converter {
 public:
  /// `data`/`size`: the whole file (buffers may lie after the flatbuffer); `file`: its name for messages.
  Converter(const uint8_t* data, size_t size, std::string file) : data_(data), size_(size), file_(std::move(file)) {}

  /// Reads the model into *out (inputs and outputs in TFLite's NHWC layout and names). Errors: see
  /// ConvertTfliteBytes (tflite_converter.h).
  Status Run(Graph* out);

 private:
  /// The table row for a builtin code, or nullptr when tare does not convert it (ops_table.cc).
  static const OpEntry* FindOp(int code);

  // Per TFLite tensor: the IR values that hold it in TFLite's layout (`plain`) and, for rank 4, in
  // NCHW (`nchw`); -1 when not made yet. Constants keep their data here.
  struct TState {
    int plain = -1, nchw = -1;
    bool is_const = false;
    Tensor data;  // constants (TFLite layout)
    DType dtype = DType::kUndefined;
    Shape shape;  // TFLite shape (static)
  };
  /// Tensor t's state; an absent optional input (-1) or an index out of range reads as a tensor
  /// with no value, rank 0 and no dtype (so rank and dtype checks reject it), never out of bounds.
  /// Writes to it go to a scratch state, reset before each op.
  TState& S(int t) { return t >= 0 && static_cast<size_t>(t) < ts_.size() ? ts_[t] : absent_; }
  const TState& S(int t) const { return t >= 0 && static_cast<size_t>(t) < ts_.size() ? ts_[t] : absent_; }

  // ---- reading the flatbuffer (tflite_converter.cc) ------------------------------------------
  Status ReadTensors();
  Result<Tensor> BufferData(const tfl::Tensor& t, size_t index, DType dt, const Shape& shape);
  Result<Tensor> Densify(const tfl::Tensor& t, size_t index, const Tensor& values, DType dt, const Shape& shape);

  // ---- building the IR (tflite_converter.cc) -------------------------------------------------
  int NewValue(const std::string& name, DType dt, const Shape* shape = nullptr) { return w_.NewValue(name, dt, shape); }
  int Const(const std::string& name, const Tensor& t) { return w_.Const(name, t); }
  int ConstI64(const std::string& name, const std::vector<int64_t>& v) { return Const(name, Int64Vector(v)); }
  /// Adds a node; its outputs are the given values (made with NewValue).
  void AddNode(const std::string& op, const std::string& name, std::vector<int> inputs, std::vector<int> outputs,
               std::map<std::string, Attr> attrs = {}) {
    w_.AddNode(op, name, std::move(inputs), std::move(outputs), std::move(attrs));
  }
  /// One-output node with a new output value named `out_name` of dtype dt.
  int Node1(const std::string& op, const std::string& name, std::vector<int> inputs, const std::string& out_name, DType dt,
            std::map<std::string, Attr> attrs = {}) {
    return w_.Node1(op, name, std::move(inputs), out_name, dt, std::move(attrs));
  }

  // Tensor views.
  int Rank(int t) const { return static_cast<int>(S(t).shape.size()); }
  bool IsConst(int t) const { return t >= 0 && S(t).is_const; }
  /// The IR value of tensor t in TFLite's layout.
  Result<int> Plain(int t);
  /// The IR value of rank-4 tensor t in NCHW.
  Result<int> Nchw(int t);
  /// Whether tensor t has an NCHW value (it may also have one in TFLite's layout).
  bool HasNchw(int t) const { return t >= 0 && S(t).nchw >= 0; }
  /// Name for the value carrying tensor t in the given layout (see the header: outputs' NHWC value
  /// has the TFLite name, otherwise the NCHW value has it).
  std::string NameFor(int t, bool nchw) const;
  /// Records the IR value produced for output tensor t (layout nchw or plain), applying the fused
  /// activation first: `core` is the op's own output value, the activation node writes the tensor.
  Status SetOutput(int t, int core, bool nchw, tfl::ActivationFunctionType act);
  /// A new value for tensor t's result before its fused activation (or the final one when none).
  int OutValue(int t, bool nchw, tfl::ActivationFunctionType act);

  // Helpers for the ops.
  Result<std::vector<int64_t>> ConstInts(int t, const char* what);
  Result<Tensor> ConstFloat(int t);  // a constant as float32
  /// Converts one operator (checks its tensor indices, tries the quantized form, then the table's
  /// translator). Errors: "is not supported" (collected by Run) for codes without a translator.
  Status ConvertOp(const tfl::Operator& op, int code, const std::string& custom);
  /// Error unless a has at least n_in inputs (the first n_in present) and exactly n_out outputs.
  Status Need(const OpArgs& args, size_t n_in, size_t n_out) const;
  /// TFLite shape of tensor t with -1 where its shape_signature says the dim is dynamic.
  Shape DeclaredShape(int t) const;

  // ---- translators (ops_*.cc), one per table row; each writes the operator's output tensors --
  // ops_conv.cc
  Status Conv(const OpArgs& args);
  Status TransposeConv(const OpArgs& args);
  Status Custom(const OpArgs& args);
  Status ConvTransposeNode(int x, int w, int b, int out, int64_t sh, int64_t sw, bool same, tfl::ActivationFunctionType act);
  Status Pool(const OpArgs& args);
  Status FullyConnected(const OpArgs& args);
  Status BatchMatMul(const OpArgs& args);
  // ops_elementwise.cc
  Status Binary(const OpArgs& args);
  Status Elementwise(const OpArgs& args);
  Status UnaryNode(const OpArgs& args, const std::string& ir_op, std::map<std::string, Attr> attrs = {},
                   std::vector<int> extra = {});
  Status ClipActivation(const OpArgs& args);
  Status Rsqrt(const OpArgs& args);
  Status Square(const OpArgs& args);
  Status LeakyRelu(const OpArgs& args);
  Status Cast(const OpArgs& args);
  // ops_reduce.cc
  Status Reduce(const OpArgs& args);
  Status Softmax(const OpArgs& args);
  Status L2Normalization(const OpArgs& args);
  // ops_shape.cc
  Status Reshape(const OpArgs& args);
  Status Squeeze(const OpArgs& args);
  Status ExpandDims(const OpArgs& args);
  Status Transpose(const OpArgs& args);
  Status Concatenation(const OpArgs& args);
  Status Pad(const OpArgs& args);
  Result<int> QuantPadValue(const OpArgs& args, const std::string& nm);
  Result<std::string> QuantActivation(tfl::ActivationFunctionType a) const;
  Status Gather(const OpArgs& args);
  Status Slice(const OpArgs& args);
  Status StridedSlice(const OpArgs& args);
  Status Pack(const OpArgs& args);
  Status Split(const OpArgs& args);
  Status Resize(const OpArgs& args);
  Status DepthSpace(const OpArgs& args);
  // ops_rnn.cc
  Status Lstm(const OpArgs& args);
  // ops_quant.cc: float paths
  Status Dequantize(const OpArgs& args);
  Status DensifyOp(const OpArgs& args);
  // ops_quant.cc: quantized forms (int8/uint8/int16 activations with scales) -> domain "tflite"
  // ops on kernels/quant, in TFLite's layout.
  /// Sets *handled when a is a QUANTIZE, a DEQUANTIZE of a run-time quantized tensor, or an
  /// operator with a quantized input and a quantized form; leaves it false (ok status) for float
  /// operators and the table's layout-only ops, which the float translators convert.
  Status Quantized(const OpArgs& args, bool* handled);
  Status QConv(const OpArgs& args, QuantOp* q);
  Status QFullyConnected(const OpArgs& args, QuantOp* q);
  Status QAddMul(const OpArgs& args, QuantOp* q);
  Status QPool(const OpArgs& args, QuantOp* q);
  Status QSoftmax(const OpArgs& args, QuantOp* q);
  Status QLogistic(const OpArgs& args, QuantOp* q);
  /// Adds constant quantized weights w and bias b (-1: none) to q with their scales.
  Status QuantWeights(int w, int b, QuantOp* q);
  /// Whether tensor t is an integer tensor with quantization scales.
  bool IsQuant(int t) const;
  /// Adds the quantization of tensor t as attributes `<prefix>scale(s)` / `<prefix>zero_point(s)`.
  Status QuantAttrs(int t, const std::string& scale_key, const std::string& zp_key, std::map<std::string, Attr>* attrs,
                    bool allow_per_channel = false);

  std::string OpName(int out_tensor) const;
  /// Tensor t's TFLite name (or "tensor_<t>").
  std::string TName(int t) const;
  std::string Where() const { return "operator " + std::to_string(op_index_) + " (" + op_label_ + ")"; }
  Status Error(const std::string& msg) const { return Status::Error(file_ + ": " + Where() + ": " + msg); }
  /// Ok for TFLite's SAME and VALID padding; any other value of the enum is refused (Error).
  Status CheckPadding(tfl::Padding p) const {
    if (p == tfl::Padding::SAME || p == tfl::Padding::VALID) return Status::Ok();
    return Error("padding " + std::to_string(static_cast<int>(p)) + " is neither SAME nor VALID");
  }

  const uint8_t* data_;
  size_t size_;
  std::string file_;
  const tfl::Model* model_ = nullptr;
  const tfl::SubGraph* sg_ = nullptr;
  Graph* g_ = nullptr;
  std::vector<TState> ts_;
  TState absent_;  // what S() gives for an absent or out-of-range tensor index
  std::vector<char> is_graph_output_, is_graph_input_;
  GraphWriter w_;  // g_'s values and nodes, with unique value names
  size_t op_index_ = 0;
  std::string op_label_;
};

}  // namespace tflite
}  // namespace tare
