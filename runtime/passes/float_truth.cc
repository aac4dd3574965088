// The float truth of a quantized model: see float_truth.h. The op semantics mapped here are those
// of runtime/ops/tflite_quant.cc (TFLite's builtins) read as real-valued functions.
#include "runtime/passes/float_truth.h"

#include <cmath>
#include <set>

namespace tare {
namespace {

bool IsQuantOp(const Node& n) { return n.domain == "tflite"; }

/// Ops that only move or select elements: codes pass through them unchanged, so their input and
/// output share one quantization (input 0 is the data).
bool IsLayoutOp(const Node& n) {
  static const std::set<std::string> kOps = {"Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten", "Identity", "Gather", "Slice",
                                             "Pad"};
  return n.domain.empty() && kOps.count(n.op) != 0;
}

/// A constant Pad of a quantized tensor (TFLite's int8 PAD: the padding is a code, the output's zero
/// point or PADV2's constant) on real values: its padding value becomes the code's real value,
/// scale * (code - zero point), a float32 constant added to `out`. Errors: per-channel scales, a
/// padding value that is not a constant.
Status RealPadValue(const Graph& g, const ValueQuant& vq, Graph* out, Node* n) {
  if (vq.scales.size() != 1) return Status::Error("float truth: " + n->Where() + " pads a tensor with per-channel scales");
  int64_t code = 0;  // ONNX Pad without a value pads zeros
  if (n->inputs.size() > 2 && n->inputs[2] >= 0) {
    const Value& c = g.values[static_cast<size_t>(n->inputs[2])];
    if (!c.is_constant || c.constant.numel() != 1 || DTypeIsFloat(c.dtype))
      return Status::Error("float truth: " + n->Where() + " pads a quantized tensor with a value that is not one constant code");
    code = ReadInt(c.constant, 0);
  }
  Value v;
  v.name = n->name + "/float_truth/constant_value";
  v.dtype = DType::kFloat32;
  v.has_shape = true;
  v.is_constant = true;
  TARE_ASSIGN_OR_RETURN(v.constant, Tensor::Alloc(DType::kFloat32, {}));
  v.constant.as<float>()[0] = static_cast<float>(static_cast<double>(vq.scales[0]) * static_cast<double>(code - vq.zero_points[0]));
  if (n->inputs.size() < 3) n->inputs.resize(3, -1);
  n->inputs[2] = out->AddValue(std::move(v));
  return Status::Ok();
}

bool SameQuant(const ValueQuant& a, const ValueQuant& b) {
  return a.scales == b.scales && a.zero_points == b.zero_points && (a.scales.size() == 1 || a.axis == b.axis);
}

std::string QuantStr(const ValueQuant& q) {
  std::string s = "scale " + std::to_string(q.scales.empty() ? 0.f : q.scales[0]) + ", zero point " +
                  std::to_string(q.zero_points.empty() ? 0 : q.zero_points[0]);
  if (q.scales.size() > 1) s += " (" + std::to_string(q.scales.size()) + " channels along axis " + std::to_string(q.axis) + ")";
  return s;
}

/// A per-tensor quantization from a node's `<prefix>scale` / `<prefix>zero_point` attributes.
Result<ValueQuant> PerTensor(const Node& n, const std::string& prefix) {
  ValueQuant q;
  TARE_ASSIGN_OR_RETURN(float s, n.GetFloat(prefix + "scale", 0.f));
  TARE_ASSIGN_OR_RETURN(int64_t z, n.GetInt(prefix + "zero_point", 0));
  q.scales = {s};
  q.zero_points = {z};
  return q;
}

/// Checks a quantization as TFLite does for a tensor of type `dt`: scales finite and > 0, zero
/// points inside the type (int16: 0). `what` names the tensor in the message.
Status CheckQuant(const ValueQuant& q, DType dt, const std::string& what) {
  for (float sc : q.scales)
    if (!(std::isfinite(sc) && sc > 0))
      return Status::Error("float truth: " + what + " has scale " + std::to_string(sc) + "; it must be finite and > 0");
  int64_t lo = 0, hi = 0;
  if (dt == DType::kInt8) lo = -128, hi = 127;
  else if (dt == DType::kUInt8) lo = 0, hi = 255;
  else if (dt == DType::kInt16) lo = 0, hi = 0;  // TFLite: int16 zero points are 0
  else return Status::Ok();
  for (int64_t z : q.zero_points)
    if (z < lo || z > hi)
      return Status::Error("float truth: " + what + " (" + DTypeName(dt) + ") has zero point " + std::to_string(z) +
                           (dt == DType::kInt16 ? "; int16 zero points must be 0" : "; it is outside the type"));
  return Status::Ok();
}

bool BodyHasQuantOps(const Graph& g) {
  for (const Node& n : g.nodes) {
    if (IsQuantOp(n)) return true;
    for (const auto& [name, a] : n.attrs)
      if (a.kind == Attr::Kind::kGraph && a.graph && BodyHasQuantOps(*a.graph)) return true;
  }
  return false;
}

/// Appends the float form of one quantized node to `g`.
class Rewriter {
 public:
  /// n: the node with inputs remapped to real values; orig_x: its input 0 in `src` (for the declared shape).
  Rewriter(Graph* g, const Graph& src, const Node& n, int orig_x) : g_(*g), src_(src), n_(n), orig_x_(orig_x) {}

