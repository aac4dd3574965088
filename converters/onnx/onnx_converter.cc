#include "converters/onnx/onnx_converter.h"
#include "runtime/ir/float8.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "converters/converter_util.h"
#include "format/file_io.h"
#include "onnx.pb.h"
#include "onnx_values.pb.h"
#include "runtime/ops/op.h"

namespace tare {
namespace {

constexpr int64_t kMinOpset = 1, kMaxOpset = 23;

/// ONNX TensorProto -> Tensor (copies the data). Handles raw_data and the typed *_data fields.
Result<Tensor> FromProto(const onnx::TensorProto& p) {
  const std::string what = "tensor '" + p.name() + "'";
  if (p.data_location() == onnx::TensorProto::EXTERNAL)
    return Status::Error(what + " uses external data, which is not supported");
  if (p.has_segment()) return Status::Error(what + " is segmented, which is not supported");
  if (!DTypeIsValid(p.data_type()))
    return Status::Error(what + " has unsupported data type " + std::to_string(p.data_type()));
  DType dt = static_cast<DType>(p.data_type());
  Shape shape(p.dims().begin(), p.dims().end());
  // The element count the dims claim must match the data the proto carries before anything is
  // allocated (a few bytes must not be able to ask for gigabytes).
  Result<int64_t> claimed = NumElements(shape);
  if (!claimed.ok()) return Status::Error(what + ": " + claimed.status().message());
  const bool packed4 = dt == DType::kInt4 || dt == DType::kUInt4;  // two per byte, first in the low nibble
  {
    const size_t es0 = DTypeSize(dt);
    int64_t carried = 0;
    if (packed4) {
      const int64_t bytes = p.has_raw_data() ? static_cast<int64_t>(p.raw_data().size()) : p.int32_data_size();
      if (bytes != (*claimed + 1) / 2)
        return Status::Error(what + " has " + std::to_string(bytes) + " bytes of packed " + DTypeName(dt) +
                             " data, but its shape " + ShapeStr(shape) + " needs " + std::to_string((*claimed + 1) / 2));
      carried = *claimed;
    } else if (dt == DType::kString) {
      carried = p.string_data_size();
    } else if (p.has_raw_data()) {
      carried = es0 ? static_cast<int64_t>(p.raw_data().size() / es0) : 0;
      if (es0 && p.raw_data().size() % es0)
        return Status::Error(what + " has " + std::to_string(p.raw_data().size()) + " bytes of raw data, not a whole number of " +
                             DTypeName(dt) + " elements (" + std::to_string(es0) + " bytes each)");
    } else {
      switch (dt) {
        case DType::kFloat32: carried = p.float_data_size(); break;
        case DType::kFloat64: carried = p.double_data_size(); break;
        case DType::kInt64: carried = p.int64_data_size(); break;
        case DType::kUInt32: case DType::kUInt64: carried = p.uint64_data_size(); break;
        default: carried = p.int32_data_size(); break;
      }
    }
    if (carried != *claimed)
      return Status::Error(what + " has data for " + std::to_string(carried) + " elements, but its shape " + ShapeStr(shape) +
                           " of " + DTypeName(dt) + " needs " + std::to_string(*claimed));
  }
  Result<Tensor> alloc = Tensor::Alloc(dt, shape);
  if (!alloc.ok()) return Status::Error(what + ": " + alloc.status().message());
  Tensor t = std::move(alloc).value();
  const int64_t n = t.numel();
  const size_t es = DTypeSize(dt);
  if (dt == DType::kString) {
    if (p.string_data_size() != n)
      return Status::Error(what + " has " + std::to_string(p.string_data_size()) + " strings, expected " +
                           std::to_string(n) + " for shape " + ShapeStr(shape));
    for (int64_t i = 0; i < n; ++i) t.as<std::string>()[i] = p.string_data(static_cast<int>(i));
    return t;
  }
  if (packed4) {  // unpacked into one element per byte (runtime/ir/float8.h)
    for (int64_t i = 0; i < n; ++i) {
      const int64_t byte = p.has_raw_data() ? static_cast<uint8_t>(p.raw_data()[static_cast<size_t>(i / 2)])
                                            : p.int32_data(static_cast<int>(i / 2));
      WriteInt(t, i, (i % 2 ? byte >> 4 : byte) & 0xf);
    }
    return t;
  }
  if (p.has_raw_data()) {
    if (p.raw_data().size() != static_cast<size_t>(n) * es)
      return Status::Error(what + " has " + std::to_string(p.raw_data().size()) + " bytes of data, expected " +
                           std::to_string(n * static_cast<int64_t>(es)) + " for shape " + ShapeStr(shape) + " of " +
                           DTypeName(dt));
    if (n) std::memcpy(t.data, p.raw_data().data(), p.raw_data().size());
    return t;
  }
  auto check = [&](int64_t got) -> Status {
    if (got != n)
      return Status::Error(what + " has " + std::to_string(got) + " values, expected " + std::to_string(n) +
                           " for shape " + ShapeStr(shape));
    return Status::Ok();
  };
  switch (dt) {
    case DType::kFloat32:
      TARE_RETURN_IF_ERROR(check(p.float_data_size()));
      for (int64_t i = 0; i < n; ++i) t.as<float>()[i] = p.float_data(static_cast<int>(i));
      break;
    case DType::kFloat64:
      TARE_RETURN_IF_ERROR(check(p.double_data_size()));
      for (int64_t i = 0; i < n; ++i) t.as<double>()[i] = p.double_data(static_cast<int>(i));
      break;
    case DType::kInt64:
      TARE_RETURN_IF_ERROR(check(p.int64_data_size()));
      for (int64_t i = 0; i < n; ++i) t.as<int64_t>()[i] = p.int64_data(static_cast<int>(i));
      break;
    case DType::kUInt32: case DType::kUInt64:
      TARE_RETURN_IF_ERROR(check(p.uint64_data_size()));
      for (int64_t i = 0; i < n; ++i) WriteInt(t, i, static_cast<int64_t>(p.uint64_data(static_cast<int>(i))));
      break;
    case DType::kFloat16: case DType::kBFloat16:  // stored as the uint16 bit patterns in int32_data
      TARE_RETURN_IF_ERROR(check(p.int32_data_size()));
      for (int64_t i = 0; i < n; ++i) t.as<uint16_t>()[i] = static_cast<uint16_t>(p.int32_data(static_cast<int>(i)));
      break;
    default:  // int32, int16, int8, uint16, uint8, bool: int32_data; float8: the 8-bit codes
      TARE_RETURN_IF_ERROR(check(p.int32_data_size()));
      if (DTypeIsFloat8(dt)) {
        for (int64_t i = 0; i < n; ++i) t.as<uint8_t>()[i] = static_cast<uint8_t>(p.int32_data(static_cast<int>(i)));
        break;
      }
      for (int64_t i = 0; i < n; ++i) WriteInt(t, i, p.int32_data(static_cast<int>(i)));
      break;
  }
  return t;
}

/// Deepest nesting of subgraphs (If inside Loop inside ...) the converter accepts; the .tare
/// loader enforces the same bound.
constexpr int kMaxSubgraphDepth = 16;

class Converter {
 public:
  Converter(int64_t opset, std::map<std::string, int64_t> opsets, std::string file, Converter* parent = nullptr)
      : opset_(opset), opsets_(std::move(opsets)), file_(std::move(file)), parent_(parent),
        depth_(parent ? parent->depth_ + 1 : 0) {}

