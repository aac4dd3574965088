// The op table's types. Every op tare knows is one line of runtime/ops/op_list.inc; this header
// turns those lines into OpSpec records (name, shape inference, error budget) that the runtime,
// the tests, `tare ops` and docs/OPS.md all read, so they cannot drift apart.
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

#include "runtime/ir/graph.h"

namespace tare {

/// What shape inference sees of one input or output: its element type, its concrete shape, and
/// its data when that is known at plan time (weights, folded shape arithmetic).
struct ValueInfo {
  bool present = false;  ///< false for an omitted optional input/output
  DType dtype = DType::kUndefined;
  Shape shape;
  const Tensor* value = nullptr;  ///< data, when known before run time
  ValueKind kind = ValueKind::kTensor;  ///< sequences and optionals have no shape (shape is {})
  /// Outputs only: the kernel creates this output itself (sequences, optionals, results of
  /// control flow whose shape only running a subgraph tells); nothing is preallocated and the
  /// session evaluates such nodes at run time.
  bool kernel_allocates = false;
};

/// Arguments of an op's shape inference: the node, its inputs (one entry per node input, absent
/// ones with present == false), and the outputs to fill (one entry per node output).
struct InferContext {
  const Node& node;
  std::vector<ValueInfo> in;
  std::vector<ValueInfo> out;

  bool has(size_t i) const { return i < in.size() && in[i].present; }
  /// Error prefixed with the node's name and op.
  Status Error(const std::string& msg) const { return Status::Error(node.Where() + ": " + msg); }
  /// Checks the number of present inputs is in [lo, hi].
  Status ExpectInputs(int lo, int hi) const;
  /// The data of input i. When it is not known at plan time (not a weight, not computable from
  /// input shapes) returns Status::NeedsValue, and the session infers this node at run time.
  Result<const Tensor*> Known(size_t i, const char* what) const;
  /// Reads a known integer tensor (e.g. Reshape's shape) as int64 values.
  Result<std::vector<int64_t>> KnownInts(size_t i, const char* what) const;
  /// Checks that every present input among the first names.size() is float32; the error names
  /// the input ("input W must be float32, got int64").
  Status ExpectFloat32(std::initializer_list<const char*> names) const;
  /// Reads an INTS attribute that must have `count` values, each in [lo, hi]; `dflt` fills all
  /// `count` values when the attribute is absent (e.g. strides, dilations, pads).
  Result<std::vector<int64_t>> IntsAttr(const char* name, size_t count, int64_t dflt, int64_t lo,
                                        int64_t hi = kMaxElements) const;
  /// Checks that element p of a known index tensor lies in [-dim, dim-1]; the error names the
  /// value and its position.
  Status CheckIndex(const Tensor& indices, int64_t p, int64_t dim) const;
  /// Sets output i (ignored when the node omits that output: nothing is computed for it).
  void SetOut(size_t i, DType dtype, Shape shape);
  /// Sets output i as one the kernel allocates itself (see ValueInfo::kernel_allocates).
  void SetOutByKernel(size_t i, ValueKind kind, DType dtype);
};

/// The bound a backend's result must meet relative to ref64 for one op, from standard
/// floating-point error analysis (eps = 2^-24 for fp32):
///   |y - y64| <= (c0 + cK * K) * eps * scale
/// where K is the op's reduction length (1 for elementwise ops) and scale is sum|terms| for
/// reductions and |y64| otherwise. c0 == cK == 0 means "exact".
struct ErrorBudget {
  double c0;
  double cK;
  const char* text;  ///< the bound in words, for docs/NUMERICS.md and docs/OPS.md
};

/// One op of the table.
struct OpSpec {
  const char* domain;  ///< "" for the ONNX default domain (also spelled "ai.onnx"), else e.g. "ai.onnx.preview.training"
  const char* name;    ///< ONNX op type
  const char* family;  ///< the spec/kernel family implementing it (runtime/ops/<family>.cc)
  Status (*infer)(InferContext&);
  ErrorBudget budget;
  const char* doc;  ///< semantics and their source (e.g. "ONNX Conv-11")
};

/// Every op in op_list.inc, in list order.
const std::vector<OpSpec>& AllOps();
/// The op called `name` in `domain` ("" and "ai.onnx" both mean the default ONNX domain), or nullptr.
const OpSpec* FindOp(const std::string& domain, const std::string& name);
/// The op of `node` (its domain and op type), or nullptr.
inline const OpSpec* FindOp(const Node& node) { return FindOp(node.domain, node.op); }

// Shared helpers for specs.
/// Numpy-style multidirectional broadcast of two shapes (ONNX "Broadcasting in ONNX").
Result<Shape> BroadcastShapes(const Shape& a, const Shape& b);
/// Normalizes an axis in [-rank, rank) to [0, rank); error naming `what` otherwise.
Result<int64_t> NormalizeAxis(int64_t axis, int64_t rank, const InferContext& ctx, const char* what);

}  // namespace tare
