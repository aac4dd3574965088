#include "converters/tflite/tflite_converter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <set>

#include "converters/converter_util.h"
#include "format/file_io.h"
#include "tflite_schema_generated.h"

namespace tare {
namespace {

namespace tfl = tare::tfl;

/// TFLite BuiltinOperator names by code (a fact of the format), for messages.
const char* const kBuiltinNames[] = {
    "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE", "DEQUANTIZE",
    "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED", "HASHTABLE_LOOKUP", "L2_NORMALIZATION", "L2_POOL_2D",
    "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC", "LSH_PROJECTION", "LSTM", "MAX_POOL_2D", "MUL", "RELU",
    "RELU_N1_TO_1", "RELU6", "RESHAPE", "RESIZE_BILINEAR", "RNN", "SOFTMAX", "SPACE_TO_DEPTH", "SVDF", "TANH",
    "CONCAT_EMBEDDINGS", "SKIP_GRAM", "CALL", "CUSTOM", "EMBEDDING_LOOKUP_SPARSE", "PAD",
    "UNIDIRECTIONAL_SEQUENCE_RNN", "GATHER", "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND", "TRANSPOSE", "MEAN", "SUB",
    "DIV", "SQUEEZE", "UNIDIRECTIONAL_SEQUENCE_LSTM", "STRIDED_SLICE", "BIDIRECTIONAL_SEQUENCE_RNN", "EXP",
    "TOPK_V2", "SPLIT", "LOG_SOFTMAX", "DELEGATE", "BIDIRECTIONAL_SEQUENCE_LSTM", "CAST", "PRELU", "MAXIMUM",
    "ARG_MAX", "MINIMUM", "LESS", "NEG", "PADV2", "GREATER", "GREATER_EQUAL", "LESS_EQUAL", "SELECT", "SLICE",
    "SIN", "TRANSPOSE_CONV", "SPARSE_TO_DENSE", "TILE", "EXPAND_DIMS", "EQUAL", "NOT_EQUAL", "LOG", "SUM", "SQRT",
    "RSQRT", "SHAPE", "POW", "ARG_MIN", "FAKE_QUANT", "REDUCE_PROD", "REDUCE_MAX", "PACK", "LOGICAL_OR",
    "ONE_HOT", "LOGICAL_AND", "LOGICAL_NOT", "UNPACK", "REDUCE_MIN", "FLOOR_DIV", "REDUCE_ANY", "SQUARE",
    "ZEROS_LIKE", "FILL", "FLOOR_MOD", "RANGE", "RESIZE_NEAREST_NEIGHBOR", "LEAKY_RELU", "SQUARED_DIFFERENCE",
    "MIRROR_PAD", "ABS", "SPLIT_V", "UNIQUE", "CEIL", "REVERSE_V2", "ADD_N", "GATHER_ND", "COS", "WHERE", "RANK",
    "ELU", "REVERSE_SEQUENCE", "MATRIX_DIAG", "QUANTIZE", "MATRIX_SET_DIAG", "ROUND", "HARD_SWISH", "IF",
    "WHILE", "NON_MAX_SUPPRESSION_V4", "NON_MAX_SUPPRESSION_V5", "SCATTER_ND", "SELECT_V2", "DENSIFY",
    "SEGMENT_SUM", "BATCH_MATMUL", "PLACEHOLDER_FOR_GREATER_OP_CODES", "CUMSUM", "CALL_ONCE", "BROADCAST_TO",
    "RFFT2D", "CONV_3D", "IMAG", "REAL", "COMPLEX_ABS", "HASHTABLE", "HASHTABLE_FIND", "HASHTABLE_IMPORT",
    "HASHTABLE_SIZE", "REDUCE_ALL", "CONV_3D_TRANSPOSE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE",
    "BROADCAST_ARGS"};

// Builtin codes tare converts (values of BuiltinOperator).
enum Code : int {
  ADD = 0, AVERAGE_POOL_2D = 1, CONCATENATION = 2, CONV_2D = 3, DEPTHWISE_CONV_2D = 4, DEPTH_TO_SPACE = 5,
  DEQUANTIZE = 6, FULLY_CONNECTED = 9, L2_NORMALIZATION = 11, LOGISTIC = 14, MAX_POOL_2D = 17, MUL = 18,
  RELU = 19, RELU_N1_TO_1 = 20, RELU6 = 21, RESHAPE = 22, RESIZE_BILINEAR = 23, SOFTMAX = 25,
  SPACE_TO_DEPTH = 26, TANH = 28, CUSTOM = 32, PAD = 34, GATHER = 36, TRANSPOSE = 39, MEAN = 40, SUB = 41,
  DIV = 42, SQUEEZE = 43, UNIDIRECTIONAL_SEQUENCE_LSTM = 44, STRIDED_SLICE = 45, EXP = 47, SPLIT = 49,
  LOG_SOFTMAX = 50, CAST = 53, PRELU = 54, MAXIMUM = 55, MINIMUM = 57, NEG = 59, PADV2 = 60, SLICE = 65,
  TRANSPOSE_CONV = 67, EXPAND_DIMS = 70, SUM = 74, SQRT = 75, RSQRT = 76, REDUCE_MAX = 82, PACK = 83,
  UNPACK = 88, REDUCE_MIN = 89, SQUARE = 92, RESIZE_NEAREST_NEIGHBOR = 97, LEAKY_RELU = 98, ABS = 101,
  QUANTIZE = 114, HARD_SWISH = 117, DENSIFY = 124, BATCH_MATMUL = 126,
};

std::string BuiltinName(int code) {
  if (code >= 0 && code < static_cast<int>(sizeof(kBuiltinNames) / sizeof(kBuiltinNames[0]))) return kBuiltinNames[code];
  return "BUILTIN_" + std::to_string(code);
}

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

// NHWC <-> NCHW.
const std::vector<int64_t> kToNchw = {0, 3, 1, 2};
const std::vector<int64_t> kToNhwc = {0, 2, 3, 1};
/// Axis a of an NHWC tensor in its NCHW form.
int64_t NhwcAxisToNchw(int64_t a) { return a == 0 ? 0 : a == 3 ? 1 : a + 1; }

Tensor PermuteTensor(const Tensor& t, const std::vector<int64_t>& perm) {
  Shape s(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) s[i] = t.shape[static_cast<size_t>(perm[i])];
  Tensor y = Tensor::Alloc(t.dtype, s).value();
  const size_t r = perm.size(), es = DTypeSize(t.dtype);
  std::vector<int64_t> in_stride(r, 1);
  for (size_t d = r; d-- > 1;) in_stride[d - 1] = in_stride[d] * t.shape[d];
  std::vector<int64_t> idx(r, 0);
  for (int64_t o = 0; o < y.numel(); ++o) {
    int64_t src = 0;
    for (size_t d = 0; d < r; ++d) src += idx[d] * in_stride[static_cast<size_t>(perm[d])];
    std::memcpy(static_cast<uint8_t*>(y.data) + o * es, static_cast<const uint8_t*>(t.data) + src * es, es);
    for (size_t d = r; d-- > 0;) {
      if (++idx[d] < s[d]) break;
      idx[d] = 0;
    }
  }
  return y;
}


class Converter {
 public:
  Converter(const uint8_t* data, size_t size, std::string file) : data_(data), size_(size), file_(std::move(file)) {}

  Status Run(Graph* out);

 private:
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

  // ---- reading the flatbuffer ------------------------------------------------------------
  Status ReadTensors();
  Result<Tensor> BufferData(const tfl::Tensor& t, size_t index, DType dt, const Shape& shape);
  Result<Tensor> Densify(const tfl::Tensor& t, size_t index, const Tensor& values, DType dt, const Shape& shape);

