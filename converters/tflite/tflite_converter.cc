#include "converters/tflite/tflite_converter.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <set>

#include "converters/converter_util.h"
#include "converters/tflite/converter.h"
#include "format/file_io.h"

// The converter's core (converter.h lists the files): tensors and buffers, sparse densification,
// the NHWC/NCHW value tracking, the dispatch of each operator through the table, Run.

namespace tare {
namespace tflite {
namespace {

/// tare's dtype for a TFLite TensorType. Errors: the types tare has no dtype for (STRING, COMPLEX64, ...).
Result<DType> MapType(tfl::TensorType t) {
  switch (t) {
    case tfl::TensorType::FLOAT32: return DType::kFloat32;
    case tfl::TensorType::FLOAT16: return DType::kFloat16;
    case tfl::TensorType::FLOAT64: return DType::kFloat64;
    case tfl::TensorType::INT32: return DType::kInt32;
    case tfl::TensorType::INT64: return DType::kInt64;
    case tfl::TensorType::INT16: return DType::kInt16;
    case tfl::TensorType::INT8: return DType::kInt8;
    case tfl::TensorType::UINT8: return DType::kUInt8;
    case tfl::TensorType::UINT16: return DType::kUInt16;
    case tfl::TensorType::UINT32: return DType::kUInt32;
    case tfl::TensorType::UINT64: return DType::kUInt64;
    case tfl::TensorType::BOOL: return DType::kBool;
    default: return Status::Error("tensor type " + std::to_string(static_cast<int>(t)) + " is not supported");
  }
}

/// An operator's input tensor indices (-1: an absent optional input), as stored.
std::vector<int> Ins(const tfl::Operator& op) {
  std::vector<int> v;
  if (op.inputs()) v.assign(op.inputs()->begin(), op.inputs()->end());
  return v;
}
/// An operator's output tensor indices, as stored.
std::vector<int> Outs(const tfl::Operator& op) {
  std::vector<int> v;
  if (op.outputs()) v.assign(op.outputs()->begin(), op.outputs()->end());
  return v;
}

}  // namespace


// ---- reading ------------------------------------------------------------------------------

Result<Tensor> Converter::BufferData(const tfl::Tensor& t, size_t index, DType dt, const Shape& shape) {
  const auto* buffers = model_->buffers();
  const std::string what = file_ + ": tensor " + std::to_string(index) + " ('" + (t.name() ? t.name()->str() : "") + "')";
  if (!buffers || t.buffer() >= buffers->size())
    return Status::Error(what + " refers to buffer " + std::to_string(t.buffer()) + ", out of range");
  const tfl::Buffer* b = buffers->Get(t.buffer());
  const uint8_t* bytes = nullptr;
  size_t len = 0;
  if (b->data() && b->data()->size()) {
    bytes = b->data()->data();
    len = b->data()->size();
  } else if (b->offset() > 1) {  // data after the flatbuffer (offset from the file start)
    if (b->offset() > size_ || b->size() > size_ - b->offset())
      return Status::Error(what + ": buffer " + std::to_string(t.buffer()) + " (offset " + std::to_string(b->offset()) +
                           ", size " + std::to_string(b->size()) + ") lies outside the file of " + std::to_string(size_) + " bytes");
    bytes = data_ + b->offset();
    len = b->size();
  }
  if (!bytes) return Tensor();  // no data: a run-time tensor
  const size_t es = DTypeSize(dt);
  Result<int64_t> numel = NumElements(shape);
  if (!numel.ok()) return Status::Error(what + ": " + numel.status().message());
  if (t.sparsity()) {
    // Sparse values: a flat vector of the stored elements, densified below. The dense tensor may
    // not be more than 64 times the stored values (plus 1 Mi elements): a few bytes of a file must
    // not be able to ask for gigabytes (TFLite's sparse weights are dense to a few times).
    if (es == 0 || len % es) return Status::Error(what + ": sparse buffer of " + std::to_string(len) + " bytes");
    const int64_t stored = static_cast<int64_t>(len / es);
    if (*numel > 64 * stored + (int64_t(1) << 20))
      return Status::Error(what + ": a sparse tensor of shape " + ShapeStr(shape) + " with only " + std::to_string(stored) +
                           " stored values (over tare's density limit of 1/64)");
    TARE_ASSIGN_OR_RETURN(Tensor v, Tensor::Alloc(dt, {stored}));
    std::memcpy(v.data, bytes, len);
    return Densify(t, index, v, dt, shape);
  }
  // The data must fill the shape exactly: checked before allocating anything.
  if (es == 0 || static_cast<uint64_t>(*numel) > UINT64_MAX / es || static_cast<uint64_t>(*numel) * es != len)
    return Status::Error(what + " has " + std::to_string(len) + " bytes of data, expected " +
                         std::to_string(static_cast<uint64_t>(*numel) * es) + " for shape " + ShapeStr(shape) + " of " + DTypeName(dt));
  Result<Tensor> alloc = Tensor::Alloc(dt, shape);
  if (!alloc.ok()) return Status::Error(what + ": " + alloc.status().message());
  Tensor out = std::move(alloc).value();
  if (len) std::memcpy(out.data, bytes, len);
  return out;
}

// TFLite sparsity (SparsityParameters): the tensor's dims are traversed in `traversal_order`
// (block dims after the original ones; block_map[k] is the original dim of block dim n+k); each
// level is DENSE (dense_size entries) or SPARSE_CSR (array_segments[pos]..[pos+1] index
// array_indices). A leaf's position in the last level is its index in the stored values.
Result<Tensor> Converter::Densify(const tfl::Tensor& t, size_t index, const Tensor& values, DType dt, const Shape& shape) {
  const std::string what = file_ + ": tensor " + std::to_string(index) + " (sparse)";
  const tfl::SparsityParameters& sp = *t.sparsity();
  const size_t n = shape.size();
  if (!sp.traversal_order() || !sp.dim_metadata()) return Status::Error(what + ": missing traversal_order or dim_metadata");
  const size_t levels = sp.traversal_order()->size();
  const size_t nblock = sp.block_map() ? sp.block_map()->size() : 0;
  if (levels != n + nblock || sp.dim_metadata()->size() != levels)
    return Status::Error(what + ": traversal_order, block_map and dim_metadata do not match the rank");
  std::vector<int> order(levels);
  std::vector<char> seen(levels, 0);
  for (size_t l = 0; l < levels; ++l) {
    const int d = sp.traversal_order()->Get(static_cast<flatbuffers::uoffset_t>(l));
    if (d < 0 || static_cast<size_t>(d) >= levels || seen[d]) return Status::Error(what + ": bad traversal_order");
    seen[d] = 1;
    order[l] = d;
  }
  std::vector<int64_t> block_dim(nblock), block_size(nblock);
  for (size_t k = 0; k < nblock; ++k) {
    block_dim[k] = sp.block_map()->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (block_dim[k] < 0 || static_cast<size_t>(block_dim[k]) >= n) return Status::Error(what + ": bad block_map");
  }
  struct Level {
    bool dense = true;
    int64_t size = 0;
    std::vector<int64_t> seg, idx;
  };
  auto read_vec = [](const void* v, tfl::SparseIndexVector type, std::vector<int64_t>* out) -> bool {
    if (!v) return false;
    switch (type) {
      case tfl::SparseIndexVector::Int32Vector: {
        auto* p = static_cast<const tfl::Int32Vector*>(v)->values();
        if (!p) return false;
        out->assign(p->begin(), p->end());
        return true;
      }
      case tfl::SparseIndexVector::Uint16Vector: {
        auto* p = static_cast<const tfl::Uint16Vector*>(v)->values();
        if (!p) return false;
        out->assign(p->begin(), p->end());
        return true;
      }
      case tfl::SparseIndexVector::Uint8Vector: {
        auto* p = static_cast<const tfl::Uint8Vector*>(v)->values();
        if (!p) return false;
        out->assign(p->begin(), p->end());
        return true;
      }
      default: return false;
    }
  };
  std::vector<Level> lv(levels);
  // dim_metadata[l] describes traversal level l (the dim traversal_order[l]).
  std::vector<size_t> level_of(levels);
  for (size_t l = 0; l < levels; ++l) level_of[static_cast<size_t>(order[l])] = l;
  for (size_t l = 0; l < levels; ++l) {
    const tfl::DimensionMetadata* m = sp.dim_metadata()->Get(static_cast<flatbuffers::uoffset_t>(l));
    Level& L = lv[l];
    L.dense = m->format() == tfl::DimensionType::DENSE;
    if (L.dense) {
      L.size = m->dense_size();
      if (L.size < 0 || L.size > (int64_t(1) << 31)) return Status::Error(what + ": bad dense_size");
    } else if (!read_vec(m->array_segments(), m->array_segments_type(), &L.seg) ||
               !read_vec(m->array_indices(), m->array_indices_type(), &L.idx)) {
      return Status::Error(what + ": a SPARSE_CSR level without segments or indices");
    }
  }
  TARE_ASSIGN_OR_RETURN(Tensor out, Tensor::Alloc(dt, shape));
  std::memset(out.data, 0, out.nbytes());
  const size_t es = DTypeSize(dt);
  std::vector<int64_t> coord(levels, 0);  // index per traversal dim
  std::vector<int64_t> strides(n, 1);
  for (size_t d = n; d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  for (size_t k = 0; k < nblock; ++k) {
    const Level& L = lv[level_of[n + k]];
    if (!L.dense || L.size < 1) return Status::Error(what + ": a block dimension must be DENSE");
    block_size[k] = L.size;
  }
  // Depth-first walk over the levels (depth = rank + block dims, at most a few).
  Status st = Status::Ok();
  std::function<bool(size_t, int64_t)> walk = [&](size_t l, int64_t pos) -> bool {
    if (l == levels) {
      if (pos < 0 || pos >= values.numel()) {
        st = Status::Error(what + ": a stored value index is out of range");
        return false;
      }
      int64_t off = 0;
      for (size_t d = 0; d < n; ++d) {
        int64_t c = coord[d];
        for (size_t k = 0; k < nblock; ++k)
          if (static_cast<size_t>(block_dim[k]) == d) c = c * block_size[k] + coord[n + k];
        if (c < 0 || c >= shape[d]) {
          st = Status::Error(what + ": a coordinate is out of range");
          return false;
        }
        off += c * strides[d];
      }
      std::memcpy(static_cast<uint8_t*>(out.data) + off * static_cast<int64_t>(es),
                  static_cast<const uint8_t*>(values.data) + pos * static_cast<int64_t>(es), es);
      return true;
    }
    const int d = order[l];
    const Level& L = lv[l];
    if (L.dense) {
      for (int64_t i = 0; i < L.size; ++i) {
        coord[d] = i;
        if (!walk(l + 1, pos * L.size + i)) return false;
      }
      return true;
    }
    if (pos < 0 || static_cast<size_t>(pos) + 1 >= L.seg.size()) {
      st = Status::Error(what + ": array_segments too short");
      return false;
    }
    const int64_t b = L.seg[static_cast<size_t>(pos)], e = L.seg[static_cast<size_t>(pos) + 1];
    if (b < 0 || e < b || static_cast<size_t>(e) > L.idx.size()) {
      st = Status::Error(what + ": array_segments out of range");
      return false;
    }
    for (int64_t j = b; j < e; ++j) {
      coord[d] = L.idx[static_cast<size_t>(j)];
      if (!walk(l + 1, j)) return false;
    }
    return true;
  };
  walk(0, 0);
  TARE_RETURN_IF_ERROR(st);
  return out;
}

Status Converter::ReadTensors() {
  const auto* tensors = sg_->tensors();
  const size_t n = tensors ? tensors->size() : 0;
  ts_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const tfl::Tensor* t = tensors->Get(static_cast<flatbuffers::uoffset_t>(i));
    TState& s = S(i);
    Result<DType> dt = MapType(t->type());
    if (!dt.ok()) return Status::Error(file_ + ": tensor " + std::to_string(i) + ": " + dt.status().message());
    s.dtype = *dt;
    if (t->shape())
      for (int d : *t->shape()) {
        if (d < 0) return Status::Error(file_ + ": tensor " + std::to_string(i) + " has a negative dimension " + std::to_string(d));
        s.shape.push_back(d);
      }
    Result<int64_t> ne = NumElements(s.shape);
    if (!ne.ok()) return Status::Error(file_ + ": tensor " + std::to_string(i) + ": " + ne.status().message());
    TARE_ASSIGN_OR_RETURN(Tensor data, BufferData(*t, i, s.dtype, s.shape));
    if (data.data) {
      s.is_const = true;
      s.data = std::move(data);
    }
  }
  return Status::Ok();
}

// ---- building -------------------------------------------------------------------------------

std::string Converter::TName(int t) const {
  const tfl::Tensor* tt = sg_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(t));
  return tt->name() && tt->name()->size() ? tt->name()->str() : "tensor_" + std::to_string(t);
}

std::string Converter::NameFor(int t, bool nchw) const {
  const std::string base = TName(t);
  if (Rank(t) != 4) return base;
  if (is_graph_output_[t] || is_graph_input_[t]) return nchw ? base + "/nchw" : base;
  return nchw ? base : base + "/nhwc";
}

Result<int> Converter::Plain(int t) {
  if (t < 0 || static_cast<size_t>(t) >= ts_.size()) return Error("tensor index " + std::to_string(t) + " is out of range");
  TState& s = S(t);
  if (s.plain >= 0) return s.plain;
  if (s.is_const) {
    s.plain = Const(NameFor(t, false), s.data);
    return s.plain;
  }
  if (s.nchw < 0) return Error("tensor " + std::to_string(t) + " is read before any operator writes it");
  s.plain = Node1("Transpose", NameFor(t, false), {s.nchw}, NameFor(t, false), s.dtype, {{"perm", IntsAttr(kToNhwc)}});
  return s.plain;
}

Result<int> Converter::Nchw(int t) {
  if (t < 0 || static_cast<size_t>(t) >= ts_.size()) return Error("tensor index " + std::to_string(t) + " is out of range");
  TState& s = S(t);
  if (Rank(t) != 4) return Error("tensor " + std::to_string(t) + " must have rank 4, has shape " + ShapeStr(s.shape));
  if (s.nchw >= 0) return s.nchw;
  if (s.is_const) {
    s.nchw = Const(NameFor(t, true), PermuteTensor(s.data, kToNchw));
    return s.nchw;
  }
  if (s.plain < 0) return Error("tensor " + std::to_string(t) + " is read before any operator writes it");
  s.nchw = Node1("Transpose", NameFor(t, true), {s.plain}, NameFor(t, true), s.dtype, {{"perm", IntsAttr(kToNchw)}});
  return s.nchw;
}

std::string Converter::OpName(int out_tensor) const {
  const tfl::Tensor* tt = sg_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(out_tensor));
  return tt->name() && tt->name()->size() ? tt->name()->str() : "op_" + std::to_string(op_index_);
}

