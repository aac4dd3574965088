// The TF.js graph-model converter's internals (graph_model.cc: reading, the op table, Run;
// graph_ops_nn.cc: convolutions, matrix products, normalization, pools, activations, constants;
// graph_ops_math.cc: elementwise math, comparisons, reductions, Softmax, TopK;
// graph_ops_shape.cc: shapes, slicing, gathering, padding, resizing).
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "converters/tfjs/kinds.h"

namespace tare {
namespace tfjs {

using json = nlohmann::ordered_json;

/// Standard base64 (TensorFlow's JSON bytes fields); invalid characters are skipped.
std::string Base64(const std::string& s);
/// An int64 from a JSON number or decimal string (TensorFlow's JSON int64 form). Errors: other types.
Result<int64_t> JInt(const json& v);
/// tare's dtype for a TensorFlow DataType name, as TF.js maps it (its uint8/int8/int16 inputs are
/// int32 tensors, half is float32).
Result<DType> TfType(const std::string& t);
/// The tensor name an input reference means ("x:0" is "x"); "" for a control input ("^x").
std::string TensorRef(const std::string& in);
/// The node an input reference reads.
std::string NodeOf(const std::string& ref);
/// Whether op is one of TF1's control-flow ops (Enter, Merge, Switch, NextIteration, Exit,
/// LoopCond, their Ref forms): converted per while loop, not through the op table.
bool IsControlFlowOp(const std::string& op);

/// One GraphDef node's view: name, op, data inputs (tensor names: "node" for output 0, "node:k"),
/// attributes.
struct NodeView {
  const json* j;
  std::string name, op;
  std::vector<std::string> ins;

  const json* A(const std::string& k) const {
    if (!j->contains("attr") || !(*j)["attr"].is_object() || !(*j)["attr"].contains(k)) return nullptr;
    return &(*j)["attr"][k];
  }
  Result<int64_t> I(const std::string& k, int64_t def) const {
    const json* a = A(k);
    if (!a || !a->contains("i")) return def;
    return JInt((*a)["i"]);
  }
  float F(const std::string& k, float def) const {
    const json* a = A(k);
    if (!a || !a->contains("f") || !(*a)["f"].is_number()) return def;
    return (*a)["f"].get<float>();
  }
  bool B(const std::string& k, bool def) const {
    const json* a = A(k);
    if (!a || !a->contains("b") || !(*a)["b"].is_boolean()) return def;
    return (*a)["b"].get<bool>();
  }
  std::string S(const std::string& k, const std::string& def) const {
    const json* a = A(k);
    if (!a || !a->contains("s") || !(*a)["s"].is_string()) return def;
    return Base64((*a)["s"].get<std::string>());
  }
  std::string Type(const std::string& k) const {
    const json* a = A(k);
    if (!a || !a->contains("type") || !(*a)["type"].is_string()) return "";
    return (*a)["type"].get<std::string>();
  }
  Result<std::vector<int64_t>> Ints(const std::string& k) const {
    std::vector<int64_t> v;
    const json* a = A(k);
    if (!a || !a->contains("list") || !(*a)["list"].is_object() || !(*a)["list"].contains("i")) return v;
    const json& l = (*a)["list"]["i"];
    if (!l.is_array()) return Status::Error("attribute '" + k + "' is not a list of integers");
    for (const json& x : l) {
      TARE_ASSIGN_OR_RETURN(int64_t i, JInt(x));
      v.push_back(i);
    }
    return v;
  }
  std::vector<std::string> Strs(const std::string& k) const {
    std::vector<std::string> v;
    const json* a = A(k);
    if (!a || !a->contains("list") || !(*a)["list"].is_object() || !(*a)["list"].contains("s") || !(*a)["list"]["s"].is_array()) return v;
    for (const json& x : (*a)["list"]["s"])
      if (x.is_string()) v.push_back(Base64(x.get<std::string>()));
    return v;
  }
};

class GraphConverter {
 public:
  GraphConverter(const json& j, std::map<std::string, Tensor>& w, Builder& b) : j_(j), w_(w), b_(&b) {}
  Status Run();

