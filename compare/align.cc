#include "compare/align.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

namespace tare {

std::vector<Layer> TracedLayers(const Graph& graph, const std::vector<TraceEntry>& trace) {
  std::map<std::string, const TraceEntry*> by_value;
  for (const TraceEntry& t : trace) by_value[t.value] = &t;
  auto traced = [&](int v) -> const TraceEntry* {
    if (v < 0) return nullptr;
    auto it = by_value.find(graph.values[static_cast<size_t>(v)].name);
    return it == by_value.end() ? nullptr : it->second;
  };
  // Uses of every value (graph outputs count: a model output is always a layer boundary) and its
  // consumer when there is one.
  std::vector<int> uses(graph.values.size(), 0), consumer(graph.values.size(), -1), producer(graph.values.size(), -1);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (int v : graph.nodes[i].inputs)
      if (v >= 0) ++uses[static_cast<size_t>(v)], consumer[static_cast<size_t>(v)] = static_cast<int>(i);
    for (int v : graph.nodes[i].outputs)
      if (v >= 0) producer[static_cast<size_t>(v)] = static_cast<int>(i);
  }
  for (int v : graph.outputs) ++uses[static_cast<size_t>(v)];
  const std::set<int> inputs(graph.inputs.begin(), graph.inputs.end());
  // A constant operand: a weight, or a value the session folded at plan time (not traced, not an input).
  auto constant = [&](int v) {
    return v >= 0 && (graph.values[static_cast<size_t>(v)].is_constant || (!traced(v) && !inputs.count(v)));
  };
  // The epilogue node absorbed after `node`'s output `v`, or -1.
  auto epilogue = [&](int v, const Tensor& t) {
    if (uses[static_cast<size_t>(v)] != 1) return -1;
    const int m = consumer[static_cast<size_t>(v)];
    if (m < 0) return -1;  // the one use is as a graph output
    const Node& e = graph.nodes[static_cast<size_t>(m)];
    const int p = producer[static_cast<size_t>(v)];
    if (e.domain == "tflite" && e.op == "Dequantize" && e.inputs.size() == 1 && !e.outputs.empty() && p >= 0 &&
        graph.nodes[static_cast<size_t>(p)].domain == "tflite") {
      const TraceEntry* out = traced(e.outputs[0]);
      return out && out->tensor.kind == t.kind && out->tensor.shape == t.shape ? m : -1;
    }
    if (e.inputs.size() != 2 || e.outputs.empty() || e.domain != "") return -1;
    const bool commutes = e.op == "Add" || e.op == "Mul";
    if (!commutes && e.op != "Sub" && e.op != "Div") return -1;
    int other;
    if (e.inputs[0] == v && e.inputs[1] != v) other = e.inputs[1];
    else if (commutes && e.inputs[1] == v && e.inputs[0] != v) other = e.inputs[0];
    else return -1;
    const TraceEntry* out = traced(e.outputs[0]);
    if (!constant(other) || !out || out->tensor.kind != t.kind || out->tensor.shape != t.shape) return -1;
    return m;
  };
  std::vector<char> absorbed(graph.nodes.size(), 0);
  std::vector<Layer> layers;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& n = graph.nodes[i];
    if (absorbed[i] || n.outputs.empty()) continue;
    const TraceEntry* t = traced(n.outputs[0]);
    if (!t) continue;
    Layer l{static_cast<int>(i), static_cast<int>(i), n.op, *t, OpClass(n.op)};
    if (n.domain == "tflite" && n.has("activation")) {
      Result<std::string> act = n.GetString("activation", "NONE");
      if (act.ok() && *act != "NONE") l.cls = OpClass("Relu");
    }
    for (int m; (m = epilogue(graph.nodes[static_cast<size_t>(l.output_node)].outputs[0], l.trace.tensor)) >= 0;) {
      absorbed[static_cast<size_t>(m)] = 1;
      l.output_node = m;
      l.trace = *traced(graph.nodes[static_cast<size_t>(m)].outputs[0]);
    }
    layers.push_back(std::move(l));
  }
  return layers;
}

