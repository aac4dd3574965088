// Layer alignment of two models of the same network (possibly from different tools, with renamed
// tensors and different opsets) and the search for the first layer where they diverge
// (DESIGN.md section 2, steps 2 and 3 of the attribution).
#pragma once
#include <string>
#include <vector>

#include "compare/metrics.h"
#include "runtime/session.h"

namespace tare {

/// A traced layer of one model: the node index, its op type and its first output's trace.
struct Layer {
  int node = -1;
  std::string op;
  TraceEntry trace;
};

/// Layers of a traced session run in graph order (the nodes it ran; folded and unused nodes
/// excluded). `graph` is the session's graph.
std::vector<Layer> TracedLayers(const Graph& graph, const std::vector<TraceEntry>& trace);

/// Two layers taken to compute the same thing, and how they were paired.
struct AlignedPair {
  size_t a = 0, b = 0;  ///< indices into the two Layer lists
  std::string how;      ///< "name" (same output tensor name and op) or "structure" (op type and shape)
};

/// Aligns two layer lists. By name: layers whose first output has the same tensor name and op
/// type. By structure: the longest common subsequence of the two lists in graph order where a match
/// needs the same op type and output shape. The method aligning more layers wins (names on a tie).
std::vector<AlignedPair> AlignLayers(const std::vector<Layer>& a, const std::vector<Layer>& b);

/// An aligned pair with the distance between its outputs (a compared to b).
struct LayerDiff {
  AlignedPair pair;
  Metrics metrics;
  bool diverges = false;  ///< relative L2 above the threshold (or NaN mismatch, or the comparison failed)
  std::string error;      ///< why the outputs could not be compared (shape or type differ), else empty
};

/// Metrics for every aligned pair; a pair diverges when rel_l2 > threshold.
std::vector<LayerDiff> CompareLayers(const std::vector<Layer>& a, const std::vector<Layer>& b,
                                     const std::vector<AlignedPair>& pairs, double threshold);

/// Index (into `diffs`) of the first aligned layer, in graph order of model A, whose output
/// diverges while every aligned layer that feeds it (directly or through unaligned layers) agrees;
/// -1 when no layer diverges.
int FirstDivergence(const Graph& graph_a, const std::vector<Layer>& a, const std::vector<LayerDiff>& diffs);

}  // namespace tare