/// Whether TFLite's float kernels apply the fused activation (they clamp to its range; TANH and
/// SIGN_BIT have none, so they are not applied).
bool Applied(tfl::ActivationFunctionType act) {
  return act == tfl::ActivationFunctionType::RELU || act == tfl::ActivationFunctionType::RELU6 ||
         act == tfl::ActivationFunctionType::RELU_N1_TO_1;
}

int Converter::OutValue(int t, bool nchw, tfl::ActivationFunctionType act) {
  const std::string name = NameFor(t, nchw);
  return NewValue(Applied(act) ? name + "/pre_activation" : name, S(t).dtype);
}

Status Converter::SetOutput(int t, int core, bool nchw, tfl::ActivationFunctionType act) {
  int v = core;
  const std::string name = NameFor(t, nchw);
  const std::string node = OpName(t);
  switch (act) {
    case tfl::ActivationFunctionType::NONE: break;
    case tfl::ActivationFunctionType::RELU: v = Node1("Relu", node + "/relu", {core}, name, S(t).dtype); break;
    case tfl::ActivationFunctionType::RELU6:
      v = Node1("Clip", node + "/relu6", {core, Const(node + "/relu6/min", Float32Scalar(0)), Const(node + "/relu6/max", Float32Scalar(6))},
                name, S(t).dtype);
      break;
    case tfl::ActivationFunctionType::RELU_N1_TO_1:
      v = Node1("Clip", node + "/relu_n1_to_1",
                {core, Const(node + "/relu1/min", Float32Scalar(-1)), Const(node + "/relu1/max", Float32Scalar(1))}, name, S(t).dtype);
      break;
    // TFLite's float kernels clamp to the activation's range, and TANH and SIGN_BIT have none
    // (CalculateActivationRange leaves them unbounded): a fused TANH is not applied, so tare does
    // not apply it either (checked against LiteRT.js on ADD, MUL, CONV_2D, DEPTHWISE_CONV_2D).
    case tfl::ActivationFunctionType::TANH:
    case tfl::ActivationFunctionType::SIGN_BIT: break;
    default: return Error("fused activation " + std::to_string(static_cast<int>(act)) + " is not supported");
  }

  TState& s = S(t);
  if (nchw) {
    s.nchw = v;
  } else {
    s.plain = v;
  }
  return Status::Ok();
}

