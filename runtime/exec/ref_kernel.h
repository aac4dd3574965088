// The reference kernel of any node: the table from op (domain, name) to its family's Make<Family>
// (kernels/ref/ref_kernels.h; runtime/ops/op_list.inc names the family of each op). It lives here, not
// in kernels/, because two families (ControlFlow, Gradient) run graphs on the evaluator of
// runtime/exec/, and kernels/ depends on no engine.
#pragma once
#include "kernels/ref/ref_kernels.h"

namespace tare {

/// Prepares the reference kernel of `node` for compute type kFloat32 (`ref`) or kFloat64
/// (`ref64`). Errors: unknown op, invalid attributes (message names the node).
Result<KernelFn> MakeRefKernel(const Node& node, DType compute);

}  // namespace tare