  /// Converts `gp` into `g`. For a subgraph (parent != null) the names it reads from enclosing
  /// graphs become extra trailing graph inputs (captured_), and unsupported nodes are collected
  /// in `unsupported` for the top-level message instead of failing here.
  Status ConvertGraph(const onnx::GraphProto& gp, Graph* g, std::vector<std::string>* unsupported_out = nullptr) {
    g_ = g;
    if (depth_ > kMaxSubgraphDepth)
      return Status::Error(file_ + ": subgraphs nested deeper than " + std::to_string(kMaxSubgraphDepth));
    for (const onnx::TensorProto& init : gp.initializer()) {
      Result<Tensor> t = FromProto(init);
      if (!t.ok()) return t.status();
      if (ids_.count(init.name())) return Status::Error("initializer '" + init.name() + "' is defined twice");
      AddConstant(init.name(), std::move(t).value());
    }
    for (const onnx::ValueInfoProto& in : gp.input()) {
      if (ids_.count(in.name())) continue;  // IR < 4: initializers are listed as inputs too
      Value v;
      v.name = in.name();
      TARE_RETURN_IF_ERROR(ReadType(in, &v));
      int id = g->AddValue(std::move(v));
      ids_[in.name()] = id;
      g->inputs.push_back(id);
    }
    for (const onnx::ValueInfoProto& vi : gp.value_info()) declared_[vi.name()] = &vi;
    for (const onnx::ValueInfoProto& vi : gp.output()) declared_[vi.name()] = &vi;
    std::vector<std::string> unsupported;
    int index = 0;
    for (const onnx::NodeProto& np : gp.node()) {
      Status s = ConvertNode(np, index++, &unsupported);
      if (!s.ok()) return s;
    }
    if (unsupported_out) {
      unsupported_out->insert(unsupported_out->end(), unsupported.begin(), unsupported.end());
    } else if (!unsupported.empty()) {
      std::string msg = file_ + ": " + std::to_string(unsupported.size()) + " unsupported node(s): ";
      for (size_t i = 0; i < unsupported.size(); ++i) msg += (i ? "; " : "") + unsupported[i];
      return Status::Error(StatusCode::kUnsupported, msg);
    }
    if (gp.output_size() == 0) return Status::Error(file_ + ": the graph has no outputs");
    for (const onnx::ValueInfoProto& out : gp.output()) {
      TARE_ASSIGN_OR_RETURN(int id, Lookup(out.name()));
      if (id < 0) return Status::Error("graph output '" + out.name() + "' is not produced by any node");
      g->outputs.push_back(id);
    }
    if (unsupported_out && !unsupported_out->empty()) return Status::Ok();  // reported by the top level
    return g->Validate();
  }

