// float16 and bfloat16 ("narrow floats", issue 20): how the reference backends compute an op whose
// kernel does not take the narrow type itself. Values keep the model's type; the op is computed in
// the backend's compute type (float on `ref`, double on `ref64`) from the exactly widened inputs,
// and each narrow output is rounded to the model's type once, to nearest even (as an fp16 device
// writes its results, and as ONNX Runtime's CPU provider runs such a node between Casts). So an
// fp16 output above 65504 (65520 and up, after rounding) is inf, while a sum that passes 65504 on
// the way and ends below it is finite: the accumulator is float. Ops whose shape inference takes
// the narrow type (data movement, Cast, the elementwise arithmetic of runtime/ops/binary.cc, ...;
// docs/OPS.md's dtypes column) run on it directly.
#pragma once
#include <cstdint>
#include <vector>

#include "runtime/exec/ref_kernel.h"
#include "runtime/ops/op.h"

namespace tare {

/// Whether `t` is float16 or bfloat16.
inline bool IsNarrowFloat(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }

/// `x` rounded to the nearest value of `narrow` (float16 or bfloat16; ties to even; beyond the
/// largest finite value -> +-inf; NaN stays NaN), encoded as its 16-bit pattern. One rounding from
/// double (no double rounding through float).
uint16_t RoundToNarrow(double x, DType narrow);

/// Shape inference for a node given narrow-float inputs that its op's own inference refused
/// (`native_error`): infers with those inputs seen as float32 (known data widened) and returns
/// the outputs, the float32 ones as the narrow type of the first narrow input. Returns
/// `native_error` when no input is narrow, else the float32 inference's error.
Result<std::vector<ValueInfo>> InferInFloat(const OpSpec& spec, const Node& node, const std::vector<ValueInfo>& in,
                                            const Status& native_error);

/// Wraps a reference kernel of compute type `compute` (kFloat32 or kFloat64) so that, when a
/// call's inputs hold a narrow float its op does not take natively (its inference refuses them),
/// it widens those inputs, runs `inner` on compute-type tensors and rounds the narrow outputs
/// once (RoundToNarrow). Other calls go to `inner` unchanged.
KernelFn ComputeNarrowInFloat(const OpSpec& spec, const Node& node, KernelFn inner, DType compute);

}  // namespace tare