  /// Appends the replacement of n_ (inputs already remapped to real values).
  Status Run() {
    const std::string& op = n_.op;
    if (n_.outputs.empty() || n_.outputs[0] < 0 || n_.inputs.empty() || n_.inputs[0] < 0)
      return Error("needs an input and an output");
    const int x = n_.inputs[0];
    if (op == "Quantize" || op == "Dequantize") return Final("Identity", {x}, {});
    if (op == "QLogistic") return Final("Sigmoid", {x}, {});
    if (op == "QSoftmax") {
      TARE_ASSIGN_OR_RETURN(float beta, n_.GetFloat("beta", 1.f));
      int v = x;
      if (beta != 1.f) v = Op("Mul", {x, Scalar("beta", beta)}, {}, "scaled");
      return Final("Softmax", {v}, {{"axis", IntAttr(-1)}});
    }
    if (op == "QAdd" || op == "QMul") {
      if (n_.inputs.size() < 2 || n_.inputs[1] < 0) return Error("needs two inputs");
      return WithActivation(op == "QAdd" ? "Add" : "Mul", {x, n_.inputs[1]}, {});
    }
    if (op == "QAveragePool2D" || op == "QMaxPool2D") {
      std::map<std::string, Attr> a;
      TARE_ASSIGN_OR_RETURN(std::vector<int64_t> k, n_.GetInts("kernel_shape"));
      TARE_ASSIGN_OR_RETURN(std::vector<int64_t> s, n_.GetInts("strides", {1, 1}));
      TARE_ASSIGN_OR_RETURN(std::string pad, AutoPad());
      a["kernel_shape"] = IntsAttr(k);
      a["strides"] = IntsAttr(s);
      a["auto_pad"] = StrAttr(pad);
      if (op == "QAveragePool2D") a["count_include_pad"] = IntAttr(0);
      const int xt = Op("Transpose", {x}, {{"perm", IntsAttr({0, 3, 1, 2})}}, "nchw");
      return Nhwc(op == "QMaxPool2D" ? "MaxPool" : "AveragePool", {xt}, a);
    }
    if (op == "QConv2D" || op == "QDepthwiseConv2D") return Conv(op == "QDepthwiseConv2D");
    if (op == "QFullyConnected") return FullyConnected();
    return Error("has no float form");
  }

 private:
  Status Error(const std::string& what) const { return Status::Error("float truth: " + n_.Where() + " " + what); }

  const std::string& OutName() const { return g_.values[n_.outputs[0]].name; }

  int NewValue(const std::string& tag) {
    Value v;
    v.name = OutName() + "/float_truth/" + tag;
    v.dtype = DType::kFloat32;
    return g_.AddValue(std::move(v));
  }

