// Reference kernel of Where (semantics: runtime/ops/where.cc): each output element is a bit-exact
// copy of the selected operand element; elements are moved as unsigned integers of the dtype's
// size, so one kernel serves every dtype.
#include <cstdint>

#include "kernels/ref/broadcast.h"
#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// y = c ? x : y over the broadcast, for elements of W's size.
template <class W>
void Select(const Tensor& c, const Tensor& x, const Tensor& y, Tensor& out) {
  BroadcastTernary<bool, W, W, W>(c, x, y, out, [](bool k, W p, W q) { return k ? p : q; });
}

}  // namespace

template <class T>
Result<KernelFn> MakeWhere(const Node& node) {
  if (node.op != "Where") return Status::Error(node.Where() + ": not Where");
  return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& c = *in[0];
    const Tensor& x = *in[1];
    const Tensor& y = *in[2];
    switch (DTypeSize(x.dtype)) {
      case 1: Select<uint8_t>(c, x, y, *out[0]); break;
      case 2: Select<uint16_t>(c, x, y, *out[0]); break;
      case 4: Select<uint32_t>(c, x, y, *out[0]); break;
      case 8: Select<uint64_t>(c, x, y, *out[0]); break;
      default: return Status::Error("Where: unsupported dtype " + DTypeName(x.dtype));
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Where)

}  // namespace tare
