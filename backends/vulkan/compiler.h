// Compiles one partition of the vulkan backend (docs/VULKAN.md, "Memory model").
//
// Values: every value the partition's dispatches read or write has a device location: a range of
// the partition's activation arena (values computed at run time, and inputs uploaded at a segment's
// start; offsets planned by the session's arena planner, PlanArena, over the partition's own
// steps, each range 256-byte aligned and bound as its own descriptor range), or a range of its
// weight buffer (values known at plan time, uploaded once at compile through a bounded staging
// ring, after any repacking such as a folded BatchNormalization). Reshape-like ops alias their
// input's range. Activations are NCHW fp32 on the device as on the host: transfers are plain copies.
//
// Segments: consecutive dispatches form a segment, recorded once into one command buffer (copies
// from the staging buffer into the arena, the dispatches with one global barrier after each,
// copies of the values needed on the host into the staging buffer). A node the backend claims but
// whose concrete shapes its shaders do not cover runs its reference kernel on the host between two
// segments: its inputs are downloaded at the end of the segment before it and its outputs uploaded
// at the start of the segment after it. Without such a node a partition is one segment, and the
// only transfers are at its boundary.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/common/table_backend.h"
#include "backends/vulkan/device.h"

namespace tare::vk {

/// The activation epilogue kinds of shaders/common.glsl (specialization constant 0, ACT).
enum Act : uint32_t {
  kActNone = 0, kActRelu, kActClip, kActLeaky, kActSigmoid, kActTanh, kActHardSigmoid, kActHardSwish,
  kActExp, kActAbs, kActNeg, kActSqrt, kActSilu
};
/// An activation with its parameters (Clip: a = min, b = max; LeakyRelu: a = alpha; HardSigmoid:
/// a = alpha, b = beta) and the ops it came from (for notes).
struct Activation {
  uint32_t kind = kActNone;
  float a = 0, b = 0;
  /// Specialization constants 0-2 of every shader, followed by `more`.
  std::vector<uint32_t> Spec(std::vector<uint32_t> more = {}) const;
};

/// What a binding of a dispatch refers to: a value's device location, a weight range, or nothing.
struct Bind {
  enum Kind { kNone, kValue, kWeight } kind = kNone;
  int id = -1;  ///< value id, or weight index
};

/// One dispatch: a shader with its specialization constants, bindings 0-3, push constants (32-bit
/// words, at most 32) and workgroup counts.
struct Dispatch {
  ShaderId shader = ShaderId::kUnary;
  std::vector<uint32_t> spec;
  Bind bind[kBindings];
  std::vector<uint32_t> push;
  uint32_t groups[3] = {1, 1, 1};
};

class Compiler {
 public:
  Compiler(Device* dev, const Graph& g, const Partition& part, const std::vector<Tensor>& slots, const GraphInfo& info);
  ~Compiler();

  const Graph& graph() const { return g_; }
  const Tensor& slot(int v) const { return slots_[v]; }
  const Shape& shape(int v) const { return slots_[v].shape; }
  bool IsConst(int v) const { return v >= 0 && info_.known[v]; }
  Device& device() const { return *dev_; }
  /// A float32 tensor with 1 to 2^31 elements that fits one binding (maxStorageBufferRange).
  bool F32(int v) const;

  void Begin(size_t p) { pos_ = start_ = p; }
  bool Absorbed(size_t p) const { return absorbed_[p] != 0; }
  const Node& NodeAt(size_t p) const { return g_.nodes[part_.nodes[p]]; }
  /// The next node when it is v's only reader, v is not live out, and it is not absorbed.
  const Node* NextSoleReader(int v) const;
  /// The Mul of a SiLU written as Sigmoid + Mul: when the node at pos()+1 is a Sigmoid reading v
  /// and the node at pos()+2 is Mul(v, that sigmoid) (either order), these two read v and nothing
  /// else does, and neither v nor the sigmoid is live out or read elsewhere. Else nullptr.
  const Node* SiluAfter(int v, size_t at) const;
  /// Marks the next node as computed by the current one and moves to it.
  void AbsorbNext();
  /// When the next node is an activation the shaders fuse (ActivationOf) and v's sole reader,
  /// absorbs it into *act (which must be kActNone) and returns its output; likewise SiLU as
  /// exporters write it, Sigmoid(v) then Mul(v, Sigmoid(v)), the next two nodes and v's only
  /// readers. Else returns v.
  int FuseActivation(int v, Activation* act);
  /// The activation a unary node computes (Relu, Clip with known bounds, LeakyRelu, Sigmoid, Tanh,
  /// HardSigmoid, HardSwish, Exp, Abs, Neg, Sqrt), or false.
  bool ActivationOf(const Node& n, Activation* act) const;
  void Note(const std::string& s) { notes_[start_] = s; }

  /// Binding of input value v: its device location (a known value is copied to the weight buffer;
  /// a value only on the host is uploaded at the start of the current segment).
  Bind In(int v);
  /// Binding of output value v: a fresh arena range.
  Bind Out(int v);
  /// Output u aliases input v's device location (Reshape, Flatten, Squeeze, Unsqueeze, Identity).
  void Alias(int u, int v);
  /// A weight range holding `data` (repacked or folded at compile).
  Bind AddWeight(std::vector<float> data);
  /// Adds a dispatch to the current segment (opens one after a host step).
  void Add(Dispatch d);
  /// A 1-D grid for n elements at 64 invocations per workgroup (at most 65535 workgroups: the
  /// shaders step through the rest).
  static void Grid1D(Dispatch* d, uint64_t n);

  /// Runs n with its reference kernel on the host, between segments.
  Status CompileRef(const Node& n);

  /// Finishes the partition: plans the arena, uploads the weights, records the segments.
  Result<std::unique_ptr<Executable>> Finish();

 private:
  struct ValueState {
    bool on_host = false;
    bool on_device = false;
    int root = -1;    // the value owning the arena range (itself, or the value it aliases)
    int weight = -1;  // weight index when the location is in the weight buffer
    int first = 0, last = 0;  // steps during which the root's range is kept
  };
  void Touch(int v);
  void OpenSegment();

  Device* dev_;
  const Graph& g_;
  const Partition& part_;
  const std::vector<Tensor>& slots_;
  const GraphInfo& info_;
  std::vector<char> live_out_, absorbed_;
  std::vector<ValueState> st_;
  std::vector<std::string> notes_;
  size_t pos_ = 0, start_ = 0;
  int step_ = 0;
  struct Program;
  std::unique_ptr<Program> prog_;
};

/// Op table entry (backends/common/table_backend.h).
using OpImpl = TableOp<Compiler>;
/// Every op the backend claims (ops.cc).
const std::vector<OpImpl>& VulkanOps();
/// Why the backend does not run n although it claims its op (Backend::Declines), or "".
std::string VulkanDeclines(const Node& n, const Graph& g, const GraphInfo& info);

}  // namespace tare::vk
