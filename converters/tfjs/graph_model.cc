// TF.js graph models (`format: graph-model`): TensorFlow GraphDef nodes in JSON -> the IR through
// Builder (builder.h). Op semantics: TensorFlow's (the op registry's attributes) as TF.js 4.22
// executes them (tfjs-converter's op executors).

#include <algorithm>
#include <climits>
#include <deque>
#include <set>

#include "converters/tfjs/graph_converter.h"

namespace tare {
namespace tfjs {

/// Standard base64 (TensorFlow's JSON bytes fields); invalid characters are skipped.
std::string Base64(const std::string& s) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
  };
  std::string out;
  int bits = 0, acc = 0;
  for (char c : s) {
    const int v = val(c);
    if (v < 0) continue;
    acc = ((acc << 6) | v) & 0xFFFF;  // only the bits not yet written out matter
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

/// An int64 from a JSON number or decimal string (TensorFlow's JSON int64 form). Errors: other types.
Result<int64_t> JInt(const json& v) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number()) return static_cast<int64_t>(v.get<double>());
  if (v.is_string()) {
    try {
      size_t pos = 0;
      const long long x = std::stoll(v.get<std::string>(), &pos);
      if (pos == v.get<std::string>().size()) return static_cast<int64_t>(x);
    } catch (...) {
    }
  }
  return Status::Error("expected an integer, got " + v.dump());
}

/// tare's dtype for a TensorFlow DataType name, as TF.js maps it (its uint8/int8/int16 inputs are
/// int32 tensors, half is float32).
Result<DType> TfType(const std::string& t) {
  if (t == "DT_FLOAT" || t == "DT_HALF" || t == "DT_DOUBLE" || t == "DT_BFLOAT16") return DType::kFloat32;
  if (t == "DT_INT32" || t == "DT_UINT8" || t == "DT_INT8" || t == "DT_INT16" || t == "DT_UINT16" || t == "DT_INT64") return DType::kInt32;
  if (t == "DT_BOOL") return DType::kBool;
  return Status::Error("data type " + t + " is not supported");
}

/// The tensor name an input reference means ("x:0" is "x"); "" for a control input ("^x").
std::string TensorRef(const std::string& in) {
  if (!in.empty() && in[0] == '^') return "";
  if (in.size() > 2 && in.compare(in.size() - 2, 2, ":0") == 0) return in.substr(0, in.size() - 2);
  return in;
}
/// The node an input reference reads.
std::string NodeOf(const std::string& ref) {
  const size_t c = ref.rfind(':');
  if (c != std::string::npos && c + 1 < ref.size() && std::all_of(ref.begin() + static_cast<long>(c) + 1, ref.end(), ::isdigit)) return ref.substr(0, c);
  return ref;
}

Result<Tensor> GraphConverter::ConstOf(const NodeView& n) {
  auto it = w_.find(n.name);
  if (it != w_.end()) return it->second;
  // A value kept in the node (older converters keep small constants there).
  const json* a = n.A("value");
  if (a && a->contains("tensor") && (*a)["tensor"].is_object()) {
    const json& t = (*a)["tensor"];
    Shape shape;
    if (t.contains("tensorShape") && t["tensorShape"].contains("dim") && t["tensorShape"]["dim"].is_array())
      for (const json& d : t["tensorShape"]["dim"]) {
        TARE_ASSIGN_OR_RETURN(int64_t s, JInt(d.value("size", json("0"))));
        if (s < 0 || s > (int64_t(1) << 24)) return Error("a constant of dim " + std::to_string(s));
        shape.push_back(s);
      }
    TARE_ASSIGN_OR_RETURN(DType dt, TfType(t.value("dtype", std::string("DT_FLOAT"))));
    TARE_ASSIGN_OR_RETURN(int64_t numel, NumElements(shape));
    if (numel > (int64_t(1) << 24)) return Error("an inline constant of " + std::to_string(numel) + " elements (tare reads at most 2^24 from a node's value)");
    const char* key = dt == DType::kFloat32 ? "floatVal" : dt == DType::kBool ? "boolVal" : "intVal";
    if (t.contains(key) && t[key].is_array() && !t[key].empty()) {
      const json& vals = t[key];
      TARE_ASSIGN_OR_RETURN(Tensor out, Tensor::Alloc(dt, shape));
      for (int64_t i = 0; i < numel; ++i) {
        const json& v = vals[std::min<size_t>(static_cast<size_t>(i), vals.size() - 1)];  // the last value repeats
        if (dt == DType::kFloat32) static_cast<float*>(out.data)[i] = v.is_number() ? v.get<float>() : 0.f;
        else if (dt == DType::kBool) static_cast<uint8_t*>(out.data)[i] = v.is_boolean() && v.get<bool>();
        else {
          TARE_ASSIGN_OR_RETURN(int64_t x, JInt(v));
          static_cast<int32_t*>(out.data)[i] = static_cast<int32_t>(x);
        }
      }
      return out;
    }
  }
  return Error("its value is not in the weights manifest");
}

