// The steps of a session's plan, made for one set of input shapes (runtime/session.cc runs them in
// this order): dead nodes (LiveNodes, runtime/ir/graph.h), shape inference with plan-time folding
// (InferAndFold), value lifetimes (ValueLifetimes), the arena (PlanArena, runtime/plan/arena.h)
// and the partitions handed to the backends (SplitPartitions). Each step is a function of its
// inputs, tested on its own (tests/unit/plan_test.cc).
#pragma once
#include <cstddef>
#include <vector>

#include "backends/backend.h"
#include "runtime/ir/graph.h"
#include "runtime/ops/op.h"

namespace tare {

/// What InferAndFold found. It stops at the first node that decides the plan cannot be static:
/// `stop` says why and `at` which node.
struct FoldResult {
  enum class Stop {
    kNone,      ///< every live node was inferred: the plan is static
    kDynamic,   ///< node `at` needs run-time data for its shapes, or values that are not plain
                ///< tensors (sequences, optionals, strings): the session evaluates from `at` on at run time
    kInlineIf,  ///< node `at` is an If whose condition is known (`cond`): the caller inlines it
  };
  Stop stop = Stop::kNone;
  size_t at = 0;
  bool cond = false;
  std::vector<int> steps;    ///< live nodes not folded, in graph order: what runs at run time
  std::vector<char> folded;  ///< per node: evaluated at plan time
  std::vector<char> known;   ///< per value: data known at plan time (constants and folded values)
};

/// Shape inference and plan-time folding over the live nodes of `g` (`live`: LiveNodes). `consts`
/// holds, per value id, each constant in the storage type; the graph inputs get `input_shapes` and
/// `input_dtypes`. A node whose inputs are all known (Shape and Size: whose input shape is known)
/// is evaluated on the reference kernels in `storage` (docs/ARCHITECTURE.md: constant folding
/// happens at plan time, in the session's precision). On return `slots` has one tensor per value:
/// known values with their data, values inferred so far as views of their shape (dtype
/// StorageType(dtype, storage)) without data, which the arena fills in, and empty tensors for the
/// outputs of dead nodes and of nodes past a stop. Errors: shape inference (message names the node), an output
/// over `max_tensor_bytes` bytes, folding errors.
Result<FoldResult> InferAndFold(const Graph& g, const std::vector<char>& live, const std::vector<Tensor>& consts,
                                const std::vector<Shape>& input_shapes, const std::vector<DType>& input_dtypes,
                                DType storage, size_t max_tensor_bytes, std::vector<Tensor>* slots);

/// The steps at which a run-time value is written (first) and last read (last). A graph input
/// has first == -1 (last: the last step reading it, -1 if none); first == -2: not a run-time value
/// (known at plan time, or never computed). Graph outputs and traced values last to steps.size().
struct Lifetime {
  int first = -2;
  int last = -2;
};

/// Per value of `g`: its lifetime over `steps` (node indices in run order; `known`: per value,
/// known at plan time). Graph outputs and values marked in `traced` (per value id, may be shorter)
/// live to steps.size(), past the last step.
std::vector<Lifetime> ValueLifetimes(const Graph& g, const std::vector<int>& steps, const std::vector<char>& known,
                                     const std::vector<char>& traced);

/// The partitions of `steps`: maximal runs of consecutive steps whose nodes have the same
/// backend (`node_backend`, per node), each with the values it writes that are read after it
/// (`life`: ValueLifetimes) as live_out.
std::vector<Partition> SplitPartitions(const Graph& g, const std::vector<int>& steps,
                                       const std::vector<int>& node_backend, const std::vector<Lifetime>& life);

}  // namespace tare