Result<std::vector<int64_t>> Converter::ConstInts(int t, const char* what) {
  if (!IsConst(t)) return Error(std::string(what) + " must be a constant tensor");
  const Tensor& d = S(t).data;
  if (d.dtype != DType::kInt32 && d.dtype != DType::kInt64) return Error(std::string(what) + " must be int32 or int64");
  std::vector<int64_t> v(static_cast<size_t>(d.numel()));
  for (int64_t i = 0; i < d.numel(); ++i) v[static_cast<size_t>(i)] = ReadInt(d, i);
  return v;
}

Result<Tensor> Converter::ConstFloat(int t) {
  if (!IsConst(t)) return Error("tensor " + std::to_string(t) + " must be a constant");
  if (S(t).data.dtype == DType::kFloat32) return S(t).data;
  return ConvertTensor(S(t).data, DType::kFloat32);
}

Shape Converter::DeclaredShape(int t) const {
  const tfl::Tensor* tt = sg_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(t));
  Shape s = S(t).shape;
  if (tt->shape_signature() && tt->shape_signature()->size() == s.size())
    for (size_t d = 0; d < s.size(); ++d)
      if (tt->shape_signature()->Get(static_cast<flatbuffers::uoffset_t>(d)) < 0) s[d] = -1;
  return s;
}

