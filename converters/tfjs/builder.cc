#include "converters/tfjs/builder.h"

#include <algorithm>
#include <cstring>

// The NHWC/NCHW value tracking and the ops both TF.js model kinds share (builder.h).

namespace tare {
namespace tfjs {


// ---- tensors ----------------------------------------------------------------------------------

int Builder::Rank(const std::string& t) const {
  auto it = ts_.find(t);
  return it == ts_.end() ? -1 : it->second.rank;
}
int64_t Builder::Len(const std::string& t) const {
  auto it = ts_.find(t);
  if (it == ts_.end() || it->second.rank != 1) return -1;
  if (it->second.is_const) return it->second.data.numel();
  return it->second.len;
}
bool Builder::IsConst(const std::string& t) const {
  auto it = ts_.find(t);
  return it != ts_.end() && it->second.is_const;
}
bool Builder::HasNchw(const std::string& t) const {
  auto it = ts_.find(t);
  return it != ts_.end() && it->second.nchw >= 0;
}

std::string Builder::NameFor(const std::string& t, bool nchw) const {
  const bool io = outputs_.count(t) || inputs_.count(t);
  if (nchw) return io ? t + "/nchw" : t;  // an NCHW value is rank 4 (t's rank may not be recorded yet)
  // A plain value: the copy of an NCHW one is `/nhwc`; a tensor held only plain keeps its name.
  return Rank(t) == 4 && !io && HasNchw(t) ? t + "/nhwc" : t;
}

int Builder::AddInput(const std::string& t, DType dt, const Shape& shape) {
  inputs_.insert(t);
  TState& s = ts_[t];
  s.rank = static_cast<int>(shape.size());
  s.dtype = dt;
  s.plain = NewValue(t, dt, &shape);
  g_->inputs.push_back(s.plain);
  return s.plain;
}

int Builder::AddFormalInput(const std::string& t, const TState& like) {
  inputs_.insert(t);
  TState& s = ts_[t];
  s = TState();
  s.rank = like.rank;
  s.dtype = like.dtype;
  s.kind = like.kind;
  const Shape shape(static_cast<size_t>(std::max(like.rank, 0)), -1);
  s.plain = NewValue(t, like.dtype, like.rank >= 0 && like.kind == ValueKind::kTensor ? &shape : nullptr);
  g_->values[static_cast<size_t>(s.plain)].kind = like.kind;
  g_->inputs.push_back(s.plain);
  return s.plain;
}

void Builder::SetSeq(const std::string& t, int v, DType dt) {
  Set(t, v, false, -1, dt);
  ts_[t].kind = ValueKind::kSequence;
  g_->values[static_cast<size_t>(v)].kind = ValueKind::kSequence;
}

void Builder::SetConst(const std::string& t, Tensor data) {
  TState& s = ts_[t];
  s = TState();
  s.is_const = true;
  s.rank = static_cast<int>(data.shape.size());
  s.dtype = data.dtype;
  s.data = std::move(data);
}

Status Builder::Alias(const std::string& t, const std::string& src) {
  if (!Known(src)) return Error("reads '" + src + "', which nothing writes");
  ts_[t] = ts_[src];
  return Status::Ok();
}

Result<int> Builder::Plain(const std::string& t) {
  if (!Known(t)) return Error("reads '" + t + "', which nothing writes");
  TState& s = ts_[t];
  if (s.plain >= 0) return s.plain;
  if (s.is_const) {
    s.plain = Const(NameFor(t, false), s.data);
    return s.plain;
  }
  if (s.nchw < 0) return Error("reads '" + t + "', which has no value");
  s.plain = Node1("Transpose", NameFor(t, false), {s.nchw}, NameFor(t, false), s.dtype, {{"perm", IntsAttr(kToNhwc)}});
  return s.plain;
}

Result<int> Builder::Nchw(const std::string& t) {
  if (!Known(t)) return Error("reads '" + t + "', which nothing writes");
  TState& s = ts_[t];
  if (s.nchw >= 0) return s.nchw;
  if (s.rank != 4) return Error("'" + t + "' must have rank 4 (NHWC), has " + (s.rank < 0 ? std::string("an unknown rank") : "rank " + std::to_string(s.rank)));
  if (s.is_const) {
    s.nchw = Const(NameFor(t, true), PermuteTensor(s.data, kToNchw));
    return s.nchw;
  }
  if (s.plain < 0) return Error("reads '" + t + "', which has no value");
  s.nchw = Node1("Transpose", NameFor(t, true), {s.plain}, NameFor(t, true), s.dtype, {{"perm", IntsAttr(kToNchw)}});
  return s.nchw;
}

void Builder::Set(const std::string& t, int v, bool nchw, int rank, DType dt) {
  TState& s = ts_[t];
  s = TState();
  s.rank = rank;
  s.dtype = dt;
  (nchw ? s.nchw : s.plain) = v;
}

Result<Tensor> Builder::ConstFloat(const std::string& t, const char* what) {
  if (!IsConst(t)) return Error(std::string(what) + " '" + t + "' must be a constant");
  const Tensor& d = ts_[t].data;
  if (d.dtype == DType::kFloat32) return d;
  return ConvertTensor(d, DType::kFloat32);
}

Result<std::vector<int64_t>> Builder::ConstInts(const std::string& t, const char* what) {
  if (!IsConst(t)) return Error(std::string(what) + " '" + t + "' must be a constant");
  const Tensor& d = ts_[t].data;
  if (d.dtype != DType::kInt32 && d.dtype != DType::kInt64) return Error(std::string(what) + " '" + t + "' must be int32 or int64");
  std::vector<int64_t> v(static_cast<size_t>(d.numel()));
  for (int64_t i = 0; i < d.numel(); ++i) v[static_cast<size_t>(i)] = ReadInt(d, i);
  return v;
}

// ---- IR building ------------------------------------------------------------------------------

// ---- ops --------------------------------------------------------------------------------------

namespace {

/// The ONNX form of a window's padding: auto_pad, or explicit pads [h0, w0, h1, w1].
void PadAttrs(const Padding& pad, std::map<std::string, Attr>* attrs) {
  if (pad.kind == "EXPLICIT") {
    const auto& p = pad.explicit_hw;
    (*attrs)["pads"] = IntsAttr({p[0], p[2], p[1], p[3]});
  } else {
    (*attrs)["auto_pad"] = StrAttr(pad.kind == "SAME" ? "SAME_UPPER" : "VALID");
  }
}

}  // namespace

Status Builder::Activate(const std::string& y, const std::string& x, const Activation& act) {
  if (!Known(x)) return Error("reads '" + x + "', which nothing writes");
  const bool nchw = HasNchw(x);
  TARE_ASSIGN_OR_RETURN(int xv, nchw ? Nchw(x) : Plain(x));
  const int rank = Rank(x);
  const DType dt = S(x).dtype;
  const std::string name = NameFor(y, nchw), node = y + (x == y ? "/" + act.kind : "");
  int v = -1;
  const std::string& k = act.kind;
  if (k.empty()) {
    v = xv;
  } else if (k == "Relu" || k == "Sigmoid" || k == "Tanh" || k == "Softplus" || k == "Softsign" || k == "Selu") {
    v = Node1(k, node, {xv}, name, dt);
  } else if (k == "Elu") {
    v = Node1("Elu", node, {xv}, name, dt, {{"alpha", FloatAttr(1.0f)}});
  } else if (k == "Relu6") {
    v = Node1("Clip", node, {xv, Const(node + "/min", Float32Scalar(0)), Const(node + "/max", Float32Scalar(6))}, name, dt);
  } else if (k == "LeakyRelu") {
    v = Node1("LeakyRelu", node, {xv}, name, dt, {{"alpha", FloatAttr(act.alpha)}});
  } else if (k == "HardSigmoid") {
    v = Node1("HardSigmoid", node, {xv}, name, dt, {{"alpha", FloatAttr(0.2f)}, {"beta", FloatAttr(0.5f)}});
  } else if (k == "Swish") {
    const int s = Node1("Sigmoid", node + "/sigmoid", {xv}, node + "/sigmoid", dt);
    v = Node1("Mul", node, {xv, s}, name, dt);
  } else if (k == "Prelu") {
    int av;
    if (nchw) {
      TARE_ASSIGN_OR_RETURN(av, NchwOperand(act.prelu_alpha));
    } else {
      TARE_ASSIGN_OR_RETURN(av, Plain(act.prelu_alpha));
    }
    v = Node1("PRelu", node, {xv, av}, name, dt);
  } else {
    return Error("activation '" + k + "' is not supported");
  }
  Set(y, v, nchw, rank, dt);
  return Status::Ok();
}

Status Builder::Conv(const std::string& y, const std::string& x, const Tensor& w, const Tensor* bias,
                     std::vector<int64_t> strides, std::vector<int64_t> dilations, const Padding& pad, bool depthwise,
                     const Activation& act) {
  if (w.shape.size() != 4) return Error("the filter must have rank 4 ([KH, KW, I, O]), has shape " + ShapeStr(w.shape));
  if (strides.size() != 2 || dilations.size() != 2 || strides[0] < 1 || strides[1] < 1 || dilations[0] < 1 || dilations[1] < 1)
    return Error("strides and dilations must be two values >= 1");
  if (pad.kind == "EXPLICIT" && pad.explicit_hw.size() != 4) return Error("explicit paddings must give 4 values for H and W");
  const int64_t kh = w.shape[0], kw = w.shape[1], ci = w.shape[2], co = w.shape[3];
  Tensor wf = w.dtype == DType::kFloat32 ? w : ConvertTensor(w, DType::kFloat32).value();
  Tensor wo;
  int64_t group = 1;
  if (depthwise) {
    // [KH, KW, C, M] -> [C*M, 1, KH, KW]: output channel c*M + m reads input channel c.
    Tensor r = wf;
    r.shape = {kh, kw, ci * co};
    wo = PermuteTensor(r, {2, 0, 1});
    wo.shape = {ci * co, 1, kh, kw};
    group = ci;
  } else {
    wo = PermuteTensor(wf, {3, 2, 0, 1});  // HWIO -> OIHW
  }
  const int64_t out_c = depthwise ? ci * co : co;
  if (bias && bias->numel() != out_c) return Error("the bias has " + std::to_string(bias->numel()) + " values for " + std::to_string(out_c) + " output channels");
  TARE_ASSIGN_OR_RETURN(int xv, Nchw(x));
  std::vector<int> ins = {xv, Const(y + "/filter_oihw", wo)};
  if (bias) {
    Tensor b = bias->dtype == DType::kFloat32 ? *bias : ConvertTensor(*bias, DType::kFloat32).value();
    b.shape = {out_c};
    ins.push_back(Const(y + "/bias", b));
  }
  std::map<std::string, Attr> attrs = {{"strides", IntsAttr(strides)}, {"dilations", IntsAttr(dilations)}, {"group", IntAttr(group)},
                                       {"kernel_shape", IntsAttr({kh, kw})}};
  PadAttrs(pad, &attrs);
  const int core = NewValue(act.kind.empty() ? NameFor(y, true) : NameFor(y, true) + "/pre_activation", DType::kFloat32);
  AddNode("Conv", y, ins, {core}, attrs);
  Set(y, core, true, 4);
  return act.kind.empty() ? Status::Ok() : Activate(y, y, act);
}

Status Builder::BatchNorm(const std::string& y, const std::string& x, const Tensor& scale, const Tensor& offset,
                          const Tensor& mean, const Tensor& var, float epsilon, const Activation& act) {
  const int64_t c = mean.numel();
  for (const Tensor* t : {&scale, &offset, &var})
    if (t->numel() != c) return Error("batch normalization parameters must all have " + std::to_string(c) + " values");
  const int r = Rank(x);
  const bool nchw = r == 4;
  if (!nchw && r != 2) return Error("batch normalization of a rank-" + std::to_string(r) + " tensor is not supported (rank 2 or 4)");
  TARE_ASSIGN_OR_RETURN(int xv, nchw ? Nchw(x) : Plain(x));
  std::vector<int> ins = {xv};
  const char* names[] = {"/scale", "/offset", "/mean", "/variance"};
  int k = 0;
  for (const Tensor* t : {&scale, &offset, &mean, &var}) {
    Tensor f = t->dtype == DType::kFloat32 ? *t : ConvertTensor(*t, DType::kFloat32).value();
    f.shape = {c};
    ins.push_back(Const(y + names[k++], f));
  }
  const int core = NewValue(act.kind.empty() ? NameFor(y, nchw) : NameFor(y, nchw) + "/pre_activation", DType::kFloat32);
  AddNode("BatchNormalization", y, ins, {core}, {{"epsilon", FloatAttr(epsilon)}});
  Set(y, core, nchw, r);
  return act.kind.empty() ? Status::Ok() : Activate(y, y, act);
}

Status Builder::Pool(const std::string& y, const std::string& x, bool max, std::vector<int64_t> ksize,
                     std::vector<int64_t> strides, const Padding& pad) {
  if (ksize.size() != 2 || strides.size() != 2 || ksize[0] < 1 || ksize[1] < 1 || strides[0] < 1 || strides[1] < 1)
    return Error("the window and strides must be two values >= 1 for H and W");
  TARE_ASSIGN_OR_RETURN(int xv, Nchw(x));
  std::map<std::string, Attr> attrs = {{"kernel_shape", IntsAttr(ksize)}, {"strides", IntsAttr(strides)}};
  PadAttrs(pad, &attrs);
  const int v = Node1(max ? "MaxPool" : "AveragePool", y, {xv}, NameFor(y, true), S(x).dtype, attrs);
  Set(y, v, true, 4, S(x).dtype);
  return Status::Ok();
}

Status Builder::MatMul(const std::string& y, const std::string& a, const std::string& b, bool ta, bool tb, const Tensor* bias,
                       const Activation& act) {
  auto operand = [&](const std::string& t, bool trans) -> Result<int> {
    if (IsConst(t) && trans) {
      const Tensor& d = S(t).data;
      if (d.shape.size() != 2) return Error("a transposed matrix operand must have rank 2");
      return Const(t + "/transposed", PermuteTensor(d, {1, 0}));
    }
    TARE_ASSIGN_OR_RETURN(int v, Plain(t));
    if (!trans) return v;
    if (Rank(t) != 2) return Error("a transposed matrix operand must have rank 2");
    return Node1("Transpose", t + "/transposed", {v}, t + "/transposed", S(t).dtype, {{"perm", IntsAttr({1, 0})}});
  };
  TARE_ASSIGN_OR_RETURN(int av, operand(a, ta));
  TARE_ASSIGN_OR_RETURN(int bv, operand(b, tb));
  const int ra = Rank(a), rb = Rank(b);
  const int rank = ra < 0 || rb < 0 ? -1 : std::max(ra, rb);
  const bool more = bias || !act.kind.empty();
  int v = Node1("MatMul", y + (bias ? "/matmul" : ""), {av, bv}, more ? y + "/matmul" : NameFor(y, false), DType::kFloat32);
  if (bias) {
    Tensor bf = bias->dtype == DType::kFloat32 ? *bias : ConvertTensor(*bias, DType::kFloat32).value();
    v = Node1("Add", y, {v, Const(y + "/bias", bf)}, act.kind.empty() ? NameFor(y, false) : y + "/pre_activation", DType::kFloat32);
  }
  Set(y, v, false, rank);
  return act.kind.empty() ? Status::Ok() : Activate(y, y, act);
}

bool Builder::UseNchw(const std::vector<std::string>& ins) const {
  bool any = false;
  for (const std::string& t : ins) {
    if (HasNchw(t)) any = true;
    else if (IsConst(t)) {
      if (Rank(t) > 4) return false;
    } else if (Rank(t) != 4) {
      return false;
    }
  }
  return any;
}

Result<int> Builder::NchwOperand(const std::string& t) {
  if (!IsConst(t) || Rank(t) == 4) return Nchw(t);
  Tensor c = S(t).data;
  if (c.shape.size() > 4) return Error("'" + t + "' has rank " + std::to_string(c.shape.size()) + " against a rank-4 tensor");
  Shape s4(4 - c.shape.size(), 1);
  s4.insert(s4.end(), c.shape.begin(), c.shape.end());
  c.shape = s4;
  return Const(t + "/nchw", PermuteTensor(c, kToNchw));
}

Status Builder::Elementwise(const std::string& y, const std::string& ir_op, const std::vector<std::string>& ins,
                            std::map<std::string, Attr> attrs, DType out_dt) {
  const bool nchw = UseNchw(ins);
  std::vector<int> vs;
  int rank = 0;
  DType dt = DType::kUndefined;
  for (const std::string& t : ins) {
    if (!Known(t)) return Error("reads '" + t + "', which nothing writes");
    if (nchw) {
      TARE_ASSIGN_OR_RETURN(int v, NchwOperand(t));
      vs.push_back(v);
    } else {
      TARE_ASSIGN_OR_RETURN(int v, Plain(t));
      vs.push_back(v);
    }
    rank = rank < 0 || Rank(t) < 0 ? -1 : std::max(rank, Rank(t));
    if (dt == DType::kUndefined || !IsConst(t)) dt = S(t).dtype;
  }
  if (out_dt != DType::kUndefined) dt = out_dt;
  const int v = Node1(ir_op, y, vs, NameFor(y, nchw), dt, std::move(attrs));
  Set(y, v, nchw, nchw ? 4 : rank, dt);
  return Status::Ok();
}

Status Builder::Reduce(const std::string& y, const std::string& x, const std::string& ir_op, std::vector<int64_t> axes, bool keep) {
  const int r = Rank(x);
  if (r < 0) return Error("a reduction needs its input's rank, which is not known here");
  std::set<int64_t> red;
  for (int64_t a : axes) {
    if (a < -r || a >= r) return Error("axis " + std::to_string(a) + " is out of range for rank " + std::to_string(r));
    red.insert(a < 0 ? a + r : a);
  }
  bool nchw = HasNchw(x) && r == 4;
  if (nchw && !keep) nchw = KeptDimsInNchwOrder(red);
  std::vector<int64_t> ir_axes;
  for (int64_t a : red) ir_axes.push_back(nchw ? NhwcAxisToNchw(a) : a);
  std::sort(ir_axes.begin(), ir_axes.end());
  TARE_ASSIGN_OR_RETURN(int xv, nchw ? Nchw(x) : Plain(x));
  const bool out_nchw = nchw && keep;
  const int out_rank = keep ? r : r - static_cast<int>(red.size());
  std::map<std::string, Attr> attrs = {{"keepdims", IntAttr(keep ? 1 : 0)}};
  std::vector<int> ins = {xv};
  if (ir_op == "ReduceSum") {
    ins.push_back(ConstI64(y + "/axes", ir_axes));
    if (ir_axes.empty()) attrs["noop_with_empty_axes"] = IntAttr(1);
  } else {
    if (ir_axes.empty()) return Alias(y, x);
    attrs["axes"] = IntsAttr(ir_axes);
  }
  const std::string name = out_nchw ? NameFor(y, true) : (out_rank == 4 && !keep ? y : NameFor(y, false));
  const int v = Node1(ir_op, y, ins, name, S(x).dtype, attrs);
  Set(y, v, out_nchw, out_rank, S(x).dtype);
  return Status::Ok();
}

Status Builder::Softmax(const std::string& y, const std::string& x, bool log) {
  const bool nchw = Rank(x) == 4 && HasNchw(x);
  TARE_ASSIGN_OR_RETURN(int xv, nchw ? Nchw(x) : Plain(x));
  const int v = Node1(log ? "LogSoftmax" : "Softmax", y, {xv}, NameFor(y, nchw), DType::kFloat32, {{"axis", IntAttr(nchw ? 1 : -1)}});
  Set(y, v, nchw, Rank(x));
  return Status::Ok();
}

Status Builder::Concat(const std::string& y, const std::vector<std::string>& xs, int64_t axis) {
  if (xs.empty()) return Error("concatenates nothing");
  bool all4 = true, any_nchw = false;
  for (const std::string& t : xs) {
    if (!Known(t)) return Error("reads '" + t + "', which nothing writes");
    all4 = all4 && Rank(t) == 4;
    any_nchw = any_nchw || HasNchw(t);
  }
  const bool nchw = all4 && any_nchw;
  const int r = Rank(xs[0]);
  if (r >= 0 && (axis < -r || axis >= r)) return Error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r));
  if (axis < 0 && r >= 0) axis += r;
  std::vector<int> vs;
  for (const std::string& t : xs) {
    TARE_ASSIGN_OR_RETURN(int v, nchw ? Nchw(t) : Plain(t));
    vs.push_back(v);
  }
  const DType dt = S(xs[0]).dtype;
  const int v = Node1("Concat", y, vs, NameFor(y, nchw), dt, {{"axis", IntAttr(nchw ? NhwcAxisToNchw(axis) : axis)}});
  Set(y, v, nchw, r, dt);
  return Status::Ok();
}

