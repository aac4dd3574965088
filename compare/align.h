// Layer alignment of two models of the same network (possibly from different tools, with renamed
// tensors, different opsets, different op decompositions and NHWC islands) and the search for the
// first layer where they diverge (steps 2 and 3 of the attribution, docs/ARCHITECTURE.md).
#pragma once
#include <string>
#include <vector>

#include "compare/metrics.h"
#include "runtime/session.h"

namespace tare {

/// A traced layer of one model: an anchor node (the op that names the layer) and the traced output
/// of the layer, which is the anchor's own first output or, when constant elementwise epilogues
/// follow it, the last epilogue's output (a Conv without bias followed by Add(bias) is one layer
/// "Conv", as the same layer written with a biased Conv is).
struct Layer {
  int node = -1;         ///< the anchor node's index in the graph
  int output_node = -1;  ///< the node whose output is `trace` (== node unless epilogues were absorbed)
  std::string op;        ///< the anchor's op type
  TraceEntry trace;
  /// The class alignment matches (OpClass(op)); a TFLite quantized op with a fused activation
  /// (attribute `activation` RELU, RELU6, RELU_N1_TO_1) outputs the activation's result: "relu".
  std::string cls;
};

/// Layers of a traced session run in graph order (the nodes it ran; folded and unused nodes
/// excluded). An Add, Sub, Mul or Div whose other operand is a constant (a weight or a value folded at
/// plan time) and whose output has the producer's shape is absorbed into the producer's layer when it
/// is that output's only consumer; so is a TFLite Dequantize (domain "tflite") of a quantized op's
/// output (its traced codes are already given as real values). `graph` is the session's graph.
std::vector<Layer> TracedLayers(const Graph& graph, const std::vector<TraceEntry>& trace);

/// Layouts of an aligned pair's two tensors.
enum class PairLayout {
  kSame,   ///< same shape, compared element by element
  kBNhwc,  ///< A is [N,C,H,W] and B is [N,H,W,C] (an NHWC island in B): B is read in NCHW order
  kANhwc,  ///< A is [N,H,W,C] and B is [N,C,H,W]: A is read in NCHW order
  /// Same shape, the same values in another order: a Flatten / Reshape whose two inputs were NCHW
  /// on one side and NHWC on the other (a TensorFlow export flattens [N,H,W,C], PyTorch [N,C,H,W]);
  /// compared as sorted values (set by CompareLayers, never by AlignLayers).
  kPermuted,
};

/// Two layers taken to compute the same thing, and how they were paired.
struct AlignedPair {
  size_t a = 0, b = 0;  ///< indices into the two Layer lists
  std::string how;      ///< "name" (same output tensor name, same op or class) or "structure" (op class and shape)
  PairLayout layout = PairLayout::kSame;
};

/// The equivalence class of an op type for structural alignment: ops that different producers use
/// for the same layer share a class (Gemm/MatMul, Flatten/Reshape, Relu/Clip, AveragePool/
/// GlobalAveragePool/ReduceMean, MaxPool/GlobalMaxPool/ReduceMax; TFLite's quantized QConv2D,
/// QFullyConnected, QAveragePool2D, ... with the float ops they approximate); otherwise the op type.
std::string OpClass(const std::string& op);

/// Whether `nhwc` is `nchw`'s [N,C,H,W] shape in [N,H,W,C] order (both rank 4).
bool NhwcOf(const Shape& nchw, const Shape& nhwc);

/// A numeric [N,H,W,C] tensor's values in [N,C,H,W] order, as float64. Errors: not a numeric rank-4 tensor.
Result<Tensor> NchwOf(const Tensor& t);

/// Aligns two layer lists. By name: layers whose first output has the same tensor name and op
/// type. By structure: the order-preserving matching of the two lists in graph order with the
/// highest score, where a pair needs the same value kind, the same op class and the same shape (or
/// one side's NCHW shape in NHWC order on the other side); same op scores above same class, same
/// shape above NHWC. The method aligning more layers wins (names on a tie). Structural alignment is skipped
/// (names only) when the two lists' sizes multiply to more than 4e7.
std::vector<AlignedPair> AlignLayers(const std::vector<Layer>& a, const std::vector<Layer>& b);

/// An aligned pair with the distance between its outputs (a compared to b).
struct LayerDiff {
  AlignedPair pair;
  Metrics metrics;
  bool diverges = false;  ///< relative L2 above the threshold (or NaN mismatch, or the comparison failed)
  std::string error;      ///< why the outputs could not be compared (shape or type differ), else empty
};

/// Metrics for every aligned pair (the NHWC side read in NCHW order for kBNhwc/kANhwc pairs); a
/// pair diverges when rel_l2 > threshold. A diverging Flatten / Reshape pair (OpClass "Flatten")
/// whose sorted values agree within the threshold becomes a kPermuted pair that agrees, with the
/// metrics of the sorted values.
std::vector<LayerDiff> CompareLayers(const std::vector<Layer>& a, const std::vector<Layer>& b,
                                     const std::vector<AlignedPair>& pairs, double threshold);

/// Index (into `diffs`) of the first aligned layer, in graph order of model A, whose output
/// diverges while every aligned layer that feeds it (directly or through unaligned layers) agrees;
/// -1 when no layer diverges.
int FirstDivergence(const Graph& graph_a, const std::vector<Layer>& a, const std::vector<LayerDiff>& diffs);

}  // namespace tare
