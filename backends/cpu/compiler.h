// Compiles one partition of the cpu backend into a list of steps (backends/cpu/cpu_backend.cc
// drives it node by node; the op files add their steps through it).
//
// Layouts: a float value of rank 4 whose C > 1 and H*W > 1 may be held NCHW ("plain", as in the
// IR) or NHWC (XNNPACK's layout). Values produced and consumed inside the partition are written
// in their slot's own bytes in the layout their producer chose; a value in Partition::live_out is
// plain in its slot when Run returns (an NHWC producer then writes a private buffer, transposed
// into the slot right after). A consumer that needs the other layout gets a private copy, made by
// a transpose step just before it (once per value) or, for weights and folded values, at compile
// time. Private buffers are allocated here, never in Run.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/common/table_backend.h"
#include "backends/cpu/threadpool.h"
#include "backends/cpu/xnn_adapter.h"

namespace tare::cpu {

enum class Layout : uint8_t { kPlain, kNHWC };

/// A step of a compiled partition; returns an error naming the node on failure.
using StepFn = std::function<Status()>;


class Compiler {
 public:
  Compiler(const Graph& g, const Partition& part, const std::vector<Tensor>& slots, const GraphInfo& info,
           ThreadPool* pool);

  const Graph& graph() const { return g_; }
  ThreadPool* pool() const { return pool_; }
  const Tensor& slot(int v) const { return slots_[v]; }
  const Shape& shape(int v) const { return slots_[v].shape; }
  /// Known at plan time: its data can be read now.
  bool IsConst(int v) const { return v >= 0 && info_.known[v]; }
  bool IsLiveOut(int v) const { return live_out_[v] != 0; }
  /// How many node inputs of the whole graph read v (GraphInfo::readers).
  int Readers(int v) const { return info_.readers[v]; }
  /// A rank-4 float32 value whose NCHW and NHWC orders differ (C > 1 and H*W > 1).
  bool LayoutMatters(int v) const;
  /// Whether v is (already) held NHWC, so an NHWC consumer needs no transpose.
  bool HasNHWC(int v) const;

  /// Position (in the partition) of the node being compiled, and the node at a position.
  size_t pos() const { return pos_; }
  size_t size() const { return part_.nodes.size(); }
  const Node& NodeAt(size_t p) const { return g_.nodes[part_.nodes[p]]; }
  /// The next node of the partition when it is v's only reader (one input, one node), v is not
  /// live out, and that node is also not yet absorbed; else nullptr. Used for fusion.
  const Node* NextSoleReader(int v) const;
  /// Marks the next node as computed by the current one (it will be skipped).
  void AbsorbNext() { absorbed_[pos_ + 1] = 1; }
  bool Absorbed(size_t p) const { return absorbed_[p] != 0; }
  void SetPos(size_t p) { pos_ = p; }
  /// Starts compiling the node at position p (fusions then move pos() over absorbed nodes).
  void Begin(size_t p) { pos_ = start_ = p; }

  /// v's data in layout l, for a step about to be added: adds a transpose step (run-time values)
  /// or converts now (constants) when v is not yet held in l.
  const float* In(int v, Layout l);
  /// Where the producer of v writes it in layout l. After adding the producer's step call Done(v).
  float* Out(int v, Layout l);
  /// Out() for a fused step (a producer with absorbed followers) whose chain writes `first` (the
  /// producer's own output) and ends with `last`, while reading the buffers `reads` (pointer,
  /// bytes). The arena may give `last` bytes of an input read by the producer (their lifetimes do
  /// not overlap in the graph's order); then the step writes `first`'s slot instead, where `last`
  /// stays for its readers when no later node of the partition reuses those bytes before them
  /// (else Done(last) copies it into its own slot).
  float* OutFused(int first, int last, Layout l, const std::vector<std::pair<const void*, size_t>>& reads);
  /// Finishes v after its producer's step: the copy of OutFused, and when v was written NHWC to a
  /// private buffer (v live out), the transpose into its slot.
  void Done(int v);
  /// Concat placement: when v (NHWC, not live out) is read only by a later Concat of this
  /// partition over the channel axis whose output is NHWC, returns where v's first channel goes
  /// inside that output (pixel stride *stride floats): the producer writes there and the Concat
  /// skips v. The output lives in its slot when no node up to the Concat reuses those bytes, else
  /// in a private buffer. nullptr when v cannot be placed.
  float* PlaceInConcat(int v, size_t* stride);
  bool PlacedInConcat(int v) const { return placed_[v] != 0; }
  /// Where a Concat whose inputs were placed writes its output (nullptr: none placed yet).
  float* ConcatOut(int y) const;
  /// The representations v has now (nullptr when none).
  const float* PlainRep(int v) const { return rep_[v].plain; }
  const float* NhwcRep(int v) const { return rep_[v].nhwc; }
  /// True when the byte ranges of the slots of a and b overlap (fusion safety checks).
  bool Overlap(const void* a, size_t abytes, const void* b, size_t bbytes) const;

