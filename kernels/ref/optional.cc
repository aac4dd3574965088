// Reference kernels of the Optional family (semantics: runtime/ops/optional.cc). Exact: values are
// wrapped and unwrapped without copying, except a tensor without an owner of its storage (a
// borrowed view), which Optional copies.
#include <type_traits>

#include "kernels/ref/ref_kernels.h"

namespace tare {

template <class T>
Result<KernelFn> MakeOptional(const Node& node) {
  const std::string& op = node.op;
  if (op == "Optional") {
    DType elem = DType::kUndefined;
    auto it = node.attrs.find("type");
    if (it != node.attrs.end()) elem = static_cast<DType>(it->second.i);
    if (elem == DType::kFloat32 && std::is_same<T, double>::value) elem = DType::kFloat64;  // storage type
    return KernelFn([elem](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
      const Tensor* x = in.empty() ? nullptr : in[0];
      if (!x) {
        *out[0] = Tensor::Optional(elem, nullptr);
        return Status::Ok();
      }
      Tensor v = *x;
      if (v.is_tensor() && !v.owner) {
        TARE_ASSIGN_OR_RETURN(v, ConvertTensor(*x, x->dtype));
      }
      *out[0] = Tensor::Optional(x->dtype, &v);
      return Status::Ok();
    });
  }
  if (op == "OptionalHasElement")
    return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      const Tensor* x = in.empty() ? nullptr : in[0];
      const bool has = x && (x->kind != ValueKind::kOptional || (x->items && !x->items->empty()));
      out[0]->as<bool>()[0] = has;
      return Status::Ok();
    });
  if (op == "OptionalGetElement")
    return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
      const Tensor& x = *in[0];
      if (x.kind != ValueKind::kOptional) {
        *out[0] = x;
        return Status::Ok();
      }
      if (!x.items || x.items->empty()) return Status::Error("the input optional is empty");  // inference checks first
      *out[0] = (*x.items)[0];
      return Status::Ok();
    });
  return Status::Error(node.Where() + ": not an Optional-family op");
}

TARE_INSTANTIATE_REF(Optional)

}  // namespace tare
