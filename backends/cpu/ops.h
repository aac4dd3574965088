// The ops of the cpu backend: for each, a Supports test (op, dtypes, attributes, which inputs are
// known at plan time; decided before shapes are known) and a Compile function that adds its steps
// through the Compiler (concrete shapes; a case the fast path does not cover runs its reference
// kernel instead, Compiler::CompileRef).
#pragma once
#include <cmath>
#include <functional>
#include <utility>
#include <vector>

#include "backends/cpu/compiler.h"

namespace tare::cpu {

/// One claimed op (backends/common/table_backend.h).
using OpImpl = TableOp<Compiler>;
/// Every op the backend claims (cpu_backend.cc).
const std::vector<OpImpl>& CpuOps();

/// An output clamp [lo, hi] fused into a producer (Relu: [0, inf), Clip: [min, max], lo <= hi).
/// NaN passes through, as the reference's Relu and Clip have it (ONNX Relu-14, Clip-13;
/// docs/NUMERICS.md); XNNPACK's own clamp gives lo for NaN, so only ApplyClamp keeps it.
struct Clamp {
  float lo = -INFINITY, hi = INFINITY;
  bool active = false;
};
/// Applies cl to y[0, n) in place: y < lo gives lo, y > hi gives hi, NaN stays.
inline void ApplyClamp(const Clamp& cl, float* y, size_t n) {
  const float lo = cl.lo, hi = cl.hi;
  for (size_t i = 0; i < n; ++i) y[i] = y[i] < lo ? lo : y[i] > hi ? hi : y[i];
}
/// Compiles a simple loop function once per x86-64 level (AVX-512, AVX2, baseline) and picks one
/// at load (GCC's target_clones): the backend's own memory-bound loops. Empty elsewhere.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TARE_CPU_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TARE_CPU_CLONES
#endif

/// Adds `fast`, the XNNPACK step of n reading x (plain, `count` floats: n's first input) and writing
/// y (plain: n's output, or that of the Relu/Clip `cl` fused into it), guarded: when x or a known
/// input of n (checked now) holds a NaN or an inf, the step runs n's reference kernel on the same
/// buffers, then `after_ref` (when given: the work of nodes fused into the fast step, e.g. a bias
/// Add), then ApplyClamp, instead. XNNPACK's kernels turn a NaN into -inf or the clamp's lo
/// (tests/conformance/cases test_nan_gemm*, test_nan_softmax); the reference propagates it.
Status AddFiniteGuarded(Compiler& c, const Node& n, const float* x, size_t count, float* y, const Clamp& cl,
                        std::function<Status()> fast, std::function<void()> after_ref = nullptr);
/// When the next node is a Relu or a Clip with known bounds and is the only reader of v (not live
/// out), absorbs it, narrows `cl` and returns its output value; otherwise returns v.
int FuseClamp(Compiler& c, int v, Clamp* cl);
/// A float32 -> float32 Cast with tare's kCastRoundTo (runtime/ir/graph.h; only in a WidePartition):
/// each value rounded to float16 (XNNPACK's conversions) or bfloat16 (to nearest even on the bits)
/// and kept in float32, in the layout its input is held in.
Status CompileRoundTo(Compiler& c, const Node& n);
/// Reads the Clip bounds of n (known min/max inputs; absent = unbounded).
Clamp ClipBounds(const Compiler& c, const Node& n);
/// ONNX HardSigmoid-6: max(0, min(1, alpha * v + beta)), the product and the sum each rounded to
/// float (the reference's operations, so its bits); NaN passes.
inline float HardSigmoidOf(float v, float alpha, float beta) {
  float s = alpha * v;
  s = s + beta;
  return s < 0 ? 0.0f : s > 1 ? 1.0f : s;
}

/// Helpers for Supports.

// Per-file entry points.
bool SupportsConv(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileConv(Compiler& c, const Node& n);
bool SupportsPool(const Node& n, const Graph& g, const GraphInfo& info);
Status CompilePool(Compiler& c, const Node& n);
bool SupportsUnary(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileUnary(Compiler& c, const Node& n);
bool SupportsBinary(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileBinary(Compiler& c, const Node& n);
/// ONNX Where-16 (binary.cc): bool condition, float32 X and Y, numpy broadcasting of all three.
bool SupportsWhere(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileWhere(Compiler& c, const Node& n);
bool SupportsBatchNorm(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileBatchNorm(Compiler& c, const Node& n);
bool SupportsGemm(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileGemm(Compiler& c, const Node& n);
/// MatMul whose B is a run-time value or of rank > 2 (matmul.cc): batched Sgemm (eigen_kernels.h).
Status CompileBatchedMatMul(Compiler& c, const Node& n);
/// Adds a step: for each batch bi < batches, y[bi] (M x N, row-major, contiguous batches) =
/// A (M x K) times B (K x N), A and B row-major at offsets(bi) = (a's, b's) in matrices from ap
/// and bp (a_count and b_count floats in all): on BatchedGemm's tile loop where it is worth it
/// (operands with NaN or inf then take Eigen's), else one Sgemm per (batch, block of rows), split
/// over the pool (matmul.cc). Errors: out of memory for the packing buffers (names n).
Status AddBatchedProduct(Compiler& c, const Node& n, const float* ap, const float* bp, float* yp, size_t batches, size_t M, size_t K,
                         size_t N, std::function<std::pair<size_t, size_t>(size_t)> offsets, size_t a_count, size_t b_count);
/// Adds a step: y (dims od, row-major) = x[base + sum_k i_k * is[k]], rows of the last dim split
/// over the pool, a memcpy per row where that dim is contiguous (is = 1); strides may be negative
/// (layout_ops.cc).
void AddStridedCopy(Compiler& c, const float* xp, int64_t base, const std::vector<int64_t>& od, const std::vector<int64_t>& is, float* yp);
/// ONNX Einsum-12 of two float32 operands as one batched product (einsum.cc).
bool SupportsEinsum(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileEinsum(Compiler& c, const Node& n);
bool SupportsSoftmax(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileSoftmax(Compiler& c, const Node& n);
bool SupportsReshape(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileReshape(Compiler& c, const Node& n);
/// Concat (claimed when every input is float32: AllInputsF32).
Status CompileConcat(Compiler& c, const Node& n);
bool SupportsTranspose(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileTranspose(Compiler& c, const Node& n);
/// Slice with known starts, ends, axes, steps (layout_ops.cc).
bool SupportsSlice(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileSlice(Compiler& c, const Node& n);
/// ONNX Split-13/18 of float data (layout_ops.cc): each output a strided copy of its part along
/// `axis` (the parts' extents as shape inference gave them); an absent output: the reference.
bool SupportsSplit(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileSplit(Compiler& c, const Node& n);
/// Gather of float data (ONNX Gather-13): the reference kernel (indices checked first, one memcpy
/// per block; a bad index is its run-time error) inside the partition, so an embedding lookup or
/// ViT's class-token Gather does not split the partition off to ref (layout_ops.cc).
bool SupportsGather(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileGather(Compiler& c, const Node& n);
bool SupportsPad(const Node& n, const Graph& g, const GraphInfo& info);
Status CompilePad(Compiler& c, const Node& n);
/// Fusions (fusions.cc), tried by the compile loop before a node's own compile: at a ReduceMean
/// starting PyTorch's LayerNorm decomposition, at a Div starting its erf Gelu, or at a Sigmoid
/// whose output multiplies its input (SiLU), compiles the
/// whole chain as one step and absorbs its other nodes; false (nothing done) when the nodes ahead
/// do not form a pattern.
Result<bool> TryFusions(Compiler& c, const Node& n);
/// ONNX LayerNormalization-17 (fusions.cc): plain layout, over X's trailing block from `axis`;
/// Scale and B known with one value per normalized element (else the reference kernel); the
/// Mean and InvStdDev outputs are not claimed. The fused LayerNorm's step.
Status CompileLayerNorm(Compiler& c, const Node& n);
Result<bool> TryLayerNorm(Compiler& c, const Node& mean);
Result<bool> TryGelu(Compiler& c, const Node& div);
/// ReduceSum/Mean/Max/Min (reduce.cc): float32 data, axes from the attribute or a known int64 input.
bool SupportsReduce(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileReduce(Compiler& c, const Node& n);
bool SupportsRnn(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileRnn(Compiler& c, const Node& n);

}  // namespace tare::cpu