std::string OpClass(const std::string& op) {
  static const std::map<std::string, std::string> kClass = {
      {"Gemm", "linear"},         {"MatMul", "linear"},          {"Flatten", "reshape"},
      {"Reshape", "reshape"},     {"Relu", "relu"},              {"Clip", "relu"},
      {"AveragePool", "avgpool"}, {"GlobalAveragePool", "avgpool"}, {"ReduceMean", "avgpool"},
      {"MaxPool", "maxpool"},     {"GlobalMaxPool", "maxpool"},  {"ReduceMax", "maxpool"},
      // TFLite's quantized ops (domain "tflite") against the float ops they approximate.
      {"QConv2D", "Conv"},        {"QDepthwiseConv2D", "Conv"},  {"QFullyConnected", "linear"},
      {"QAveragePool2D", "avgpool"}, {"QMaxPool2D", "maxpool"},  {"QAdd", "Add"},
      {"QMul", "Mul"},            {"QSoftmax", "Softmax"},       {"QLogistic", "Sigmoid"}};
  auto it = kClass.find(op);
  return it == kClass.end() ? op : it->second;
}

bool NhwcOf(const Shape& nchw, const Shape& nhwc) {
  return nchw.size() == 4 && nhwc.size() == 4 && nchw[0] == nhwc[0] && nchw[1] == nhwc[3] && nchw[2] == nhwc[1] &&
         nchw[3] == nhwc[2];
}
// A numeric [N,H,W,C] tensor's values in [N,C,H,W] order (as float64).
Result<Tensor> NchwOf(const Tensor& t) {
  if (!t.is_tensor() || t.shape.size() != 4 || t.dtype == DType::kString || DTypeSize(t.dtype) == 0)
    return Status::Error("an NHWC pair needs numeric rank-4 tensors");
  const int64_t N = t.shape[0], H = t.shape[1], W = t.shape[2], C = t.shape[3];
  TARE_ASSIGN_OR_RETURN(Tensor out, Tensor::Alloc(DType::kFloat64, {N, C, H, W}));
  for (int64_t n = 0, o = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w, ++o) WriteDouble(out, o, ReadDouble(t, ((n * H + h) * W + w) * C + c));
  return out;
}

std::vector<AlignedPair> AlignLayers(const std::vector<Layer>& a, const std::vector<Layer>& b) {
  std::vector<AlignedPair> by_name;
  std::map<std::string, size_t> b_names;
  for (size_t j = 0; j < b.size(); ++j) b_names[b[j].trace.value] = j;
  for (size_t i = 0; i < a.size(); ++i) {
    auto it = b_names.find(a[i].trace.value);
    if (it != b_names.end() && (b[it->second].op == a[i].op || b[it->second].cls == a[i].cls))
      by_name.push_back({i, it->second, "name"});
  }
  const size_t n = a.size(), m = b.size();
  if (n * m > 40000000) return by_name;
  // Score of pairing a[i] with b[j]: 0 = impossible; shape (2 same, 1 NHWC) + op (2 same, 1 class).
  auto score = [&](size_t i, size_t j) {
    const Tensor &ta = a[i].trace.tensor, &tb = b[j].trace.tensor;
    if (ta.kind != tb.kind) return 0;
    const int s = ta.shape == tb.shape ? 2 : NhwcOf(ta.shape, tb.shape) || NhwcOf(tb.shape, ta.shape) ? 1 : 0;
    const int o = a[i].op == b[j].op ? 2 : a[i].cls == b[j].cls ? 1 : 0;
    return s && o ? s + o : 0;
  };
  // Highest-scoring order-preserving matching (weighted longest common subsequence).
  std::vector<int> L((n + 1) * (m + 1), 0);
  auto at = [&](size_t i, size_t j) -> int& { return L[i * (m + 1) + j]; };
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;) {
      const int s = score(i, j);
      at(i, j) = std::max({at(i + 1, j), at(i, j + 1), s ? s + at(i + 1, j + 1) : 0});
    }
  std::vector<AlignedPair> by_structure;
  for (size_t i = 0, j = 0; i < n && j < m;) {
    const int s = score(i, j);
    if (s && at(i, j) == s + at(i + 1, j + 1)) {
      const Shape &sa = a[i].trace.tensor.shape, &sb = b[j].trace.tensor.shape;
      const PairLayout layout = sa == sb ? PairLayout::kSame : NhwcOf(sa, sb) ? PairLayout::kBNhwc : PairLayout::kANhwc;
      by_structure.push_back({i, j, "structure", layout});
      ++i, ++j;
    } else if (at(i + 1, j) >= at(i, j + 1)) {
      ++i;
    } else {
      ++j;
    }
  }
  return by_name.size() >= by_structure.size() ? by_name : by_structure;
}