Status Builder::Pad(const std::string& y, const std::string& x, const std::vector<int64_t>& p, const std::string& mode, float value) {
  const int r = Rank(x);
  if (r < 0 || p.size() != 2 * static_cast<size_t>(r)) return Error("paddings must have shape [rank, 2]");
  for (int64_t v : p)
    if (v < 0) return Error("negative paddings are not supported");
  const bool nchw = r == 4 && HasNchw(x);
  std::vector<int64_t> pads(2 * static_cast<size_t>(r));
  for (size_t d = 0; d < static_cast<size_t>(r); ++d) {
    const size_t id = nchw ? static_cast<size_t>(NhwcAxisToNchw(static_cast<int64_t>(d))) : d;
    pads[id] = p[2 * d];
    pads[static_cast<size_t>(r) + id] = p[2 * d + 1];
  }
  TARE_ASSIGN_OR_RETURN(int xv, nchw ? Nchw(x) : Plain(x));
  std::vector<int> ins = {xv, ConstI64(y + "/pads", pads)};
  if (mode == "constant" && value != 0) ins.push_back(Const(y + "/value", Float32Scalar(value)));
  const int v = Node1("Pad", y, ins, NameFor(y, nchw), S(x).dtype, {{"mode", StrAttr(mode)}});
  Set(y, v, nchw, r, S(x).dtype);
  return Status::Ok();
}