  // ---- building the IR ------------------------------------------------------------------
  int NewValue(const std::string& name, DType dt, const Shape* shape = nullptr);
  int Const(const std::string& name, const Tensor& t);
  int ConstI64(const std::string& name, const std::vector<int64_t>& v) { return Const(name, Int64Vector(v)); }
  /// Adds a node; its outputs are the given values (made with NewValue).
  void AddNode(const std::string& op, const std::string& name, std::vector<int> inputs, std::vector<int> outputs,
               std::map<std::string, Attr> attrs = {});
  /// One-output node with a new output value named `out_name` of dtype dt.
  int Node1(const std::string& op, const std::string& name, std::vector<int> inputs, const std::string& out_name, DType dt,
            std::map<std::string, Attr> attrs = {});

  // Tensor views.
  int Rank(int t) const { return static_cast<int>(S(t).shape.size()); }
  bool IsConst(int t) const { return t >= 0 && S(t).is_const; }
  /// The IR value of tensor t in TFLite's layout.
  Result<int> Plain(int t);
  /// The IR value of rank-4 tensor t in NCHW.
  Result<int> Nchw(int t);
  /// Whether tensor t is currently held in NCHW only (or prefers it).
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
  Status ConvertOp(size_t index, const tfl::Operator& op, int code, int version, const std::string& custom);
  Status Conv(const tfl::Operator& op, bool depthwise);
  Status TransposeConv(const tfl::Operator& op, int x, int w, int b, int out, int64_t sh, int64_t sw, bool same,
                       tfl::ActivationFunctionType act);
  Status Pool(const tfl::Operator& op, bool max);
  Status Binary(const tfl::Operator& op, const std::string& ir_op, tfl::ActivationFunctionType act);
  Status Unary(const tfl::Operator& op, const std::string& ir_op, std::map<std::string, Attr> attrs = {},
               std::vector<int> extra = {});
  Status FullyConnected(const tfl::Operator& op);
  Status Reduce(const tfl::Operator& op, const std::string& ir_op);
  Status StridedSlice(const tfl::Operator& op);
  Status Lstm(const tfl::Operator& op);
  /// Quantized operators (int8/uint8/int16 activations with scales): the domain "tflite" ops on
  /// kernels/quant, in TFLite's layout. Returns NotHandled (an ok status with *handled false) for
  /// float operators.
  Status Quantized(const tfl::Operator& op, int code, bool* handled);
  /// TFLite shape of tensor t with -1 where its shape_signature says the dim is dynamic.
  Shape DeclaredShape(int t) const;
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