Result<std::vector<int64_t>> GraphConverter::Hw(const NodeView& n, const std::string& k, int64_t def) {
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> v, n.Ints(k));
  if (v.empty()) return std::vector<int64_t>{def, def};
  if (v.size() != 4) return Error("attribute '" + k + "' must have 4 values (NHWC)");
  if (v[0] != 1 || v[3] != 1) return Error("attribute '" + k + "' must be 1 over the batch and channels, got [" + std::to_string(v[0]) + ",...," + std::to_string(v[3]) + "]");
  return std::vector<int64_t>{v[1], v[2]};
}

Result<Padding> GraphConverter::Pad(const NodeView& n) {
  Padding p;
  p.kind = n.S("padding", "VALID");
  if (p.kind != "SAME" && p.kind != "VALID" && p.kind != "EXPLICIT") return Error("padding '" + p.kind + "' is not supported");
  if (p.kind == "EXPLICIT") {
    TARE_ASSIGN_OR_RETURN(std::vector<int64_t> e, n.Ints("explicit_paddings"));
    if (e.size() != 8) return Error("explicit_paddings must have 8 values");
    p.explicit_hw = {e[2], e[3], e[4], e[5]};
  }
  const std::string df = n.S("data_format", "NHWC");
  if (df != "NHWC") return Error("data_format '" + df + "' is not supported (NHWC only, as TF.js)");
  return p;
}

Result<int> GraphConverter::AsI64(const std::string& t, const std::string& nm) {
  TARE_ASSIGN_OR_RETURN(int v, b_->Plain(t));
  if (b_->S(t).dtype == DType::kInt64) return v;
  return b_->Node1("Cast", nm + "/int64", {v}, nm + "/int64", DType::kInt64, {{"to", IntAttr(static_cast<int>(DType::kInt64))}});
}

Status GraphConverter::Fused(const NodeView& n, bool conv, bool depthwise) {
  const std::vector<std::string> ops = n.Strs("fused_ops");
  TARE_ASSIGN_OR_RETURN(int64_t num_args, n.I("num_args", 0));
  if (num_args < 0 || n.ins.size() < 2 + static_cast<size_t>(num_args)) return Error("has fewer inputs than its num_args");
  auto arg = [&](size_t k) { return n.ins[2 + k]; };
  Activation act;
  std::optional<Tensor> bias;
  std::vector<Tensor> bn;
  size_t i = 0;
  if (i < ops.size() && ops[i] == "BiasAdd") {
    if (num_args < 1) return Error("BiasAdd without its argument");
    TARE_ASSIGN_OR_RETURN(Tensor t, b_->ConstFloat(arg(0), "the bias"));
    bias = t;
    ++i;
  } else if (i < ops.size() && ops[i] == "FusedBatchNorm") {
    if (num_args < 4) return Error("FusedBatchNorm needs 4 arguments");
    for (size_t k = 0; k < 4; ++k) {
      TARE_ASSIGN_OR_RETURN(Tensor t, b_->ConstFloat(arg(k), "a batch normalization parameter"));
      bn.push_back(t);
    }
    ++i;
  }
  if (i < ops.size()) {
    const std::string& a = ops[i];
    if (a == "Relu" || a == "Relu6" || a == "Elu" || a == "Sigmoid" || a == "Tanh" || a == "Selu") {
      act.kind = a;
    } else if (a == "LeakyRelu") {
      act.kind = a;
      act.alpha = n.F("leakyrelu_alpha", 0.2f);
    } else if (a == "Prelu") {
      if (static_cast<size_t>(num_args) < 2) return Error("Prelu without its alpha argument");
      act.kind = a;
      act.prelu_alpha = arg(1);
    } else {
      return Error("fused op '" + a + "' is not supported");
    }
    ++i;
  }
  if (i != ops.size()) return Error("fused ops after the activation are not supported");
  if (!conv) {
    return b_->MatMul(n.name, n.ins[0], n.ins[1], n.B("transpose_a", false), n.B("transpose_b", false), bias ? &*bias : nullptr, act);
  }
  TARE_ASSIGN_OR_RETURN(Tensor w, b_->ConstFloat(n.ins[1], "the filter"));
  TARE_ASSIGN_OR_RETURN(Padding pad, Pad(n));
  TARE_ASSIGN_OR_RETURN(auto strides, Hw(n, "strides", 1));
  TARE_ASSIGN_OR_RETURN(auto dil, Hw(n, "dilations", 1));
  if (bn.empty()) return b_->Conv(n.name, n.ins[0], w, bias ? &*bias : nullptr, strides, dil, pad, depthwise, act);
  TARE_RETURN_IF_ERROR(b_->Conv(n.name + "/conv", n.ins[0], w, nullptr, strides, dil, pad, depthwise, Activation()));
  return b_->BatchNorm(n.name, n.name + "/conv", bn[0], bn[1], bn[2], bn[3], n.F("epsilon", 1e-3f), act);
}

