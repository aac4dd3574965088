#include "runtime/ir/graph.h"

#include <unordered_map>

namespace tare {

const char* AttrKindName(Attr::Kind k) {
  switch (k) {
    case Attr::Kind::kInt: return "int";
    case Attr::Kind::kFloat: return "float";
    case Attr::Kind::kString: return "string";
    case Attr::Kind::kInts: return "ints";
    case Attr::Kind::kFloats: return "floats";
    case Attr::Kind::kStrings: return "strings";
    case Attr::Kind::kTensor: return "tensor";
    case Attr::Kind::kGraph: return "graph";
    case Attr::Kind::kType: return "type";
  }
  return "?";
}

std::string Node::Where() const { return "node '" + name + "' (" + op + ")"; }

int Node::NumInputs() const {
  int n = static_cast<int>(inputs.size());
  while (n > 0 && inputs[n - 1] < 0) --n;
  return n;
}

namespace {
Status KindError(const Node& n, const std::string& a, Attr::Kind want, Attr::Kind got) {
  return Status::Error(n.Where() + ": attribute '" + a + "' should be " + AttrKindName(want) +
                       ", got " + AttrKindName(got));
}
}  // namespace

Result<int64_t> Node::GetInt(const std::string& a, int64_t dflt) const {
  auto it = attrs.find(a);
  if (it == attrs.end()) return dflt;
  if (it->second.kind != Attr::Kind::kInt) return KindError(*this, a, Attr::Kind::kInt, it->second.kind);
  return it->second.i;
}

Result<float> Node::GetFloat(const std::string& a, float dflt) const {
  auto it = attrs.find(a);
  if (it == attrs.end()) return dflt;
  if (it->second.kind != Attr::Kind::kFloat) return KindError(*this, a, Attr::Kind::kFloat, it->second.kind);
  return it->second.f;
}

Result<std::string> Node::GetString(const std::string& a, const std::string& dflt) const {
  auto it = attrs.find(a);
  if (it == attrs.end()) return dflt;
  if (it->second.kind != Attr::Kind::kString) return KindError(*this, a, Attr::Kind::kString, it->second.kind);
  return it->second.s;
}

Result<std::vector<int64_t>> Node::GetInts(const std::string& a, std::vector<int64_t> dflt) const {
  auto it = attrs.find(a);
  if (it == attrs.end()) return dflt;
  if (it->second.kind != Attr::Kind::kInts) return KindError(*this, a, Attr::Kind::kInts, it->second.kind);
  return it->second.ints;
}

Result<std::vector<float>> Node::GetFloats(const std::string& a, std::vector<float> dflt) const {
  auto it = attrs.find(a);
  if (it == attrs.end()) return dflt;
  if (it->second.kind != Attr::Kind::kFloats) return KindError(*this, a, Attr::Kind::kFloats, it->second.kind);
  return it->second.floats;
}

Attr IntAttr(int64_t v) {
  Attr a;
  a.kind = Attr::Kind::kInt;
  a.i = v;
  return a;
}

Attr IntsAttr(std::vector<int64_t> v) {
  Attr a;
  a.kind = Attr::Kind::kInts;
  a.ints = std::move(v);
  return a;
}

Attr FloatAttr(float v) {
  Attr a;
  a.kind = Attr::Kind::kFloat;
  a.f = v;
  return a;
}

Attr StrAttr(std::string v) {
  Attr a;
  a.kind = Attr::Kind::kString;
  a.s = std::move(v);
  return a;
}

int Graph::AddValue(Value v) {
  values.push_back(std::move(v));
  return static_cast<int>(values.size()) - 1;
}

int Graph::FindValue(const std::string& name) const {
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].name == name) return static_cast<int>(i);
  return -1;
}

Status Graph::Validate() const {
  const int nv = static_cast<int>(values.size());
  // available[v]: the value exists before the node being checked runs.
  std::vector<char> available(values.size(), 0), produced(values.size(), 0);
  for (int v = 0; v < nv; ++v) {
    const Value& val = values[v];
    if (val.is_constant) {
      if (val.constant.dtype != val.dtype || val.constant.shape != val.shape)
        return Status::Error("constant '" + val.name + "' data does not match its declared type/shape");
      available[v] = produced[v] = 1;
    }
  }
  for (int v : inputs) {
    if (v < 0 || v >= nv) return Status::Error("graph input id out of range");
    if (values[v].is_constant) return Status::Error("graph input '" + values[v].name + "' is a constant");
    available[v] = produced[v] = 1;
  }
  for (const Node& n : nodes) {
    for (int v : n.inputs) {
      if (v < -1 || v >= nv) return Status::Error(n.Where() + ": input id out of range");
      if (v >= 0 && !available[v]) {
        return Status::Error(n.Where() + ": reads value '" + values[v].name +
                             "' before it is produced (graph is not in topological order or has a cycle)");
      }
    }
    for (int v : n.outputs) {
      if (v < -1 || v >= nv) return Status::Error(n.Where() + ": output id out of range");
      if (v >= 0 && produced[v])
        return Status::Error(n.Where() + ": value '" + values[v].name + "' has more than one producer");
      if (v >= 0) available[v] = produced[v] = 1;
    }
  }
  for (int v : outputs) {
    if (v < 0 || v >= nv) return Status::Error("graph output id out of range");
    if (!produced[v]) return Status::Error("graph output '" + values[v].name + "' is never produced");
  }
  return Status::Ok();
}

std::vector<char> LiveNodes(const Graph& g, const std::vector<char>& keep) {
  std::vector<char> needed(g.values.size(), 0);
  for (int v : g.outputs) needed[v] = 1;
  for (size_t v = 0; v < keep.size() && v < needed.size(); ++v)
    if (keep[v]) needed[v] = 1;
  std::vector<char> live(g.nodes.size(), 0);
  for (size_t ni = g.nodes.size(); ni-- > 0;) {
    const Node& n = g.nodes[ni];
    for (int v : n.outputs) live[ni] = live[ni] || (v >= 0 && needed[v]);
    if (live[ni])
      for (int v : n.inputs)
        if (v >= 0) needed[v] = 1;
  }
  return live;
}

}  // namespace tare