  /// A private, 64-byte aligned, zeroed buffer of n floats (plus over-read slack), owned by the
  /// compiled partition. Out of memory makes Finish fail.
  float* Alloc(size_t n);
  void SetOutOfMemory() { out_of_memory_ = true; }
  /// Appends a step (labelled with the current node, for TARE_CPU_PROFILE).
  void Add(StepFn fn) {
    steps_.push_back(std::move(fn));
    labels_.push_back(pos_ < part_.nodes.size() ? label_ + NodeAt(pos_).op + " " + NodeAt(pos_).name : "");
  }
  /// Says how the node at partition position p is computed (`tare run --explain`), e.g. "fused
  /// LayerNorm".
  void Note(size_t p, std::string note) {
    if (notes_.size() < part_.nodes.size()) notes_.resize(part_.nodes.size());
    if (p < notes_.size()) notes_[p] = std::move(note);
  }
  /// Prefix of the next steps' labels (e.g. "transpose "), until changed.
  void SetLabel(std::string l) { label_ = std::move(l); }
  /// Keeps an object alive as long as the compiled partition.
  void Hold(std::shared_ptr<void> p) { buffers_.push_back(std::move(p)); }
  /// Keeps an XNNPACK operator alive as long as the compiled partition.
  xnn_operator* Keep(XnnOp op);

  /// Runs `n` with its reference kernel (float), plain layouts: for cases the fast paths do not
  /// cover (decided from concrete shapes).
  Status CompileRef(const Node& n);

  /// The compiled partition (it shares the pool); an error when a buffer could not be allocated.
  Result<std::unique_ptr<Executable>> Finish(std::shared_ptr<ThreadPool> pool);

 private:
  bool FirstSlotFree(int first, int last) const;
  std::vector<char> placed_;
  std::vector<std::pair<int, float*>> concat_out_;
  size_t LastReader(int v) const;
  float* Relocate(int v, size_t bytes);
  struct Reloc {
    float* buf;
    size_t bytes, end;
  };
  std::vector<Reloc> relocs_;
  size_t start_ = 0;
  struct Rep {
    float* plain = nullptr;
    float* nhwc = nullptr;
    float* pending = nullptr;  // NHWC private buffer to transpose into the slot at Done
  };
  const Graph& g_;
  const Partition& part_;
  const std::vector<Tensor>& slots_;
  const GraphInfo& info_;
  ThreadPool* pool_;
  std::vector<char> live_out_;
  std::vector<char> absorbed_;
  std::vector<Rep> rep_;
  size_t pos_ = 0;
  bool out_of_memory_ = false;
  struct {
    const float* src = nullptr;
    float* dst = nullptr;
    size_t bytes = 0;
  } copy_;
  std::vector<StepFn> steps_;
  std::vector<std::string> labels_;
  std::vector<std::string> notes_;  ///< per partition position (Executable::Notes), "" when none
  std::string label_;
  std::vector<std::shared_ptr<void>> buffers_;
  std::vector<XnnOp> ops_;
};

/// NCHW <-> NHWC of `n` images with `c` channels and `hw` pixels (parallel over images and rows).
void NchwToNhwc(const float* x, float* y, size_t n, size_t c, size_t hw, const ThreadPool* pool);
void NhwcToNchw(const float* x, float* y, size_t n, size_t c, size_t hw, const ThreadPool* pool);

/// Parallel memcpy.
void CopyFloats(const float* x, float* y, size_t n, const ThreadPool* pool);

/// Shape of a plain 4-D value in NHWC order.
inline Shape NhwcShape(const Shape& s) { return {s[0], s[2], s[3], s[1]}; }

}  // namespace tare::cpu
