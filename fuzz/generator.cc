#include "fuzz/generator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "runtime/exec/eval_node.h"

namespace tare::fuzz {
namespace {

using Rng = std::mt19937_64;

int64_t Uni(Rng& r, int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(r); }
double UniF(Rng& r, double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(r); }
bool Coin(Rng& r, double p) { return UniF(r, 0, 1) < p; }
template <class T>
const T& Pick(Rng& r, const std::vector<T>& v) {
  return v[static_cast<size_t>(Uni(r, 0, static_cast<int64_t>(v.size()) - 1))];
}

/// A value drawn for an input or a weight: mostly uniform in [-3, 3]; sometimes a hard case.
float DrawValue(Rng& r, bool special) {
  const double p = UniF(r, 0, 1);
  if (p < 0.70) return static_cast<float>(UniF(r, -3, 3));
  if (p < 0.80) return static_cast<float>(Uni(r, -6, 6)) * 0.5f;  // ties: x.5 and integers
  if (p < 0.85) return 0.0f;
  if (!special) return static_cast<float>(UniF(r, -1, 1));
  if (p < 0.89) return static_cast<float>(UniF(r, -1, 1) * 1e-39);  // denormals
  if (p < 0.93) return static_cast<float>(UniF(r, -1, 1) * 1e30);   // huge
  if (p < 0.95) return -0.0f;
  if (p < 0.97) return std::numeric_limits<float>::quiet_NaN();
  if (p < 0.985) return std::numeric_limits<float>::infinity();
  return -std::numeric_limits<float>::infinity();
}

Tensor RandomTensor(Rng& r, const Shape& s, bool special, double lo = -1, double hi = 1, bool plain = false) {
  Tensor t = Tensor::Alloc(DType::kFloat32, s).value();
  for (int64_t i = 0; i < t.numel(); ++i) t.as<float>()[i] = plain ? static_cast<float>(UniF(r, lo, hi)) : DrawValue(r, special);
  return t;
}

Tensor Ints(const std::vector<int64_t>& v) {
  Tensor t = Tensor::Alloc(DType::kInt64, {static_cast<int64_t>(v.size())}).value();
  std::copy(v.begin(), v.end(), t.as<int64_t>());
  return t;
}

/// The graph under construction: its float values with concrete shapes.
class Builder {
 public:
  Builder(Rng& r, const GenOptions& o) : r_(r), o_(o) {}
  Graph g;

  int Input(const Shape& s) {
    Value v;
    v.name = "x" + std::to_string(g.inputs.size());
    v.dtype = DType::kFloat32;
    v.shape = s;
    v.has_shape = true;
    const int id = g.AddValue(v);
    g.inputs.push_back(id);
    floats_.push_back(id);
    return id;
  }
  int Const(const Tensor& t) {
    Value v;
    v.name = "c" + std::to_string(g.values.size());
    v.dtype = t.dtype;
    v.shape = t.shape;
    v.has_shape = true;
    v.is_constant = true;
    v.constant = t;
    return g.AddValue(v);
  }
  /// Adds node `n` reading `ins` when the op's shape inference accepts it and every output is
  /// float32 with 1..max_elements elements; returns its first output, or -1 (nothing added).
  int Try(Node n, const std::vector<int>& ins, int outputs = 1) {
    n.inputs = ins;
    n.name = n.op + "_" + std::to_string(g.nodes.size());
    n.outputs.clear();
    std::vector<ValueInfo> in;
    for (int v : ins) {
      ValueInfo vi;
      vi.present = v >= 0;
      if (v >= 0) {
        vi.dtype = g.values[static_cast<size_t>(v)].dtype;
        vi.shape = g.values[static_cast<size_t>(v)].shape;
        if (g.values[static_cast<size_t>(v)].is_constant) vi.value = &g.values[static_cast<size_t>(v)].constant;
      }
      in.push_back(vi);
    }
    for (int i = 0; i < outputs; ++i) n.outputs.push_back(static_cast<int>(g.values.size()) + i);  // placeholders for InferNode
    Result<std::vector<ValueInfo>> out = InferNode(n, in);
    if (!out.ok()) return -1;
    for (const ValueInfo& o : *out) {
      if (!o.present || o.dtype != DType::kFloat32) return -1;
      Result<int64_t> c = NumElements(o.shape);
      if (!c.ok() || *c < 1 || *c > o_.max_elements) return -1;
    }
    n.outputs.clear();
    for (int i = 0; i < outputs; ++i) {
      Value v;
      v.name = n.name + (i ? ":" + std::to_string(i) : "");
      v.dtype = DType::kFloat32;
      v.shape = (*out)[static_cast<size_t>(i)].shape;
      v.has_shape = true;
      n.outputs.push_back(g.AddValue(v));
      floats_.push_back(n.outputs.back());
    }
    g.nodes.push_back(n);
    return n.outputs[0];
  }
  const Shape& S(int v) const { return g.values[static_cast<size_t>(v)].shape; }
  /// Whether `n` more nodes fit under GenOptions::max_nodes.
  bool Room(int n) const { return static_cast<int>(g.nodes.size()) + n <= o_.max_nodes; }
  /// A float value to build on: the newest one, or (less often) an older one.
  int Operand() { return Coin(r_, 0.7) ? floats_.back() : Pick(r_, floats_); }
  Rng& rng() { return r_; }
  const GenOptions& options() const { return o_; }