 private:
  /// Reads modelTopology.node into nodes_ and by_name_. Errors: a node without a name or op, two
  /// nodes of one name, graph functions (TF2 control flow), every unsupported op (one message), an
  /// input no node writes.
  Status ReadNodes();
  /// The graph's outputs: the signature's (tensor, and the name TF.js gives it: the signature's key,
  /// as GraphModel.outputNodes), else every node nobody reads. Errors: none, an output naming no
  /// node or inside a loop or tf.cond branch.
  Status FindOutputs(const json* sig, std::vector<std::string>* outputs, std::vector<std::string>* export_names) const;
  /// The conversion order over units: single nodes (index < nodes_.size()), then each frame and
  /// each tf.cond as one unit (indices after). Errors: a cycle, naming one of its nodes.
  Status OrderUnits(std::vector<size_t>* order) const;
  /// A Placeholder as a graph input (dtype; shape from its attribute, completed by the signature's).
  /// Errors: an unknown rank.
  Status AddPlaceholder(const NodeView& n, const json* sig);
  /// Converts one node through the op table (graph_model.cc). Errors: "is not supported" for ops
  /// without a row, the translators' errors.
  Status Convert(const NodeView& n);
  /// A SpaceToBatchND -> Conv2D / DepthwiseConv2dNative -> BatchToSpaceND chain (TensorFlow's
  /// dilated convolution), found before conversion: the convolution runs dilated on the
  /// SpaceToBatchND's input with pads (paddings - crops), the two ends become aliases.
  struct Dilation {
    std::string input;           ///< the SpaceToBatchND's input tensor
    std::vector<int64_t> block;  ///< [bh, bw]
    std::vector<int64_t> pads;   ///< explicit pads for the convolution: top, bottom, left, right
  };
  /// Fills dilations_ (keyed by the convolution's name) for every such chain. Errors: a chain whose
  /// parts are not constants or whose crops exceed its paddings.
  Status FindDilations(const std::vector<NodeView>& nodes, const std::map<std::string, size_t>& by_name);
  /// The op table: TensorFlow op -> translator.
  using Translator = Status (GraphConverter::*)(const NodeView&);
  static const std::map<std::string, Translator>& Table();

