#include "compare/budget.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "runtime/ir/float8.h"
#include "runtime/ops/op.h"

namespace tare {
namespace {

constexpr double kEps32 = 1.0 / (1 << 24);

bool IsReal(DType t) { return DTypeIsFloat(t) || t == DType::kBFloat16 || DTypeIsFloat8(t); }

bool Is(const Node& n, std::initializer_list<const char*> ops) {
  for (const char* op : ops)
    if (n.op == op) return true;
  return false;
}

double Prod(const Shape& s, size_t from, size_t to) {
  double p = 1;
  for (size_t i = from; i < to && i < s.size(); ++i) p *= static_cast<double>(std::max<int64_t>(s[i], 1));
  return p;
}

// Shape of input i, or {} when it is omitted or not a tensor.
Shape In(const std::vector<Tensor>& in, size_t i) {
  return i < in.size() && in[i].is_tensor() && in[i].data ? in[i].shape : Shape{};
}

size_t Axis(int64_t axis, size_t rank) {
  if (axis < 0) axis += static_cast<int64_t>(rank);
  return static_cast<size_t>(std::clamp<int64_t>(axis, 0, rank ? static_cast<int64_t>(rank) - 1 : 0));
}

int64_t Int(const Node& n, const char* name, int64_t dflt) {
  Result<int64_t> v = n.GetInt(name, dflt);
  return v.ok() ? *v : dflt;
}

double Largest(const std::vector<Tensor>& in) {
  double k = 1;
  for (const Tensor& t : in)
    if (t.is_tensor() && t.data) k = std::max(k, static_cast<double>(t.numel()));
  return k;
}

}  // namespace

BudgetPlan PlanBudget(const Node& node, size_t n_inputs) {
  BudgetPlan p;
  const OpSpec* spec = FindOp(node);
  if (!spec) {
    p.no_budget = "no op spec for " + node.op;
    return p;
  }
  if (node.op == "Attention") {
    p.no_budget = "Attention's budget depends on its score magnitudes (runtime/ops/specs.h), not evaluated per node";
    return p;
  }
  if (node.op == "Softmax" || node.op == "LogSoftmax") {
    p.scale = BudgetScale::kSoftmaxSpread;
    return p;
  }
  if (node.op == "ReduceLogSumExp") {
    // log sum exp(x) = max + log sum exp(x - max): the terms |max| and the log, both at most the
    // op on |x| (which is at least max|x| and at least log K).
    p.scale = BudgetScale::kAbsInputs;
    p.abs_inputs.assign(n_inputs, 0);
    if (n_inputs > 0) p.abs_inputs[0] = 1;
    return p;
  }
  if (node.op == "LayerNormalization") {
    p.scale = BudgetScale::kNormTerms;
    return p;
  }
  if (node.op == "Resize" || node.op == "GridSample" || node.op == "RoiAlign") {
    p.scale = BudgetScale::kMaxInput;
    return p;
  }
  // Affine combinations that cancel: the scale is the magnitude of their terms (budget.h).
  if (node.op == "BatchNormalization" && !Int(node, "training_mode", 0) && n_inputs == 5) {
    p.scale = BudgetScale::kAbsInputs;
    p.abs_inputs = {1, 1, 1, 2, 0};
    return p;
  }
  if (Is(node, {"LSTM", "GRU", "RNN"})) {
    p.scale = BudgetScale::kAbsInputs;
    p.abs_inputs.assign(n_inputs, 1);
    return p;
  }
  if (node.op == "HardSigmoid" || node.op == "HardSwish") {
    p.scale = BudgetScale::kAbsInputs;
    p.abs_inputs = {1};
    p.abs_attrs = true;
    return p;
  }
  // Dots and sums: scale = the op on |inputs|. The other budgets scale with |y|.
  if (spec->budget.cK > 0 && spec->budget.c0 == 2) {
    p.scale = BudgetScale::kAbsInputs;
    p.abs_inputs.assign(n_inputs, 1);
    p.abs_attrs = node.op == "Gemm";  // alpha and beta: a negative one would cancel the terms
    if (node.op == "DeformConv" && n_inputs > 2) p.abs_inputs[2] = 0;  // offsets are positions, not terms
  }
  return p;
}

double ReductionLength(const Node& n, const std::vector<Tensor>& in, double* steps) {
  *steps = 1;
  const Shape x = In(in, 0), w = In(in, 1);
  if (Is(n, {"Conv", "DeformConv"}) && w.size() >= 2) return Prod(w, 1, w.size());
  if (n.op == "ConvTranspose" && w.size() >= 2)
    return static_cast<double>(w[0]) / static_cast<double>(std::max<int64_t>(Int(n, "group", 1), 1)) * Prod(w, 2, w.size());
  if (n.op == "Gemm" && x.size() == 2) return static_cast<double>(Int(n, "transA", 0) ? x[0] : x[1]);
  if (n.op == "MatMul" && !x.empty()) return static_cast<double>(x.back());
  if (Is(n, {"AveragePool", "LpPool"})) {
    Result<std::vector<int64_t>> ks = n.GetInts("kernel_shape");
    double k = 1;
    if (ks.ok())
      for (int64_t d : *ks) k *= static_cast<double>(std::max<int64_t>(d, 1));
    return k;
  }
  if (Is(n, {"GlobalAveragePool", "GlobalLpPool", "InstanceNormalization"})) return Prod(x, 2, x.size());
  if (n.op.rfind("Reduce", 0) == 0 && !x.empty()) {
    // The reduced extent: input elements per output element (the output is not at hand here, so
    // the axes: attribute or second input; none = every axis unless noop_with_empty_axes).
    std::vector<int64_t> axes;
    if (Result<std::vector<int64_t>> a = n.GetInts("axes"); a.ok()) axes = *a;
    if (axes.empty() && in.size() > 1 && in[1].is_tensor() && in[1].data)
      for (int64_t i = 0; i < in[1].numel(); ++i) axes.push_back(ReadInt(in[1], i));
    if (axes.empty()) return Int(n, "noop_with_empty_axes", 0) ? 1 : Prod(x, 0, x.size());
    double k = 1;
    for (int64_t a : axes) k *= static_cast<double>(std::max<int64_t>(x[Axis(a, x.size())], 1));
    return k;
  }
  if (Is(n, {"Mean", "Sum"})) return static_cast<double>(in.size());
  if (Is(n, {"Softmax", "LogSoftmax", "LpNormalization"}) && !x.empty()) {
    const size_t a = Axis(Int(n, "axis", -1), x.size());
    return Int(n, "legacy_2d", 0) ? Prod(x, a, x.size()) : static_cast<double>(x[a]);
  }
  if (n.op == "BatchNormalization") return Int(n, "training_mode", 0) && x.size() > 1 ? Prod(x, 0, x.size()) / x[1] : 1;
  if (Is(n, {"LayerNormalization", "RMSNormalization"}) && !x.empty()) return Prod(x, Axis(Int(n, "axis", -1), x.size()), x.size());
  if (n.op == "GroupNormalization" && x.size() > 1)
    return Prod(x, 1, x.size()) / static_cast<double>(std::max<int64_t>(Int(n, "num_groups", 1), 1));
  if (n.op == "LRN") return static_cast<double>(std::max<int64_t>(Int(n, "size", 1), 1));
  if (n.op == "MeanVarianceNormalization" && x.size() > 1) return Prod(x, 0, x.size()) / static_cast<double>(x[1]);
  if (Is(n, {"LSTM", "GRU", "RNN"}) && x.size() == 3 && w.size() == 3) {
    const bool batch_first = Int(n, "layout", 0) == 1;
    *steps = static_cast<double>(std::max<int64_t>(batch_first ? x[1] : x[0], 1));
    const int64_t gates = n.op == "LSTM" ? 4 : n.op == "GRU" ? 3 : 1;
    return static_cast<double>(x[2] + w[1] / gates);  // input size + hidden size
  }
  if (n.op == "AffineGrid") return 4;
  if (n.op == "RotaryEmbedding") return 2;
  if (n.op == "CumSum" && !x.empty()) return static_cast<double>(*std::max_element(x.begin(), x.end()));
  return Largest(in);
}

std::vector<double> NormTermScale(const Node& node, const std::vector<Tensor>& inputs) {
  const Shape x = In(inputs, 0);
  if (x.empty() || !IsReal(inputs[0].dtype)) return {};
  const size_t r = x.size();
  int64_t axis = Int(node, "axis", -1);
  if (axis < 0) axis += static_cast<int64_t>(r);
  if (axis < 0 || axis >= static_cast<int64_t>(r)) return {};
  const int64_t D = static_cast<int64_t>(Prod(x, static_cast<size_t>(axis), r)), n = inputs[0].numel();
  if (D <= 0 || n % D) return {};
  float eps = 1e-5f;
  if (Result<float> e = node.GetFloat("epsilon", 1e-5f); e.ok()) eps = *e;
  // Scale (input 1) and B (input 2): one value per block element, or one in all; absent B is 0.
  auto per = [&](size_t i, double dflt, std::vector<double>* out) {
    if (i >= inputs.size() || !inputs[i].is_tensor() || !inputs[i].data) {
      out->assign(static_cast<size_t>(D), dflt);
      return true;
    }
    const int64_t m = inputs[i].numel();
    if (m != D && m != 1) return false;
    out->resize(static_cast<size_t>(D));
    for (int64_t j = 0; j < D; ++j) (*out)[static_cast<size_t>(j)] = std::fabs(ReadDouble(inputs[i], m == 1 ? 0 : j));
    return true;
  };
  std::vector<double> sc, b;
  if (!per(1, 1.0, &sc) || !per(2, 0.0, &b)) return {};
  std::vector<double> s(static_cast<size_t>(n));
  for (int64_t base = 0; base < n; base += D) {
    double mean = 0, mean_abs = 0, var = 0;
    for (int64_t j = 0; j < D; ++j) {
      mean += ReadDouble(inputs[0], base + j);
      mean_abs += std::fabs(ReadDouble(inputs[0], base + j));
    }
    mean /= static_cast<double>(D);
    mean_abs /= static_cast<double>(D);
    for (int64_t j = 0; j < D; ++j) {
      const double d = ReadDouble(inputs[0], base + j) - mean;
      var += d * d;
    }
    const double sd = std::sqrt(var / static_cast<double>(D) + static_cast<double>(eps));
    for (int64_t j = 0; j < D; ++j)
      s[static_cast<size_t>(base + j)] =
          (std::fabs(ReadDouble(inputs[0], base + j)) + mean_abs) / sd * sc[static_cast<size_t>(j)] + b[static_cast<size_t>(j)];
  }
  return s;
}

Result<BudgetCheck> CheckBudget(const Graph& graph, const Node& node, const std::vector<Tensor>& inputs,
                                const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                                const std::vector<Tensor>& scale_run) {
  BudgetCheck c;
  const BudgetPlan plan = PlanBudget(node, inputs.size());
  if (!plan.no_budget.empty()) {
    c.why = plan.no_budget;
    return c;
  }
  if (got.size() != want.size())
    return Status::Error(node.Where() + ": " + std::to_string(got.size()) + " outputs against ref64's " + std::to_string(want.size()));
  const OpSpec* spec = FindOp(node);
  double steps = 1;
  c.k = ReductionLength(node, inputs, &steps);
  c.units = std::max(steps * (spec->budget.c0 + spec->budget.cK * c.k), 0.5);
  double max_in = 0;
  if (plan.scale == BudgetScale::kMaxInput && !inputs.empty() && inputs[0].is_tensor() && inputs[0].data)
    for (int64_t i = 0; i < inputs[0].numel(); ++i) max_in = std::max(max_in, std::fabs(ReadDouble(inputs[0], i)));
  // Softmax: |x - max x| per element, the max over the softmax axis (legacy_2d: over every dim from it).
  std::vector<double> spread;
  if (plan.scale == BudgetScale::kSoftmaxSpread && !inputs.empty() && inputs[0].is_tensor() && inputs[0].data && !inputs[0].shape.empty()) {
    const Tensor& x = inputs[0];
    const size_t r = x.shape.size(), a = Axis(Int(node, "axis", -1), r);
    const bool legacy = Int(node, "legacy_2d", 0) != 0;
    int64_t n = legacy ? 1 : x.shape[a], inner = 1;
    if (legacy)
      for (size_t d = a; d < r; ++d) n *= x.shape[d];
    else
      for (size_t d = a + 1; d < r; ++d) inner *= x.shape[d];
    spread.assign(static_cast<size_t>(x.numel()), 0.0);
    // One max per row (outer index o, inner index k), then the row's spreads: linear in the elements.
    for (int64_t base0 = 0; base0 < x.numel(); base0 += n * inner)
      for (int64_t k = 0; k < inner; ++k) {
        const int64_t base = base0 + k;
        double m = -INFINITY;
        for (int64_t j = 0; j < n; ++j) m = std::max(m, ReadDouble(x, base + j * inner));
        for (int64_t j = 0; j < n; ++j)
          spread[static_cast<size_t>(base + j * inner)] = std::isfinite(m) ? std::fabs(ReadDouble(x, base + j * inner) - m) : 0.0;
      }
  }
  const std::vector<double> norm_terms = plan.scale == BudgetScale::kNormTerms ? NormTermScale(node, inputs) : std::vector<double>{};
  // sqrt(FLT_MAX) and sqrt(FLT_MIN): squares of larger values overflow float32, of smaller ones flush.
  constexpr double kSqrtMax = 1.8446744e19, kSqrtMin = 1.0842022e-19;
  bool squares_leave_range = false;
  if (Is(node, {"ReduceL2", "ReduceSumSquare", "LayerNormalization", "InstanceNormalization", "GroupNormalization",
                "MeanVarianceNormalization", "LpNormalization", "RMSNormalization"}) &&
      !inputs.empty() && inputs[0].is_tensor() && inputs[0].data && IsReal(inputs[0].dtype)) {
    double m = 0;
    for (int64_t i = 0; i < inputs[0].numel(); ++i) m = std::max(m, std::fabs(ReadDouble(inputs[0], i)));
    squares_leave_range = m > kSqrtMax || (m > 0 && m < kSqrtMin);
  }
  for (size_t o = 0; o < got.size(); ++o) {
    const Tensor &y = got[o], &y64 = want[o];
    if (!y.is_tensor() || !y64.is_tensor()) {
      c.why = "output " + std::to_string(o) + " is not a tensor";
      return c;
    }
    if (y.shape != y64.shape)
      return Status::Error(node.Where() + " output " + std::to_string(o) + ": shape " + ShapeStr(y.shape) + " against ref64's " +
                           ShapeStr(y64.shape));
    if (y.dtype == DType::kString || y64.dtype == DType::kString) continue;
    const std::string name = o < node.outputs.size() && node.outputs[o] >= 0 ? graph.values[node.outputs[o]].name : "";
    const bool real = IsReal(y64.dtype) || IsReal(y.dtype);
    const Tensor* scale = o < scale_run.size() && scale_run[o].is_tensor() && scale_run[o].shape == y64.shape ? &scale_run[o] : nullptr;
    const double narrow = y.dtype == DType::kFloat16 ? 1.0 / 1024 : y.dtype == DType::kBFloat16 ? 1.0 / 128 : 0;
    const double narrow_floor = y.dtype == DType::kFloat16 ? 1.0 / (1 << 24) : 0;
    for (int64_t i = 0; i < y.numel(); ++i) {
      const double g = ReadDouble(y, i), w = ReadDouble(y64, i);
      double r = 0;
      if (!real) {
        r = g == w ? 0 : INFINITY;
      } else if (std::isnan(g) || std::isnan(w)) {
        r = std::isnan(g) == std::isnan(w) ? 0 : INFINITY;
      } else if (g != w) {
        double s = std::fabs(w);
        if (plan.scale == BudgetScale::kAbsInputs && scale) s = std::max(s, std::fabs(ReadDouble(*scale, i)));
        if (plan.scale == BudgetScale::kMaxInput) s = std::max(s, max_in);
        if (o == 0 && static_cast<size_t>(i) < norm_terms.size() && std::isfinite(norm_terms[static_cast<size_t>(i)]))
          s = std::max(s, norm_terms[static_cast<size_t>(i)]);
        if (plan.scale == BudgetScale::kSoftmaxSpread && static_cast<size_t>(i) < spread.size() && std::isfinite(spread[static_cast<size_t>(i)])) {
          const double d = spread[static_cast<size_t>(i)];
          // LogSoftmax y = (x - max) - log sum: its terms' magnitude d + |log sum| = d + |d + y|,
          // plus 1 for the log of the rounded sum (>= 1): an absolute error of eps per rounding.
          s = node.op == "LogSoftmax" ? std::max(s, d + std::fabs(d + w) + 1) : s * (1 + d / c.units);
        }
        const double bound = c.units * kEps32 * s + FLT_MIN + narrow * std::fabs(w) + narrow_floor;
        r = std::isinf(g) || std::isinf(w) ? INFINITY : std::fabs(g - w) / bound;
        // A float32 output that is the exact result rounded to float32 is right, also where that
        // rounding overflows to inf or underflows to 0.
        if (y.dtype == DType::kFloat32 && static_cast<float>(w) == static_cast<float>(g)) r = 0;
        // Ops that square their input in float32 (ReduceL2, ReduceSumSquare, the normalizations'
        // variance): where the squares leave float32's range (the largest |x| above sqrt(FLT_MAX),
        // about 1.8e19, or below sqrt(FLT_MIN), about 1.1e-19, where they flush) float32
        // arithmetic, and ONNX's own float32 reference, overflow or lose them: not checked. A
        // ReduceL2 output of 0 where every square of its K terms flushed (y64 < sqrt(FLT_MIN K)): right.
        if (squares_leave_range && y.dtype == DType::kFloat32) r = 0;
        if (node.op == "ReduceL2" && g == 0 && w < kSqrtMin * std::sqrt(c.k)) r = 0;
      }
      if (r > c.ratio || c.worst_index < 0) {
        c.ratio = std::max(c.ratio, r);
        c.worst_index = i;
        c.worst_output = name;
      }
    }
  }
  c.evaluated = true;
  return c;
}

}  // namespace tare
