// runtime/exec: evaluates nodes and whole graphs on the reference kernels: shape inference, output allocation,
// kernel run. Used for plan-time constant folding and dynamic mode by the session, for the bodies
// of control-flow ops (If, Loop, Scan, SequenceMap), and by the op tests.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "runtime/exec/ref_kernel.h"
#include "runtime/ops/op.h"

namespace tare {

/// The storage type of a value of declared type `t` under compute type `compute`: float32 values
/// are held in the compute type (float for `ref`, double for `ref64`); other types are unchanged.
inline DType StorageType(DType t, DType compute) { return t == DType::kFloat32 ? compute : t; }

/// Runs shape inference for `node` on `in` (nullptr = omitted input) whose data is known, and
/// returns the output infos. Errors: those of the op's shape inference, unknown op, a sequence or
/// optional given to an op that takes tensors, a string tensor given to an op without string
/// support.
Result<std::vector<ValueInfo>> InferNode(const Node& node, const std::vector<ValueInfo>& in);

/// Evaluates `node` on known inputs (already in storage types for `compute`) with the reference
/// kernel (`kernel` if given, else one prepared here). Returns one tensor per node output (an
/// empty Tensor for an omitted optional output). Errors: shape inference, an output larger than
/// `max_bytes`, kernel errors.
Result<std::vector<Tensor>> EvalNode(const Node& node, const std::vector<const Tensor*>& in, DType compute,
                                     const KernelFn* kernel = nullptr, size_t max_bytes = SIZE_MAX);

/// Runs a whole graph node by node on the reference kernels (prepared once, at Create): the
/// interpreter behind control-flow bodies. Nodes no graph output depends on are skipped.
class GraphEvaluator {
 public:
  /// Prepares every node's kernel and converts float32 constants to the compute type. Errors:
  /// invalid graph, unsupported op, invalid attributes (the message names the node).
  static Result<std::unique_ptr<GraphEvaluator>> Create(std::shared_ptr<const Graph> graph, DType compute,
                                                        size_t max_bytes = SIZE_MAX);
  /// Binds `inputs` to the graph inputs in order (storage types; count must match) and returns the
  /// graph outputs in order. Errors: a wrong input count, kernel and shape errors of any node.
  /// When `all_values` is given it receives every value of the graph by id (for Gradient).
  Result<std::vector<Tensor>> Run(const std::vector<Tensor>& inputs, std::vector<Tensor>* all_values = nullptr);
  const Graph& graph() const { return *graph_; }

 private:
  std::shared_ptr<const Graph> graph_;
  DType compute_ = DType::kFloat32;
  size_t max_bytes_ = SIZE_MAX;
  std::vector<Tensor> consts_;
  std::vector<KernelFn> kernels_;
  std::vector<char> live_;
};

/// Runs one control-flow body (a closed graph: values of the outer scope arrive as extra inputs).
/// Inputs in the body's input order, outputs in its output order, float32 values in the storage
/// type of the node's compute type.
class BodyRunner {
 public:
  virtual ~BodyRunner() = default;
  virtual Result<std::vector<Tensor>> Run(const std::vector<Tensor>& inputs) = 0;
  /// Where the body's nodes run, for `--explain` (e.g. "ref", "cpu+ref").
  virtual std::string Placement() const = 0;
};

/// Makes the runner of one body graph. Errors: those of preparing the body (unsupported op,
/// invalid attributes).
using BodyFactory = std::function<Result<std::shared_ptr<BodyRunner>>(const std::shared_ptr<const Graph>& body)>;

/// The factory of MakeRefKernel: each body on a GraphEvaluator in compute type `compute`.
BodyFactory ReferenceBodyFactory(DType compute);

/// Bounds on what control-flow nodes may do with attacker-chosen counts (issue 8). While the
/// outermost control-flow node runs on a thread, every body run of every If, Loop, Scan and
/// SequenceMap inside it, at any nesting depth (nested sessions included), counts against
/// kMaxBodyRuns; and the parts a Loop or Scan collects for one stacked output may not together
/// exceed the session's max_tensor_bytes (the stacked output could not be kept anyway), checked as
/// each part arrives, so memory stays bounded before the stack is built.
class ControlFlowBudget {
 public:
  static constexpr int64_t kMaxBodyRuns = int64_t(1) << 20;
  /// Opens the thread's budget when none is open (this node is the outermost), else joins it.
  ControlFlowBudget();
  ~ControlFlowBudget();
  ControlFlowBudget(const ControlFlowBudget&) = delete;
  ControlFlowBudget& operator=(const ControlFlowBudget&) = delete;
  /// Counts one body run; an error naming `where` once kMaxBodyRuns runs were counted.
  Status CountRun(const std::string& where);
  /// Adds `bytes` to the running total `*held` of one output's collected parts; an error naming
  /// `where` when it passes MaxTensorBytes().
  static Status Collect(size_t bytes, size_t* held, const std::string& where);
  /// The max_tensor_bytes of the session whose node runs on this thread (SIZE_MAX when none).
  static size_t MaxTensorBytes();

 private:
  bool owner_ = false;
};

/// Records `max_bytes` as the thread's session limit while alive (EvalNode wraps each kernel call).
class MaxTensorBytesScope {
 public:
  explicit MaxTensorBytesScope(size_t max_bytes);
  ~MaxTensorBytesScope();
  MaxTensorBytesScope(const MaxTensorBytesScope&) = delete;
  MaxTensorBytesScope& operator=(const MaxTensorBytesScope&) = delete;

 private:
  size_t previous_;
};

/// Lowers kMaxBodyRuns for the control flow that starts on this thread while alive (a tighter
/// bound for harnesses that run untrusted models many times: tests/fuzz/fuzz_common.h uses 4096).
/// max_runs is capped at kMaxBodyRuns.
class BodyRunLimitScope {
 public:
  explicit BodyRunLimitScope(int64_t max_runs);
  ~BodyRunLimitScope();
  BodyRunLimitScope(const BodyRunLimitScope&) = delete;
  BodyRunLimitScope& operator=(const BodyRunLimitScope&) = delete;

 private:
  int64_t previous_;
};

/// Whether `node` is a control-flow op with graph attributes (If, Loop, Scan, SequenceMap).
bool IsControlFlow(const Node& node);

/// The kernel of a control-flow node (semantics: runtime/ops/control_flow.cc) whose bodies run on
/// runners made by `factory`, once per body, here. MakeRefKernel uses a GraphEvaluator per body;
/// a Session passes a factory that runs bodies as nested sessions on its own backends. Errors:
/// a missing graph attribute, invalid attributes, the factory's errors (prefixed with the node).
Result<KernelFn> MakeControlFlowKernel(const Node& node, const BodyFactory& factory);

}  // namespace tare
