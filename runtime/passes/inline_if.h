// Plan-time inlining of If nodes whose condition is known (typically computed from shapes, as
// exporters of PyTorch's `if x.dim() == 3:` write it): the chosen branch replaces the node, so the
// session can plan the whole graph statically instead of running the branch at every run.
#pragma once
#include <cstddef>
#include <vector>

#include "runtime/ir/graph.h"

namespace tare {

/// A graph with one If inlined, and where each of its nodes came from.
struct InlinedGraph {
  Graph graph;
  /// Per node of `graph`: the index of the node of the input graph it is (a copy of), or -1 for a
  /// node of the inlined branch (including the Identity nodes that write the If's outputs).
  std::vector<int> origin;
};

/// Returns `g` with node `node` (an If of the default domain, with the converter's closed-body
/// convention: inputs = cond then the "tare.captured" outer values, in the branch's input order)
/// replaced, at its position, by the nodes of `then_branch` (or `else_branch`), followed by one
/// Identity per If output copying the branch's output. Branch values get new ids (constants
/// stay constants; names that clash with the graph's get a "/inlined.N" suffix); branch inputs
/// become the captured values; the If's output values keep their ids, names and declared types.
/// Errors: `node` is not an If, a missing branch, input or output counts that do not match.
Result<InlinedGraph> InlineIf(const Graph& g, size_t node, bool then_branch);

}  // namespace tare