Status GraphConverter::FindDilations(const std::vector<NodeView>& nodes, const std::map<std::string, size_t>& by_name) {
  std::map<std::string, std::vector<size_t>> readers;  // node -> the nodes reading its output 0
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const std::string& in : nodes[i].ins) readers[in].push_back(i);
  auto ints_of = [&](const std::string& t, std::vector<int64_t>* v) -> bool {
    auto it = by_name.find(t);
    if (it == by_name.end() || nodes[it->second].op != "Const") return false;
    Result<Tensor> c = ConstOf(nodes[it->second]);
    if (!c.ok() || (c->dtype != DType::kInt32 && c->dtype != DType::kInt64)) return false;
    v->clear();
    for (int64_t i = 0; i < c->numel(); ++i) v->push_back(ReadInt(*c, i));
    return true;
  };
  for (const NodeView& s : nodes) {
    if (s.op != "SpaceToBatchND" || s.ins.size() != 3) continue;
    const auto& r1 = readers[s.name];
    if (r1.size() != 1) continue;
    const NodeView& conv = nodes[r1[0]];
    if ((conv.op != "Conv2D" && conv.op != "DepthwiseConv2dNative") || conv.ins.empty() || conv.ins[0] != s.name) continue;
    const auto& r2 = readers[conv.name];
    if (r2.size() != 1 || nodes[r2[0]].op != "BatchToSpaceND" || nodes[r2[0]].ins.size() != 3) continue;
    const NodeView& bts = nodes[r2[0]];
    std::vector<int64_t> block, pads, block2, crops;
    b_->SetWhere("node '" + s.name + "' (SpaceToBatchND)");
    if (!ints_of(s.ins[1], &block) || !ints_of(s.ins[2], &pads) || !ints_of(bts.ins[1], &block2) || !ints_of(bts.ins[2], &crops))
      return Error("a dilated convolution's block shape, paddings and crops must be constants");
    if (block.size() != 2 || pads.size() != 4 || crops.size() != 4 || block != block2)
      return Error("a dilated convolution needs a 2-D block shape, [2, 2] paddings and crops, the same block on both ends");
    Dilation d{s.ins[0], block, {pads[0] - crops[0], pads[1] - crops[1], pads[2] - crops[2], pads[3] - crops[3]}};
    for (int64_t p : d.pads)
      if (p < 0) return Error("crops larger than the paddings are not supported");
    dilations_[conv.name] = d;
    s2b_of_[s.name] = conv.name;
    s2b_of_[bts.name] = conv.name;
  }
  return Status::Ok();
}