  /// Names read from enclosing graphs, in first-use order, with their input value ids here.
  const std::vector<std::pair<std::string, int>>& captured() const { return captured_; }

  /// The value called `name`: in this graph, or (for a subgraph) captured from an enclosing graph
  /// as a new trailing graph input. -1 when no scope has it.
  Result<int> Lookup(const std::string& name) {
    auto it = ids_.find(name);
    if (it != ids_.end()) return it->second;
    if (!parent_) return -1;
    TARE_ASSIGN_OR_RETURN(int outer, parent_->Lookup(name));
    if (outer < 0) return -1;
    const Value& ov = parent_->g_->values[outer];
    Value v;
    v.name = name;
    v.dtype = ov.dtype;
    v.kind = ov.kind;
    v.optional_of_sequence = ov.optional_of_sequence;
    v.shape = ov.shape;
    v.has_shape = ov.has_shape;
    int id = g_->AddValue(std::move(v));
    ids_[name] = id;
    g_->inputs.push_back(id);
    captured_.emplace_back(name, id);
    return id;
  }

 private:
  Status ReadType(const onnx::ValueInfoProto& vi, Value* v) {
    if (!vi.has_type()) return Status::Ok();
    const onnx::TypeProto* type = &vi.type();
    if (type->has_optional_type()) {
      v->kind = ValueKind::kOptional;
      type = &type->optional_type().elem_type();
      if (type->has_sequence_type()) {
        v->optional_of_sequence = true;
        type = &type->sequence_type().elem_type();
      }
    } else if (type->has_sequence_type()) {
      v->kind = ValueKind::kSequence;
      type = &type->sequence_type().elem_type();
    }
    if (type->has_map_type() || type->has_sequence_type() || type->has_optional_type() || type->has_sparse_tensor_type())
      return Status::Error("value '" + vi.name() + "' has a type tare does not support (maps, sparse tensors, nested sequences)");
    if (!type->has_tensor_type()) return Status::Ok();
    const auto& tt = type->tensor_type();
    if (tt.elem_type() != 0 && !DTypeIsValid(tt.elem_type()))
      return Status::Error("value '" + vi.name() + "' has unsupported element type " + std::to_string(tt.elem_type()));
    v->dtype = static_cast<DType>(tt.elem_type());
    if (tt.has_shape() && v->kind == ValueKind::kTensor) {
      v->has_shape = true;
      for (const auto& d : tt.shape().dim()) v->shape.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : -1);
    }
    return Status::Ok();
  }

  int AddConstant(const std::string& name, Tensor t) {
    Value v;
    v.name = name;
    v.dtype = t.dtype;
    v.shape = t.shape;
    v.has_shape = true;
    v.is_constant = true;
    v.constant = std::move(t);
    int id = g_->AddValue(std::move(v));
    if (!name.empty()) ids_[name] = id;
    return id;
  }

  int AddAnonymousConstant(const std::string& node, const std::string& role, Tensor t) {
    std::string name = node + "/" + role;
    while (ids_.count(name)) name += "_";
    return AddConstant(name, std::move(t));
  }

  Result<Attr> ConvertAttr(const onnx::AttributeProto& a, const std::string& where) {
    Attr r;
    switch (a.type()) {
      case onnx::AttributeProto::INT: r.kind = Attr::Kind::kInt; r.i = a.i(); break;
      case onnx::AttributeProto::FLOAT: r.kind = Attr::Kind::kFloat; r.f = a.f(); break;
      case onnx::AttributeProto::STRING: r.kind = Attr::Kind::kString; r.s = a.s(); break;
      case onnx::AttributeProto::INTS: r.kind = Attr::Kind::kInts; r.ints.assign(a.ints().begin(), a.ints().end()); break;
      case onnx::AttributeProto::FLOATS: r.kind = Attr::Kind::kFloats; r.floats.assign(a.floats().begin(), a.floats().end()); break;
      case onnx::AttributeProto::STRINGS: r.kind = Attr::Kind::kStrings; r.strings.assign(a.strings().begin(), a.strings().end()); break;
      case onnx::AttributeProto::TENSOR: {
        r.kind = Attr::Kind::kTensor;
        Result<Tensor> t = FromProto(a.t());
        if (!t.ok()) return Status::Error(where + ": attribute '" + a.name() + "': " + t.status().message());
        r.tensor = std::move(t).value();
        break;
      }
      case onnx::AttributeProto::TYPE_PROTO: {
        const onnx::TypeProto* t = &a.tp();
        r.kind = Attr::Kind::kType;
        r.s = "tensor";
        if (t->has_sequence_type()) {
          r.s = "sequence";
          t = &t->sequence_type().elem_type();
        }
        if (!t->has_tensor_type())
          return Status::Error(where + ": attribute '" + a.name() + "': only tensor and sequence-of-tensor types are supported");
        r.i = t->tensor_type().elem_type();
        if (r.i != 0 && !DTypeIsValid(static_cast<int32_t>(r.i)))
          return Status::Error(where + ": attribute '" + a.name() + "' has unsupported element type " + std::to_string(r.i));
        break;
      }
      default:
        return Status::Error(where + ": attribute '" + a.name() + "' has a type tare does not support (" +
                             std::to_string(a.type()) + ")");
    }
    return r;
  }