  const uint8_t* data_;
  size_t size_;
  std::string file_;
  const tfl::Model* model_ = nullptr;
  const tfl::SubGraph* sg_ = nullptr;
  Graph* g_ = nullptr;
  std::vector<TState> ts_;
  TState absent_;  // what S() gives for an absent or out-of-range tensor index
  std::vector<char> is_graph_output_, is_graph_input_;
  std::set<std::string> names_;
  size_t op_index_ = 0;
  std::string op_label_;
};

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

int Converter::NewValue(const std::string& name, DType dt, const Shape* shape) {
  std::string nm = name;
  for (int k = 1; names_.count(nm); ++k) nm = name + "/" + std::to_string(k);
  names_.insert(nm);
  Value v;
  v.name = nm;
  v.dtype = dt;
  if (shape) {
    v.shape = *shape;
    v.has_shape = true;
  }
  return g_->AddValue(std::move(v));
}

int Converter::Const(const std::string& name, const Tensor& t) {
  const int id = NewValue(name, t.dtype, &t.shape);
  g_->values[id].is_constant = true;
  g_->values[id].constant = t;
  return id;
}

void Converter::AddNode(const std::string& op, const std::string& name, std::vector<int> inputs, std::vector<int> outputs,
                        std::map<std::string, Attr> attrs) {
  Node n;
  n.op = op;
  n.name = name;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.attrs = std::move(attrs);
  g_->nodes.push_back(std::move(n));
}

int Converter::Node1(const std::string& op, const std::string& name, std::vector<int> inputs, const std::string& out_name,
                     DType dt, std::map<std::string, Attr> attrs) {
  const int y = NewValue(out_name, dt);
  AddNode(op, name, std::move(inputs), {y}, std::move(attrs));
  return y;
}

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

// ---- ops -------------------------------------------------------------------------------------

std::vector<int> Ins(const tfl::Operator& op) {
  std::vector<int> v;
  if (op.inputs()) v.assign(op.inputs()->begin(), op.inputs()->end());
  return v;
}
std::vector<int> Outs(const tfl::Operator& op) {
  std::vector<int> v;
  if (op.outputs()) v.assign(op.outputs()->begin(), op.outputs()->end());
  return v;
}

Status Converter::Conv(const tfl::Operator& op, bool depthwise) {
  const std::vector<int> in = Ins(op), out = Outs(op);
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

// TRANSPOSE_CONV and MediaPipe's Convolution2DTransposeBias: weights [O, KH, KW, I] -> ONNX
// ConvTranspose [I, O, KH, KW]; explicit pads as TFLite computes them for SAME (total =
// max(0, (in - 1) * s + k - out), begin = total / 2) or VALID (0), and output_padding for what
// the output shape adds beyond that.
Status Converter::TransposeConv(const tfl::Operator& op, int x, int w, int b, int out, int64_t sh, int64_t sw, bool same,
                                tfl::ActivationFunctionType act) {
  (void)op;
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

Status Converter::Pool(const tfl::Operator& op, bool max) {
  const std::vector<int> in = Ins(op), out = Outs(op);
  if (in.size() != 1 || out.size() != 1) return Error("expects one input and one output");
  const auto* o = op.builtin_options_as_Pool2DOptions();
  if (!o) return Error("missing Pool2DOptions");
  if (o->stride_h() < 1 || o->stride_w() < 1 || o->filter_height() < 1 || o->filter_width() < 1)
    return Error("strides and filter sizes must be >= 1");
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

Status Converter::Binary(const tfl::Operator& op, const std::string& ir_op, tfl::ActivationFunctionType act) {
  const std::vector<int> in = Ins(op), out = Outs(op);
  if (in.size() != 2 || out.size() != 1) return Error("expects two inputs and one output");
  const int a = in[0], b = in[1], y = out[0];
  // NCHW when the output is rank 4 and every run-time operand of rank 4 is (or can be) NCHW;
  // constants of lower rank are broadcast NHWC-style, so they are expanded to rank 4 and permuted.
  const bool use_nchw = Rank(y) == 4 && (HasNchw(a) || HasNchw(b)) &&
                        (Rank(a) == 4 || IsConst(a)) && (Rank(b) == 4 || IsConst(b));
  std::vector<int> ins;
  for (int t : {a, b}) {
    if (!use_nchw || Rank(t) == 4) {
      TARE_ASSIGN_OR_RETURN(int v, use_nchw ? Nchw(t) : Plain(t));
      ins.push_back(v);
      continue;
    }
    Tensor c = S(t).data;
    Shape s4(4 - c.shape.size(), 1);
    s4.insert(s4.end(), c.shape.begin(), c.shape.end());
    c.shape = s4;
    ins.push_back(Const(TName(t) + "/nchw", PermuteTensor(c, kToNchw)));
  }
  const int core = OutValue(y, use_nchw, act);
  AddNode(ir_op, OpName(y), ins, {core});
  return SetOutput(y, core, use_nchw, act);
}

Status Converter::Unary(const tfl::Operator& op, const std::string& ir_op, std::map<std::string, Attr> attrs, std::vector<int> extra) {
  const std::vector<int> in = Ins(op), out = Outs(op);
  if (in.empty() || out.size() != 1) return Error("expects an input and one output");
  const int x = in[0], y = out[0];
  const bool nchw = HasNchw(x) && Rank(y) == 4;
  TARE_ASSIGN_OR_RETURN(int xv, nchw ? Nchw(x) : Plain(x));
  std::vector<int> ins = {xv};
  ins.insert(ins.end(), extra.begin(), extra.end());
  const int core = OutValue(y, nchw, tfl::ActivationFunctionType::NONE);
  AddNode(ir_op, OpName(y), ins, {core}, std::move(attrs));
  return SetOutput(y, core, nchw, tfl::ActivationFunctionType::NONE);
}

Status Converter::FullyConnected(const tfl::Operator& op) {
  const std::vector<int> in = Ins(op), out = Outs(op);
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

Status Converter::Reduce(const tfl::Operator& op, const std::string& ir_op) {
  const std::vector<int> in = Ins(op), out = Outs(op);
  if (in.size() != 2 || out.size() != 1) return Error("expects inputs (input, axes) and one output");
  const int x = in[0], y = out[0];
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ConstInts(in[1], "axes"));
  const auto* o = op.builtin_options_as_ReducerOptions();
  const bool keep = o && o->keep_dims();
  const int64_t r = Rank(x);
  std::set<int64_t> red;
  for (int64_t& a : axes) {
    if (a < -r || a >= r) return Error("axis " + std::to_string(a) + " is out of range for rank " + std::to_string(r));
    if (a < 0) a += r;
    red.insert(a);
  }
  // NCHW when the input has it and the kept dims come out in the same order either way.
  bool nchw = HasNchw(x) && r == 4;
  if (nchw && !keep) {
    std::vector<int64_t> a_order, b_order;
    for (int64_t d : {0, 1, 2, 3})
      if (!red.count(d)) a_order.push_back(d);
    for (int64_t d : kToNchw)
      if (!red.count(d)) b_order.push_back(d);
    nchw = a_order == b_order;
  }
  std::vector<int64_t> ir_axes;
  for (int64_t a : red) ir_axes.push_back(nchw ? NhwcAxisToNchw(a) : a);
  std::sort(ir_axes.begin(), ir_axes.end());
  TARE_ASSIGN_OR_RETURN(int xv, nchw ? Nchw(x) : Plain(x));
  const bool out_nchw = nchw && keep;
  const int core = OutValue(y, out_nchw, tfl::ActivationFunctionType::NONE);
  std::map<std::string, Attr> attrs = {{"keepdims", IntAttr(keep ? 1 : 0)}};
  std::vector<int> ins = {xv};
  if (ir_op == "ReduceSum") {
    ins.push_back(ConstI64(OpName(y) + "/axes", ir_axes));
  } else {
    attrs["axes"] = IntsAttr(ir_axes);
  }
  if (ir_axes.empty() && ir_op == "ReduceSum") attrs["noop_with_empty_axes"] = IntAttr(1);
  AddNode(ir_op, OpName(y), ins, {core}, attrs);
  return SetOutput(y, core, out_nchw, tfl::ActivationFunctionType::NONE);
}

// STRIDED_SLICE: begin/end/strides constants, begin_mask/end_mask (bit i: ignore begin/end of
// dim i), shrink_axis_mask (dim i taken at begin and removed). ellipsis_mask and new_axis_mask are
// not supported. -> ONNX Slice (+ Squeeze for shrunk dims) in TFLite's layout.
Status Converter::StridedSlice(const tfl::Operator& op) {
  const std::vector<int> in = Ins(op), out = Outs(op);
  if (in.size() != 4 || out.size() != 1) return Error("expects inputs (input, begin, end, strides) and one output");
  const auto* o = op.builtin_options_as_StridedSliceOptions();
  if (!o) return Error("missing StridedSliceOptions");
  if (o->ellipsis_mask() || o->new_axis_mask()) return Error("ellipsis_mask and new_axis_mask are not supported");
  if (o->offset()) return Error("offset = true is not supported");
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> begin, ConstInts(in[1], "begin"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> end, ConstInts(in[2], "end"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, ConstInts(in[3], "strides"));
  const size_t r = static_cast<size_t>(Rank(in[0]));
  if (begin.size() != end.size() || begin.size() != strides.size() || begin.size() > r)
    return Error("begin, end and strides must have the same length, at most the input's rank");
  std::vector<int64_t> starts, ends, axes, steps, squeeze;
  const int64_t kMax = INT64_MAX, kMin = INT64_MIN;
  for (size_t i = 0; i < begin.size(); ++i) {
    const int64_t st = strides[i];
    if (st == 0) return Error("a stride is 0");
    const bool shrink = (o->shrink_axis_mask() >> i) & 1;
    int64_t b = (o->begin_mask() >> i) & 1 ? (st > 0 ? 0 : kMax) : begin[i];
    int64_t e = (o->end_mask() >> i) & 1 ? (st > 0 ? kMax : kMin) : end[i];
    if (shrink) {
      b = begin[i];
      const int64_t dim = S(in[0]).shape[i];
      const int64_t bb = b < 0 ? b + dim : b;
      if (bb < 0 || bb >= dim) return Error("shrink index " + std::to_string(b) + " is out of range for dim " + std::to_string(dim));
      b = bb;
      e = bb + 1;
      squeeze.push_back(static_cast<int64_t>(i));
    }
    starts.push_back(b), ends.push_back(e), axes.push_back(static_cast<int64_t>(i)), steps.push_back(shrink ? 1 : st);
  }
  TARE_ASSIGN_OR_RETURN(int xv, Plain(in[0]));
  const int y = out[0];
  const std::string nm = OpName(y);
  int v = Node1("Slice", nm, {xv, ConstI64(nm + "/starts", starts), ConstI64(nm + "/ends", ends), ConstI64(nm + "/axes", axes),
                              ConstI64(nm + "/steps", steps)},
                squeeze.empty() ? NameFor(y, false) : nm + "/sliced", S(y).dtype);
  if (!squeeze.empty()) v = Node1("Squeeze", nm + "/shrink", {v, ConstI64(nm + "/shrink/axes", squeeze)}, NameFor(y, false), S(y).dtype);
  S(y).plain = v;
  return Status::Ok();
}

// UNIDIRECTIONAL_SEQUENCE_LSTM (TFLite, float): inputs 0 x, 1-4 input weights (i, f, c, o), 5-8
// recurrent weights, 9-11 peepholes (i, f, o; optional), 12-15 gate biases, 16-17 projection
// (unsupported), 18-19 output and cell state (variable tensors, zero at the start of each run in
// tare), 20-23 layer-norm coefficients (unsupported). -> ONNX LSTM with gates in ONNX's order
// (i, o, f, c), batch-major input transposed to time-major when time_major is false.
Status Converter::Lstm(const tfl::Operator& op) {
  const std::vector<int> in = Ins(op), out = Outs(op);
  if (in.size() < 20 || out.size() != 1) return Error("expects at least 20 inputs and one output");
  const auto* o = op.builtin_options_as_UnidirectionalSequenceLSTMOptions();
  if (!o) return Error("missing UnidirectionalSequenceLSTMOptions");
  if (o->cell_clip() != 0 || o->proj_clip() != 0) return Error("cell_clip and proj_clip are not supported");
  if (in[16] >= 0 || in[17] >= 0) return Error("projection weights are not supported");
  for (size_t k = 20; k < in.size(); ++k)
    if (in[k] >= 0) return Error("layer normalization coefficients are not supported");
  for (int k : {1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 15})
    if (!IsConst(in[static_cast<size_t>(k)])) return Error("weights and biases must be constants");
  const std::string nm = OpName(out[0]);
  auto cat = [&](std::vector<int> idx) -> Result<Tensor> {  // rows of the given tensors, stacked
    std::vector<Tensor> parts;
    int64_t rows = 0, cols = -1;
    for (int k : idx) {
      TARE_ASSIGN_OR_RETURN(Tensor t, ConstFloat(in[static_cast<size_t>(k)]));
      const int64_t c = t.shape.size() == 2 ? t.shape[1] : 1;
      if (cols >= 0 && c != cols) return Error("gate weights of different widths");
      cols = c;
      rows += t.shape[0];
      parts.push_back(t);
    }
    Tensor y = Tensor::Alloc(DType::kFloat32, cols == 1 && parts[0].shape.size() == 1 ? Shape{rows} : Shape{rows, cols}).value();
    size_t off = 0;
    for (const Tensor& p : parts) {
      std::memcpy(static_cast<uint8_t*>(y.data) + off, p.data, p.nbytes());
      off += p.nbytes();
    }
    return y;
  };
  TARE_ASSIGN_OR_RETURN(Tensor W, cat({1, 4, 2, 3}));  // i, o, f, c
  TARE_ASSIGN_OR_RETURN(Tensor R, cat({5, 8, 6, 7}));
  TARE_ASSIGN_OR_RETURN(Tensor Bw, cat({12, 15, 13, 14}));
  const int64_t hidden = R.shape[1];
  if (W.shape[0] != 4 * hidden || R.shape[0] != 4 * hidden || Bw.numel() != 4 * hidden) return Error("gate weight sizes do not match");
  W.shape.insert(W.shape.begin(), 1);
  R.shape.insert(R.shape.begin(), 1);
  Tensor B = Tensor::Alloc(DType::kFloat32, {1, 8 * hidden}).value();
  std::memcpy(B.data, Bw.data, Bw.nbytes());
  std::memset(static_cast<float*>(B.data) + 4 * hidden, 0, Bw.nbytes());
  std::vector<int> ins;
  TARE_ASSIGN_OR_RETURN(int xv, Plain(in[0]));
  const bool time_major = o->time_major();
  if (Rank(in[0]) != 3) return Error("input must have rank 3");
  if (!time_major) xv = Node1("Transpose", nm + "/time_major", {xv}, nm + "/x_time_major", DType::kFloat32, {{"perm", IntsAttr({1, 0, 2})}});
  ins = {xv, Const(nm + "/W", W), Const(nm + "/R", R), Const(nm + "/B", B), -1};
  // Initial states: the variable tensors' values, [1, batch, hidden]; a variable tensor without
  // stored data starts at zero, which is ONNX LSTM's omitted initial state (no zeros are stored:
  // their size would follow the file's declared batch, which nothing bounds).
  for (int k : {18, 19}) {
    const int t = in[static_cast<size_t>(k)];
    if (t < 0 || !IsConst(t)) {
      ins.push_back(-1);
    } else {
      TARE_ASSIGN_OR_RETURN(Tensor s, ConstFloat(t));
      s.shape.insert(s.shape.begin(), 1);
      ins.push_back(Const(nm + (k == 18 ? "/initial_h" : "/initial_c"), s));
    }
  }
  const bool peep = in[9] >= 0 || in[10] >= 0 || in[11] >= 0;
  if (peep) {
    if (!IsConst(in[9]) || !IsConst(in[10]) || !IsConst(in[11])) return Error("peepholes must all be constants");
    TARE_ASSIGN_OR_RETURN(Tensor P, cat({9, 11, 10}));  // i, o, f
    P.shape = {1, 3 * hidden};
    ins.push_back(Const(nm + "/P", P));
  }
  std::string act = "Tanh";
  switch (o->fused_activation_function()) {
    case tfl::ActivationFunctionType::TANH: act = "Tanh"; break;
    case tfl::ActivationFunctionType::RELU: act = "Relu"; break;
    case tfl::ActivationFunctionType::NONE: return Error("an LSTM without cell activation is not supported");
    default: return Error("this fused activation is not supported for the LSTM");
  }
  const int Y = NewValue(nm + "/Y", DType::kFloat32);
  AddNode("LSTM", nm, ins, {Y},
          {{"hidden_size", IntAttr(hidden)},
           {"activations", [&] {
              Attr a;
              a.kind = Attr::Kind::kStrings;
              a.strings = {"Sigmoid", act, act};
              return a;
            }()}});
  // Y [T, 1, batch, hidden] -> [T, batch, hidden] (-> batch-major).
  int v = Node1("Squeeze", nm + "/squeeze", {Y, ConstI64(nm + "/squeeze/axes", {1})}, time_major ? NameFor(out[0], false) : nm + "/y_time_major",
                DType::kFloat32);
  if (!time_major) v = Node1("Transpose", nm + "/batch_major", {v}, NameFor(out[0], false), DType::kFloat32, {{"perm", IntsAttr({1, 0, 2})}});
  S(out[0]).plain = v;
  return Status::Ok();
}

Shape Converter::DeclaredShape(int t) const {
  const tfl::Tensor* tt = sg_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(t));
  Shape s = S(t).shape;
  if (tt->shape_signature() && tt->shape_signature()->size() == s.size())
    for (size_t d = 0; d < s.size(); ++d)
      if (tt->shape_signature()->Get(static_cast<flatbuffers::uoffset_t>(d)) < 0) s[d] = -1;
  return s;
}

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

namespace {
std::string ActName(tfl::ActivationFunctionType a) {
  switch (a) {
    case tfl::ActivationFunctionType::RELU: return "RELU";
    case tfl::ActivationFunctionType::RELU6: return "RELU6";
    case tfl::ActivationFunctionType::RELU_N1_TO_1: return "RELU_N1_TO_1";
    default: return "NONE";
  }
}
}  // namespace

Status Converter::Quantized(const tfl::Operator& op, int code, bool* handled) {
  *handled = false;
  const std::vector<int> in = Ins(op), out = Outs(op);
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
  if (code == RESHAPE || code == SQUEEZE || code == EXPAND_DIMS || code == TRANSPOSE || code == GATHER || code == SLICE ||
      code == STRIDED_SLICE)
    return Status::Ok();
  std::map<std::string, Attr> a;
  std::vector<int> ins;
  std::string ir;
  TARE_ASSIGN_OR_RETURN(int xv, Plain(x));
  ins.push_back(xv);
  if (!qout) return Error("quantized input with a float output is not supported");
  // The TFLite (NHWC) shapes of the operands are declared: ref64's float truth of a grouped
  // convolution needs the input's channel count before planning.
  if (!g_->values[xv].has_shape) g_->values[xv].shape = DeclaredShape(x), g_->values[xv].has_shape = true;
  TARE_RETURN_IF_ERROR(QuantAttrs(x, "x_scale", "x_zero_point", &a));
  TARE_RETURN_IF_ERROR(QuantAttrs(y, "y_scale", "y_zero_point", &a));
  auto weights = [&](int w, int b) -> Status {
    if (!IsConst(w)) return Error("quantized weights must be constants");
    TARE_RETURN_IF_ERROR(QuantAttrs(w, "w_scales", "w_zero_points", &a, true));
    ins.push_back(Const(TName(w), S(w).data));
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
      ins.push_back(Const(TName(b), S(b).data));
    }
    return Status::Ok();
  };
  switch (code) {
    case CONV_2D:
    case DEPTHWISE_CONV_2D: {
      if (in.size() < 2) return Error("expects inputs (input, filter[, bias])");
      int64_t sh, sw, dh, dw;
      tfl::Padding pad;
      tfl::ActivationFunctionType act;
      if (code == CONV_2D) {
        const auto* o = op.builtin_options_as_Conv2DOptions();
        if (!o) return Error("missing Conv2DOptions");
        sh = o->stride_h(), sw = o->stride_w(), dh = o->dilation_h_factor(), dw = o->dilation_w_factor(), pad = o->padding(),
        act = o->fused_activation_function();
        ir = "QConv2D";
      } else {
        const auto* o = op.builtin_options_as_DepthwiseConv2DOptions();
        if (!o) return Error("missing DepthwiseConv2DOptions");
        sh = o->stride_h(), sw = o->stride_w(), dh = o->dilation_h_factor(), dw = o->dilation_w_factor(), pad = o->padding(),
        act = o->fused_activation_function();
        a["depth_multiplier"] = IntAttr(o->depth_multiplier());
        ir = "QDepthwiseConv2D";
      }
      a["strides"] = IntsAttr({sh, sw});
      a["dilations"] = IntsAttr({dh, dw});
      a["padding"] = StrAttr(pad == tfl::Padding::SAME ? "SAME" : "VALID");
      a["activation"] = StrAttr(ActName(act));
      TARE_RETURN_IF_ERROR(weights(in[1], in.size() > 2 ? in[2] : -1));
      break;
    }
    case FULLY_CONNECTED: {
      if (in.size() < 2) return Error("expects inputs (input, weights[, bias])");
      const auto* o = op.builtin_options_as_FullyConnectedOptions();
      const auto act = o ? o->fused_activation_function() : tfl::ActivationFunctionType::NONE;
      if (!Applied(act) && act != tfl::ActivationFunctionType::NONE) return Error("this fused activation is not supported");
      a["activation"] = StrAttr(ActName(act));
      a["keep_num_dims"] = IntAttr(o && o->keep_num_dims() ? 1 : 0);
      ir = "QFullyConnected";
      TARE_RETURN_IF_ERROR(weights(in[1], in.size() > 2 ? in[2] : -1));
      break;
    }
    case ADD:
    case MUL: {
      if (in.size() != 2 || !IsQuant(in[1])) return Error("expects two quantized inputs");
      TARE_RETURN_IF_ERROR(QuantAttrs(in[1], "x2_scale", "x2_zero_point", &a));
      TARE_ASSIGN_OR_RETURN(int x2, Plain(in[1]));
      ins.push_back(x2);
      tfl::ActivationFunctionType act = tfl::ActivationFunctionType::NONE;
      if (code == ADD) {
        const auto* o = op.builtin_options_as_AddOptions();
        if (o) act = o->fused_activation_function(), a["pot_scale_int16"] = IntAttr(o->pot_scale_int16() ? 1 : 0);
        ir = "QAdd";
      } else {
        const auto* o = op.builtin_options_as_MulOptions();
        if (o) act = o->fused_activation_function();
        ir = "QMul";
      }
      a["activation"] = StrAttr(ActName(act));
      break;
    }
    case AVERAGE_POOL_2D:
    case MAX_POOL_2D: {
      const auto* o = op.builtin_options_as_Pool2DOptions();
      if (!o) return Error("missing Pool2DOptions");
      a["kernel_shape"] = IntsAttr({o->filter_height(), o->filter_width()});
      a["strides"] = IntsAttr({o->stride_h(), o->stride_w()});
      a["padding"] = StrAttr(o->padding() == tfl::Padding::SAME ? "SAME" : "VALID");
      a["activation"] = StrAttr(ActName(o->fused_activation_function()));
      ir = code == MAX_POOL_2D ? "QMaxPool2D" : "QAveragePool2D";
      break;
    }
    case SOFTMAX: {
      const auto* o = op.builtin_options_as_SoftmaxOptions();
      a["beta"] = FloatAttr(o ? o->beta() : 1.0f);
      ir = "QSoftmax";
      break;
    }
    case LOGISTIC: ir = "QLogistic"; break;
    default: return Error("the quantized form is not supported");
  }
  const Shape ys = DeclaredShape(y);
  S(y).plain = NewValue(NameFor(y, false), S(y).dtype, &ys);
  AddNode(ir, OpName(y), ins, {S(y).plain}, a);
  g_->nodes.back().domain = "tflite";
  *handled = true;
  return Status::Ok();
}

Status Converter::ConvertOp(size_t index, const tfl::Operator& op, int code, int version, const std::string& custom) {
  (void)index;
  (void)version;
  const std::vector<int> in = Ins(op), out = Outs(op);
  absent_ = TState();
  for (int t : in)
    if (t >= static_cast<int>(ts_.size()) || t < -1) return Error("input tensor index " + std::to_string(t) + " is out of range");
  for (int t : out)
    if (t < 0 || t >= static_cast<int>(ts_.size())) return Error("output tensor index " + std::to_string(t) + " is out of range");
  for (int t : out)
    if (S(t).is_const || S(t).plain >= 0 || S(t).nchw >= 0) return Error("writes tensor " + std::to_string(t) + ", which already has a value");
  auto need = [&](size_t n_in, size_t n_out) -> Status {
    if (in.size() < n_in || out.size() != n_out || std::any_of(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(n_in), [](int t) { return t < 0; }))
      return Error("expects " + std::to_string(n_in) + " input(s) and " + std::to_string(n_out) + " output(s)");
    return Status::Ok();
  };
  using A = tfl::ActivationFunctionType;
  bool handled = false;
  TARE_RETURN_IF_ERROR(Quantized(op, code, &handled));
  if (handled) return Status::Ok();
  switch (code) {
    case CONV_2D: return Conv(op, false);
    case DEPTHWISE_CONV_2D: return Conv(op, true);
    case AVERAGE_POOL_2D: return Pool(op, false);
    case MAX_POOL_2D: return Pool(op, true);
    case ADD: {
      const auto* o = op.builtin_options_as_AddOptions();
      return Binary(op, "Add", o ? o->fused_activation_function() : A::NONE);
    }
    case SUB: {
      const auto* o = op.builtin_options_as_SubOptions();
      return Binary(op, "Sub", o ? o->fused_activation_function() : A::NONE);
    }
    case MUL: {
      const auto* o = op.builtin_options_as_MulOptions();
      return Binary(op, "Mul", o ? o->fused_activation_function() : A::NONE);
    }
    case DIV: {
      const auto* o = op.builtin_options_as_DivOptions();
      return Binary(op, "Div", o ? o->fused_activation_function() : A::NONE);
    }
    case MAXIMUM: return Binary(op, "Max", A::NONE);
    case MINIMUM: return Binary(op, "Min", A::NONE);
    case PRELU: return Binary(op, "PRelu", A::NONE);
    case RELU: return Unary(op, "Relu");
    case RELU6:
    case RELU_N1_TO_1: {
      const std::string nm = OpName(out.empty() ? 0 : out[0]);
      const float lo = code == RELU6 ? 0.f : -1.f, hi = code == RELU6 ? 6.f : 1.f;
      return Unary(op, "Clip", {}, {Const(nm + "/min", Float32Scalar(lo)), Const(nm + "/max", Float32Scalar(hi))});
    }
    case TANH: return Unary(op, "Tanh");
    case LOGISTIC: return Unary(op, "Sigmoid");
    case HARD_SWISH: return Unary(op, "HardSwish");
    case EXP: return Unary(op, "Exp");
    case SQRT: return Unary(op, "Sqrt");
    case ABS: return Unary(op, "Abs");
    case NEG: return Unary(op, "Neg");
    case RSQRT: {
      TARE_RETURN_IF_ERROR(need(1, 1));
      const bool nchw = HasNchw(in[0]);
      TARE_ASSIGN_OR_RETURN(int xv, nchw ? Nchw(in[0]) : Plain(in[0]));
      const int s = Node1("Sqrt", OpName(out[0]) + "/sqrt", {xv}, OpName(out[0]) + "/sqrt", DType::kFloat32);
      const int y = NewValue(NameFor(out[0], nchw), DType::kFloat32);
      AddNode("Reciprocal", OpName(out[0]), {s}, {y});
      return SetOutput(out[0], y, nchw, A::NONE);
    }
    case SQUARE: {
      TARE_RETURN_IF_ERROR(need(1, 1));
      const bool nchw = HasNchw(in[0]);
      TARE_ASSIGN_OR_RETURN(int xv, nchw ? Nchw(in[0]) : Plain(in[0]));
      const int y = NewValue(NameFor(out[0], nchw), S(out[0]).dtype);
      AddNode("Mul", OpName(out[0]), {xv, xv}, {y});
      return SetOutput(out[0], y, nchw, A::NONE);
    }
    case LEAKY_RELU: {
      const auto* o = op.builtin_options_as_LeakyReluOptions();
      return Unary(op, "LeakyRelu", {{"alpha", FloatAttr(o ? o->alpha() : 0.0f)}});
    }
    case DEQUANTIZE: {
      TARE_RETURN_IF_ERROR(need(1, 1));
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
    case DENSIFY: {
      TARE_RETURN_IF_ERROR(need(1, 1));
      if (!IsConst(in[0])) return Error("the input must be a constant (sparse weights)");
      S(out[0]).is_const = true;
      S(out[0]).data = S(in[0]).data;  // already dense: sparse buffers are densified when read
      return Status::Ok();
    }
    case CAST: {
      TARE_RETURN_IF_ERROR(need(1, 1));
      TARE_ASSIGN_OR_RETURN(int xv, Plain(in[0]));
      S(out[0]).plain = Node1("Cast", OpName(out[0]), {xv}, NameFor(out[0], false), S(out[0]).dtype,
                                {{"to", IntAttr(static_cast<int>(S(out[0]).dtype))}});
      return Status::Ok();
    }
    case PAD:
    case PADV2: {
      TARE_RETURN_IF_ERROR(need(2, 1));
      TARE_ASSIGN_OR_RETURN(std::vector<int64_t> p, ConstInts(in[1], "paddings"));
      const size_t r = static_cast<size_t>(Rank(in[0]));
      if (p.size() != 2 * r) return Error("paddings must have shape [rank, 2]");
      const bool nchw = r == 4 && HasNchw(in[0]);
      std::vector<int64_t> pads(2 * r);
      for (size_t d = 0; d < r; ++d) {
        const size_t id = nchw ? static_cast<size_t>(NhwcAxisToNchw(static_cast<int64_t>(d))) : d;
        pads[id] = p[2 * d];
        pads[r + id] = p[2 * d + 1];
      }
      TARE_ASSIGN_OR_RETURN(int xv, nchw ? Nchw(in[0]) : Plain(in[0]));
      const std::string nm = OpName(out[0]);
      std::vector<int> ins = {xv, ConstI64(nm + "/pads", pads)};
      if (code == PADV2 && in.size() > 2 && in[2] >= 0) {
        TARE_ASSIGN_OR_RETURN(int cv, Plain(in[2]));
        ins.push_back(cv);
      }
      const int y = NewValue(NameFor(out[0], nchw), S(out[0]).dtype);
      AddNode("Pad", nm, ins, {y}, {{"mode", StrAttr("constant")}});
      return SetOutput(out[0], y, nchw, A::NONE);
    }
    case RESHAPE: {
      if (in.empty() || out.size() != 1) return Error("expects an input and one output");
      std::vector<int64_t> shape;
      if (in.size() > 1 && in[1] >= 0 && IsConst(in[1])) {
        TARE_ASSIGN_OR_RETURN(shape, ConstInts(in[1], "shape"));
      } else if (const auto* o = op.builtin_options_as_ReshapeOptions(); o && o->new_shape()) {
        shape.assign(o->new_shape()->begin(), o->new_shape()->end());
      } else {
        shape.assign(S(out[0]).shape.begin(), S(out[0]).shape.end());
      }
      TARE_ASSIGN_OR_RETURN(int xv, Plain(in[0]));
      const std::string nm = OpName(out[0]);
      S(out[0]).plain = Node1("Reshape", nm, {xv, ConstI64(nm + "/shape", shape)}, NameFor(out[0], false), S(out[0]).dtype,
                                {{"allowzero", IntAttr(1)}});
      return Status::Ok();
    }
    case SQUEEZE: {
      TARE_RETURN_IF_ERROR(need(1, 1));
      const auto* o = op.builtin_options_as_SqueezeOptions();
      std::vector<int64_t> axes;
      if (o && o->squeeze_dims()) axes.assign(o->squeeze_dims()->begin(), o->squeeze_dims()->end());
      TARE_ASSIGN_OR_RETURN(int xv, Plain(in[0]));
      const std::string nm = OpName(out[0]);
      std::vector<int> ins = {xv};
      if (!axes.empty()) ins.push_back(ConstI64(nm + "/axes", axes));
      S(out[0]).plain = Node1("Squeeze", nm, ins, NameFor(out[0], false), S(out[0]).dtype);
      return Status::Ok();
    }
    case EXPAND_DIMS: {
      TARE_RETURN_IF_ERROR(need(2, 1));
      TARE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ConstInts(in[1], "axis"));
      TARE_ASSIGN_OR_RETURN(int xv, Plain(in[0]));
      const std::string nm = OpName(out[0]);
      S(out[0]).plain = Node1("Unsqueeze", nm, {xv, ConstI64(nm + "/axes", axes)}, NameFor(out[0], false), S(out[0]).dtype);
      return Status::Ok();
    }
    case TRANSPOSE: {
      TARE_RETURN_IF_ERROR(need(2, 1));
      TARE_ASSIGN_OR_RETURN(std::vector<int64_t> perm, ConstInts(in[1], "perm"));
      TARE_ASSIGN_OR_RETURN(int xv, Plain(in[0]));
      S(out[0]).plain = Node1("Transpose", OpName(out[0]), {xv}, NameFor(out[0], false), S(out[0]).dtype, {{"perm", IntsAttr(perm)}});
      return Status::Ok();
    }
    case CONCATENATION: {
      if (in.empty() || out.size() != 1) return Error("expects inputs and one output");
      const auto* o = op.builtin_options_as_ConcatenationOptions();
      if (!o) return Error("missing ConcatenationOptions");
      int64_t axis = o->axis();
      const int64_t r = Rank(out[0]);
      if (axis < -r || axis >= r) return Error("axis " + std::to_string(axis) + " is out of range");
      if (axis < 0) axis += r;
      bool nchw = r == 4;
      bool any_nchw = false;
      for (int t : in) {
        if (t < 0) return Error("an input is missing");
        nchw = nchw && Rank(t) == 4;
        any_nchw = any_nchw || HasNchw(t);
      }
      nchw = nchw && any_nchw;
      std::vector<int> ins;
      for (int t : in) {
        TARE_ASSIGN_OR_RETURN(int v, nchw ? Nchw(t) : Plain(t));
        ins.push_back(v);
      }
      const auto act = o->fused_activation_function();
      if (act != A::NONE) return Error("a fused activation on CONCATENATION (TFLite's kernel refuses it) is not supported");
      const int core = OutValue(out[0], nchw, act);
      AddNode("Concat", OpName(out[0]), ins, {core}, {{"axis", IntAttr(nchw ? NhwcAxisToNchw(axis) : axis)}});
      return SetOutput(out[0], core, nchw, act);
    }
    case RESIZE_BILINEAR:
    case RESIZE_NEAREST_NEIGHBOR: {
      TARE_RETURN_IF_ERROR(need(2, 1));
      TARE_ASSIGN_OR_RETURN(std::vector<int64_t> size, ConstInts(in[1], "size"));
      if (size.size() != 2 || Rank(in[0]) != 4) return Error("expects a rank-4 input and size [new_height, new_width]");
      bool align = false, half = false;
      if (code == RESIZE_BILINEAR) {
        if (const auto* o = op.builtin_options_as_ResizeBilinearOptions()) align = o->align_corners(), half = o->half_pixel_centers();
      } else if (const auto* o = op.builtin_options_as_ResizeNearestNeighborOptions()) {
        align = o->align_corners(), half = o->half_pixel_centers();
      }
      if (align && half) return Error("align_corners and half_pixel_centers cannot both be set");
      std::map<std::string, Attr> attrs;
      if (code == RESIZE_BILINEAR) {
        // TFLite RESIZE_BILINEAR v3: in = out * scale (legacy), align_corners, or
        // (out + 0.5) * scale - 0.5 clamped at 0 (half_pixel_centers) = ONNX half_pixel.
        attrs["mode"] = StrAttr("linear");
        attrs["coordinate_transformation_mode"] = StrAttr(align ? "align_corners" : half ? "half_pixel" : "asymmetric");
      } else {
        // TFLite RESIZE_NEAREST_NEIGHBOR: floor(out * scale) (legacy), round(out * scale) half away
        // from zero (align_corners), floor((out + 0.5) * scale) (half_pixel_centers).
        attrs["mode"] = StrAttr("nearest");
        attrs["coordinate_transformation_mode"] = StrAttr(align ? "align_corners" : half ? "tf_half_pixel_for_nn" : "asymmetric");
        attrs["nearest_mode"] = StrAttr(align ? "round_prefer_ceil" : "floor");
      }
      TARE_ASSIGN_OR_RETURN(int xv, Nchw(in[0]));
      const std::string nm = OpName(out[0]);
      const Shape& xs = S(in[0]).shape;
      const int y = NewValue(NameFor(out[0], true), S(out[0]).dtype);
      AddNode("Resize", nm, {xv, -1, -1, ConstI64(nm + "/sizes", {xs[0], xs[3], size[0], size[1]})}, {y}, attrs);
      return SetOutput(out[0], y, true, A::NONE);
    }
    case DEPTH_TO_SPACE:
    case SPACE_TO_DEPTH: {
      TARE_RETURN_IF_ERROR(need(1, 1));
      int64_t bs = 0;
      if (code == DEPTH_TO_SPACE) {
        if (const auto* o = op.builtin_options_as_DepthToSpaceOptions()) bs = o->block_size();
      } else if (const auto* o = op.builtin_options_as_SpaceToDepthOptions()) {
        bs = o->block_size();
      }
      if (bs < 1) return Error("block_size must be >= 1");
      TARE_ASSIGN_OR_RETURN(int xv, Nchw(in[0]));
      const int y = NewValue(NameFor(out[0], true), S(out[0]).dtype);
      // TensorFlow's channel order (i * bs + j) * C + c is ONNX's DCR mode (and SpaceToDepth's).
      std::map<std::string, Attr> attrs = {{"blocksize", IntAttr(bs)}};
      if (code == DEPTH_TO_SPACE) attrs["mode"] = StrAttr("DCR");
      AddNode(code == DEPTH_TO_SPACE ? "DepthToSpace" : "SpaceToDepth", OpName(out[0]), {xv}, {y}, attrs);
      return SetOutput(out[0], y, true, A::NONE);
    }
    case MEAN: return Reduce(op, "ReduceMean");
    case SUM: return Reduce(op, "ReduceSum");
    case REDUCE_MAX: return Reduce(op, "ReduceMax");
    case REDUCE_MIN: return Reduce(op, "ReduceMin");
    case FULLY_CONNECTED: return FullyConnected(op);
    case SOFTMAX:
    case LOG_SOFTMAX: {
      TARE_RETURN_IF_ERROR(need(1, 1));
      float beta = 1;
      if (code == SOFTMAX)
        if (const auto* o = op.builtin_options_as_SoftmaxOptions()) beta = o->beta();
      const bool nchw = Rank(in[0]) == 4 && HasNchw(in[0]);
      TARE_ASSIGN_OR_RETURN(int xv, nchw ? Nchw(in[0]) : Plain(in[0]));
      const std::string nm = OpName(out[0]);
      if (beta != 1) xv = Node1("Mul", nm + "/beta", {xv, Const(nm + "/beta", Float32Scalar(beta))}, nm + "/scaled", DType::kFloat32);
      const int y = NewValue(NameFor(out[0], nchw), S(out[0]).dtype);
      AddNode(code == SOFTMAX ? "Softmax" : "LogSoftmax", nm, {xv}, {y}, {{"axis", IntAttr(nchw ? 1 : -1)}});
      return SetOutput(out[0], y, nchw, A::NONE);
    }
    case L2_NORMALIZATION: {
      // TFLite L2_NORMALIZATION over the last axis: x / max(sqrt(sum x^2), 1e-6).
      TARE_RETURN_IF_ERROR(need(1, 1));
      const bool nchw = Rank(in[0]) == 4 && HasNchw(in[0]);
      TARE_ASSIGN_OR_RETURN(int xv, nchw ? Nchw(in[0]) : Plain(in[0]));
      const std::string nm = OpName(out[0]);
      const int64_t axis = nchw ? 1 : Rank(in[0]) - 1;
      const int ss = Node1("ReduceSumSquare", nm + "/sum_squares", {xv}, nm + "/sum_squares", DType::kFloat32,
                           {{"axes", IntsAttr({axis})}, {"keepdims", IntAttr(1)}});
      const int n = Node1("Sqrt", nm + "/norm", {ss}, nm + "/norm", DType::kFloat32);
      const int m = Node1("Max", nm + "/clamp", {n, Const(nm + "/epsilon", Float32Scalar(1e-6f))}, nm + "/clamped", DType::kFloat32);
      const auto* o = op.builtin_options_as_L2NormOptions();
      const auto act = o ? o->fused_activation_function() : A::NONE;
      const int y = OutValue(out[0], nchw, act);
      AddNode("Div", nm, {xv, m}, {y});
      return SetOutput(out[0], y, nchw, act);
    }
    case GATHER: {
      TARE_RETURN_IF_ERROR(need(2, 1));
      const auto* o = op.builtin_options_as_GatherOptions();
      if (o && o->batch_dims() != 0) return Error("batch_dims != 0 is not supported");
      TARE_ASSIGN_OR_RETURN(int xv, Plain(in[0]));
      TARE_ASSIGN_OR_RETURN(int iv, Plain(in[1]));
      S(out[0]).plain = Node1("Gather", OpName(out[0]), {xv, iv}, NameFor(out[0], false), S(out[0]).dtype,
                                {{"axis", IntAttr(o ? o->axis() : 0)}});
      return Status::Ok();
    }
    case SLICE: {
      TARE_RETURN_IF_ERROR(need(3, 1));
      TARE_ASSIGN_OR_RETURN(std::vector<int64_t> begin, ConstInts(in[1], "begin"));
      TARE_ASSIGN_OR_RETURN(std::vector<int64_t> size, ConstInts(in[2], "size"));
      if (begin.size() != size.size() || begin.size() != static_cast<size_t>(Rank(in[0]))) return Error("begin and size must have one value per dim");
      std::vector<int64_t> ends(begin.size()), axes(begin.size());
      for (size_t i = 0; i < begin.size(); ++i) {
        ends[i] = size[i] == -1 ? INT64_MAX : begin[i] + size[i];
        axes[i] = static_cast<int64_t>(i);
      }
      TARE_ASSIGN_OR_RETURN(int xv, Plain(in[0]));
      const std::string nm = OpName(out[0]);
      S(out[0]).plain = Node1("Slice", nm, {xv, ConstI64(nm + "/starts", begin), ConstI64(nm + "/ends", ends), ConstI64(nm + "/axes", axes)},
                                NameFor(out[0], false), S(out[0]).dtype);
      return Status::Ok();
    }
    case STRIDED_SLICE: return StridedSlice(op);
    case PACK: {
      const auto* o = op.builtin_options_as_PackOptions();
      if (in.empty() || out.size() != 1 || !o) return Error("expects inputs, one output and PackOptions");
      const int64_t r = Rank(out[0]);
      int64_t axis = o->axis();
      if (axis < -r || axis >= r) return Error("axis is out of range");
      if (axis < 0) axis += r;
      const std::string nm = OpName(out[0]);
      std::vector<int> parts;
      const int ax = ConstI64(nm + "/axis", {axis});
      for (size_t k = 0; k < in.size(); ++k) {
        TARE_ASSIGN_OR_RETURN(int v, Plain(in[k]));
        parts.push_back(Node1("Unsqueeze", nm + "/unsqueeze_" + std::to_string(k), {v, ax}, nm + "/part_" + std::to_string(k), S(out[0]).dtype));
      }
      S(out[0]).plain = Node1("Concat", nm, parts, NameFor(out[0], false), S(out[0]).dtype, {{"axis", IntAttr(axis)}});
      return Status::Ok();
    }
    case UNPACK:
    case SPLIT: {
      const int x = code == UNPACK ? (in.empty() ? -1 : in[0]) : (in.size() < 2 ? -1 : in[1]);
      if (x < 0 || out.empty()) return Error("expects an input and outputs");
      int64_t axis = 0;
      if (code == UNPACK) {
        const auto* o = op.builtin_options_as_UnpackOptions();
        axis = o ? o->axis() : 0;
      } else {
        TARE_ASSIGN_OR_RETURN(std::vector<int64_t> a, ConstInts(in[0], "axis"));
        if (a.size() != 1) return Error("axis must have one value");
        axis = a[0];
      }
      const int64_t r = Rank(x);
      if (axis < -r || axis >= r) return Error("axis is out of range");
      if (axis < 0) axis += r;
      const int64_t n = static_cast<int64_t>(out.size());
      if (S(x).shape[static_cast<size_t>(axis)] % n) return Error("the axis does not divide evenly into the outputs");
      const std::string nm = OpName(out[0]);
      TARE_ASSIGN_OR_RETURN(int xv, Plain(x));
      std::vector<int> outs;
      for (int k = 0; k < static_cast<int>(n); ++k)
        outs.push_back(NewValue(code == UNPACK ? nm + "/split_" + std::to_string(k) : NameFor(out[static_cast<size_t>(k)], false),
                                S(x).dtype));
      AddNode("Split", nm + "/split", {xv, ConstI64(nm + "/split/sizes", std::vector<int64_t>(static_cast<size_t>(n), S(x).shape[static_cast<size_t>(axis)] / n))},
              outs, {{"axis", IntAttr(axis)}});
      for (size_t k = 0; k < out.size(); ++k) {
        if (code == UNPACK)
          outs[k] = Node1("Squeeze", nm + "/squeeze_" + std::to_string(k), {outs[k], ConstI64(nm + "/squeeze_" + std::to_string(k) + "/axes", {axis})},
                          NameFor(out[k], false), S(x).dtype);
        S(out[k]).plain = outs[k];
      }
      return Status::Ok();
    }
    case BATCH_MATMUL: {
      TARE_RETURN_IF_ERROR(need(2, 1));
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
    case TRANSPOSE_CONV: {
      // Inputs: output_shape, weights [O, KH, KW, I], input, bias (optional, v3+).
      if (in.size() < 3 || out.size() != 1) return Error("expects inputs (output_shape, weights, input[, bias]) and one output");
      const auto* o = op.builtin_options_as_TransposeConvOptions();
      if (!o) return Error("missing TransposeConvOptions");
      return TransposeConv(op, in[2], in[1], in.size() > 3 ? in[3] : -1, out[0], o->stride_h(), o->stride_w(),
                           o->padding() == tfl::Padding::SAME, o->fused_activation_function());
    }
    case UNIDIRECTIONAL_SEQUENCE_LSTM: return Lstm(op);
    case CUSTOM: {
      if (custom == "Convolution2DTransposeBias") {
        // MediaPipe's custom op: inputs (input, weights [O, KH, KW, I], bias [O]); custom_options
        // are TfLiteTransposeConvParams {int32 padding (1 = SAME, 2 = VALID), stride_w, stride_h}.
        if (in.size() != 3 || out.size() != 1) return Error("expects inputs (input, weights, bias) and one output");
        const auto* co = op.custom_options();
        if (!co || co->size() < 12) return Error("custom_options must hold 3 int32 (padding, stride_w, stride_h)");
        int32_t p[3];
        std::memcpy(p, co->data(), 12);
        if (p[0] != 1 && p[0] != 2) return Error("padding " + std::to_string(p[0]) + " is neither SAME (1) nor VALID (2)");
        return TransposeConv(op, in[0], in[1], in[2], out[0], p[2], p[1], p[0] == 1, A::NONE);
      }
      return Error("custom op '" + custom + "' is not supported");
    }
    default: break;
  }
  return Error("is not supported");
}

Status Converter::Run(Graph* out) {
  g_ = out;
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
    Status st = ConvertOp(i, *op, code, oc->version(), custom);
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
    return Status::Error(file_ + ": " + std::to_string(n_unsupported) + " unsupported operator(s): " + unsupported);
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

}  // namespace

Result<std::shared_ptr<Model>> ConvertTfliteBytes(const uint8_t* data, size_t size, const std::string& name) {
  if (size == 0) return Status::Error("'" + name + "' is empty");
  auto model = std::make_shared<Model>();
  Provenance& p = model->provenance;
  p.source_format = "tflite";
  p.source_file = BaseName(name);
  p.source_sha256 = Sha256Hex(data, size);
  p.producer_name = "tflite";
  p.tare_version = TARE_VERSION;
  Converter c(data, size, BaseName(name));
  TARE_RETURN_IF_ERROR(c.Run(&model->graph));
  return model;
}

Result<std::shared_ptr<Model>> ConvertTfliteFile(const std::string& path) {
  TARE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadRegularFile(path));
  return ConvertTfliteBytes(bytes.data(), bytes.size(), path);
}

}  // namespace tare