Status Builder::Reshape(const std::string& y, const std::string& x, const std::vector<int64_t>& shape) {
  TARE_ASSIGN_OR_RETURN(int xv, Plain(x));
  const bool zero = std::find(shape.begin(), shape.end(), 0) != shape.end();
  std::map<std::string, Attr> attrs;
  if (zero) attrs["allowzero"] = IntAttr(1);  // TensorFlow: a 0 is a zero dim, not a copy
  const int v = Node1("Reshape", y, {xv, ConstI64(y + "/shape", shape)}, NameFor(y, false), S(x).dtype, attrs);
  Set(y, v, false, static_cast<int>(shape.size()), S(x).dtype);
  return Status::Ok();
}

Status Builder::Resize(const std::string& y, const std::string& x, int64_t h, int64_t w, bool bilinear, bool align, bool half) {
  if (h < 1 || w < 1) return Error("the new size must be positive, got [" + std::to_string(h) + ", " + std::to_string(w) + "]");
  if (align && half) return Error("align_corners and half_pixel_centers cannot both be set");
  std::map<std::string, Attr> attrs = TfResizeAttrs(bilinear, align, half);  // converters/nhwc.h
  attrs["axes"] = IntsAttr({2, 3});
  TARE_ASSIGN_OR_RETURN(int xv, Nchw(x));
  const int v = Node1("Resize", y, {xv, -1, -1, ConstI64(y + "/sizes", {h, w})}, NameFor(y, true), S(x).dtype, attrs);
  Set(y, v, true, 4, S(x).dtype);
  return Status::Ok();
}

}  // namespace tfjs
}  // namespace tare