const std::map<std::string, GraphConverter::Translator>& GraphConverter::Table() {
  static const std::map<std::string, Translator> table = [] {
    std::map<std::string, Translator> t;
    const std::vector<std::pair<Translator, std::vector<std::string>>> rows = {
      {&GraphConverter::Const, {"Const"}},
      {&GraphConverter::NoOp, {"NoOp"}},
      {&GraphConverter::Identity, {"Identity", "StopGradient", "Snapshot", "PlaceholderWithDefault"}},
      {&GraphConverter::IdentityN, {"IdentityN"}},
      {&GraphConverter::FusedConv2D, {"_FusedConv2D"}},
      {&GraphConverter::FusedDepthwiseConv2dNative, {"FusedDepthwiseConv2dNative"}},
      {&GraphConverter::FusedMatMul, {"_FusedMatMul"}},
      {&GraphConverter::Conv2D, {"Conv2D", "DepthwiseConv2dNative"}},
      {&GraphConverter::MatMul, {"MatMul", "BatchMatMul", "BatchMatMulV2"}},
      {&GraphConverter::FusedBatchNorm, {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}},
      {&GraphConverter::MaxPool, {"MaxPool", "AvgPool"}},
      {&GraphConverter::ActivationOp, {"Relu", "Relu6", "Elu", "Selu", "Sigmoid", "Tanh", "Softplus", "Softsign"}},
      {&GraphConverter::LeakyRelu, {"LeakyRelu"}},
      {&GraphConverter::Prelu, {"Prelu"}},
      {&GraphConverter::Binary, {"Add", "AddV2", "BiasAdd", "Sub", "Mul", "RealDiv", "Div", "Maximum", "Minimum", "Pow", "Equal", "Greater", "GreaterEqual", "Less", "LessEqual", "LogicalAnd", "LogicalOr"}},
      {&GraphConverter::NotEqual, {"NotEqual"}},
      {&GraphConverter::SquaredDifference, {"SquaredDifference"}},
      {&GraphConverter::FloorDiv, {"FloorDiv"}},
      {&GraphConverter::FloorMod, {"FloorMod"}},
      {&GraphConverter::AddN, {"AddN"}},
      {&GraphConverter::Unary, {"Abs", "Neg", "Exp", "Log", "Sqrt", "Reciprocal", "Floor", "Ceil", "Sin", "Cos", "Round", "Sign", "LogicalNot"}},
      {&GraphConverter::Rsqrt, {"Rsqrt"}},
      {&GraphConverter::Square, {"Square"}},
      {&GraphConverter::Select, {"Select", "SelectV2"}},
      {&GraphConverter::Reduction, {"Mean", "Sum", "Max", "Min", "Prod"}},
      {&GraphConverter::ArgMax, {"ArgMax", "ArgMin"}},
      {&GraphConverter::Softmax, {"Softmax", "LogSoftmax"}},
      {&GraphConverter::ConcatV2, {"ConcatV2", "Concat"}},
      {&GraphConverter::Pack, {"Pack"}},
      {&GraphConverter::Unpack, {"Unpack", "Split", "SplitV"}},
      {&GraphConverter::Reshape, {"Reshape"}},
      {&GraphConverter::Squeeze, {"Squeeze"}},
      {&GraphConverter::ExpandDims, {"ExpandDims"}},
      {&GraphConverter::Transpose, {"Transpose"}},
      {&GraphConverter::Tile, {"Tile"}},
      {&GraphConverter::PadOp, {"Pad", "PadV2", "MirrorPad"}},
      {&GraphConverter::Slice, {"Slice"}},
      {&GraphConverter::StridedSlice, {"StridedSlice"}},
      {&GraphConverter::GatherV2, {"GatherV2", "Gather"}},
      {&GraphConverter::Cast, {"Cast"}},
      {&GraphConverter::ShapeOp, {"Shape", "Size", "Rank"}},
      {&GraphConverter::Fill, {"Fill"}},
      {&GraphConverter::ZerosLike, {"ZerosLike", "OnesLike"}},
      {&GraphConverter::Range, {"Range"}},
      {&GraphConverter::ResizeBilinear, {"ResizeBilinear", "ResizeNearestNeighbor"}},
      {&GraphConverter::TopKV2, {"TopKV2"}},
      {&GraphConverter::GatherNd, {"GatherNd"}},
      {&GraphConverter::NonMaxSuppression, {"NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5"}},
      {&GraphConverter::Atan2, {"Atan2"}},
      {&GraphConverter::Conv2DBackpropInput, {"Conv2DBackpropInput"}},
      {&GraphConverter::SparseToDense, {"SparseToDense"}},
      {&GraphConverter::WhereIndices, {"Where"}},
      {&GraphConverter::BroadcastTo, {"BroadcastTo"}},
      {&GraphConverter::DepthToSpace, {"DepthToSpace", "SpaceToDepth"}},
      {&GraphConverter::SpaceToBatchND, {"SpaceToBatchND", "BatchToSpaceND"}},
      {&GraphConverter::TensorListReserve, {"TensorListReserve", "EmptyTensorList"}},
      {&GraphConverter::TensorListFromTensor, {"TensorListFromTensor"}},
      {&GraphConverter::TensorListGetItem, {"TensorListGetItem"}},
      {&GraphConverter::TensorListSetItem, {"TensorListSetItem"}},
      {&GraphConverter::TensorListStack, {"TensorListStack", "TensorListConcat", "TensorListConcatV2"}},
      {&GraphConverter::TensorListLength, {"TensorListLength"}},
      {&GraphConverter::TensorListPushBack, {"TensorListPushBack"}},
      {&GraphConverter::TensorListPopBack, {"TensorListPopBack"}},
      {&GraphConverter::TensorListSplit, {"TensorListSplit"}},
      {&GraphConverter::TensorArrayV3, {"TensorArrayV3"}},
      {&GraphConverter::TensorArrayReadV3, {"TensorArrayReadV3"}},
      {&GraphConverter::TensorArrayWriteV3, {"TensorArrayWriteV3"}},
      {&GraphConverter::TensorArraySizeV3, {"TensorArraySizeV3"}},
      {&GraphConverter::TensorArrayGatherV3, {"TensorArrayGatherV3"}},
      {&GraphConverter::TensorArrayScatterV3, {"TensorArrayScatterV3"}},
      {&GraphConverter::NoOp, {"TensorArrayCloseV3"}},
    };
    for (const auto& [f, ops] : rows)
      for (const std::string& o : ops) t[o] = f;
    return t;
  }();
  return table;
}

