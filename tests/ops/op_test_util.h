// Helpers for the per-op tests: build a node, run it on ref64 and ref, and check each output
// against values computed by hand (or by an independent tool), within the op's error budget.
#pragma once
#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "runtime/exec/eval_node.h"
#include "runtime/ops/op.h"
#include "runtime/session.h"

namespace tare::test {

/// A float32 tensor of the given shape and values (count must match).
Tensor F32(const Shape& shape, std::vector<double> values);
/// An int64 tensor.
Tensor I64(const Shape& shape, std::vector<int64_t> values);
/// A tensor of any dtype from doubles (converted with C++ semantics).
Tensor Make(DType dtype, const Shape& shape, std::vector<double> values);

/// A float32 tensor whose element i is ((i * mul + off) % mod) - mod / 2: small integers, so dot
/// products are exact and expected values can be computed by an independent script with the same
/// formula.
Tensor Seq(const Shape& shape, int64_t mul, int64_t mod, int64_t off = 0);

/// A float32 tensor of values drawn uniformly from [lo, hi) by `g` (each rounded to float32).
Tensor RandF32(const Shape& shape, std::mt19937& g, double lo = -1, double hi = 1);

/// Fluent node builder: NodeOf("Conv").Attr("pads", {1,1,1,1}).
struct NodeOf {
  Node node;
  explicit NodeOf(const std::string& op, int n_out = 1);
  NodeOf& Attr(const std::string& name, int64_t v);
  NodeOf& Attr(const std::string& name, int v) { return Attr(name, static_cast<int64_t>(v)); }
  NodeOf& Attr(const std::string& name, std::vector<std::string> v);
  NodeOf& Attr(const std::string& name, double v);
  NodeOf& Attr(const std::string& name, const char* v);
  NodeOf& Attr(const std::string& name, std::vector<int64_t> v);
  NodeOf& Attr(const std::string& name, std::vector<float> v);
  NodeOf& Attr(const std::string& name, const Tensor& v);
  operator const Node&() const { return node; }  // NOLINT
};

/// Runs `node` on the given inputs (an empty Tensor = omitted optional input; sequences and
/// optionals are passed as they are) on compute type kFloat64 (ref64) or kFloat32 (ref). Float32
/// inputs (and float32 items of sequences and optionals) are converted to the compute type.
Result<std::vector<Tensor>> Run(const Node& node, const std::vector<Tensor>& inputs, DType compute);
/// The same with inputs given by pointer (nullptr = omitted), for tests of sequence/optional ops.
Result<std::vector<Tensor>> Eval(const Node& node, const std::vector<const Tensor*>& inputs, DType compute);

/// One expected output: its dtype/shape and values; k = reduction length for the budget.
struct Expect {
  Shape shape;
  std::vector<double> values;
  DType dtype = DType::kFloat32;
};

/// Runs the node on ref64 and on ref and checks every output: shape and dtype exactly; integer
/// and bool values exactly; float values of ref64 against `expected` within (k + 2) eps32 * scale
/// (the rounding of decimal inputs to float32), and of ref against ref64 within the op's
/// ErrorBudget (c0 + cK k) eps32 * scale. scale = |value| unless given (e.g. sum|w x| for dots).
/// When the cpu or onednn backend is built and claims the node, the node also runs on it (a one-node graph
/// through a Session: input 0 a graph input, the others weights; 1 and 2 threads), checked against
/// ref64 within the same budget.
void Check(const Node& node, const std::vector<Tensor>& inputs, const std::vector<Expect>& expected,
           double k = 1, double scale = 0);

/// A graph of `node` alone. Input 0 and the inputs listed in `runtime` are graph inputs named
/// "in<i>" (appended to *feeds with their tensors); the others are weights (known at plan time);
/// inputs without data stay omitted. Output o is "out<o>" of dtype out_dtypes[o] (outputs the node
/// omits stay omitted). nullptr when an input is not a plain tensor, input 0 has no data, or
/// out_dtypes is too short.
std::shared_ptr<Graph> OneNodeGraph(const Node& node, const std::vector<Tensor>& inputs, const std::vector<size_t>& runtime,
                                    const std::vector<DType>& out_dtypes, std::vector<NamedTensor>* feeds);

/// Whether backend `name` can be created here (a built-in backend whose device exists: vulkan
/// needs a Vulkan driver and device). Cached per name.
bool BackendUsable(const std::string& name);
/// For the test cases of one backend: when it cannot be created here, prints "SKIP: <why>" and
/// ends the process with status 77 (ctest's SKIP_RETURN_CODE for the test binaries).
void SkipUnlessAvailable(const std::string& name);

/// Session::Placement() of the node called `node` ("cpu", "ref", "folded", "unused", ...), or "?".
std::string PlacementOf(const Session& s, const std::string& node);

/// Runs `node` as a one-node graph through a Session on `backend` with `threads`: input 0 is the
/// graph input, the other inputs are weights (known at plan time, as in exported models), so the
/// real partition/compile path runs; output o is declared with ref_outputs[o]'s dtype. Sets
/// *ran_on to the node's placement and *result to the outputs or the error. Returns false (nothing
/// run) when the inputs cannot be expressed that way (non-tensor inputs, input 0 omitted).
bool RunOneNodeSession(const Node& node, const std::vector<Tensor>& inputs, const std::vector<Tensor>& ref_outputs,
                       const std::string& backend, int threads, std::string* ran_on,
                       Result<std::vector<NamedTensor>>* result);

/// Checks that the node is rejected (shape inference or kernel preparation fails) and that the
/// message contains `needle`.
void CheckFails(const Node& node, const std::vector<Tensor>& inputs, const std::string& needle);

}  // namespace tare::test