  // Rewrites an older opset's form of `n` to the IR's form. Returns false if the op is unknown.
  Status Upgrade(Node& n) {
    const std::string& op = n.op;
    auto attr_to_input = [&](const char* attr, size_t slot) {
      auto it = n.attrs.find(attr);
      if (it == n.attrs.end()) return;
      int id = AddAnonymousConstant(n.name, attr, Int64Vector(it->second.ints));
      if (n.inputs.size() <= slot) n.inputs.resize(slot + 1, -1);
      n.inputs[slot] = id;
      n.attrs.erase(it);
    };
    if (op == "Pad" && opset_ < 2 && n.has("paddings")) {
      n.attrs["pads"] = n.attrs["paddings"];
      n.attrs.erase("paddings");
    }
    if ((op == "Squeeze" || op == "Unsqueeze") && opset_ < 13) attr_to_input("axes", 1);
    if (op == "Split" && opset_ < 13) attr_to_input("split", 1);
    if (op == "ReduceSum" && opset_ < 13) attr_to_input("axes", 1);
    if (op == "Slice" && opset_ < 10) {
      attr_to_input("starts", 1);
      attr_to_input("ends", 2);
      attr_to_input("axes", 3);
    }
    if (op == "Pad" && opset_ < 11) {
      TARE_ASSIGN_OR_RETURN(float value, n.GetFloat("value", 0.0f));
      attr_to_input("pads", 1);
      n.attrs.erase("value");
      n.inputs.resize(3, -1);
      n.inputs[2] = AddAnonymousConstant(n.name, "value", Float32Scalar(value));
    }
    if (op == "Clip" && opset_ < 11) {
      n.inputs.resize(3, -1);
      for (const char* a : {"min", "max"}) {
        if (!n.has(a)) continue;
        TARE_ASSIGN_OR_RETURN(float v, n.GetFloat(a, 0.0f));
        n.inputs[a[1] == 'i' ? 1 : 2] = AddAnonymousConstant(n.name, a, Float32Scalar(v));
        n.attrs.erase(a);
      }
    }
    // Attributes of opsets before 7 that later versions dropped (inference ignores them).
    n.attrs.erase("consumed_inputs");
    if (op == "BatchNormalization" || op == "Dropout") n.attrs.erase("is_test");
    if (op == "Gemm") n.attrs.erase("broadcast");  // Gemm-6: C is always broadcast since Gemm-7
    if (op == "Reshape" && opset_ < 5) attr_to_input("shape", 1);
    if (op == "PRelu" && opset_ < 7 && n.inputs.size() == 2) {
      // PRelu-6 applies a 1-D slope per channel (axis 1); PRelu-7+ broadcasts it from the right.
      // Reshape a constant slope [C] to [C, 1, ...] when X's rank is declared.
      const Value& x = g_->values[n.inputs[0]];
      const Value& slope = g_->values[n.inputs[1]];
      if (slope.is_constant && slope.shape.size() == 1 && slope.shape[0] > 1 && x.has_shape && x.shape.size() > 2) {
        Tensor t = slope.constant;
        t.shape.resize(x.shape.size() - 1, 1);
        n.inputs[1] = AddAnonymousConstant(n.name, "slope", std::move(t));
      }
    }
    n.attrs.erase(kCastRoundTo);  // tare's own (runtime/ir/graph.h), never a file's
    if (op == "Concat" && opset_ < 4 && !n.has("axis")) {
      n.attrs["axis"].kind = Attr::Kind::kInt;
      n.attrs["axis"].i = 1;  // Concat-1's default
    }
    if (op == "Cast" && opset_ < 6 && n.has("to") && n.attrs["to"].kind == Attr::Kind::kString) {
      static const std::map<std::string, int64_t> codes = {
          {"FLOAT", 1}, {"UINT8", 2}, {"INT8", 3}, {"UINT16", 4}, {"INT16", 5}, {"INT32", 6}, {"INT64", 7},
          {"BOOL", 9}, {"FLOAT16", 10}, {"DOUBLE", 11}, {"UINT32", 12}, {"UINT64", 13}};
      auto it = codes.find(n.attrs["to"].s);
      if (it == codes.end()) return Status::Error("Cast-1 'to' type '" + n.attrs["to"].s + "' is not supported");
      n.attrs["to"].kind = Attr::Kind::kInt;
      n.attrs["to"].i = it->second;
    }
    if ((op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") && opset_ < 13) {
      TARE_ASSIGN_OR_RETURN(int64_t axis, n.GetInt("axis", 1));
      n.attrs["axis"].kind = Attr::Kind::kInt;
      n.attrs["axis"].i = axis;
      n.attrs["legacy_2d"].kind = Attr::Kind::kInt;
      n.attrs["legacy_2d"].i = 1;
    }
    if (op == "Upsample" || (op == "Resize" && opset_ < 11)) {
      // Upsample-7/9 and Resize-10: asymmetric coordinates; nearest picks floor (PyTorch's
      // 'nearest'). Scales move to Resize-13's third input.
      if (op == "Upsample" && opset_ < 9) {
        TARE_ASSIGN_OR_RETURN(std::vector<float> scales, n.GetFloats("scales"));
        Tensor t = Tensor::Alloc(DType::kFloat32, {static_cast<int64_t>(scales.size())}).value();
        for (size_t i = 0; i < scales.size(); ++i) t.as<float>()[i] = scales[i];
        n.inputs.resize(2, -1);
        n.inputs[1] = AddAnonymousConstant(n.name, "scales", std::move(t));
        n.attrs.erase("scales");
      }
      int scales = n.inputs.size() > 1 ? n.inputs[1] : -1;
      n.inputs = {n.inputs[0], -1, scales};
      n.op = "Resize";
      n.attrs["coordinate_transformation_mode"].kind = Attr::Kind::kString;
      n.attrs["coordinate_transformation_mode"].s = "asymmetric";
      n.attrs["nearest_mode"].kind = Attr::Kind::kString;
      n.attrs["nearest_mode"].s = "floor";
    }
    if (op == "RoiAlign" && opset_ < 16 && !n.has("coordinate_transformation_mode")) {
      // RoiAlign-10 has no such attribute and behaves as RoiAlign-16's output_half_pixel.
      n.attrs["coordinate_transformation_mode"].kind = Attr::Kind::kString;
      n.attrs["coordinate_transformation_mode"].s = "output_half_pixel";
    }
    if (op == "Scan" && opset_ < 9) {
      // Scan-8: leading sequence_lens input, batch axis 0, attribute `directions` (see control_flow.cc).
      n.attrs["tare.scan8"].kind = Attr::Kind::kInt;
      n.attrs["tare.scan8"].i = 1;
    }
    if (op == "DFT" && opset_ >= 20) {
      // DFT-20: the axis is the optional input 2 (default -2), no longer an attribute (DFT-17,
      // default 1). tare's DFT reads the attribute, so a constant axis input becomes one.
      int64_t axis = -2;
      if (n.inputs.size() > 2 && n.inputs[2] >= 0) {
        const Value& a = g_->values[n.inputs[2]];
        if (!a.is_constant || a.constant.numel() != 1 || a.constant.dtype != DType::kInt64)
          return Status::Error("DFT-20 input 'axis' must be a constant int64 scalar (tare reads it when converting)");
        axis = ReadInt(a.constant, 0);
      }
      if (n.inputs.size() > 2) n.inputs.resize(2);
      n.attrs["axis"].kind = Attr::Kind::kInt;
      n.attrs["axis"].i = axis;
    }
    if (op == "LpPool" && opset_ < 2 && n.has("p") && n.attrs["p"].kind == Attr::Kind::kFloat) {
      // LpPool-1: p is a float (default 2.0); LpPool-2 on it is an int. tare runs integral p.
      const float p = n.attrs["p"].f;
      if (!(p >= 1.0f && p <= 1073741824.0f) || p != static_cast<float>(static_cast<int64_t>(p)))
        return Status::Error("LpPool-1 attribute 'p' = " + std::to_string(p) +
                             " is not an integer >= 1 (tare runs integral p only)");
      n.attrs["p"] = IntAttr(static_cast<int64_t>(p));
    }
    if (op == "BatchNormalization") n.attrs.erase("spatial");  // opset < 9: always spatial in practice
    if (op == "Dropout") {
      n.attrs.erase("ratio");  // Dropout-7/10: inference ignores the ratio
      n.attrs.erase("is_test");
    }
    return Status::Ok();
  }

  Status ConvertNode(const onnx::NodeProto& np, int index, std::vector<std::string>* unsupported) {
    Node n;
    n.op = np.op_type();
    n.domain = np.domain() == "ai.onnx" ? "" : np.domain();
    n.name = np.name().empty() ? n.op + "_" + std::to_string(index) : np.name();
    const std::string where = file_ + ": " + n.Where();
    std::vector<std::pair<std::shared_ptr<Graph>, std::vector<std::pair<std::string, int>>>> subgraphs;
    for (const onnx::AttributeProto& a : np.attribute()) {
      if (a.type() == onnx::AttributeProto::GRAPHS)
        return Status::Error(where + ": attribute '" + a.name() + "' is a list of graphs, which tare does not support");
      if (a.type() == onnx::AttributeProto::GRAPH) {
        // Control flow: the body becomes a closed graph whose trailing inputs are the outer values it reads.
        Converter child(opset_, opsets_, file_, this);
        auto sub = std::make_shared<Graph>();
        TARE_RETURN_IF_ERROR(child.ConvertGraph(a.g(), sub.get(), unsupported).With(where + ": attribute '" + a.name() + "'"));
        Attr attr;
        attr.kind = Attr::Kind::kGraph;
        attr.graph = sub;
        n.attrs[a.name()] = std::move(attr);
        subgraphs.emplace_back(sub, child.captured());
        continue;
      }
      TARE_ASSIGN_OR_RETURN(Attr attr, ConvertAttr(a, where));
      n.attrs[a.name()] = std::move(attr);
    }
    if (n.op == "Constant" && n.domain.empty()) return ConvertConstant(np, n, where);
    bool known = FindOp(n) != nullptr || (n.domain.empty() && n.op == "Upsample");
    if (!known) {
      unsupported->push_back("node '" + n.name + "' (" + n.op + ", domain '" + (n.domain.empty() ? "ai.onnx" : n.domain) +
                             "', opset " + std::to_string(n.domain.empty() ? opset_ : (opsets_.count(n.domain) ? opsets_.at(n.domain) : 0)) + ")");
    }
    for (const std::string& in : np.input()) {
      if (in.empty()) { n.inputs.push_back(-1); continue; }
      TARE_ASSIGN_OR_RETURN(int id, Lookup(in));
      if (id < 0) return Status::Error(where + ": input '" + in + "' is not produced before this node");
      n.inputs.push_back(id);
    }
    TARE_RETURN_IF_ERROR(AddCapturedInputs(n, subgraphs));
    if (known && n.op == "Gradient" && n.domain == "ai.onnx.preview.training") TARE_RETURN_IF_ERROR(BuildForward(n).With(where));
    for (const std::string& out : np.output()) {
      if (out.empty()) { n.outputs.push_back(-1); continue; }
      if (ids_.count(out)) return Status::Error(where + ": output '" + out + "' is produced twice");
      Value v;
      v.name = out;
      auto d = declared_.find(out);
      if (d != declared_.end()) TARE_RETURN_IF_ERROR(ReadType(*d->second, &v));
      int id = g_->AddValue(std::move(v));
      ids_[out] = id;
      n.outputs.push_back(id);
    }
    if (known) TARE_RETURN_IF_ERROR(Upgrade(n).With(where));
    g_->nodes.push_back(std::move(n));
    return Status::Ok();
  }

  // Outer values read by the node's subgraphs (their union, in first-use order) become trailing
  // node inputs, counted by the attribute "tare.captured"; every subgraph gets the same trailing
  // inputs (an unused input where a body does not read that value).
  Status AddCapturedInputs(Node& n, const std::vector<std::pair<std::shared_ptr<Graph>, std::vector<std::pair<std::string, int>>>>& subs) {
    std::vector<std::string> names;
    for (const auto& sg : subs)
      for (const auto& c : sg.second)
        if (std::find(names.begin(), names.end(), c.first) == names.end()) names.push_back(c.first);
    if (names.empty()) return Status::Ok();
    for (const std::string& name : names) {
      TARE_ASSIGN_OR_RETURN(int id, Lookup(name));
      if (id < 0) return Status::Error(n.Where() + ": captured value '" + name + "' is not defined (internal error)");
      n.inputs.push_back(id);
    }
    for (const auto& sg : subs) {
      Graph& g = *sg.first;
      size_t formal = g.inputs.size() - sg.second.size();
      g.inputs.resize(formal);
      for (const std::string& name : names) {
        int id = -1;
        for (const auto& c : sg.second)
          if (c.first == name) id = c.second;
        if (id < 0) {
          Value v = g_->values[n.inputs[n.inputs.size() - names.size() + (&name - names.data())]];
          v.is_constant = false;
          v.constant = Tensor();
          v.name = name;
          id = g.AddValue(std::move(v));
        }
        g.inputs.push_back(id);
      }
    }
    Attr cap;
    cap.kind = Attr::Kind::kInt;
    cap.i = static_cast<int64_t>(names.size());
    n.attrs["tare.captured"] = cap;
    return Status::Ok();
  }

  // Gradient: copies the nodes that compute y from the node's inputs (xs, zs) into the graph
  // attribute "tare.forward"; other non-constant values they read become trailing inputs of both
  // (counted by "tare.captured"). See runtime/ops/gradient.cc.
  Status BuildForward(Node& n) {
    TARE_ASSIGN_OR_RETURN(std::string y, n.GetString("y", ""));
    // The inputs must be the values named by xs then zs, in that order.
    std::vector<std::string> fed;
    for (const char* a : {"xs", "zs"}) {
      auto it = n.attrs.find(a);
      if (it == n.attrs.end()) continue;
      if (it->second.kind != Attr::Kind::kStrings) return Status::Error(std::string("attribute '") + a + "' must be a list of names");
      fed.insert(fed.end(), it->second.strings.begin(), it->second.strings.end());
    }
    if (fed.size() != n.inputs.size())
      return Status::Error("the inputs must be the " + std::to_string(fed.size()) + " tensors named by xs and zs, got " +
                           std::to_string(n.inputs.size()));
    for (size_t i = 0; i < fed.size(); ++i)
      if (n.inputs[i] < 0 || g_->values[n.inputs[i]].name != fed[i])
        return Status::Error("input " + std::to_string(i) + " must be '" + fed[i] + "' (xs then zs)");
    if (n.outputs.size() > n.attrs["xs"].strings.size())
      return Status::Error("Gradient has more outputs than xs names");
    auto yit = ids_.find(y);
    if (yit == ids_.end()) return Status::Error("attribute 'y' names '" + y + "', which is not computed before this node");
    auto fg = std::make_shared<Graph>();
    std::map<int, int> remap;  // value id here -> id in fg
    std::vector<int> extra;    // values here that become trailing inputs
    for (int v : n.inputs) {
      if (v < 0 || remap.count(v)) return Status::Error("inputs must be present and distinct");
      Value c = g_->values[v];
      c.is_constant = false;
      c.constant = Tensor();
      remap[v] = fg->AddValue(std::move(c));
      fg->inputs.push_back(remap[v]);
    }
    std::map<int, int> producer;
    for (size_t i = 0; i < g_->nodes.size(); ++i)
      for (int o : g_->nodes[i].outputs)
        if (o >= 0) producer[o] = static_cast<int>(i);
    std::vector<char> copied(g_->nodes.size(), 0);
    std::function<void(int)> need = [&](int v) {
      if (v < 0 || remap.count(v)) return;
      auto p = producer.find(v);
      if (g_->values[v].is_constant || p == producer.end()) {
        remap[v] = fg->AddValue(g_->values[v]);
        if (!g_->values[v].is_constant) extra.push_back(v);
        return;
      }
      const Node& src = g_->nodes[static_cast<size_t>(p->second)];
      for (int in : src.inputs) need(in);
      if (copied[static_cast<size_t>(p->second)]) return;
      copied[static_cast<size_t>(p->second)] = 1;
      Node c = src;
      for (int& in : c.inputs)
        if (in >= 0) in = remap.at(in);
      for (int& o : c.outputs) {
        if (o < 0) continue;
        if (!remap.count(o)) remap[o] = fg->AddValue(g_->values[o]);
        o = remap[o];
      }
      fg->nodes.push_back(std::move(c));
    };
    need(yit->second);
    for (int v : extra) {
      fg->inputs.push_back(remap[v]);
      n.inputs.push_back(v);
    }
    fg->outputs.push_back(remap[yit->second]);
    TARE_RETURN_IF_ERROR(fg->Validate());
    Attr fa;
    fa.kind = Attr::Kind::kGraph;
    fa.graph = fg;
    n.attrs["tare.forward"] = fa;
    Attr cap;
    cap.kind = Attr::Kind::kInt;
    cap.i = static_cast<int64_t>(extra.size());
    n.attrs["tare.captured"] = cap;
    return Status::Ok();
  }

  Status ConvertConstant(const onnx::NodeProto& np, const Node& n, const std::string& where) {
    if (np.output_size() != 1) return Status::Error(where + ": Constant must have one output");
    Tensor t;
    if (n.has("value")) {
      t = n.attrs.at("value").tensor;
    } else if (n.has("value_float")) {
      t = Float32Scalar(n.attrs.at("value_float").f);
    } else if (n.has("value_floats")) {
      const auto& f = n.attrs.at("value_floats").floats;
      t = Tensor::Alloc(DType::kFloat32, {static_cast<int64_t>(f.size())}).value();
      for (size_t i = 0; i < f.size(); ++i) t.as<float>()[i] = f[i];
    } else if (n.has("value_int")) {
      t = Tensor::Alloc(DType::kInt64, {}).value();
      *t.as<int64_t>() = n.attrs.at("value_int").i;
    } else if (n.has("value_ints")) {
      t = Int64Vector(n.attrs.at("value_ints").ints);
    } else if (n.has("value_string")) {
      t = Tensor::Alloc(DType::kString, {}).value();
      *t.as<std::string>() = n.attrs.at("value_string").s;
    } else if (n.has("value_strings")) {
      const auto& v = n.attrs.at("value_strings").strings;
      t = Tensor::Alloc(DType::kString, {static_cast<int64_t>(v.size())}).value();
      for (size_t i = 0; i < v.size(); ++i) t.as<std::string>()[i] = v[i];
    } else {
      return Status::Error(where + ": Constant has no supported value attribute (sparse values are not supported)");
    }
    if (ids_.count(np.output(0))) return Status::Error(where + ": output '" + np.output(0) + "' is produced twice");
    AddConstant(np.output(0), std::move(t));
    return Status::Ok();
  }

  int64_t opset_;
  std::map<std::string, int64_t> opsets_;  // domain -> version, from the model's opset_import
  std::string file_;
  Converter* parent_ = nullptr;  // the enclosing graph's converter, for subgraphs
  int depth_ = 0;
  std::vector<std::pair<std::string, int>> captured_;
  Graph* g_ = nullptr;
  std::map<std::string, int> ids_;
  std::map<std::string, const onnx::ValueInfoProto*> declared_;
};

}  // namespace

Result<std::shared_ptr<Model>> ConvertOnnxBytes(const uint8_t* data, size_t size, const std::string& name) {
  if (size == 0) return Status::Error("'" + name + "' is empty");
  onnx::ModelProto mp;
  if (size > static_cast<size_t>(INT32_MAX) || !mp.ParseFromArray(data, static_cast<int>(size)))
    return Status::Error("'" + name + "' is not a valid ONNX model (protobuf parse failed)");
  if (!mp.has_graph()) return Status::Error("'" + name + "' has no graph");
  auto model = std::make_shared<Model>();
  Provenance& p = model->provenance;
  p.source_format = "onnx";
  p.source_file = BaseName(name);
  p.source_sha256 = Sha256Hex(data, size);
  p.producer_name = mp.producer_name();
  p.producer_version = mp.producer_version();
  p.ir_version = mp.ir_version();
  p.tare_version = TARE_VERSION;
  int64_t opset = -1;
  std::map<std::string, int64_t> opsets;
  for (const auto& o : mp.opset_import()) {
    p.opset_imports.emplace_back(o.domain(), o.version());
    opsets[o.domain()] = o.version();
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  }
  if (opset < 0 && mp.ir_version() < 3) opset = 1;
  if (opset < 0 && !opsets.empty()) {
    // Only other domains are imported (e.g. ai.onnx.preview.training): fine while no node uses
    // the default domain.
    bool uses_default = false;
    for (const auto& n : mp.graph().node()) uses_default = uses_default || n.domain().empty() || n.domain() == "ai.onnx";
    if (!uses_default) opset = kMaxOpset;
  }
  if (opset < 0)
    return Status::Error("'" + name + "' has no opset_import for the default ONNX domain");
  if (opset < kMinOpset || opset > kMaxOpset)
    return Status::Error("'" + name + "' uses ONNX opset " + std::to_string(opset) + "; tare converts opsets " +
                         std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset));
  Converter c(opset, opsets, BaseName(name));
  Status s = c.ConvertGraph(mp.graph(), &model->graph);
  if (!s.ok()) return s.message().rfind(p.source_file, 0) == 0 ? s : s.With(p.source_file);
  return model;
}

