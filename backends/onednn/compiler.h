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

#include "backends/common/table_backend.h"
#include "backends/onednn/onednn_backend.h"

namespace tare::onednn {

using dnnl::memory;

/// A step of a compiled partition: a primitive with its arguments, or a function (reference
/// kernels), returning an error that names the node.
struct Step {
  dnnl::primitive prim;
  std::unordered_map<int, memory> args;
  std::function<Status()> fn;
  std::string label;
  int threads = 1;  // OpenMP threads the primitive was made for and runs with
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
  /// How many node inputs of the whole graph read v (GraphInfo::readers).
  int Readers(int v) const { return info_.readers[v]; }
  /// Nodes in the partition.
  size_t size() const { return part_.nodes.size(); }
  /// A float32 tensor with at least one element (what the primitives take).
  bool F32(int v) const;

  /// Layout policy: convolutions write channel-blocked layouts (nChw16c) instead of what
  /// format_tag::any picks, when TARE_ONEDNN_LAYOUT=blocked (an experiment knob: on this
  /// machine's models `any` was faster; docs/ONEDNN.md, "Layouts").
  bool blocked_policy() const { return blocked_policy_; }

  /// OpenMP threads for the steps added from now on (the primitives are made with this many
  /// threads set too: some implementations split their work at creation).
  void SetThreads(int n) { threads_ = n; }
  int threads() const { return threads_; }

