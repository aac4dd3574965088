// Compiles one partition of the onednn backend into a list of steps: oneDNN primitives bound to
// memory objects made once at Compile (on the session's slots or on private buffers), and, for the
// cases the primitives do not cover (decided from concrete shapes), reference kernels.
//
// Layouts: every value has a plain representation (row-major, as in the IR, in its slot) and may
// have one blocked representation (any memory::desc a primitive chose through format_tag::any,
// e.g. nChw16c, in a private buffer owned by the compiled partition; blocked descs may be larger
// than the plain tensor, so they never live in the slot). A value produced inside the partition
// is held in whatever desc its producer's primitive picked; a consumer that needs another desc
// gets a reorder step just before it (once per value and desc; at compile time for weights and
// folded values). A value in Partition::live_out is written plain into its slot when its producer
// has run. A fused chain (Conv + post-ops) whose output slot overlaps the bytes of a value the
// chain reads (the arena may reuse them: their lifetimes do not overlap in the graph's order)
// writes a private buffer, reordered into the slot after the step.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "backends/backend.h"

namespace tare::onednn {

using dnnl::memory;

/// Plan-time knowledge of a graph: which values are known before run time (weights, and values
/// the session folds: outputs of nodes whose inputs are all known, and of Shape/Size), and how
/// many node inputs and graph outputs read each value.
struct GraphInfo {
  std::vector<char> known;
  std::vector<int> readers;
  static GraphInfo Of(const Graph& g);
};

/// A step of a compiled partition: a primitive with its arguments, or a function (reference
/// kernels), returning an error that names the node.
struct Step {
  dnnl::primitive prim;
  std::unordered_map<int, memory> args;
  std::function<Status()> fn;
  std::string label;
};

class Compiler {
 public:
  struct Rep {
    bool plain = false;          // the slot holds v plain
    memory blocked;              // v in a primitive's desc (private buffer), or empty
    std::vector<memory> others;  // reorders made for consumers (private buffers)
  };
  Compiler(const Graph& g, const Partition& part, const std::vector<Tensor>& slots, const GraphInfo& info,
           const dnnl::engine& eng, dnnl::stream& strm);

  const Graph& graph() const { return g_; }
  const dnnl::engine& engine() const { return eng_; }
  const Tensor& slot(int v) const { return slots_[v]; }
  const Shape& shape(int v) const { return slots_[v].shape; }
  bool IsConst(int v) const { return v >= 0 && info_.known[v]; }
  bool IsLiveOut(int v) const { return live_out_[v] != 0; }
  /// A float32 tensor with at least one element (what the primitives take).
  bool F32(int v) const;

  size_t pos() const { return pos_; }
  void Begin(size_t p) { pos_ = start_ = p; }
  const Node& NodeAt(size_t p) const { return g_.nodes[part_.nodes[p]]; }
  bool Absorbed(size_t p) const { return absorbed_[p] != 0; }
  /// The next node of the partition when it is v's only reader (one input, one node), v is not
  /// live out, and that node is not absorbed; else nullptr. Used for fusion.
  const Node* NextSoleReader(int v) const;
  /// Marks the next node as computed by the current one and moves pos() to it.
  void AbsorbNext() {
    absorbed_[pos_ + 1] = 1;
    ++pos_;
  }

  /// The plain desc of v (row-major over its shape; rank 0 as {1}).
  memory::desc PlainDesc(int v) const;
  /// v plain in its slot (adds a reorder step when v is held only blocked so far).
  memory Plain(int v);
  /// v as it is held now: its blocked representation if it has one, else plain.
  memory Current(int v);
  /// v in desc d (adds a reorder step, or reorders now when v is known at plan time).
  memory In(int v, const memory::desc& d);
  /// Where the producer of v writes it in desc d: its slot when d is v's plain desc and the slot
  /// overlaps none of `reads` (values read by the step), else a private buffer. Call Done(v) after
  /// adding the producer's step.
  memory Out(int v, const memory::desc& d, const std::vector<int>& reads);
  /// After v's producer step: when v is live out and not in its slot yet, reorders it there.
  void Done(int v);

  void Add(dnnl::primitive p, std::unordered_map<int, memory> args, const std::string& impl = "");
  void AddFn(std::function<Status()> fn);

  /// Runs `n` with its reference kernel (float32, plain layouts).
  Status CompileRef(const Node& n);

  /// State to go back to when an op's primitive cannot be made (dnnl::error): its reference
  /// kernel runs instead.
  struct Snapshot {
    size_t steps, held, impls, pos;
    std::vector<char> absorbed;
    std::vector<Rep> rep;
  };
  Snapshot Save() const { return {steps_.size(), held_.size(), impls_.size(), pos_, absorbed_, rep_}; }
  void Restore(const Snapshot& s);

  /// The implementations chosen, one line per primitive ("node: impl"), for TARE_ONEDNN_VERBOSE.
  const std::vector<std::string>& impls() const { return impls_; }
  std::vector<Step> TakeSteps() { return std::move(steps_); }
  std::vector<memory> TakeHeld() { return std::move(held_); }

 private:
  memory SlotMem(int v) const;
  bool Overlap(int a, int b) const;
  void Reorder(const memory& from, const memory& to, const std::string& what);

  const Graph& g_;
  const Partition& part_;
  const std::vector<Tensor>& slots_;
  const GraphInfo& info_;
  const dnnl::engine& eng_;
  dnnl::stream& strm_;
  std::vector<char> live_out_;
  std::vector<char> absorbed_;
  std::vector<char> produced_;
  std::vector<Rep> rep_;
  size_t pos_ = 0, start_ = 0;  // start_: the node a fused chain starts with
  std::vector<Step> steps_;
  std::vector<memory> held_;
  std::vector<std::string> impls_;
};

/// Op table entry: Supports is decided from the graph (op, dtypes, attributes, which inputs are
/// known at plan time); Compile from the concrete shapes (it may fall back to CompileRef).
struct OpImpl {
  const char* op;
  bool (*supports)(const Node& n, const Graph& g, const GraphInfo& info);
  Status (*compile)(Compiler& c, const Node& n);
};
const std::vector<OpImpl>& OnednnOps();

bool IsF32(const Graph& g, int v);

/// LSTM and GRU (rnn.cc).
bool SupportsRnn(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileRnn(Compiler& c, const Node& n);

}  // namespace tare::onednn