Result<std::shared_ptr<Model>> ConvertOnnxFile(const std::string& path) {
  TARE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadRegularFile(path));
  return ConvertOnnxBytes(bytes.data(), bytes.size(), path);
}

Result<NamedTensor> ReadTensorProtoFile(const std::string& path) {
  return ReadValueProtoFile(path, ValueKind::kTensor);
}

namespace {

Result<Tensor> FromSequenceProto(const onnx::SequenceProto& sp, const std::string& path) {
  if (sp.elem_type() != onnx::SequenceProto::TENSOR)
    return Status::Error("'" + path + "': only sequences of tensors are supported");
  std::vector<Tensor> items;
  DType dt = DType::kUndefined;
  for (const onnx::TensorProto& tp : sp.tensor_values()) {
    Result<Tensor> t = FromProto(tp);
    if (!t.ok()) return Status::Error("'" + path + "': " + t.status().message());
    if (dt != DType::kUndefined && t->dtype != dt)
      return Status::Error("'" + path + "': sequence elements have different types");
    dt = t->dtype;
    items.push_back(std::move(t).value());
  }
  return Tensor::Sequence(dt, std::move(items));
}

}  // namespace

Result<NamedTensor> ReadValueProtoFile(const std::string& path, ValueKind kind) {
  TARE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadRegularFile(path));
  return ParseValueProto(bytes.data(), bytes.size(), path, kind);
}

