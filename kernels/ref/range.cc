// PLACEHOLDER: Range family reference kernels (to be written).
#include "kernels/ref/ref_kernels.h"

namespace tare {

template <class T>
Result<KernelFn> MakeRange(const Node& node) { return Status::Error(node.Where() + ": placeholder"); }

TARE_INSTANTIATE_REF(Range)

}  // namespace tare
