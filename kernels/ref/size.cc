// Reference kernel of Size (semantics: runtime/ops/size.cc): writes the input's element count,
// computed from its shape only (the input's data pointer is never read).
#include "kernels/ref/ref_kernels.h"

namespace tare {

template <class T>
Result<KernelFn> MakeSize(const Node&) {
  return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    int64_t n = 1;
    for (int64_t d : in[0]->shape) n *= d;
    *out[0]->as<int64_t>() = n;
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Size)

}  // namespace tare
