// The backend interface (docs/ARCHITECTURE.md). A Backend claims nodes; the session groups
// consecutive claimed nodes into partitions and compiles each into an Executable, which it then
// runs with the value slots of the session (views into the arena, weights, folded constants).
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/ir/graph.h"

namespace tare {

/// Options of a session. Sizes are in bytes.
struct SessionOptions {
  /// Backend priority list: each node runs on the first that supports it; the reference backend
  /// of the same precision ("ref", or "ref64" when it is first) takes what none claims.
  std::vector<std::string> backends = {"ref"};
  int threads = 1;
  /// Largest single tensor the session will allocate (default 4 GiB; on a 32-bit platform such as
  /// WebAssembly, half of its address space: 2 GiB - 1).
  size_t max_tensor_bytes = static_cast<size_t>(std::min<uint64_t>(uint64_t(4) << 30, SIZE_MAX / 2));
  /// Largest arena the session will allocate (default 16 GiB; 2 GiB - 1 on a 32-bit platform).
  size_t max_arena_bytes = static_cast<size_t>(std::min<uint64_t>(uint64_t(16) << 30, SIZE_MAX / 2));
  /// Tracing (Session::Trace): keep the output of every node (trace_all) or of the values named in
  /// `trace` (source tensor names) after each run. Traced values get arena space of their own, so
  /// nothing else changes; with neither set, nothing is paid.
  bool trace_all = false;
  std::vector<std::string> trace;
  /// Pins (`tare run --pin NODE=BACKEND`): each named node of the top-level graph runs on the named
  /// backend instead of the first in `backends` that supports it; a pinned backend not in
  /// `backends` is created for its pinned nodes only. Session::Create's errors: no node of that
  /// name, a node pinned to two backends, a backend of another precision than `backends` (ref64
  /// with ref), a backend that does not run the node (its reason, Backend::Declines, when it gives
  /// one). Nodes the session evaluates in dynamic mode (shapes known only at run time) run on the
  /// reference kernels, pinned or not.
  std::vector<std::pair<std::string, std::string>> pins;
};

/// A contiguous run of nodes (indices into Graph::nodes) assigned to one backend.
struct Partition {
  std::vector<int> nodes;
  /// Value ids written by these nodes that are read after the partition (by later partitions, as
  /// graph outputs, or by tracing): these must hold the value in its plain layout (e.g. NCHW) when
  /// Run returns. Every other value the partition writes is private to it: a backend may keep it
  /// in any layout in its slot's bytes (the slot is at least as large as the plain tensor).
  std::vector<int> live_out;
};

/// Compiled partition. `slots` holds one tensor per graph value id (data, dtype and concrete
/// shape set for every value the partition reads or writes).
class Executable {
 public:
  virtual ~Executable() = default;
  /// Executes the partition's nodes in order. Errors only for data-dependent failures (e.g. an
  /// out-of-range Gather index), naming the node.
  virtual Status Run(std::vector<Tensor>& slots) = 0;
  /// How each node of the partition is computed, in Partition::nodes order (e.g. oneDNN's
  /// implementation "brg:avx512_core", or "reference kernel" for a node the backend claimed but
  /// runs with its reference kernel); an empty string or a shorter vector means nothing to add.
  /// Shown by `tare run --explain`.
  virtual std::vector<std::string> Notes() const { return {}; }
  /// Time spent in each phase of the runs so far, in ms, summed over runs (e.g. the vulkan
  /// backend's "upload", "dispatch", "download"); empty when the backend does not split its runs.
  /// Shown by `tare bench`.
  virtual std::vector<std::pair<std::string, double>> Phases() const { return {}; }
};

/// A compute engine.
class Backend {
 public:
  virtual ~Backend() = default;
  /// "ref", "ref64", "cpu", ...
  virtual std::string name() const = 0;
  /// Storage type of float32 values on this backend (kFloat64 for ref64, kFloat32 otherwise).
  virtual DType float_storage() const = 0;
  /// Whether the backend runs this node (op, dtypes, attributes).
  virtual bool Supports(const Node& node, const Graph& graph) const = 0;
  /// Whether the backend runs some nodes of this op (by op type and domain alone, for `tare ops`;
  /// Supports decides per node). The reference backends run every op.
  virtual bool ClaimsOp(const std::string& domain, const std::string& op) const {
    (void)domain;
    (void)op;
    return true;
  }
  /// Why the backend does not run `node` although it claims its op (ClaimsOp true, Supports
  /// false), e.g. "LSTM with clip: oneDNN's lstm_forward has no clipping"; empty when it has
  /// nothing specific to say. Shown by `tare run --explain` next to the backend that runs it.
  virtual std::string Declines(const Node& node, const Graph& graph) const {
    (void)node;
    (void)graph;
    return "";
  }
  /// Prepares the nodes of `part` (parse attributes, pack weights, bind buffers). `slots` holds one
  /// tensor per graph value id with its dtype, concrete shape and data pointer (arena views, weights,
  /// folded constants) for every value the partition reads or writes; they stay valid, at the same
  /// addresses, until the session plans again (a new input shape), when it compiles again. Run gets
  /// the same vector. Errors name the node.
  virtual Result<std::unique_ptr<Executable>> Compile(const Graph& graph, const Partition& part,
                                                      const std::vector<Tensor>& slots,
                                                      const SessionOptions& options) = 0;
};

/// Creates the backend called `name`. Errors: an unknown name, or one not built into this binary
/// (the message lists the available ones).
Result<std::unique_ptr<Backend>> CreateBackend(const std::string& name);
/// Names of the backends built into this binary.
std::vector<std::string> AvailableBackends();
/// Makes `factory` the backend called `name` in this process (CreateBackend returns what it
/// makes; AvailableBackends does not list it): for tests, e.g. a backend that perturbs one op so
/// that `tare compare --bisect` has a planted kernel error to find. Errors: an empty name, or one
/// already taken (a built-in backend or an earlier registration).
Status RegisterBackend(const std::string& name, std::function<std::unique_ptr<Backend>()> factory);

}  // namespace tare