 private:
  Rng& r_;
  const GenOptions& o_;
  std::vector<int> floats_;
};

Node Op(const std::string& op) {
  Node n;
  n.op = op;
  return n;
}

/// A random axis of rank r, negative half of the time.
int64_t Axis(Rng& r, size_t rank) {
  const int64_t a = Uni(r, 0, static_cast<int64_t>(rank) - 1);
  return Coin(r, 0.5) ? a - static_cast<int64_t>(rank) : a;
}

using Recipe = std::function<int(Builder&)>;

int Unary(Builder& b) {
  Rng& r = b.rng();
  static const std::vector<std::string> ops = {"Relu", "Sigmoid", "Tanh", "Exp",  "Log",  "Sqrt",     "Erf",       "Abs",   "Neg",
                                               "Floor", "Ceil", "Round", "Sign", "Elu", "LeakyRelu", "HardSigmoid", "HardSwish",
                                               "Softplus", "Selu", "Reciprocal"};
  Node n = Op(Pick(r, ops));
  if (n.op == "Elu" || n.op == "LeakyRelu") n.attrs["alpha"] = FloatAttr(static_cast<float>(Pick(r, std::vector<double>{0.01, 0.2, 1.0, -0.5, 3.0})));
  if (n.op == "HardSigmoid") {
    n.attrs["alpha"] = FloatAttr(static_cast<float>(Pick(r, std::vector<double>{0.2, 1.0 / 6, -0.3, 2.0})));
    n.attrs["beta"] = FloatAttr(static_cast<float>(Pick(r, std::vector<double>{0.5, 0.0, 1.0})));
  }
  return b.Try(n, {b.Operand()});
}

int Clip(Builder& b) {
  Rng& r = b.rng();
  std::vector<int> ins = {b.Operand()};
  const double lo = Pick(r, std::vector<double>{0, -1, -6, 0.5}), hi = Pick(r, std::vector<double>{6, 1, 0.25, -2});
  Tensor tl = Tensor::Alloc(DType::kFloat32, {}).value(), th = Tensor::Alloc(DType::kFloat32, {}).value();
  tl.as<float>()[0] = static_cast<float>(lo);
  th.as<float>()[0] = static_cast<float>(hi);  // sometimes min > max (then every output is max)
  ins.push_back(Coin(r, 0.8) ? b.Const(tl) : -1);
  ins.push_back(Coin(r, 0.8) ? b.Const(th) : -1);
  return b.Try(Op("Clip"), ins);
}

int Binary(Builder& b) {
  Rng& r = b.rng();
  static const std::vector<std::string> ops = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min"};
  Node n = Op(Pick(r, ops));
  const int x = b.Operand();
  Shape s = b.S(x);
  // The other operand: the same shape, a suffix, size-1 dims (broadcast), a scalar; as a constant
  // or (same shape) another run-time value.
  const int kind = static_cast<int>(Uni(r, 0, 3));
  if (kind == 1 && !s.empty()) s.erase(s.begin(), s.begin() + Uni(r, 0, static_cast<int64_t>(s.size())));
  if (kind == 2)
    for (int64_t& d : s)
      if (Coin(r, 0.5)) d = 1;
  if (kind == 3) s = {};
  int y = -1;
  if (kind == 0 && Coin(r, 0.5)) {
    y = b.Operand();
    if (b.S(y) != b.S(x)) y = x;  // x with itself
  } else {
    y = b.Const(RandomTensor(r, s, b.options().special_values));
  }
  return Coin(r, 0.5) ? b.Try(n, {x, y}) : b.Try(n, {y, x});
}

/// Makes x 4-D (N C H W) with a Reshape when it is not.
int As4D(Builder& b, int x) {
  const Shape& s = b.S(x);
  if (s.size() == 4) return x;
  if (!b.Room(2)) return -1;  // the Reshape and the node after it
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  int64_t c = 1;
  while (c < 8 && n % (c * 2) == 0 && n / (c * 2) >= 4) c *= 2;
  int64_t h = 1;
  while (h * h < n / c && (n / c) % (h + 1) == 0) ++h;
  if ((n / c) % h) h = 1;
  Node rs = Op("Reshape");
  return b.Try(rs, {x, b.Const(Ints({1, c, h, n / c / h}))});
}

int ConvLike(Builder& b) {
  Rng& r = b.rng();
  const int x = As4D(b, b.Operand());
  if (x < 0) return -1;
  const Shape& s = b.S(x);
  const int64_t C = s[1];
  const int64_t k0 = Uni(r, 1, 4), k1 = Coin(r, 0.7) ? k0 : Uni(r, 1, 4);
  const int64_t groups = Coin(r, 0.3) ? C : (Coin(r, 0.5) ? 1 : (C % 2 == 0 ? 2 : 1));
  const int64_t M = groups * Uni(r, 1, 3);
  Node n = Op("Conv");
  const std::vector<int64_t> edge = {0, 1, 2, 3, k0 + 1};  // pads up to beyond the kernel
  n.attrs["kernel_shape"] = IntsAttr({k0, k1});
  n.attrs["strides"] = IntsAttr({Uni(r, 1, 3), Coin(r, 0.15) ? s[3] + 1 : Uni(r, 1, 2)});
  n.attrs["dilations"] = IntsAttr({Uni(r, 1, 2), Uni(r, 1, 3)});
  n.attrs["group"] = IntAttr(groups);
  if (Coin(r, 0.2)) {
    n.attrs["auto_pad"] = StrAttr(Pick(r, std::vector<std::string>{"SAME_UPPER", "SAME_LOWER", "VALID"}));
  } else {
    n.attrs["pads"] = IntsAttr({Pick(r, edge), Pick(r, edge), Pick(r, edge), Pick(r, edge)});
  }
  const int w = b.Const(RandomTensor(r, {M, C / groups, k0, k1}, false, -1, 1, true));
  std::vector<int> ins = {x, w};
  if (Coin(r, 0.7)) ins.push_back(b.Const(RandomTensor(r, {M}, false, -1, 1, true)));
  return b.Try(n, ins);
}

int Pool(Builder& b) {
  Rng& r = b.rng();
  const int x = As4D(b, b.Operand());
  if (x < 0) return -1;
  const std::string op = Pick(r, std::vector<std::string>{"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"});
  Node n = Op(op);
  if (op[0] == 'G') return b.Try(n, {x});
  const int64_t k0 = Uni(r, 1, 4), k1 = Uni(r, 1, 4);
  n.attrs["kernel_shape"] = IntsAttr({k0, k1});
  n.attrs["strides"] = IntsAttr({Uni(r, 1, 3), Uni(r, 1, 3)});
  n.attrs["pads"] = IntsAttr({Uni(r, 0, k0 - 1), Uni(r, 0, k1 - 1), Uni(r, 0, k0 - 1), Uni(r, 0, k1 - 1)});
  if (Coin(r, 0.4)) n.attrs["ceil_mode"] = IntAttr(1);
  if (op == "MaxPool" && Coin(r, 0.3)) n.attrs["dilations"] = IntsAttr({Uni(r, 1, 2), Uni(r, 1, 2)});
  if (op == "AveragePool" && Coin(r, 0.5)) n.attrs["count_include_pad"] = IntAttr(1);
  return b.Try(n, {x});
}

int Norm(Builder& b) {
  Rng& r = b.rng();
  const int x = b.Operand();
  const Shape& s = b.S(x);
  if (Coin(r, 0.5) && s.size() >= 2) {
    const int64_t C = s[1];
    Node n = Op("BatchNormalization");
    n.attrs["epsilon"] = FloatAttr(Coin(r, 0.5) ? 1e-5f : 0.1f);
    return b.Try(n, {x, b.Const(RandomTensor(r, {C}, false, -2, 2, true)), b.Const(RandomTensor(r, {C}, false, -1, 1, true)),
                     b.Const(RandomTensor(r, {C}, false, -1, 1, true)), b.Const(RandomTensor(r, {C}, false, 0.1, 3, true))});
  }
  if (s.empty()) return -1;
  Node n = Op("LayerNormalization");
  const int64_t axis = Axis(r, s.size());
  n.attrs["axis"] = IntAttr(axis);
  Shape ws(s.begin() + (axis < 0 ? axis + static_cast<int64_t>(s.size()) : axis), s.end());
  std::vector<int> ins = {x, b.Const(RandomTensor(r, ws, false, -2, 2, true))};
  if (Coin(r, 0.6)) ins.push_back(b.Const(RandomTensor(r, ws, false, -1, 1, true)));
  return b.Try(n, ins);
}

int SoftmaxLike(Builder& b) {
  Rng& r = b.rng();
  const int x = b.Operand();
  if (b.S(x).empty()) return -1;
  Node n = Op(Coin(r, 0.6) ? "Softmax" : "LogSoftmax");
  n.attrs["axis"] = IntAttr(Axis(r, b.S(x).size()));
  return b.Try(n, {x});
}

int Reduce(Builder& b) {
  Rng& r = b.rng();
  const int x = b.Operand();
  const size_t rank = b.S(x).size();
  if (rank == 0) return -1;
  Node n = Op(Pick(r, std::vector<std::string>{"ReduceMean", "ReduceMax", "ReduceMin", "ReduceSum", "ReduceL2", "ReduceLogSumExp"}));
  std::vector<int64_t> axes;
  for (size_t a = 0; a < rank; ++a)
    if (Coin(r, 0.4)) axes.push_back(Coin(r, 0.5) ? static_cast<int64_t>(a) - static_cast<int64_t>(rank) : static_cast<int64_t>(a));
  n.attrs["keepdims"] = IntAttr(Coin(r, 0.5) ? 1 : 0);
  if (n.op == "ReduceSum") return b.Try(n, {x, axes.empty() ? -1 : b.Const(Ints(axes))});  // ReduceSum-13: axes input
  if (!axes.empty()) n.attrs["axes"] = IntsAttr(axes);
  return b.Try(n, {x});
}

int MatMulLike(Builder& b) {
  Rng& r = b.rng();
  const int x = b.Operand();
  const Shape& s = b.S(x);
  if (s.empty()) return -1;
  const int64_t K = s.back(), N = Uni(r, 1, 12);
  if (Coin(r, 0.6)) return b.Try(Op("MatMul"), {x, b.Const(RandomTensor(r, {K, N}, false, -1, 1, true))});
  if (s.size() != 2) return -1;
  Node n = Op("Gemm");
  const bool ta = Coin(r, 0.3), tb = Coin(r, 0.5);
  n.attrs["transA"] = IntAttr(ta);
  n.attrs["transB"] = IntAttr(tb);
  n.attrs["alpha"] = FloatAttr(static_cast<float>(Pick(r, std::vector<double>{1, 0.5, -2})));
  n.attrs["beta"] = FloatAttr(static_cast<float>(Pick(r, std::vector<double>{1, 0, 3})));
  const int64_t k = ta ? s[0] : s[1], m = ta ? s[1] : s[0];
  const Shape bs = tb ? Shape{N, k} : Shape{k, N};
  std::vector<int> ins = {x, b.Const(RandomTensor(r, bs, false, -1, 1, true))};
  if (Coin(r, 0.7)) ins.push_back(b.Const(RandomTensor(r, Pick(r, std::vector<Shape>{{N}, {1, N}, {m, N}, {}}), false, -1, 1, true)));
  return b.Try(n, ins);
}

int Movement(Builder& b) {
  Rng& r = b.rng();
  const int x = b.Operand();
  const Shape s = b.S(x);
  const size_t rank = s.size();
  if (rank == 0) return -1;
  const int kind = static_cast<int>(Uni(r, 0, 4));
  if (kind == 0) {
    std::vector<int64_t> perm(rank);
    for (size_t i = 0; i < rank; ++i) perm[i] = static_cast<int64_t>(i);
    std::shuffle(perm.begin(), perm.end(), r);
    Node n = Op("Transpose");
    n.attrs["perm"] = IntsAttr(perm);
    return b.Try(n, {x});
  }
  if (kind == 1) {
    Node n = Op("Concat");
    n.attrs["axis"] = IntAttr(Axis(r, rank));
    return b.Try(n, {x, Coin(r, 0.5) ? x : b.Const(RandomTensor(r, s, b.options().special_values))});
  }
  if (kind == 2) {
    // Slice: starts/ends beyond the dims (clamped), negative steps.
    const int64_t a = Axis(r, rank), d = s[static_cast<size_t>(a < 0 ? a + static_cast<int64_t>(rank) : a)];
    const int64_t step = Pick(r, std::vector<int64_t>{1, 1, 2, -1, 3});
    const int64_t st = step > 0 ? Uni(r, -d - 1, d) : Uni(r, 0, d + 1), en = step > 0 ? Uni(r, st + 1, d + 3) : Uni(r, -d - 3, st - 1);
    return b.Try(Op("Slice"), {x, b.Const(Ints({st})), b.Const(Ints({en})), b.Const(Ints({a})), b.Const(Ints({step}))});
  }
  if (kind == 3 && rank == 4) {
    // Resize of the spatial dims, every mode.
    Node n = Op("Resize");
    n.attrs["mode"] = StrAttr(Pick(r, std::vector<std::string>{"nearest", "linear", "cubic"}));
    n.attrs["coordinate_transformation_mode"] =
        StrAttr(Pick(r, std::vector<std::string>{"half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_crop_and_resize"}));
    n.attrs["nearest_mode"] = StrAttr(Pick(r, std::vector<std::string>{"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}));
    if (Coin(r, 0.3)) n.attrs["cubic_coeff_a"] = FloatAttr(-0.5f);
    Tensor scales = Tensor::Alloc(DType::kFloat32, {4}).value();
    const float f0 = static_cast<float>(Pick(r, std::vector<double>{0.5, 1, 2, 1.5, 3})), f1 = static_cast<float>(Pick(r, std::vector<double>{0.5, 1, 2, 0.75}));
    scales.as<float>()[0] = 1;
    scales.as<float>()[1] = 1;
    scales.as<float>()[2] = f0;
    scales.as<float>()[3] = f1;
    return b.Try(n, {x, -1, b.Const(scales)});
  }
  // Pad (constant, reflect, edge), pads possibly larger than the dim for constant mode.
  Node n = Op("Pad");
  n.attrs["mode"] = StrAttr(Pick(r, std::vector<std::string>{"constant", "reflect", "edge"}));
  std::vector<int64_t> pads(2 * rank, 0);
  for (int64_t& p : pads) p = Uni(r, 0, 2);
  std::vector<int> ins = {x, b.Const(Ints(pads))};
  return b.Try(n, ins);
}

const std::vector<std::pair<Recipe, int>>& Recipes() {
  // (recipe, weight)
  static const std::vector<std::pair<Recipe, int>> r = {{Unary, 5}, {Clip, 1}, {Binary, 4}, {ConvLike, 4}, {Pool, 2},
                                                        {Norm, 2},  {SoftmaxLike, 2}, {Reduce, 2}, {MatMulLike, 2}, {Movement, 3}};
  return r;
}

}  // namespace

std::vector<std::string> GeneratorOps() {
  return {"Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Erf", "Abs", "Neg", "Floor", "Ceil", "Round", "Sign", "Elu", "LeakyRelu",
          "HardSigmoid", "HardSwish", "Softplus", "Selu", "Reciprocal", "Clip", "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min",
          "Reshape", "Conv", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "BatchNormalization",
          "LayerNormalization", "Softmax", "LogSoftmax", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceSum", "ReduceL2",
          "ReduceLogSumExp", "MatMul", "Gemm", "Transpose", "Concat", "Slice", "Resize", "Pad"};
}

FuzzCase Generate(uint64_t seed, const GenOptions& options) {
  Rng r(seed);
  Builder b(r, options);
  // One or two inputs: N C H W (small), or 2-D / 3-D.
  const int kind = static_cast<int>(Uni(r, 0, 2));
  Shape s = kind == 0 ? Shape{Uni(r, 1, 2), Uni(r, 1, 6), Uni(r, 1, 9), Uni(r, 1, 9)}
                      : kind == 1 ? Shape{Uni(r, 1, 8), Uni(r, 1, 16)} : Shape{Uni(r, 1, 3), Uni(r, 1, 6), Uni(r, 1, 12)};
  b.Input(s);
  if (Coin(r, 0.2)) b.Input(s);
  const int want = static_cast<int>(Uni(r, 1, std::max(1, options.max_nodes)));
  int total = 0;
  for (const auto& [fn, w] : Recipes()) total += w;
  for (int tries = 0; static_cast<int>(b.g.nodes.size()) < want && tries < want * 8; ++tries) {
    int pick = static_cast<int>(Uni(r, 0, total - 1));
    for (const auto& [fn, w] : Recipes()) {
      if (pick < w) {
        fn(b);
        break;
      }
      pick -= w;
    }
  }
  if (b.g.nodes.empty()) b.Try(Op("Relu"), {b.g.inputs[0]});
  // Outputs: the last node's, plus (sometimes) an earlier value no node reads.
  std::vector<int> read(b.g.values.size(), 0);
  for (const Node& n : b.g.nodes)
    for (int v : n.inputs)
      if (v >= 0) read[static_cast<size_t>(v)] = 1;
  for (const Node& n : b.g.nodes)
    if (!read[static_cast<size_t>(n.outputs[0])]) b.g.outputs.push_back(n.outputs[0]);
  FuzzCase c;
  c.seed = seed;
  c.model = std::make_shared<Model>();
  c.model->graph = std::move(b.g);
  c.model->provenance.source_format = "onnx";
  c.model->provenance.source_file = "fuzz_" + std::to_string(seed) + ".onnx";
  c.model->provenance.producer_name = "tare fuzz";
  c.model->provenance.opset_imports = {{"", 17}};  // LayerNormalization-17; the other recipes are in 17's forms
  for (int v : c.model->graph.inputs) {
    const Value& val = c.model->graph.values[static_cast<size_t>(v)];
    c.inputs.push_back({val.name, RandomTensor(r, val.shape, options.special_values)});
  }
  return c;
}

}  // namespace tare::fuzz