  int ConstOf(const std::string& tag, Tensor t) {
    Value v;
    v.name = OutName() + "/float_truth/" + tag;
    v.dtype = t.dtype;
    v.shape = t.shape;
    v.has_shape = true;
    v.is_constant = true;
    v.constant = std::move(t);
    return g_.AddValue(std::move(v));
  }

  int Floats(const std::string& tag, const std::vector<float>& data, const Shape& shape) {
    Tensor t = Tensor::Alloc(DType::kFloat32, shape).value();
    for (size_t i = 0; i < data.size(); ++i) t.as<float>()[i] = data[i];
    return ConstOf(tag, std::move(t));
  }
  int Scalar(const std::string& tag, float v) { return Floats(tag, {v}, {}); }

  /// Appends node `op` with a new output value; returns the value.
  int Op(const std::string& op, std::vector<int> ins, std::map<std::string, Attr> attrs, const std::string& tag) {
    const int out = NewValue(tag);
    Node m;
    m.name = n_.name + "/float_truth/" + tag;
    m.op = op;
    m.inputs = std::move(ins);
    m.outputs = {out};
    m.attrs = std::move(attrs);
    g_.nodes.push_back(std::move(m));
    return out;
  }

  /// Appends node `op` writing the original node's output (and name).
  Status Final(const std::string& op, std::vector<int> ins, std::map<std::string, Attr> attrs) {
    Node m;
    m.name = n_.name;
    m.op = op;
    m.inputs = std::move(ins);
    m.outputs = {n_.outputs[0]};
    m.attrs = std::move(attrs);
    g_.nodes.push_back(std::move(m));
    return Status::Ok();
  }

  /// op(ins) then the fused activation, the last writing the node's output.
  Status WithActivation(const std::string& op, std::vector<int> ins, std::map<std::string, Attr> attrs) {
    TARE_ASSIGN_OR_RETURN(std::string act, n_.GetString("activation", "NONE"));
    if (act == "NONE") return Final(op, std::move(ins), std::move(attrs));
    const int v = Op(op, std::move(ins), std::move(attrs), "pre_activation");
    if (act == "RELU") return Final("Relu", {v}, {});
    if (act == "RELU6") return Final("Clip", {v, Scalar("min", 0.f), Scalar("max", 6.f)}, {});
    if (act == "RELU_N1_TO_1") return Final("Clip", {v, Scalar("min", -1.f), Scalar("max", 1.f)}, {});
    return Error("has an unknown activation '" + act + "'");
  }

  /// op(ins) in NCHW, the activation, then back to NHWC into the node's output.
  Status Nhwc(const std::string& op, std::vector<int> ins, std::map<std::string, Attr> attrs) {
    TARE_ASSIGN_OR_RETURN(std::string act, n_.GetString("activation", "NONE"));
    int v = Op(op, std::move(ins), std::move(attrs), "nchw_out");
    if (act == "RELU") v = Op("Relu", {v}, {}, "activation");
    else if (act == "RELU6") v = Op("Clip", {v, Scalar("min", 0.f), Scalar("max", 6.f)}, {}, "activation");
    else if (act == "RELU_N1_TO_1") v = Op("Clip", {v, Scalar("min", -1.f), Scalar("max", 1.f)}, {}, "activation");
    else if (act != "NONE") return Error("has an unknown activation '" + act + "'");
    return Final("Transpose", {v}, {{"perm", IntsAttr({0, 2, 3, 1})}});
  }

  Result<std::string> AutoPad() const {
    TARE_ASSIGN_OR_RETURN(std::string p, n_.GetString("padding", ""));
    if (p == "SAME") return std::string("SAME_UPPER");  // TFLite SAME: the odd pixel goes at the end
    if (p == "VALID") return std::string("VALID");
    return Error("has padding '" + p + "' (SAME or VALID)");
  }

  /// Declared shape of a value of the source graph (rank -1 entries unknown), or empty.
  Shape DeclaredShape(int v) const {
    if (v < 0 || static_cast<size_t>(v) >= src_.values.size() || !src_.values[v].has_shape) return {};
    return src_.values[v].shape;
  }

