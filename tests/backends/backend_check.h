// Shared harness of the fast-backend tests (cpu_test.cc, onednn_test.cc): a fast backend's result
// against ref64 (the specification in double) within the op's error budget (docs/NUMERICS.md),
// on one-node graphs and after an exact identity 1x1 convolution (so the node reads the layout the
// backend keeps inside a partition: NHWC on cpu, oneDNN's blocked layouts on onednn), and a small
// graph builder. Dot-product budgets use sum|w x|, computed by ref64 on AbsAll(inputs).
#pragma once
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tests/ops/op_test_util.h"

namespace tare::test {

/// |t| elementwise (float32 tensors with data; others unchanged).
Tensor AbsOf(const Tensor& t);
std::vector<Tensor> AbsAll(const std::vector<Tensor>& in);
/// Uniform integer in [lo, hi].
int Rnd(std::mt19937& g, int lo, int hi);

/// Worst error seen per op, in units of its budget (Within records; ReportWorst prints and clears:
/// `tare_backend_tests -s` shows "OP: worst err/tol R").
std::map<std::string, double>& WorstErrors();
void ReportWorst();

/// Checks y (a `backend` result) against y64 element by element: |y - y64| <= max(c0 + cK k, 0.5)
/// eps32 scale, scale = scale64[i] when given, else |y64[i]|; NaN must match NaN. At most 5
/// failures are reported.
void Within(const std::string& backend, const Node& node, const Tensor& y, const Tensor& y64, double k,
            const Tensor* scale64);

/// Runs `node` on `backend` as a one-node graph (input 0 from outside, the rest weights) with 1
/// and 2 threads and checks output 0 against ref64; the node must run on `expect_on` (default:
/// the backend). k: reduction length; scale_in: when given, the budget's scale is ref64's output
/// on these inputs (e.g. AbsAll(inputs)), else |y|. Returns false when ref64 rejects the case
/// (invalid random geometry).
bool CheckOn(const std::string& backend, const Node& node, const std::vector<Tensor>& inputs, double k,
             const std::vector<Tensor>& scale_in = {}, const std::string& expect_on = "");

/// Where a one-node session of `node` on `backend` ran it ("onednn", "ref", ...).
std::string RanOn(const std::string& backend, const Node& node, const std::vector<Tensor>& inputs);

/// Runs `node` with input 0 = the output of an exact identity 1x1 convolution of inputs[0] (NCHW,
/// rank 4), the other inputs weights, on `backend` with 1 and 2 threads; both nodes must run on
/// it; output 0 is checked against ref64 on the inputs as CheckOn does.
void CheckAfterConv(const std::string& backend, const Node& node, const std::vector<Tensor>& inputs, double k = 1,
                    const std::vector<Tensor>& scale_in = {});

/// Checks y, a LayerNorm of x over rows of D elements (x.numel() / D rows, row-major), against
/// the formula in double: (x - mean) / sqrt(var + eps) * gamma + beta (gamma, beta: D floats or
/// nullptr for 1 and 0), within a float chain's bound ((4 D + 16) eps32 relative to the terms). A
/// row holding a NaN must be all NaN. `what` prefixes the messages.
void CheckLayerNorm(const Tensor& x, const Tensor& y, int64_t D, float eps, const float* gamma, const float* beta,
                    const std::string& what);

/// A graph under construction: float32 inputs with shapes, constants, nodes.
struct G {
  std::shared_ptr<Graph> g = std::make_shared<Graph>();
  int Input(const std::string& name, const Shape& s);
  int Const(const std::string& name, const Tensor& t);
  /// Adds `n` reading `ins`; returns its first output (named `out`, float32; further outputs
  /// `out_1`, ... int64).
  int Add(Node n, std::vector<int> ins, const std::string& out, int n_out = 1);
};

/// A session on {backend} (FAILs the test case on error).
std::unique_ptr<Session> MakeSession(const std::shared_ptr<Graph>& g, const std::string& backend, int threads,
                                     std::vector<std::string> trace = {});
/// s.Run (FAILs the test case on error).
std::vector<NamedTensor> RunS(Session& s, const std::vector<NamedTensor>& in);

/// PyTorch's opset-14 LayerNorm over the last axis of x (ReduceMean, Sub, Pow, ReduceMean, Add,
/// Sqrt, Div, then Mul by gamma and Add of beta, both [D] random, when `affine`), then its erf
/// Gelu (Div, Erf, Add, Mul, Mul), as nodes; outputs y_norm and y_gelu. `expose` also makes the
/// chains' intermediates graph outputs (so a backend cannot fuse them).
struct NormGelu {
  G g;
  int y_norm = -1, y_gelu = -1;
  Tensor gamma, beta;  // empty without `affine`
  NormGelu(const Shape& xs, std::mt19937& rng, bool expose, bool affine = true);
};

}  // namespace tare::test