Status Converter::Need(const OpArgs& args, size_t n_in, size_t n_out) const {
  const std::vector<int>& in = args.in;
  if (in.size() < n_in || args.out.size() != n_out ||
      std::any_of(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(n_in), [](int t) { return t < 0; }))
    return Error("expects " + std::to_string(n_in) + " input(s) and " + std::to_string(n_out) + " output(s)");
  return Status::Ok();
}

Status Converter::ConvertOp(const tfl::Operator& op, int code, const std::string& custom) {
  const OpArgs args{op, code, custom, Ins(op), Outs(op), FindOp(code)};
  const std::vector<int>& in = args.in, &out = args.out;
  absent_ = TState();
  for (int t : in)
    if (t >= static_cast<int>(ts_.size()) || t < -1) return Error("input tensor index " + std::to_string(t) + " is out of range");
  for (int t : out)
    if (t < 0 || t >= static_cast<int>(ts_.size())) return Error("output tensor index " + std::to_string(t) + " is out of range");
  for (int t : out)
    if (S(t).is_const || S(t).plain >= 0 || S(t).nchw >= 0) return Error("writes tensor " + std::to_string(t) + ", which already has a value");
  bool handled = false;
  TARE_RETURN_IF_ERROR(Quantized(args, &handled));
  if (handled) return Status::Ok();
  if (args.entry && args.entry->translate) return (this->*args.entry->translate)(args);
  return Error("is not supported");
}

