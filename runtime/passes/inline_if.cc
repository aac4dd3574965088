#include "runtime/passes/inline_if.h"

#include <string>
#include <unordered_set>

namespace tare {

Result<InlinedGraph> InlineIf(const Graph& g, size_t node, bool then_branch) {
  if (node >= g.nodes.size()) return Status::Error("InlineIf: node index out of range");
  const Node& n = g.nodes[node];
  if (n.op != "If" || (!n.domain.empty() && n.domain != "ai.onnx")) return Status::Error("InlineIf: " + n.Where() + " is not an If");
  const char* attr = then_branch ? "then_branch" : "else_branch";
  auto it = n.attrs.find(attr);
  if (it == n.attrs.end() || it->second.kind != Attr::Kind::kGraph || !it->second.graph)
    return Status::Error(n.Where() + ": attribute '" + std::string(attr) + "' (a graph) is missing");
  const Graph& b = *it->second.graph;
  if (n.inputs.empty() || b.inputs.size() != n.inputs.size() - 1 || b.outputs.size() != n.outputs.size())
    return Status::Error(n.Where() + ": " + attr + " does not match the node's inputs and outputs");

  InlinedGraph out;
  Graph& r = out.graph;
  r.values = g.values;
  r.inputs = g.inputs;
  r.outputs = g.outputs;
  std::unordered_set<std::string> names;
  for (const Value& v : g.values) names.insert(v.name);
  // Branch value id -> id in r: inputs are the captured outer values, the rest are new.
  std::vector<int> map(b.values.size(), -1);
  for (size_t i = 0; i < b.inputs.size(); ++i) map[b.inputs[i]] = n.inputs[i + 1];
  int suffix = 0;
  for (size_t v = 0; v < b.values.size(); ++v) {
    if (map[v] != -1) continue;
    Value val = b.values[v];
    while (names.count(val.name)) val.name = b.values[v].name + "/inlined." + std::to_string(++suffix);
    names.insert(val.name);
    map[v] = r.AddValue(std::move(val));
  }
  r.nodes.reserve(g.nodes.size() + b.nodes.size() + n.outputs.size());
  for (size_t k = 0; k < node; ++k) {
    r.nodes.push_back(g.nodes[k]);
    out.origin.push_back(static_cast<int>(k));
  }
  for (const Node& bn : b.nodes) {
    Node c = bn;
    for (int& v : c.inputs)
      if (v >= 0) v = map[v];
    for (int& v : c.outputs)
      if (v >= 0) v = map[v];
    r.nodes.push_back(std::move(c));
    out.origin.push_back(-1);
  }
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    if (n.outputs[k] < 0) continue;
    Node id;
    id.name = n.name + "/" + attr + "/output." + std::to_string(k);
    id.op = "Identity";
    id.inputs = {map[b.outputs[k]]};
    id.outputs = {n.outputs[k]};
    r.nodes.push_back(std::move(id));
    out.origin.push_back(-1);
  }
  for (size_t k = node + 1; k < g.nodes.size(); ++k) {
    r.nodes.push_back(g.nodes[k]);
    out.origin.push_back(static_cast<int>(k));
  }
  return out;
}

}  // namespace tare
