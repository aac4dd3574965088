// Optional family: ONNX Optional-15, OptionalHasElement-18 and OptionalGetElement-18 (the -15
// forms are the same ops restricted to optional inputs). An optional holds nothing, a tensor or a
// sequence of tensors; tare holds it as a Tensor of kind kOptional (runtime/ir/tensor.h).
//   Optional: (input?) -> an optional holding `input` (a tensor or a sequence), or an empty
//     optional when input is omitted; its element type then comes from the attribute `type` (a
//     TypeProto: a tensor or a sequence of tensors; when absent the element type is undefined).
//     `type`, when given with an input, must agree with the input's kind and element type.
//   OptionalHasElement: (input?) -> bool scalar: false for an omitted input or an empty optional,
//     true otherwise (an optional with a value, a tensor or a sequence).
//   OptionalGetElement: (input) -> the value in the optional (an error if it is empty); a tensor or
//     sequence input is returned as is.
// The outputs other than OptionalHasElement's are created by the kernel (kernels/ref/optional.cc);
// OptionalGetElement reads its input's data (ctx.Known) to learn the contained value's kind.
// Errors: wrong input counts, an optional given to Optional, a `type` attribute of another kind
// or not matching the input, getting the element of an empty optional.
#include "runtime/ops/specs.h"

namespace tare {

Status InferOptional(InferContext& ctx) {
  const std::string& op = ctx.node.op;
  if (op == "Optional") {
    TARE_RETURN_IF_ERROR(ctx.ExpectInputs(0, 1));
    ValueKind elem_kind = ValueKind::kTensor;
    DType elem = DType::kUndefined;
    const bool has_type = ctx.node.has("type");
    if (has_type) {
      const Attr& a = ctx.node.attrs.at("type");
      if (a.kind != Attr::Kind::kType) return ctx.Error(std::string("attribute 'type' must be a type, got ") + AttrKindName(a.kind));
      if (a.s != "tensor" && a.s != "sequence") return ctx.Error("attribute 'type' must be a tensor or sequence type, got " + a.s);
      if (a.i != 0 && !DTypeIsValid(static_cast<int32_t>(a.i)))
        return ctx.Error("attribute 'type' has an unsupported element type " + std::to_string(a.i));
      elem_kind = a.s == "sequence" ? ValueKind::kSequence : ValueKind::kTensor;
      elem = static_cast<DType>(a.i);
    }
    if (ctx.has(0)) {
      const ValueInfo& x = ctx.in[0];
      if (x.kind == ValueKind::kOptional) return ctx.Error("input must be a tensor or a sequence, got an optional");
      if (has_type && (x.kind != elem_kind || (elem != DType::kUndefined && x.dtype != elem)))
        return ctx.Error(std::string("input is a ") + ValueKindName(x.kind) + " of " + DTypeName(x.dtype) +
                         ", attribute 'type' says " + ValueKindName(elem_kind) + " of " + DTypeName(elem));
      elem = x.dtype;
    }
    ctx.SetOutByKernel(0, ValueKind::kOptional, elem);
    return Status::Ok();
  }
  if (op == "OptionalHasElement") {
    TARE_RETURN_IF_ERROR(ctx.ExpectInputs(0, 1));
    ctx.SetOut(0, DType::kBool, {});
    return Status::Ok();
  }
  if (op == "OptionalGetElement") {
    TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    const ValueInfo& x = ctx.in[0];
    if (x.kind != ValueKind::kOptional) {
      ctx.SetOutByKernel(0, x.kind, x.dtype);
      return Status::Ok();
    }
    TARE_ASSIGN_OR_RETURN(const Tensor* v, ctx.Known(0, "input"));
    if (!v->items || v->items->empty()) return ctx.Error("the input optional is empty");
    ctx.SetOutByKernel(0, (*v->items)[0].kind, x.dtype);
    return Status::Ok();
  }
  return ctx.Error("not an Optional-family op");
}

}  // namespace tare