  // Translators, one per row (graph_ops_nn.cc, graph_ops_math.cc, graph_ops_shape.cc).
  Status Const(const NodeView& n);
  Status NoOp(const NodeView& n);
  Status Identity(const NodeView& n);
  Status IdentityN(const NodeView& n);
  Status FusedConv2D(const NodeView& n);
  Status FusedDepthwiseConv2dNative(const NodeView& n);
  Status FusedMatMul(const NodeView& n);
  Status Conv2D(const NodeView& n);
  Status MatMul(const NodeView& n);
  Status FusedBatchNorm(const NodeView& n);
  Status MaxPool(const NodeView& n);
  Status ActivationOp(const NodeView& n);
  Status LeakyRelu(const NodeView& n);
  Status Prelu(const NodeView& n);
  Status Binary(const NodeView& n);
  Status NotEqual(const NodeView& n);
  Status SquaredDifference(const NodeView& n);
  Status FloorDiv(const NodeView& n);
  Status FloorMod(const NodeView& n);
  Status AddN(const NodeView& n);
  Status Unary(const NodeView& n);
  Status Rsqrt(const NodeView& n);
  Status Square(const NodeView& n);
  Status Select(const NodeView& n);
  Status Reduction(const NodeView& n);
  Status ArgMax(const NodeView& n);
  Status Softmax(const NodeView& n);
  Status ConcatV2(const NodeView& n);
  Status Pack(const NodeView& n);
  Status Unpack(const NodeView& n);
  Status Reshape(const NodeView& n);
  Status Squeeze(const NodeView& n);
  Status ExpandDims(const NodeView& n);
  Status Transpose(const NodeView& n);
  Status Tile(const NodeView& n);
  Status PadOp(const NodeView& n);
  Status Slice(const NodeView& n);
  Status StridedSlice(const NodeView& n);
  Status GatherV2(const NodeView& n);
  Status Cast(const NodeView& n);
  Status ShapeOp(const NodeView& n);
  Status Fill(const NodeView& n);
  Status ZerosLike(const NodeView& n);
  Status Range(const NodeView& n);
  Status ResizeBilinear(const NodeView& n);
  Status TopKV2(const NodeView& n);
  Status GatherNd(const NodeView& n);
  Status NonMaxSuppression(const NodeView& n);
  Status Conv2DBackpropInput(const NodeView& n);
  Status Atan2(const NodeView& n);
  Status SparseToDense(const NodeView& n);
  Status WhereIndices(const NodeView& n);
  Status SymmetricPad(const std::string& y, const std::string& x, const std::vector<int64_t>& pads);
  Status BroadcastTo(const NodeView& n);
  Status DepthToSpace(const NodeView& n);
  Status SpaceToBatchND(const NodeView& n);
  Status Fused(const NodeView& n, bool conv, bool depthwise);
  // TensorList ops as IR sequences (graph_control_flow.cc).
  Status TensorListReserve(const NodeView& n);
  Status TensorListFromTensor(const NodeView& n);
  Status TensorListGetItem(const NodeView& n);
  Status TensorListSetItem(const NodeView& n);
  Status TensorListStack(const NodeView& n);
  Status TensorListLength(const NodeView& n);
  Status TensorListPushBack(const NodeView& n);
  Status TensorListPopBack(const NodeView& n);
  Status TensorListSplit(const NodeView& n);
  // TensorArrayV3 ops: the array is the sequence its flow tensor carries (graph_control_flow.cc).
  Status TensorArrayV3(const NodeView& n);
  Status TensorArrayReadV3(const NodeView& n);
  Status TensorArrayWriteV3(const NodeView& n);
  Status TensorArraySizeV3(const NodeView& n);
  Status TensorArrayGatherV3(const NodeView& n);
  Status TensorArrayScatterV3(const NodeView& n);
  /// A sequence of n placeholders (empty tensors of dt) for a reserved list; n from a constant.
  Result<int> Reserved(const std::string& n_tensor, DType dt, const std::string& y);
  /// seq with item `index` replaced by `item` (SequenceErase then SequenceInsert at index).
  Result<int> SetItem(const std::string& y, const std::string& seq, const std::string& index, const std::string& item);
  /// The stacked items of sequence seq at run-time `indices` (a Loop over them) / every item.
  Result<int> Gather(const std::string& y, const std::string& seq, const std::string& indices);