  size_t pos() const { return pos_; }
  void Begin(size_t p) { pos_ = start_ = p; }
  const Node& NodeAt(size_t p) const { return g_.nodes[part_.nodes[p]]; }
  bool Absorbed(size_t p) const { return absorbed_[p] != 0; }
  /// The next node of the partition when it is v's only reader (one input, one node), v is not
  /// live out, and that node is not absorbed; else nullptr. Used for fusion.
  const Node* NextSoleReader(int v) const;
  /// SiLU ahead: the next node is Sigmoid(v), the one after it Mul(v, that) (either order), v has
  /// exactly those two readers and is not live out, the Sigmoid's output only the Mul; returns
  /// the Mul, else nullptr. Absorb both with AbsorbNext twice.
  const Node* NextSilu(int v) const;
  /// Marks the next node as computed by the current one and moves pos() to it.
  void AbsorbNext() {
    absorbed_[pos_ + 1] = 1;
    notes_[pos_ + 1] = "fused into " + NodeAt(start_).name;
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

  /// In-place channel concatenation: a Concat along axis 1 (rank 3-5, batch 1, every input's
  /// channels a multiple of 8) whose inputs are each read only by it gets one private buffer in a
  /// channel-blocked layout (nChw16c or nChw8c); a producer whose primitive accepts that layout
  /// writes its part directly (one contiguous run of the buffer), so the Concat copies only the
  /// inputs not written there.
  struct ConcatTarget {
    memory whole;                  // the Concat's output
    int64_t block = 16;            // channel block of its layout
    std::vector<int64_t> offsets;  // channel offset of each input
    std::vector<char> written;     // input i was written in place by its producer
    /// Input i (of shape s) as a memory over its part of `whole`.
    memory Part(const Shape& s, size_t i, const dnnl::engine& eng) const;
  };
  /// The desc v's producer must write for v to go straight into its Concat's buffer (v is read
  /// only by such a Concat later in this partition and is not live out), else a zero desc.
  memory::desc ConcatPart(int v) const;
  /// v's part of its Concat's buffer (call after the producer's primitive accepted ConcatPart's
  /// desc; creates the buffer for the first part); v is held there and marked written.
  memory ConcatOut(int v);
  /// The buffer planned for the Concat producing y, or nullptr.
  ConcatTarget* ConcatOf(int y);
  /// aBc16b / aBcd16b / aBcde16b (or the 8b forms) for rank 3 / 4 / 5.
  static memory::format_tag BlockedTag(size_t rank, int64_t block);
  /// The widest channel block oneDNN's jit convolutions write on this CPU: 16 where its effective
  /// ISA (dnnl::get_effective_cpu_isa, which honours ONEDNN_MAX_CPU_ISA) includes AVX-512 core, 8
  /// below it (AVX2, AVX, SSE4.1). A 16-channel-blocked destination on an AVX2 machine gets only
  /// the reference implementation.
  static int64_t MaxChannelBlock();
  /// Holds v (produced in this partition) in `m`, a private buffer.
  void Hold(int v, const memory& m);
  /// Says how the current node is computed (for Notes) when no primitive step says it.
  void Note(const std::string& s) { notes_[start_] = s; }

  void Add(dnnl::primitive p, std::unordered_map<int, memory> args, const std::string& impl = "");
  /// An own step (`fn`), labelled for TARE_ONEDNN_PROFILE with `label`, or with the current node.
  void AddFn(std::function<Status()> fn, std::string label = "");

  /// Runs `n` with its reference kernel (float32, plain layouts).
  Status CompileRef(const Node& n);

  /// State to go back to when an op's primitive cannot be made (dnnl::error): its reference
  /// kernel runs instead.
  struct Snapshot {
    size_t steps, held, pos;
    std::vector<char> absorbed;
    std::vector<Rep> rep;
    std::vector<std::string> notes;
    std::unordered_map<int, ConcatTarget> concat;
  };
  Snapshot Save() const { return {steps_.size(), held_.size(), pos_, absorbed_, rep_, notes_, concat_}; }
  void Restore(const Snapshot& s);

  /// Guards the chain just compiled (the nodes from the one Begin named to pos(), whose steps
  /// were added after `before`, the Save() taken before compiling it): a step before them scans
  /// the chain's inputs (as held then: plain in their slots or in a blocked buffer; known inputs
  /// are scanned now) for NaN and inf and, when one holds any, runs the chain's nodes on their
  /// reference kernels (float32, plain copies); a step after them writes that result over the
  /// primitives' (into every representation of the chain's output made so far). oneDNN's eltwise
  /// relu/clip/exp (and logistic on aarch64), max pooling, softmax and the same as post-ops map
  /// NaN to a number (docs/NUMERICS.md; tests/conformance/cases test_nan_*); the reference
  /// propagates it, as ONNX's reference does. Errors: a node's attributes (MakeRefKernel).
  Status GuardChain(const Snapshot& before);
  /// Whether the chain from Begin to pos() holds an op whose primitive (or post-op) loses NaN.
  bool ChainNeedsGuard() const;

  /// How each node of the partition is computed (Partition::nodes order): oneDNN's implementation
  /// of its primitive (impl_info_str, e.g. "brg:avx512_core"), "fused into NODE", or "reference
  /// kernel". For Executable::Notes and TARE_ONEDNN_VERBOSE.
  const std::vector<std::string>& notes() const { return notes_; }
  /// The steps; with guards, a first step opens a new run for their scans (GuardState).
  std::vector<Step> TakeSteps();
  std::vector<memory> TakeHeld() { return std::move(held_); }

 private:
  memory SlotMem(int v) const;
  const Node* ConcatReader(int v, size_t* index, std::vector<int64_t>* offsets, int64_t* block) const;
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
  /// Shared by the guards of one compiled partition: a value found finite in this run (`finite[v]
  /// == run`) is not scanned again by another guard (a value is written once per run).
  struct GuardState {
    uint64_t run = 0;
    std::vector<uint64_t> finite;
  };
  std::shared_ptr<GuardState> guard_state_;
  std::vector<memory> held_;
  std::vector<std::string> notes_;
  std::unordered_map<int, ConcatTarget> concat_;  // by the Concat's output value
  bool blocked_policy_ = false;
  int threads_ = 1;
};

/// Op table entry: Supports is decided from the graph (op, dtypes, attributes, which inputs are
/// known at plan time); Compile from the concrete shapes (it may fall back to CompileRef).
/// (backends/common/table_backend.h)
using OpImpl = TableOp<Compiler>;
const std::vector<OpImpl>& OnednnOps();

/// LSTM and GRU (rnn.cc).
bool SupportsRnn(const Node& n, const Graph& g, const GraphInfo& info);
/// Why SupportsRnn is false for n (what ONNX semantics oneDNN's RNN primitives lack), or "".
std::string RnnDeclines(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileRnn(Compiler& c, const Node& n);

}  // namespace tare::onednn
