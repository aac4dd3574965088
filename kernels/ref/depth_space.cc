// PLACEHOLDER: DepthSpace family reference kernels (to be written).
#include "kernels/ref/ref_kernels.h"

namespace tare {

template <class T>
Result<KernelFn> MakeDepthSpace(const Node& node) { return Status::Error(node.Where() + ": placeholder"); }

TARE_INSTANTIATE_REF(DepthSpace)

}  // namespace tare