Result<NamedTensor> ParseValueProto(const uint8_t* data, size_t n, const std::string& path, ValueKind kind) {
  if (n > static_cast<size_t>(INT32_MAX)) return Status::Error("'" + path + "' is too large");
  const int size = static_cast<int>(n);
  if (kind == ValueKind::kTensor) {
    onnx::TensorProto tp;
    if (!tp.ParseFromArray(data, size)) return Status::Error("'" + path + "' is not a valid ONNX TensorProto");
    Result<Tensor> t = FromProto(tp);
    if (!t.ok()) return Status::Error("'" + path + "': " + t.status().message());
    return NamedTensor{tp.name(), std::move(t).value()};
  }
  if (kind == ValueKind::kSequence) {
    onnx::SequenceProto sp;
    if (!sp.ParseFromArray(data, size)) return Status::Error("'" + path + "' is not a valid ONNX SequenceProto");
    TARE_ASSIGN_OR_RETURN(Tensor t, FromSequenceProto(sp, path));
    return NamedTensor{sp.name(), std::move(t)};
  }
  onnx::OptionalProto op;
  if (!op.ParseFromArray(data, size)) return Status::Error("'" + path + "' is not a valid ONNX OptionalProto");
  if (op.has_tensor_value()) {
    Result<Tensor> t = FromProto(op.tensor_value());
    if (!t.ok()) return Status::Error("'" + path + "': " + t.status().message());
    return NamedTensor{op.name(), Tensor::Optional(t->dtype, &*t)};
  }
  if (op.has_sequence_value()) {
    TARE_ASSIGN_OR_RETURN(Tensor seq, FromSequenceProto(op.sequence_value(), path));
    return NamedTensor{op.name(), Tensor::Optional(seq.dtype, &seq)};
  }
  if (op.elem_type() != onnx::OptionalProto::UNDEFINED && op.elem_type() != onnx::OptionalProto::TENSOR &&
      op.elem_type() != onnx::OptionalProto::SEQUENCE)
    return Status::Error("'" + path + "': only optionals of tensors and sequences are supported");
  return NamedTensor{op.name(), Tensor::Optional(DType::kUndefined, nullptr)};
}

}  // namespace tare
