// Builds small graphs by hand for the unit tests.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "runtime/ir/graph.h"

namespace tare::test {

/// Appends values and nodes to a Graph with readable calls.
struct GraphBuilder {
  Graph g;
  int Input(const std::string& name, DType dt, Shape shape) {
    Value v;
    v.name = name, v.dtype = dt, v.shape = std::move(shape), v.has_shape = true;
    int id = g.AddValue(std::move(v));
    g.inputs.push_back(id);
    return id;
  }
  int Const(const std::string& name, Tensor t) {
    Value v;
    v.name = name, v.dtype = t.dtype, v.shape = t.shape, v.has_shape = true, v.is_constant = true, v.constant = t;
    return g.AddValue(std::move(v));
  }
  /// Adds node `op` reading `ins`; returns the ids of its `n_out` new outputs.
  std::vector<int> Op(const std::string& op, std::vector<int> ins, int n_out = 1, std::map<std::string, Attr> attrs = {}) {
    Node n;
    n.op = op;
    n.name = op + "_" + std::to_string(g.nodes.size());
    n.inputs = std::move(ins);
    n.attrs = std::move(attrs);
    std::vector<int> outs;
    for (int i = 0; i < n_out; ++i) {
      Value v;
      v.name = n.name + ":" + std::to_string(i);
      outs.push_back(g.AddValue(std::move(v)));
    }
    n.outputs = outs;
    g.nodes.push_back(std::move(n));
    return outs;
  }
  static Attr Ints(std::vector<int64_t> v) { Attr a; a.kind = Attr::Kind::kInts; a.ints = std::move(v); return a; }
  static Attr Int(int64_t v) { Attr a; a.kind = Attr::Kind::kInt; a.i = v; return a; }
  /// A GRAPH attribute holding a copy of `g` (If branches, Loop and Scan bodies).
  static Attr GraphOf(const Graph& g) { Attr a; a.kind = Attr::Kind::kGraph; a.graph = std::make_shared<Graph>(g); return a; }
};

}  // namespace tare::test
