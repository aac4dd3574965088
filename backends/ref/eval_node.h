// Evaluates one node on the reference kernels: shape inference, output allocation, kernel run.
// Used for plan-time constant folding by the session and by the op tests.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/ref/ref_kernels.h"
#include "runtime/ops/op.h"

namespace tare {

/// The storage type of a value of declared type `t` under compute type `compute`: float32 values
/// are held in the compute type (float for `ref`, double for `ref64`); other types are unchanged.
inline DType StorageType(DType t, DType compute) { return t == DType::kFloat32 ? compute : t; }

/// Runs shape inference for `node` on `in` (nullptr = omitted input) whose data is known, and
/// returns the output infos. Errors: those of the op's shape inference, unknown op.
Result<std::vector<ValueInfo>> InferNode(const Node& node, const std::vector<ValueInfo>& in);

/// Evaluates `node` on known inputs (already in storage types for `compute`) with the reference
/// kernel (`kernel` if given, else one prepared here). Returns one tensor per node output (an
/// empty Tensor for an omitted optional output). Errors: shape inference, an output larger than
/// `max_bytes`, kernel errors.
Result<std::vector<Tensor>> EvalNode(const Node& node, const std::vector<const Tensor*>& in, DType compute,
                                     const KernelFn* kernel = nullptr, size_t max_bytes = SIZE_MAX);

}  // namespace tare
