// Reference kernel of ReverseSequence (semantics: runtime/ops/reverse_sequence.cc). Pure data
// movement (exact, any dtype): the dims after the first two form a contiguous block that is
// copied whole for each (batch, time) pair. Each length is checked before use; an out-of-range
// length is a run-time error naming its value.
#include <cstring>

#include "kernels/ref/ref_kernels.h"

namespace tare {

template <class T>
Result<KernelFn> MakeReverseSequence(const Node& node) {
  TARE_ASSIGN_OR_RETURN(int64_t batch_axis, node.GetInt("batch_axis", 1));
  return KernelFn([batch_axis](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    const Tensor& lens = *in[1];
    Tensor& y = *out[0];
    const bool batch_first = batch_axis == 0;
    const int64_t batch = x.shape[batch_first ? 0 : 1], steps = x.shape[batch_first ? 1 : 0];
    int64_t inner = 1;
    for (size_t d = 2; d < x.shape.size(); ++d) inner *= x.shape[d];
    const size_t block = static_cast<size_t>(inner) * DTypeSize(x.dtype);
    const char* src = static_cast<const char*>(x.data);
    char* dst = static_cast<char*>(y.data);
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t len = lens.dtype == DType::kInt32 ? lens.as<int32_t>()[b] : lens.as<int64_t>()[b];
      if (len < 0 || len > steps)
        return Status::Error("ReverseSequence: sequence_lens[" + std::to_string(b) + "] = " + std::to_string(len) +
                             " is out of range [0, " + std::to_string(steps) + "]");
      if (block == 0) continue;
      for (int64_t t = 0; t < steps; ++t) {
        const int64_t from = t < len ? len - 1 - t : t;
        const int64_t yo = batch_first ? b * steps + t : t * batch + b;
        const int64_t xo = batch_first ? b * steps + from : from * batch + b;
        std::memcpy(dst + yo * static_cast<int64_t>(block), src + xo * static_cast<int64_t>(block), block);
      }
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(ReverseSequence)

}  // namespace tare