Status GraphConverter::Convert(const NodeView& n) {
  auto it = Table().find(n.op);
  if (it == Table().end()) return Error("is not supported");
  Status st;
  try {
    st = (this->*it->second)(n);
  } catch (const std::exception& e) {  // an attribute of the wrong JSON type
    return Error(std::string("malformed attribute: ") + e.what());
  }
  if (!st.ok() && st.message().rfind(b_->file(), 0) != 0) return Error(st.message());
  return st;
}

Status GraphConverter::ReadNodes() {
  const json& topo = j_["modelTopology"];
  if (!topo.contains("node") || !topo["node"].is_array()) return Status::Error(b_->file() + ": modelTopology has no node list");
  for (const json& nj : topo["node"]) {
    if (!nj.is_object() || !nj.contains("name") || !nj["name"].is_string() || !nj.contains("op") || !nj["op"].is_string())
      return Status::Error(b_->file() + ": a node without a name or op");
    NodeView v{&nj, nj["name"].get<std::string>(), nj["op"].get<std::string>(), {}};
    if (nj.contains("input")) {
      if (!nj["input"].is_array()) return Status::Error(b_->file() + ": node '" + v.name + "': 'input' is not a list");
      for (const json& in : nj["input"]) {
        if (!in.is_string()) return Status::Error(b_->file() + ": node '" + v.name + "': an input is not a string");
        const std::string r = TensorRef(in.get<std::string>());
        if (!r.empty()) v.ins.push_back(r);
      }
    }
    if (by_name_.count(v.name)) return Status::Error(b_->file() + ": two nodes are named '" + v.name + "'");
    by_name_[v.name] = nodes_.size();
    nodes_.push_back(std::move(v));
  }
  if (topo.contains("library") && topo["library"].is_object() && topo["library"].contains("function") &&
      topo["library"]["function"].is_array() && !topo["library"]["function"].empty())
    return Status::Error(StatusCode::kUnsupported, b_->file() + ": graph functions (TF2 control flow: If, While, StatefulPartitionedCall bodies) are not supported");
  // Every unsupported op, in one message.
  std::string unsupported;
  int n_unsupported = 0;
  for (const NodeView& n : nodes_)
    if (!Table().count(n.op) && n.op != "Placeholder" && !IsControlFlowOp(n.op)) {
      ++n_unsupported;
      auto clip = [](const std::string& t) { return t.size() <= 120 ? t : t.substr(0, 117) + "..."; };
      if (n_unsupported <= 50) unsupported += (unsupported.empty() ? "" : "; ") + std::string("node '") + clip(n.name) + "' (" + clip(n.op) + ")";
    }
  if (n_unsupported)
    return Status::Error(StatusCode::kUnsupported, b_->file() + ": " + std::to_string(n_unsupported) + " unsupported op(s): " + unsupported +
                                                       (n_unsupported > 50 ? "; ..." : ""));
  for (const NodeView& n : nodes_)
    for (const std::string& in : n.ins)
      if (!by_name_.count(NodeOf(in))) return Status::Error(b_->file() + ": node '" + n.name + "' reads '" + in + "', which no node writes");
  return Status::Ok();
}