  // ---- TF1 control flow (graph_control_flow.cc) -----------------------------------------------
  /// One tf.while_loop of a TF1 graph (a frame): its Enter, Merge, Switch, NextIteration, Exit and
  /// LoopCond nodes, the condition's and the body's nodes, in the order they convert.
  struct Frame {
    std::string name;  ///< frame_name
    struct Var {
      size_t enter, merge, sw, next;  ///< node indices
      int exit = -1;                  ///< the Exit reading it, if any
    };
    std::vector<Var> vars;             ///< the loop-carried values, in Enter order
    std::vector<size_t> invariants;    ///< Enters with is_constant (loop invariants)
    size_t loop_cond = 0;
    std::vector<size_t> cond_nodes, body_nodes;  ///< topological order
    std::vector<std::string> external;           ///< tensors the condition and body read from outside
  };
  /// Finds every frame (frames_, frame_of_). Errors: a nested loop, a frame whose nodes do not form
  /// TensorFlow's while-loop pattern, a node outside reading inside other than through an Exit.
  Status FindFrames();
  /// Frame `fname` from its Enters (readers: each node's readers over data and control edges):
  /// its members, loop variables, condition and body nodes, external reads; appended to frames_.
  Status FindFrame(const std::string& fname, const std::vector<size_t>& enters, const std::vector<std::vector<size_t>>& readers);
  /// The loop variable of Enter e (its Merge, NextIteration, Switch, Exit), appended to f->vars.
  /// Errors: a node that breaks TensorFlow's Enter -> Merge <- NextIteration, Merge -> Switch pattern.
  Status MatchLoopVar(size_t e, const std::vector<std::vector<size_t>>& readers, Frame* f);
  /// The nodes of frame fi that tensors `roots` need, back to `stops`, in topological order.
  /// Errors: a control-flow op among them (a nested loop or cond), a cycle.
  Status FrameNodes(const Frame& f, int fi, const std::set<size_t>& stops, const std::vector<std::string>& roots, const char* what,
                    std::vector<size_t>* out) const;
  /// Appends `set` to out in a topological order of its data edges; false when they hold a cycle.
  bool InOrder(const std::set<size_t>& set, std::vector<size_t>* out) const;
  /// "file: node 'name' (op)" of nodes_[i], for messages.
  std::string WhereNode(size_t i) const;
  /// The index of the node tensor reference `ref` reads.
  size_t Src(const std::string& ref) const;
  /// One frame as an IR Loop (ONNX Loop-16 with tare.captured): the condition runs once before
  /// the loop on the initial values and again at the end of each body run on the new ones.
  Status ConvertLoop(const Frame& f);
  /// One TF1 tf.cond (Switch on a predicate, the two branches' nodes, Merges joining them).
  struct Cond {
    std::string pred;                       ///< the predicate tensor
    std::vector<size_t> switches, merges;   ///< node indices
    std::vector<size_t> branch[2];          ///< [0] else (Switch output 0), [1] then; topological order
    std::vector<std::string> external;      ///< tensors the branches read from outside
  };
  /// Finds every tf.cond outside the while loops (conds_, cond_of_). Errors: a nested cond, a node
  /// reading both branches other than a Merge, a Merge of two predicates.
  Status FindConds();
  /// One tf.cond as an IR If (ONNX If-16 with tare.captured): the Merges are its outputs.
  Status ConvertCond(const Cond& c);
  /// Converts nodes_ [idx...] in that order (the `where` of each message set).
  Status ConvertAll(const std::vector<size_t>& idx);
  Result<Padding> Pad(const NodeView& n);
  Result<std::vector<int64_t>> Hw(const NodeView& n, const std::string& k, int64_t def);
  Result<Tensor> ConstOf(const NodeView& n);
  Status Error(const std::string& m) const { return b_->Error(m); }
  /// Data input k (a tensor name). Errors: fewer inputs.
  Result<std::string> In(const NodeView& n, size_t k) const {
    if (k >= n.ins.size()) return Error("expects at least " + std::to_string(k + 1) + " input(s), has " + std::to_string(n.ins.size()));
    return n.ins[k];
  }
  /// An int64 value of run-time tensor t (a Cast when it is int32), for shapes and indices.
  Result<int> AsI64(const std::string& t, const std::string& nm);

  const json& j_;
  std::map<std::string, Tensor>& w_;
  Builder* b_;  ///< the graph being built (a loop body's or a branch's while one is)
  std::vector<NodeView> nodes_;            ///< every node of the GraphDef
  std::map<std::string, size_t> by_name_;  ///< node name -> index in nodes_
  std::vector<Frame> frames_;
  std::vector<int> frame_of_;              ///< per node: its frame's index, or -1
  std::vector<Cond> conds_;
  std::vector<int> cond_of_;               ///< per node: its tf.cond's index, or -1
  std::map<std::string, Dilation> dilations_;   ///< by convolution node
  std::map<std::string, std::string> s2b_of_;   ///< SpaceToBatchND / BatchToSpaceND node -> its convolution
};


}  // namespace tfjs
}  // namespace tare