Status Converter::Run(Graph* out) {
  g_ = out;
  w_.Reset(out);
  if (size_ < 8 || !flatbuffers::BufferHasIdentifier(data_, tfl::ModelIdentifier()))
    return Status::Error(file_ + " is not a TFLite model (no 'TFL3' file identifier)");
  // The verifier bounds every table and vector inside the buffer (buffers stored after the
  // flatbuffer are checked one by one when read).
  flatbuffers::Verifier v(data_, std::min<size_t>(size_, FLATBUFFERS_MAX_BUFFER_SIZE - 1), /*max_depth=*/64,
                          /*max_tables=*/4000000);
  if (!tfl::VerifyModelBuffer(v)) return Status::Error(file_ + " is not a valid TFLite flatbuffer (verification failed)");
  model_ = tfl::GetModel(data_);
  if (!model_->subgraphs() || model_->subgraphs()->size() == 0) return Status::Error(file_ + " has no subgraph");
  if (model_->subgraphs()->size() > 1)
    return Status::Error(file_ + " has " + std::to_string(model_->subgraphs()->size()) +
                         " subgraphs; control flow (IF, WHILE, CALL_ONCE) is not supported");
  sg_ = model_->subgraphs()->Get(0);
  TARE_RETURN_IF_ERROR(ReadTensors());
  is_graph_output_.assign(ts_.size(), 0);
  is_graph_input_.assign(ts_.size(), 0);
  std::vector<int> inputs, outputs;
  if (sg_->inputs()) inputs.assign(sg_->inputs()->begin(), sg_->inputs()->end());
  if (sg_->outputs()) outputs.assign(sg_->outputs()->begin(), sg_->outputs()->end());
  for (int t : inputs) {
    if (t < 0 || static_cast<size_t>(t) >= ts_.size()) return Status::Error(file_ + ": graph input tensor " + std::to_string(t) + " is out of range");
    is_graph_input_[t] = 1;
  }
  for (int t : outputs) {
    if (t < 0 || static_cast<size_t>(t) >= ts_.size()) return Status::Error(file_ + ": graph output tensor " + std::to_string(t) + " is out of range");
    is_graph_output_[t] = 1;
  }
  if (outputs.empty()) return Status::Error(file_ + " has no outputs");
  for (int t : inputs) {
    if (S(t).is_const) return Status::Error(file_ + ": graph input tensor " + std::to_string(t) + " has constant data");
    const Shape s = DeclaredShape(t);
    S(t).plain = NewValue(NameFor(t, false), S(t).dtype, &s);
    g_->inputs.push_back(S(t).plain);
  }
  const auto* ops = sg_->operators();
  const auto* codes = model_->operator_codes();
  std::string unsupported;
  int n_unsupported = 0;
  for (size_t i = 0; ops && i < ops->size(); ++i) {
    const tfl::Operator* op = ops->Get(static_cast<flatbuffers::uoffset_t>(i));
    op_index_ = i;
    if (!codes || op->opcode_index() >= codes->size())
      return Status::Error(file_ + ": operator " + std::to_string(i) + " has opcode index " + std::to_string(op->opcode_index()) + ", out of range");
    const tfl::OperatorCode* oc = codes->Get(op->opcode_index());
    const int code = std::max<int>(oc->deprecated_builtin_code(), oc->builtin_code());
    const std::string custom = oc->custom_code() ? oc->custom_code()->str() : "";
    op_label_ = (code == CUSTOM ? "custom '" + custom + "'" : BuiltinName(code)) + " v" + std::to_string(oc->version());
    Status st = ConvertOp(*op, code, custom);
    if (!st.ok()) {
      // Unsupported ops are collected (one message for all); other errors stop here.
      if (st.message().find("is not supported") == std::string::npos) return st;
      ++n_unsupported;
      unsupported += (unsupported.empty() ? "" : "; ") + Where() + ": " + st.message().substr(st.message().rfind(": ") + 2);
      // Later operators may read this one's outputs: give them placeholders so the scan goes on.
      for (int t : Outs(*op))
        if (t >= 0 && static_cast<size_t>(t) < ts_.size() && S(t).plain < 0 && S(t).nchw < 0 && !S(t).is_const)
          S(t).plain = NewValue(NameFor(t, false) + "/unconverted", S(t).dtype);
    }
  }
  if (n_unsupported)
    return Status::Error(StatusCode::kUnsupported, file_ + ": " + std::to_string(n_unsupported) + " unsupported operator(s): " + unsupported);
  // Graph outputs in TFLite's layout, with the tensors' names.
  for (int t : outputs) {
    TARE_ASSIGN_OR_RETURN(int v, Plain(t));
    const tfl::Tensor* tt = sg_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(t));
    Value& val = g_->values[v];
    if (!val.is_constant) {
      val.shape = S(t).shape;
      val.has_shape = true;
      if (tt->shape_signature() && tt->shape_signature()->size() == val.shape.size())
        for (size_t d = 0; d < val.shape.size(); ++d)
          if (tt->shape_signature()->Get(static_cast<flatbuffers::uoffset_t>(d)) < 0) val.shape[d] = -1;
    }
    g_->outputs.push_back(v);
  }
  return g_->Validate();
}

}  // namespace tflite

Result<std::shared_ptr<Model>> ConvertTfliteBytes(const uint8_t* data, size_t size, const std::string& name) {
  if (size == 0) return Status::Error("'" + name + "' is empty");
  auto model = std::make_shared<Model>();
  Provenance& p = model->provenance;
  p.source_format = "tflite";
  p.source_file = BaseName(name);
  p.source_sha256 = Sha256Hex(data, size);
  p.producer_name = "tflite";
  p.tare_version = TARE_VERSION;
  tflite::Converter c(data, size, BaseName(name));
  TARE_RETURN_IF_ERROR(c.Run(&model->graph));
  return model;
}

Result<std::shared_ptr<Model>> ConvertTfliteFile(const std::string& path) {
  TARE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadRegularFile(path));
  return ConvertTfliteBytes(bytes.data(), bytes.size(), path);
}

}  // namespace tare