Status GraphConverter::FindOutputs(const json* sig, std::vector<std::string>* outputs, std::vector<std::string>* export_names) const {
  if (sig && sig->contains("outputs") && (*sig)["outputs"].is_object())
    for (const auto& [k, v] : (*sig)["outputs"].items()) {
      const std::string nm = v.is_object() && v.contains("name") && v["name"].is_string() ? v["name"].get<std::string>() : k;
      outputs->push_back(TensorRef(nm));
      export_names->push_back(TensorRef(k));
    }
  if (outputs->empty()) {
    std::set<std::string> read;
    for (const NodeView& n : nodes_)
      for (const std::string& in : n.ins) read.insert(NodeOf(in));
    for (const NodeView& n : nodes_)
      if (!read.count(n.name) && n.op != "Const" && n.op != "NoOp" && n.op != "Placeholder") outputs->push_back(n.name);
    *export_names = *outputs;
  }
  if (outputs->empty()) return Status::Error(b_->file() + ": the graph has no outputs");
  for (const std::string& o : *outputs) {
    auto it = by_name_.find(NodeOf(o));
    if (it == by_name_.end()) return Status::Error(b_->file() + ": output '" + o + "' names no node");
    const size_t i = it->second;
    if (cond_of_[i] >= 0 && nodes_[i].op != "Merge")
      return Status::Error(b_->file() + ": output '" + o + "' is inside a tf.cond branch (a value leaves it only through a Merge)");
    if (frame_of_[i] >= 0 && nodes_[i].op != "Exit")
      return Status::Error(b_->file() + ": output '" + o + "' is inside while loop '" + frames_[static_cast<size_t>(frame_of_[i])].name +
                           "' (a value leaves a loop only through an Exit)");
  }
  return Status::Ok();
}

Status GraphConverter::OrderUnits(std::vector<size_t>* order) const {
  // Topological order over data inputs (GraphDef does not promise one); a cycle is an error. A
  // while loop's frame (its nodes: a cycle through NextIteration) is one unit, converted as one
  // Loop, and a tf.cond one unit, converted as one If.
  const size_t n = nodes_.size();
  const size_t n_units = n + frames_.size() + conds_.size();
  auto unit = [&](size_t i) {
    return frame_of_[i] >= 0 ? n + static_cast<size_t>(frame_of_[i]) : cond_of_[i] >= 0 ? n + frames_.size() + static_cast<size_t>(cond_of_[i]) : i;
  };
  auto grouped = [&](size_t i) { return frame_of_[i] >= 0 || cond_of_[i] >= 0; };
  std::vector<int> pending(n_units, 0);
  std::vector<std::vector<size_t>> readers(n_units);
  for (size_t i = 0; i < n; ++i)
    for (const std::string& in : nodes_[i].ins) {
      const size_t src = unit(Src(in)), dst = unit(i);
      if (src == dst) continue;
      ++pending[dst];
      readers[src].push_back(dst);
    }
  std::deque<size_t> ready;
  for (size_t u = 0; u < n_units; ++u)
    if (!pending[u] && (u >= n || !grouped(u))) ready.push_back(u);
  while (!ready.empty()) {
    const size_t u = ready.front();
    ready.pop_front();
    order->push_back(u);
    for (size_t r : readers[u])
      if (--pending[r] == 0) ready.push_back(r);
  }
  size_t n_grouped = 0;
  for (size_t i = 0; i < n; ++i) n_grouped += grouped(i);
  if (order->size() != n_units - n_grouped)
    for (size_t i = 0; i < n; ++i)
      if (pending[unit(i)]) return Status::Error(b_->file() + ": the graph has a cycle through node '" + nodes_[i].name + "' (" + nodes_[i].op + ")");
  return Status::Ok();
}

