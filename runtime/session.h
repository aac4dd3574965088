// Session: runs a Graph on a chosen backend. Lifecycle as in XNNPACK and TFLite: create (validate,
// choose backends), plan when input shapes change (shape inference, plan-time folding of
// everything computable from weights and shapes, arena planning, compile), run hot.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "runtime/ir/graph.h"

namespace tare {

/// A tensor with the name of the graph input or output it binds to.
struct NamedTensor {
  std::string name;
  Tensor tensor;
};

/// One traced value after a run: the source tensor name, the node that produced it (source node
/// name and op type; empty for graph inputs), and its data in the session's storage type (float32
/// values are float64 on ref64).
struct TraceEntry {
  std::string value;
  std::string node;
  std::string op;
  Tensor tensor;
};

/// Executes one graph. Not thread-safe: one Run at a time.
class Session {
 public:
  ~Session();
  /// Prepares `graph` (kept alive by the session) for `options.backends`. Errors: invalid graph,
  /// unknown or unavailable backend, unsupported ops (all of them listed in one message: node
  /// name, op, domain), invalid attributes. On ref64, a graph with TFLite's quantized ops (domain
  /// "tflite") runs as its float truth (runtime/passes/float_truth.h): quantized inputs are still
  /// fed as codes, quantized outputs come back as real values (float64), graph() is the rewritten
  /// graph; errors: those of FloatTruth.
  static Result<std::unique_ptr<Session>> Create(std::shared_ptr<const Graph> graph, const SessionOptions& options);

  /// Runs the graph. `inputs` are bound by name; each graph input must be given exactly once with
  /// its declared dtype (float32 inputs as float32) and a shape that matches its declared rank and
  /// known dims. Outputs come back in graph order; float32 outputs are float32 on every backend
  /// except ref64, whose float outputs are float64 (its exact results). Errors: a missing, unknown
  /// or duplicate input; wrong dtype or shape (expected vs got); shape inference failures; a
  /// tensor or arena over the session limits; data-dependent kernel errors.
  Status Run(const std::vector<NamedTensor>& inputs, std::vector<NamedTensor>* outputs);

  /// Arena bytes of the current plan (0 before the first Run): the peak memory for run-time values.
  size_t arena_bytes() const;
  /// Which backend runs each node: pairs of (node name, backend name), in graph order; nodes
  /// folded at plan time report "folded", nodes no output depends on "unused". Valid after the first Run.
  std::vector<std::pair<std::string, std::string>> Placement() const;
  /// How each node is computed on its backend, in graph order, aligned with Placement(): what the
  /// backend reports (Executable::Notes, e.g. oneDNN's implementation "brg:avx512_core"), or an
  /// empty string. Valid after the first Run.
  std::vector<std::string> Notes() const;
  /// Time each backend spent in its phases over the runs of the current plan, in ms, summed over
  /// partitions by phase name (Executable::Phases: the vulkan backend's "upload", "dispatch",
  /// "download", "host"); empty when no partition splits its runs. Reset by a re-plan.
  std::vector<std::pair<std::string, double>> Phases() const;
  const Graph& graph() const;
  /// The values chosen by SessionOptions::trace_all / trace, as computed by the last Run, in graph
  /// order (copies). Empty when tracing is off or before the first Run. Values of nodes folded at
  /// plan time are included; values no output depends on are not computed and not listed.
  std::vector<TraceEntry> Trace() const;

 private:
  Session();
  /// Create with backend instances shared with an enclosing session (the reference fallback last):
  /// the bodies of its control-flow nodes run as such nested sessions.
  static Result<std::unique_ptr<Session>> CreateWith(std::shared_ptr<const Graph> graph, const SessionOptions& options,
                                                     std::vector<std::shared_ptr<Backend>> backends);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tare