namespace {

/// A numeric tensor's values as a float64 vector in ascending order (NaNs last).
Result<Tensor> SortedValues(const Tensor& t) {
  if (t.kind != ValueKind::kTensor || t.dtype == DType::kString || t.dtype == DType::kUndefined) return Status::Error("not numeric");
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = ReadDouble(t, i);
  std::sort(v.begin(), v.end(), [](double x, double y) { return std::isnan(y) ? !std::isnan(x) : x < y; });
  TARE_ASSIGN_OR_RETURN(Tensor out, Tensor::Alloc(DType::kFloat64, {static_cast<int64_t>(v.size())}));
  if (!v.empty()) std::memcpy(out.data, v.data(), v.size() * sizeof(double));
  return out;
}

}  // namespace

std::vector<LayerDiff> CompareLayers(const std::vector<Layer>& a, const std::vector<Layer>& b,
                                     const std::vector<AlignedPair>& pairs, double threshold) {
  std::vector<LayerDiff> out;
  for (const AlignedPair& p : pairs) {
    LayerDiff d;
    d.pair = p;
    const Tensor &ta = a[p.a].trace.tensor, &tb = b[p.b].trace.tensor;
    Result<Metrics> m = Status::Error("not compared");
    if (p.layout == PairLayout::kSame) {
      m = CompareTensors(ta, tb);
    } else {
      Result<Tensor> nchw = NchwOf(p.layout == PairLayout::kBNhwc ? tb : ta);
      if (!nchw.ok()) m = nchw.status();
      else m = p.layout == PairLayout::kBNhwc ? CompareTensors(ta, *nchw) : CompareTensors(*nchw, tb);
    }
    if (!m.ok()) {
      d.error = m.status().message();
      d.diverges = true;
    } else {
      d.metrics = *m;
      d.diverges = m->nan_mismatch > 0 || !(m->rel_l2 <= threshold);
    }
    if (d.diverges && m.ok() && p.layout == PairLayout::kSame && OpClass(a[p.a].op) == OpClass("Flatten")) {
      // The same values in another order (NHWC flattened against NCHW): compare them sorted.
      Result<Tensor> sa = SortedValues(ta), sb = SortedValues(tb);
      Result<Metrics> ms = sa.ok() && sb.ok() ? CompareTensors(*sa, *sb) : Result<Metrics>(Status::Error("not numeric"));
      if (ms.ok() && ms->nan_mismatch == 0 && ms->rel_l2 <= threshold) {
        d.pair.layout = PairLayout::kPermuted;
        d.metrics = *ms;
        d.diverges = false;
      }
    }
    out.push_back(std::move(d));
  }
  return out;
}

int FirstDivergence(const Graph& graph_a, const std::vector<Layer>& a, const std::vector<LayerDiff>& diffs) {
  // For every value of A: does some diverging aligned layer feed it (itself included)? A layer's
  // verdict belongs to the node whose output it traced (the last absorbed epilogue).
  std::vector<char> tainted(graph_a.values.size(), 0);
  std::map<int, const LayerDiff*> diff_of_node;
  for (const LayerDiff& d : diffs) diff_of_node[a[d.pair.a].output_node] = &d;
  int first = -1;
  for (size_t ni = 0; ni < graph_a.nodes.size(); ++ni) {
    const Node& n = graph_a.nodes[ni];
    bool inputs_tainted = false;
    for (int v : n.inputs)
      if (v >= 0 && tainted[static_cast<size_t>(v)]) inputs_tainted = true;
    auto it = diff_of_node.find(static_cast<int>(ni));
    const bool diverges = it != diff_of_node.end() && it->second->diverges;
    if (diverges && !inputs_tainted && first < 0) first = static_cast<int>(it->second - diffs.data());
    const bool taint = inputs_tainted || diverges;
    for (int v : n.outputs)
      if (v >= 0) tainted[static_cast<size_t>(v)] = taint;
  }
  return first;
}

}  // namespace tare