  /// The weight w dequantized: (float(w) - zero point) * scale, the scales along `axis` of a
  /// rank-`rank` tensor (one scale: scalar).
  Result<int> Weights(int w, size_t rank, size_t axis) {
    TARE_ASSIGN_OR_RETURN(std::vector<float> scales, n_.GetFloats("w_scales"));
    TARE_ASSIGN_OR_RETURN(std::vector<int64_t> zps, n_.GetInts("w_zero_points", {0}));
    if (scales.empty()) return Error("has no w_scales");
    ValueQuant wq;
    wq.scales = scales;
    wq.zero_points = zps;
    TARE_RETURN_IF_ERROR(CheckQuant(wq, g_.values[w].dtype, n_.Where() + " weights '" + g_.values[w].name + "'"));
    Shape s;
    if (scales.size() > 1) {
      // One scale per channel along `axis` (as ref's kernels check it, named the same way).
      const Shape ws = DeclaredShape(w);
      if (ws.size() == rank && ws[axis] != static_cast<int64_t>(scales.size()))
        return Error("'w_scales' has " + std::to_string(scales.size()) + " values; expected 1 or one per output channel (" +
                     std::to_string(ws[axis]) + ")");
      s.assign(rank, 1);
      s[axis] = static_cast<int64_t>(scales.size());
    }
    const int c = Op("Cast", {w}, {{"to", IntAttr(static_cast<int64_t>(DType::kFloat32))}}, "w_float");
    const int d = Op("Sub", {c, Scalar("w_zero_point", static_cast<float>(zps.empty() ? 0 : zps[0]))}, {}, "w_centred");
    return Op("Mul", {d, Floats("w_scales", scales, s)}, {}, "w_real");
  }

  /// The bias b dequantized by TFLite's bias scales: b * x_scale * w_scales[o] (scales along its
  /// only axis), or -1 when there is no bias.
  Result<int> Bias(int b) {
    if (b < 0) return -1;
    TARE_ASSIGN_OR_RETURN(std::vector<float> scales, n_.GetFloats("w_scales"));
    TARE_ASSIGN_OR_RETURN(float xs, n_.GetFloat("x_scale", 0.f));
    Shape s;
    if (scales.size() > 1) s = {static_cast<int64_t>(scales.size())};
    const int c = Op("Cast", {b}, {{"to", IntAttr(static_cast<int64_t>(DType::kFloat32))}}, "b_float");
    const int m = Op("Mul", {c, Scalar("x_scale", xs)}, {}, "b_times_x_scale");
    return Op("Mul", {m, Floats("b_w_scales", scales, s)}, {}, "b_real");
  }

  Status Conv(bool depthwise) {
    if (n_.inputs.size() < 2 || n_.inputs[1] < 0) return Error("needs a filter");
    const int x = n_.inputs[0], w = n_.inputs[1];
    const int b = n_.inputs.size() > 2 ? n_.inputs[2] : -1;
    const Shape ws = DeclaredShape(w), xs = DeclaredShape(orig_input());
    if (ws.size() != 4 || ws[3] <= 0) return Error("needs a filter of known shape [O, KH, KW, I] (or [1, KH, KW, C*M])");
    int64_t group = 1;
    if (depthwise) {
      TARE_ASSIGN_OR_RETURN(int64_t m, n_.GetInt("depth_multiplier", 0));
      if (m > 0 && ws[3] % m == 0) group = ws[3] / m;
      else if (xs.size() == 4 && xs[3] > 0) group = xs[3];
      else return Error("needs a depth multiplier or a known input channel count");
    } else {
      if (xs.size() == 4 && xs[3] > 0) {
        if (xs[3] % ws[3] != 0) return Error("has " + std::to_string(xs[3]) + " input channels, not a multiple of the filter's " + std::to_string(ws[3]));
        group = xs[3] / ws[3];
      } else {
        return Error("needs a known input channel count (for the group count)");
      }
    }
    TARE_ASSIGN_OR_RETURN(int wr, Weights(w, 4, depthwise ? 3 : 0));
    const int W = Op("Transpose", {wr}, {{"perm", IntsAttr(depthwise ? std::vector<int64_t>{3, 0, 1, 2} : std::vector<int64_t>{0, 3, 1, 2})}}, "w_oihw");
    TARE_ASSIGN_OR_RETURN(int B, Bias(b));
    std::map<std::string, Attr> a;
    TARE_ASSIGN_OR_RETURN(std::vector<int64_t> s, n_.GetInts("strides", {1, 1}));
    TARE_ASSIGN_OR_RETURN(std::vector<int64_t> d, n_.GetInts("dilations", {1, 1}));
    TARE_ASSIGN_OR_RETURN(std::string pad, AutoPad());
    a["strides"] = IntsAttr(s);
    a["dilations"] = IntsAttr(d);
    a["auto_pad"] = StrAttr(pad);
    a["group"] = IntAttr(group);
    a["kernel_shape"] = IntsAttr({ws[1], ws[2]});
    const int xt = Op("Transpose", {x}, {{"perm", IntsAttr({0, 3, 1, 2})}}, "nchw");
    std::vector<int> ins = {xt, W};
    if (B >= 0) ins.push_back(B);
    return Nhwc("Conv", ins, a);
  }

