// PLACEHOLDER: Resize family reference kernels (to be written).
#include "kernels/ref/ref_kernels.h"

namespace tare {

template <class T>
Result<KernelFn> MakeResize(const Node& node) { return Status::Error(node.Where() + ": placeholder"); }

TARE_INSTANTIATE_REF(Resize)

}  // namespace tare
