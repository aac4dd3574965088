// The op table of MakeRefKernel (runtime/exec/ref_kernel.h).
#include "runtime/exec/ref_kernel.h"

#include "runtime/exec/narrow_float.h"

namespace tare {

Result<KernelFn> MakeRefKernel(const Node& node, DType compute) {
  using MakeFn = Result<KernelFn> (*)(const Node&);
  struct Entry { const char* domain; const char* name; MakeFn f32; MakeFn f64; };
  static const Entry table[] = {
#define TARE_OP(name, family, budget, doc) {"", #name, &Make##family<float>, &Make##family<double>},
#define TARE_OP_IN(domain, name, family, budget, doc) {domain, #name, &Make##family<float>, &Make##family<double>},
#include "runtime/ops/op_list.inc"
#undef TARE_OP_IN
#undef TARE_OP
  };
  const std::string domain = node.domain == "ai.onnx" ? "" : node.domain;
  for (const Entry& e : table) {
    if (node.op == e.name && domain == e.domain) {
      Result<KernelFn> k = compute == DType::kFloat64 ? e.f64(node) : e.f32(node);
      if (!k.ok()) return k.status();
      const OpSpec* spec = FindOp(node);
      if (!spec) return std::move(k).value();
      return ComputeNarrowInFloat(*spec, node, std::move(k).value(), compute);
    }
  }
  return Status::Error(node.Where() + ": op is not supported by the reference backend");
}

}  // namespace tare