Status GraphConverter::AddPlaceholder(const NodeView& n, const json* sig) {
  b_->SetWhere("node '" + n.name + "' (Placeholder)");
  TARE_ASSIGN_OR_RETURN(DType dt, TfType(n.Type("dtype").empty() ? "DT_FLOAT" : n.Type("dtype")));
  Shape shape;
  bool known = false;
  const json* a = n.A("shape");
  if (a && a->contains("shape") && (*a)["shape"].is_object() && !(*a)["shape"].value("unknownRank", false)) {
    known = true;
    if ((*a)["shape"].contains("dim") && (*a)["shape"]["dim"].is_array())
      for (const json& d : (*a)["shape"]["dim"]) {
        TARE_ASSIGN_OR_RETURN(int64_t s, JInt(d.value("size", json("-1"))));
        shape.push_back(s < 0 ? -1 : s);
      }
  }
  // A more concrete signature shape wins (TF.js does the same for its inputs).
  if (sig && sig->contains("inputs") && (*sig)["inputs"].is_object())
    for (const auto& [k, v] : (*sig)["inputs"].items()) {
      const std::string nm = v.is_object() && v.contains("name") && v["name"].is_string() ? v["name"].get<std::string>() : k;
      if (TensorRef(nm) != n.name || !v.contains("tensorShape") || !v["tensorShape"].contains("dim") || !v["tensorShape"]["dim"].is_array())
        continue;
      Shape s2;
      for (const json& d : v["tensorShape"]["dim"]) {
        TARE_ASSIGN_OR_RETURN(int64_t s, JInt(d.value("size", json("-1"))));
        s2.push_back(s < 0 ? -1 : s);
      }
      if (!known || s2.size() == shape.size()) {
        if (!known) shape = s2;
        for (size_t d = 0; d < shape.size(); ++d)
          if (shape[d] < 0) shape[d] = s2[d];
        known = true;
      }
    }
  if (!known) return Error("an input of unknown rank is not supported");
  b_->AddInput(n.name, dt, shape);
  return Status::Ok();
}

Status GraphConverter::Run() {
  TARE_RETURN_IF_ERROR(ReadNodes());
  // Signature (inputs' shapes, outputs).
  const json* sig = nullptr;
  if (j_.contains("signature") && j_["signature"].is_object()) sig = &j_["signature"];
  else if (j_.contains("userDefinedMetadata") && j_["userDefinedMetadata"].is_object() && j_["userDefinedMetadata"].contains("signature") &&
           j_["userDefinedMetadata"]["signature"].is_object())
    sig = &j_["userDefinedMetadata"]["signature"];
  TARE_RETURN_IF_ERROR(FindFrames());
  // Outputs: (tensor, the name TF.js gives it: the signature's key, as GraphModel.outputNodes).
  std::vector<std::string> outputs, export_names;
  TARE_RETURN_IF_ERROR(FindOutputs(sig, &outputs, &export_names));
  for (const std::string& o : outputs) b_->MarkOutput(o);
  std::vector<size_t> order;
  TARE_RETURN_IF_ERROR(OrderUnits(&order));
  TARE_RETURN_IF_ERROR(FindDilations(nodes_, by_name_));
  const size_t n = nodes_.size();
  for (size_t i : order)
    if (i < n && nodes_[i].op == "Placeholder") TARE_RETURN_IF_ERROR(AddPlaceholder(nodes_[i], sig));
  for (size_t i : order) {
    if (i >= n + frames_.size()) TARE_RETURN_IF_ERROR(ConvertCond(conds_[i - n - frames_.size()]));
    else if (i >= n) TARE_RETURN_IF_ERROR(ConvertLoop(frames_[i - n]));
    else if (nodes_[i].op != "Placeholder") TARE_RETURN_IF_ERROR(ConvertAll({i}));
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    const std::string& o = outputs[k];
    const std::string& en = export_names[k];
    b_->SetWhere("output '" + en + "'");
    if (!b_->Known(o)) return Error("no node writes '" + o + "'");
    TARE_ASSIGN_OR_RETURN(int v, b_->Plain(o));
    Graph& g = *b_->graph();
    // An output has the name TF.js gives it (an alias, e.g. Identity, gets a node of its own).
    if (g.values[static_cast<size_t>(v)].name != en || g.values[static_cast<size_t>(v)].is_constant ||
        std::find(g.inputs.begin(), g.inputs.end(), v) != g.inputs.end() || std::find(g.outputs.begin(), g.outputs.end(), v) != g.outputs.end())
      v = b_->Node1("Identity", en, {v}, en, b_->S(o).dtype);
    g.outputs.push_back(v);
  }
  return Status::Ok();
}

Status ConvertGraphModel(const json& j, std::map<std::string, Tensor>& weights, Builder& b) {
  GraphConverter c(j, weights, b);
  return c.Run();
}

}  // namespace tfjs
}  // namespace tare