  Status FullyConnected() {
    if (n_.inputs.size() < 2 || n_.inputs[1] < 0) return Error("needs weights");
    const int x = n_.inputs[0], w = n_.inputs[1];
    const int b = n_.inputs.size() > 2 ? n_.inputs[2] : -1;
    const Shape ws = DeclaredShape(w);
    if (ws.size() != 2 || ws[1] <= 0) return Error("needs weights of known shape [units, K]");
    TARE_ASSIGN_OR_RETURN(int64_t keep, n_.GetInt("keep_num_dims", 0));
    int v = x;
    if (!keep) {
      Tensor shape = Tensor::Alloc(DType::kInt64, {2}).value();
      shape.as<int64_t>()[0] = -1;
      shape.as<int64_t>()[1] = ws[1];
      v = Op("Reshape", {x, ConstOf("rows", std::move(shape))}, {}, "rows");
    }
    TARE_ASSIGN_OR_RETURN(int wr, Weights(w, 2, 0));
    const int wt = Op("Transpose", {wr}, {{"perm", IntsAttr({1, 0})}}, "w_t");
    TARE_ASSIGN_OR_RETURN(int B, Bias(b));
    if (B < 0) return WithActivation("MatMul", {v, wt}, {});
    const int mm = Op("MatMul", {v, wt}, {}, "matmul");
    return WithActivation("Add", {mm, B}, {});
  }

  int orig_input() const { return orig_x_; }

