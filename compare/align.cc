#include "compare/align.h"

#include <map>

namespace tare {

std::vector<Layer> TracedLayers(const Graph& graph, const std::vector<TraceEntry>& trace) {
  std::map<std::string, const TraceEntry*> by_value;
  for (const TraceEntry& t : trace) by_value[t.value] = &t;
  std::vector<Layer> layers;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& n = graph.nodes[i];
    if (n.outputs.empty() || n.outputs[0] < 0) continue;
    auto it = by_value.find(graph.values[n.outputs[0]].name);
    if (it == by_value.end()) continue;
    layers.push_back({static_cast<int>(i), n.op, *it->second});
  }
  return layers;
}

std::vector<AlignedPair> AlignLayers(const std::vector<Layer>& a, const std::vector<Layer>& b) {
  std::vector<AlignedPair> by_name;
  std::map<std::string, size_t> b_names;
  for (size_t j = 0; j < b.size(); ++j) b_names[b[j].trace.value] = j;
  for (size_t i = 0; i < a.size(); ++i) {
    auto it = b_names.find(a[i].trace.value);
    if (it != b_names.end() && b[it->second].op == a[i].op) by_name.push_back({i, it->second, "name"});
  }
  // Longest common subsequence on (op type, output shape).
  auto same = [&](size_t i, size_t j) {
    return a[i].op == b[j].op && a[i].trace.tensor.kind == b[j].trace.tensor.kind &&
           a[i].trace.tensor.shape == b[j].trace.tensor.shape;
  };
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> L(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      L[i][j] = same(i, j) ? L[i + 1][j + 1] + 1 : std::max(L[i + 1][j], L[i][j + 1]);
  std::vector<AlignedPair> by_structure;
  for (size_t i = 0, j = 0; i < n && j < m;) {
    if (same(i, j) && L[i][j] == L[i + 1][j + 1] + 1) {
      by_structure.push_back({i, j, "structure"});
      ++i, ++j;
    } else if (L[i + 1][j] >= L[i][j + 1]) {
      ++i;
    } else {
      ++j;
    }
  }
  return by_name.size() >= by_structure.size() ? by_name : by_structure;
}

std::vector<LayerDiff> CompareLayers(const std::vector<Layer>& a, const std::vector<Layer>& b,
                                     const std::vector<AlignedPair>& pairs, double threshold) {
  std::vector<LayerDiff> out;
  for (const AlignedPair& p : pairs) {
    LayerDiff d;
    d.pair = p;
    Result<Metrics> m = CompareTensors(a[p.a].trace.tensor, b[p.b].trace.tensor);
    if (!m.ok()) {
      d.error = m.status().message();
      d.diverges = true;
    } else {
      d.metrics = *m;
      d.diverges = m->nan_mismatch > 0 || !(m->rel_l2 <= threshold);
    }
    out.push_back(std::move(d));
  }
  return out;
}

int FirstDivergence(const Graph& graph_a, const std::vector<Layer>& a, const std::vector<LayerDiff>& diffs) {
  // For every value of A: does some diverging aligned layer feed it (itself included)?
  std::vector<char> tainted(graph_a.values.size(), 0);
  std::map<int, const LayerDiff*> diff_of_node;
  for (const LayerDiff& d : diffs) diff_of_node[a[d.pair.a].node] = &d;
  int first = -1;
  for (size_t ni = 0; ni < graph_a.nodes.size(); ++ni) {
    const Node& n = graph_a.nodes[ni];
    bool inputs_tainted = false;
    for (int v : n.inputs)
      if (v >= 0 && tainted[v]) inputs_tainted = true;
    auto it = diff_of_node.find(static_cast<int>(ni));
    const bool diverges = it != diff_of_node.end() && it->second->diverges;
    if (diverges && !inputs_tainted && first < 0) first = static_cast<int>(it->second - diffs.data());
    const bool taint = inputs_tainted || diverges;
    for (int v : n.outputs)
      if (v >= 0) tainted[v] = taint;
  }
  return first;
}

}  // namespace tare
