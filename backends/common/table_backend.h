// The skeleton the fast backends (cpu, onednn) share: a table of the ops a backend claims, each
// with its own Supports check and compile function, and what every such backend needs around it:
// facts about the graph (GraphInfo), the float32 test, the reference-kernel fallback for a node
// the backend claims but cannot run in a given partition (RefStep), and the attribute checks of
// ONNX LSTM-14 / GRU-14 that both RNN paths share. A new backend writes its op table, its
// Compiler and Compile, and derives from TableBackend<Compiler>.
#pragma once
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace tare {

/// Facts about a whole graph the claims need: which values are known before run time (weights,
/// and the values the session folds: outputs of nodes whose inputs are all known, and of
/// Shape/Size), and how many node inputs and graph outputs read each value. Per value id.
struct GraphInfo {
  std::vector<char> known;
  std::vector<int> readers;
  static GraphInfo Of(const Graph& g);
};

/// Whether value `v` is float32 as the fast paths assume. A value whose dtype the converter left
/// to inference (kUndefined) passes: Compile runs the reference kernel if it turns out otherwise.
bool IsF32(const Graph& g, int v);
/// Whether value `v` is present and known before run time.
inline bool Known(const GraphInfo& info, int v) { return v >= 0 && info.known[v]; }
/// The first output of n that is present (an LSTM/GRU may leave Y out and keep Y_h), or -1.
inline int FirstOutput(const Node& n) {
  for (int v : n.outputs)
    if (v >= 0) return v;
  return -1;
}

/// Whether x[0, n) holds no NaN and no inf (a scan of the exponent bits; vectorized, one clone per
/// x86-64 level with GCC). The fast backends' guards call it before a kernel that would lose a NaN
/// (XNNPACK's output clamp, oneDNN's eltwise and max pooling; docs/NUMERICS.md).
bool AllFinite(const float* x, size_t n);

/// A supports check for ops whose every input is data (Concat): at least one input, all float32.
bool AllInputsF32(const Node& n, const Graph& g, const GraphInfo& info);
/// A supports check for ops with one data input and parameter inputs (Slice's starts/ends/axes/
/// steps, Split's split): input 0 float32, every other present input known at plan time.
bool FloatDataKnownParams(const Node& n, const Graph& g, const GraphInfo& info);

/// ONNX LayerNormalization-17 as the fast backends claim it: float32 X, Scale and B (if given)
/// known at plan time, no Mean / InvStdDev outputs (those run on ref).
bool SupportsLayerNormalization(const Node& n, const Graph& g, const GraphInfo& info);

/// ONNX LSTM-14 / GRU-14: whether the node's `activations` attribute is absent or names the
/// defaults (LSTM: sigmoid, tanh, tanh; GRU: sigmoid, tanh), once or once per direction (`nd`
/// directions), in any letter case.
bool RnnDefaultActivations(const Node& n, bool lstm, int64_t nd);

/// The fallback of a fast backend: node `n` on its reference kernel (float32), as one step that
/// reads `ins` and writes `outs` (one tensor per node input / output, bound now, in the plain
/// layout; an omitted input or output, id < 0, is passed as nullptr). Errors of the kernel name
/// the node. Errors: the node's attributes (MakeRefKernel).
Result<std::function<Status()>> RefStep(const Node& n, std::vector<Tensor> ins, std::vector<Tensor> outs);

/// A partition whose float16 and bfloat16 nodes are computed in float32 (issue 20 item 2,
/// docs/NUMERICS.md "float16 and bfloat16"): each such node reads float32 twins of its narrow
/// inputs (made by a Cast to float just before it, or converted now when known at plan time) and
/// writes a float32 twin of each narrow output, which a Cast right after it rounds once (to nearest
/// even; float16 above 65504 is inf; to bfloat16 with kCastRoundTo) into the original
/// value. So the backend's float32 kernels compute what `ref` computes for a narrow node (float32
/// arithmetic, one rounding per output), and the Casts run on the reference kernel. The file's
/// graph is not changed: `graph` is a private copy.
struct WidePartition {
  Graph graph;                // the session's graph, plus the twins (float32) and the Cast nodes
  Partition part;             // the partition over `graph`, Casts in place
  std::vector<Tensor> slots;  // the session's slots, then one per twin (its private buffer)
  std::vector<int> origin;    // per node of `part`: its index in the original partition, or -1
  std::vector<char> widened;  // per node of `part`: 0, or the narrow DType (as char) of a node in float32 form
};
/// Whether node n has a float16 or bfloat16 tensor among its inputs or outputs (per its graph values).
bool HasNarrowFloatData(const Node& n, const Graph& g);
/// Graph g with every float16 and bfloat16 value typed float32: the claims of a float16 node are those of its
/// float32 form (TableBackend::Supports). Constants keep their data.
Graph WidenTypes(const Graph& g);
/// The WidePartition of `part`, or nullptr when none of its nodes for which `computes` is true
/// has float16 data. `slots` as given to Backend::Compile; `info` the graph's GraphInfo. Errors:
/// allocation failures of the twins.
Result<std::unique_ptr<WidePartition>> Widen(const Graph& g, const Partition& part, const std::vector<Tensor>& slots,
                                            const GraphInfo& info, const std::function<bool(const Node&)>& computes);
/// The executable of a WidePartition: runs `inner` (compiled from w's graph, partition and slots)
/// and reports its notes per node of the original partition, each saying the node was widened.
std::unique_ptr<Executable> WideExecutable(std::unique_ptr<WidePartition> w, std::unique_ptr<Executable> inner);

/// One op a table-driven backend claims: its ONNX name, whether the backend runs a given node of it
/// (`supports`, with the graph's facts), and how the backend's compiler C compiles it.
template <class C>
struct TableOp {
  const char* op;
  bool (*supports)(const Node& n, const Graph& g, const GraphInfo& info);
  Status (*compile)(C& c, const Node& n);
};

/// Ops that share one supports check and one compile function (e.g. the four pools).
template <class C>
struct TableGroup {
  std::vector<const char*> ops;
  bool (*supports)(const Node& n, const Graph& g, const GraphInfo& info);
  Status (*compile)(C& c, const Node& n);
};

/// The table of `groups`: one TableOp per op name, in order.
template <class C>
std::vector<TableOp<C>> TableOf(std::initializer_list<TableGroup<C>> groups) {
  std::vector<TableOp<C>> ops;
  for (const TableGroup<C>& g : groups)
    for (const char* op : g.ops) ops.push_back({op, g.supports, g.compile});
  return ops;
}

/// A backend whose claims come from a table of TableOp (ONNX default domain only): ClaimsOp by
/// name, Supports = a float32 first output and the op's own check, GraphInfo cached for the last
/// graph asked about (by address and value count). Float values are stored as float32. One
/// instance serves one thread: the reference Info returns is valid until Info is asked about
/// another graph (the session asks about one graph at a time).
template <class C>
class TableBackend : public Backend {
 public:
  /// `ops` must outlive the backend (a function-local static table).
  explicit TableBackend(const std::vector<TableOp<C>>& ops) : ops_(ops) {}
  DType float_storage() const override { return DType::kFloat32; }

  bool ClaimsOp(const std::string& domain, const std::string& op) const override {
    Node n;
    n.op = op;
    n.domain = domain;
    return Find(n) != nullptr;
  }

  bool Supports(const Node& node, const Graph& graph) const override {
    const TableOp<C>* op = Find(node);
    if (!op) return false;
    // A float32 first present output (integer variants of these ops stay on ref; an unknown dtype is
    // checked at Compile); the op checks the rest. A float16 or bfloat16 node is claimed when its
    // float32 form is, and computed in float32 (WidePartition; the backend's Compile widens it).
    const int first = FirstOutput(node);
    if (first < 0) return false;
    const DType out = graph.values[first].dtype;
    if (out == DType::kFloat16 || out == DType::kBFloat16 || (out == DType::kUndefined && HasNarrowFloatData(node, graph))) {
      const GraphInfo& info = Info(graph);
      return op->supports(node, Wide(graph), info);
    }
    if (!IsF32(graph, first)) return false;
    return op->supports(node, graph, Info(graph));
  }

 protected:
  /// The table entry of `n`'s op, or nullptr.
  const TableOp<C>* Find(const Node& n) const {
    if (!n.domain.empty() && n.domain != "ai.onnx") return nullptr;
    for (const TableOp<C>& op : ops_)
      if (n.op == op.op) return &op;
    return nullptr;
  }
  /// Compiles `part` as WidePartition when it has float16 or bfloat16 nodes of the table: `compile` (the
  /// backend's float32 Compile) on the widened copy, wrapped in WideExecutable; nullptr when
  /// there is nothing to widen (the caller compiles `part` itself).
  template <class F>
  Result<std::unique_ptr<Executable>> CompileWidened(const Graph& graph, const Partition& part,
                                                     const std::vector<Tensor>& slots, F compile) {
    TARE_ASSIGN_OR_RETURN(std::unique_ptr<WidePartition> w,
                          Widen(graph, part, slots, Info(graph), [this](const Node& n) { return Find(n) != nullptr; }));
    if (!w) return std::unique_ptr<Executable>();
    TARE_ASSIGN_OR_RETURN(std::unique_ptr<Executable> inner, compile(w->graph, w->part, w->slots));
    return WideExecutable(std::move(w), std::move(inner));
  }
  /// WidenTypes(g), cached for the last graph asked about (as Info).
  const Graph& Wide(const Graph& g) const {
    std::lock_guard<std::mutex> lock(mu_);
    if (wide_graph_ != &g || wide_.values.size() != g.values.size()) {
      wide_ = WidenTypes(g);
      wide_graph_ = &g;
    }
    return wide_;
  }
  /// GraphInfo::Of(g), cached for the last graph asked about.
  const GraphInfo& Info(const Graph& g) const {
    std::lock_guard<std::mutex> lock(mu_);
    if (info_graph_ != &g || info_.known.size() != g.values.size()) {
      info_ = GraphInfo::Of(g);
      info_graph_ = &g;
    }
    return info_;
  }

 private:
  const std::vector<TableOp<C>>& ops_;
  mutable std::mutex mu_;
  mutable const Graph* info_graph_ = nullptr;
  mutable GraphInfo info_;
  mutable const Graph* wide_graph_ = nullptr;
  mutable Graph wide_;
};

}  // namespace tare