  Graph& g_;
  const Graph& src_;
  const Node& n_;
  const int orig_x_;
};

}  // namespace

bool HasTfliteQuantOps(const Graph& g) {
  for (const Node& n : g.nodes)
    if (IsQuantOp(n)) return true;
  return false;
}

Result<std::map<int, ValueQuant>> QuantizedValues(const Graph& g) {
  std::map<int, ValueQuant> q;
  auto set = [&](int v, const ValueQuant& vq, const Node& n) -> Result<bool> {
    if (v < 0 || static_cast<size_t>(v) >= g.values.size() || g.values[v].is_constant) return false;
    auto it = q.find(v);
    if (it == q.end()) {
      q[v] = vq;
      return true;
    }
    if (!SameQuant(it->second, vq))
      return Status::Error(n.Where() + ": tensor '" + g.values[v].name + "' has two quantizations (" + QuantStr(it->second) +
                           " and " + QuantStr(vq) + ")");
    return false;
  };
  for (const Node& n : g.nodes) {
    if (!IsQuantOp(n) || n.inputs.empty()) continue;
    const int x = n.inputs[0], y = n.outputs.empty() ? -1 : n.outputs[0];
    if (n.op == "Dequantize") {
      ValueQuant vq;
      TARE_ASSIGN_OR_RETURN(vq.scales, n.GetFloats("x_scales"));
      TARE_ASSIGN_OR_RETURN(vq.zero_points, n.GetInts("x_zero_points", std::vector<int64_t>(vq.scales.size(), 0)));
      TARE_ASSIGN_OR_RETURN(vq.axis, n.GetInt("axis", 0));
      if (vq.scales.empty() || vq.zero_points.size() != vq.scales.size())
        return Status::Error(n.Where() + ": x_scales and x_zero_points must have one value each per channel");
      TARE_RETURN_IF_ERROR(set(x, vq, n).status());
      continue;
    }
    if (n.has("x_scale")) {
      TARE_ASSIGN_OR_RETURN(ValueQuant vq, PerTensor(n, "x_"));
      TARE_RETURN_IF_ERROR(set(x, vq, n).status());
    }
    if (n.has("x2_scale") && n.inputs.size() > 1) {
      TARE_ASSIGN_OR_RETURN(ValueQuant vq, PerTensor(n, "x2_"));
      TARE_RETURN_IF_ERROR(set(n.inputs[1], vq, n).status());
    }
    if (n.has("y_scale")) {
      TARE_ASSIGN_OR_RETURN(ValueQuant vq, PerTensor(n, "y_"));
      TARE_RETURN_IF_ERROR(set(y, vq, n).status());
    }
  }
  // Through layout-only ops, both ways, per tensor (each round adds a value or stops).
  for (bool changed = true; changed;) {
    changed = false;
    for (const Node& n : g.nodes) {
      if (!IsLayoutOp(n) || n.inputs.empty() || n.outputs.empty() || n.inputs[0] < 0 || n.outputs[0] < 0) continue;
      const int x = n.inputs[0], y = n.outputs[0];
      auto ix = q.find(x), iy = q.find(y);
      if (ix != q.end() && ix->second.scales.size() == 1) {
        const ValueQuant vq = ix->second;
        TARE_ASSIGN_OR_RETURN(bool c, set(y, vq, n));
        changed = changed || c;
      } else if (ix == q.end() && iy != q.end() && iy->second.scales.size() == 1) {
        const ValueQuant vq = iy->second;
        TARE_ASSIGN_OR_RETURN(bool c, set(x, vq, n));
        changed = changed || c;
      }
    }
  }
  return q;
}

Result<Graph> FloatTruth(const Graph& g) {
  for (const Node& n : g.nodes)
    for (const auto& [name, a] : n.attrs)
      if (a.kind == Attr::Kind::kGraph && a.graph && BodyHasQuantOps(*a.graph))
        return Status::Error("float truth: " + n.Where() + " has quantized TFLite ops in its body '" + name +
                             "'; ref64 dequantizes top-level ops only: run the model on ref");
  TARE_ASSIGN_OR_RETURN(auto q, QuantizedValues(g));
  for (const auto& [v, vq] : q) TARE_RETURN_IF_ERROR(CheckQuant(vq, g.values[v].dtype, "tensor '" + g.values[v].name + "'"));
  Graph out;
  out.values = g.values;
  out.inputs = g.inputs;
  out.outputs = g.outputs;
  std::vector<int> remap(g.values.size());
  for (size_t v = 0; v < remap.size(); ++v) remap[v] = static_cast<int>(v);
  const std::set<int> inputs(g.inputs.begin(), g.inputs.end());
  // Quantized inputs stay codes; their real values enter as (float(x) - zero point) * scale.
  for (int v : g.inputs) {
    auto it = q.find(v);
    if (it == q.end()) continue;
    const ValueQuant& vq = it->second;
    const Value& in = g.values[v];
    Shape s;
    if (vq.scales.size() > 1) {
      if (!in.has_shape || vq.axis < 0 || vq.axis >= static_cast<int64_t>(in.shape.size()))
        return Status::Error("float truth: input '" + in.name + "' has per-channel scales along axis " + std::to_string(vq.axis) +
                             " but its rank is not known to have that axis");
      s.assign(in.shape.size(), 1);
      s[static_cast<size_t>(vq.axis)] = static_cast<int64_t>(vq.scales.size());
    }
    std::vector<float> zps;
    for (int64_t z : vq.zero_points) zps.push_back(static_cast<float>(z));
    auto add = [&](const std::string& tag, DType dt, bool constant, Tensor t) {
      Value nv;
      nv.name = in.name + "/float_truth/" + tag;
      nv.dtype = dt;
      if (constant) nv.shape = t.shape, nv.has_shape = true, nv.is_constant = true, nv.constant = std::move(t);
      return out.AddValue(std::move(nv));
    };
    auto floats = [&](const std::string& tag, const std::vector<float>& d) {
      Tensor t = Tensor::Alloc(DType::kFloat32, s).value();
      for (size_t i = 0; i < d.size(); ++i) t.as<float>()[i] = d[i];
      return add(tag, DType::kFloat32, true, std::move(t));
    };
    auto node = [&](const std::string& op, std::vector<int> ins, const std::string& tag, std::map<std::string, Attr> attrs) {
      const int o = add(tag, DType::kFloat32, false, Tensor());
      Node m;
      m.name = in.name + "/float_truth/" + tag;
      m.op = op;
      m.inputs = std::move(ins);
      m.outputs = {o};
      m.attrs = std::move(attrs);
      out.nodes.push_back(std::move(m));
      return o;
    };
    const int c = node("Cast", {v}, "float", {{"to", IntAttr(static_cast<int64_t>(DType::kFloat32))}});
    const int d = node("Sub", {c, floats("zero_point", zps)}, "centred", {});
    remap[v] = node("Mul", {d, floats("scale", vq.scales)}, "real", {});
  }
  for (const auto& [v, vq] : q)
    if (!inputs.count(v)) out.values[v].dtype = DType::kFloat32;
  for (const Node& n0 : g.nodes) {
    Node n = n0;
    for (int& i : n.inputs)
      if (i >= 0) i = remap[i];
    if (IsQuantOp(n0)) {
      TARE_RETURN_IF_ERROR(Rewriter(&out, g, n, n0.inputs.empty() ? -1 : n0.inputs[0]).Run());
      continue;
    }
    if (n0.op == "Pad" && n0.domain.empty() && !n0.inputs.empty() && q.count(n0.inputs[0]))
      TARE_RETURN_IF_ERROR(RealPadValue(g, q.at(n0.inputs[0]), &out, &n));
    if (!IsLayoutOp(n0))
      for (int i : n0.inputs)
        if (i >= 0 && q.count(i))
          return Status::Error("float truth: " + n0.Where() + " reads the quantized tensor '" + g.values[i].name +
                               "'; ref64 dequantizes only through TFLite's quantized ops and layout-only ops: run the model on ref");
    out.nodes.push_back(std::move(n));
  }
  TARE_RETURN_IF_ERROR(out.Validate());
  return out;
}

Result<Tensor> DequantizeCodes(const Tensor& codes, const ValueQuant& q) {
  if (codes.kind != ValueKind::kTensor || DTypeIsFloat(codes.dtype) || codes.dtype == DType::kBool || codes.dtype == DType::kString)
    return Status::Error("dequantizing a " + std::string(DTypeName(codes.dtype)) + " tensor: codes must be integers");
  if (q.scales.empty() || q.zero_points.size() != q.scales.size()) return Status::Error("dequantizing: no scales");
  int64_t inner = 1, channels = 1;
  if (q.scales.size() > 1) {
    if (q.axis < 0 || q.axis >= static_cast<int64_t>(codes.shape.size()) || codes.shape[static_cast<size_t>(q.axis)] != static_cast<int64_t>(q.scales.size()))
      return Status::Error("dequantizing: " + std::to_string(q.scales.size()) + " scales along axis " + std::to_string(q.axis) +
                           " of a tensor of shape " + ShapeStr(codes.shape));
    channels = static_cast<int64_t>(q.scales.size());
    for (size_t d = static_cast<size_t>(q.axis) + 1; d < codes.shape.size(); ++d) inner *= codes.shape[d];
  }
  TARE_ASSIGN_OR_RETURN(Tensor y, Tensor::Alloc(DType::kFloat64, codes.shape));
  for (int64_t i = 0; i < codes.numel(); ++i) {
    const size_t c = static_cast<size_t>(channels > 1 ? (i / inner) % channels : 0);
    y.as<double>()[i] = static_cast<double>(q.scales[c]) * static_cast<double>(ReadInt(codes, i) - q.zero_points[c]);
  }
  return y;
}

}  // namespace tare
