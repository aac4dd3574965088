// The ops of the cpu backend: for each, a Supports test (op, dtypes, attributes, which inputs are
// known at plan time; decided before shapes are known) and a Compile function that adds its steps
// through the Compiler (concrete shapes; a case the fast path does not cover runs its reference
// kernel instead, Compiler::CompileRef).
#pragma once
#include <cmath>
#include <vector>

#include "backends/cpu/compiler.h"

namespace tare::cpu {

/// One claimed op (backends/common/table_backend.h).
using OpImpl = TableOp<Compiler>;
/// Every op the backend claims (cpu_backend.cc).
const std::vector<OpImpl>& CpuOps();

/// An output clamp [lo, hi] fused into a producer (Relu: [0, inf), Clip: [min, max]). NaN: Relu
/// gives 0 (nan_to_lo), Clip passes it; XNNPACK's clamp gives lo either way.
struct Clamp {
  float lo = -INFINITY, hi = INFINITY;
  bool active = false, nan_to_lo = false;
};
/// Applies cl to y[0, n) in place with the absorbed ops' NaN rule.
inline void ApplyClamp(const Clamp& cl, float* y, size_t n) {
  const float lo = cl.lo, hi = cl.hi;
  if (cl.nan_to_lo) {
    for (size_t i = 0; i < n; ++i) y[i] = y[i] > lo ? (y[i] > hi ? hi : y[i]) : lo;
  } else {
    for (size_t i = 0; i < n; ++i) y[i] = y[i] < lo ? lo : y[i] > hi ? hi : y[i];
  }
}
/// When the next node is a Relu or a Clip with known bounds and is the only reader of v (not live
/// out), absorbs it, narrows `cl` and returns its output value; otherwise returns v.
int FuseClamp(Compiler& c, int v, Clamp* cl);
/// Reads the Clip bounds of n (known min/max inputs; absent = unbounded).
Clamp ClipBounds(const Compiler& c, const Node& n);

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
bool SupportsBatchNorm(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileBatchNorm(Compiler& c, const Node& n);
bool SupportsGemm(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileGemm(Compiler& c, const Node& n);
bool SupportsSoftmax(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileSoftmax(Compiler& c, const Node& n);
bool SupportsReshape(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileReshape(Compiler& c, const Node& n);
/// Concat (claimed when every input is float32: AllInputsF32).
Status CompileConcat(Compiler& c, const Node& n);
bool SupportsTranspose(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileTranspose(Compiler& c, const Node& n);
bool SupportsPad(const Node& n, const Graph& g, const GraphInfo& info);
Status CompilePad(Compiler& c, const Node& n);
bool SupportsRnn(const Node& n, const Graph& g, const GraphInfo& info);
Status CompileRnn(Compiler& c, const Node& n);

}  // namespace tare::cpu
