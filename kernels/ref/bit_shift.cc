// Reference kernel of BitShift (semantics: runtime/ops/bit_shift.cc): exact unsigned shifts;
// the shift is done in a type of at least `unsigned int`'s width and truncated to the element
// type, and a shift count >= the element's bit width gives 0 (never an undefined shift).
#include <string>

#include "kernels/ref/broadcast.h"
#include "runtime/ir/elem.h"
#include "kernels/ref/ref_kernels.h"
#include "runtime/ops/elementwise.h"

namespace tare {

namespace {

/// BitwiseAnd/Or/Xor (op 0, 1, 2) with broadcasting, BitwiseNot (3), on any integer dtype.
KernelFn MakeBitwise(int op) {
  return [op](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const bool ok = VisitInteger(in[0]->dtype, [&](auto e) {
      using S = typename decltype(e)::S;
      if (op == 3) {
        const S* x = in[0]->as<S>();
        S* y = out[0]->as<S>();
        for (int64_t i = 0, n = in[0]->numel(); i < n; ++i) y[i] = static_cast<S>(~x[i]);
      } else if (op == 0) {
        BroadcastBinary<S, S, S>(*in[0], *in[1], *out[0], [](S a, S b) { return static_cast<S>(a & b); });
      } else if (op == 1) {
        BroadcastBinary<S, S, S>(*in[0], *in[1], *out[0], [](S a, S b) { return static_cast<S>(a | b); });
      } else {
        BroadcastBinary<S, S, S>(*in[0], *in[1], *out[0], [](S a, S b) { return static_cast<S>(a ^ b); });
      }
    });
    return ok ? Status::Ok() : Status::Error("unsupported dtype " + DTypeName(in[0]->dtype));
  };
}

}  // namespace

template <class T>
Result<KernelFn> MakeBitShift(const Node& node) {
  if (node.op == "BitwiseAnd") return MakeBitwise(0);
  if (node.op == "BitwiseOr") return MakeBitwise(1);
  if (node.op == "BitwiseXor") return MakeBitwise(2);
  if (node.op == "BitwiseNot") return MakeBitwise(3);
  if (node.op != "BitShift") return Status::Error(node.Where() + ": not BitShift");
  TARE_ASSIGN_OR_RETURN(std::string dir, node.GetString("direction", ""));
  if (dir != "LEFT" && dir != "RIGHT")
    return Status::Error(node.Where() + ": attribute direction must be \"LEFT\" or \"RIGHT\", got \"" + dir + "\"");
  const bool left = dir == "LEFT";
  return KernelFn([left](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    if (!DTypeIsUnsigned(in[0]->dtype)) return Status::Error("BitShift: unsupported dtype " + DTypeName(in[0]->dtype));
    VisitInteger(in[0]->dtype, [&](auto e) {
      using S = typename decltype(e)::S;
      if constexpr (std::is_unsigned_v<S>) {
        using W = WrapUnsigned<S>;
        constexpr S kBits = static_cast<S>(sizeof(S) * 8);
        if (left)
          BroadcastBinary<S, S, S>(*in[0], *in[1], *out[0], [](S x, S s) { return s >= kBits ? S(0) : static_cast<S>(W(x) << s); });
        else
          BroadcastBinary<S, S, S>(*in[0], *in[1], *out[0], [](S x, S s) { return s >= kBits ? S(0) : static_cast<S>(x >> s); });
      }
    });
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(BitShift)

}  // namespace tare
