// PLACEHOLDER: OneHot family reference kernels (to be written).
#include "kernels/ref/ref_kernels.h"

namespace tare {

template <class T>
Result<KernelFn> MakeOneHot(const Node& node) { return Status::Error(node.Where() + ": placeholder"); }

TARE_INSTANTIATE_REF(OneHot)

}  // namespace tare
