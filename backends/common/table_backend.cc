#include "backends/common/table_backend.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>

#include "runtime/exec/ref_kernel.h"

namespace tare {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
bool AllFinite(const float* x, size_t n) {
  for (size_t i = 0; i < n; i += 4096) {
    const size_t e = std::min(n, i + 4096);
    uint32_t bad = 0;
    for (size_t j = i; j < e; ++j) {
      uint32_t b;
      std::memcpy(&b, x + j, sizeof b);
      bad |= (b & 0x7f800000u) == 0x7f800000u;
    }
    if (bad) return false;
  }
  return true;
}

GraphInfo GraphInfo::Of(const Graph& g) {
  GraphInfo info;
  info.known.assign(g.values.size(), 0);
  info.readers.assign(g.values.size(), 0);
  for (size_t v = 0; v < g.values.size(); ++v) info.known[v] = g.values[v].is_constant;
  for (const Node& n : g.nodes) {
    bool all = true;
    for (int v : n.inputs)
      if (v >= 0) {
        all = all && info.known[v];
        ++info.readers[v];
      }
    const bool shape_only = (n.op == "Shape" || n.op == "Size") && n.domain.empty();
    if (all || shape_only)
      for (int v : n.outputs)
        if (v >= 0) info.known[v] = 1;
  }
  for (int v : g.outputs) ++info.readers[v];
  return info;
}

bool IsF32(const Graph& g, int v) {
  return v >= 0 && (g.values[v].dtype == DType::kFloat32 || g.values[v].dtype == DType::kUndefined);
}

bool AllInputsF32(const Node& n, const Graph& g, const GraphInfo&) {
  if (n.inputs.empty()) return false;
  for (int v : n.inputs)
    if (!IsF32(g, v)) return false;
  return true;
}

bool RnnDefaultActivations(const Node& n, bool lstm, int64_t nd) {
  auto it = n.attrs.find("activations");
  if (it == n.attrs.end()) return true;
  const std::vector<std::string> def =
      lstm ? std::vector<std::string>{"sigmoid", "tanh", "tanh"} : std::vector<std::string>{"sigmoid", "tanh"};
  const std::vector<std::string>& names = it->second.strings;
  if (names.size() != def.size() && names.size() != def.size() * static_cast<size_t>(nd)) return false;
  for (size_t i = 0; i < names.size(); ++i) {
    std::string l;
    for (char ch : names[i]) l += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (l != def[i % def.size()]) return false;
  }
  return true;
}

Result<std::function<Status()>> RefStep(const Node& n, std::vector<Tensor> ins, std::vector<Tensor> outs) {
  TARE_ASSIGN_OR_RETURN(KernelFn k, MakeRefKernel(n, DType::kFloat32));
  // The tensors are bound now; the vectors of pointers are built once.
  auto in_t = std::make_shared<std::vector<Tensor>>(std::move(ins));
  auto out_t = std::make_shared<std::vector<Tensor>>(std::move(outs));
  auto in_ptrs = std::make_shared<std::vector<const Tensor*>>(n.inputs.size(), nullptr);
  auto out_ptrs = std::make_shared<std::vector<Tensor*>>(n.outputs.size(), nullptr);
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (n.inputs[i] >= 0) (*in_ptrs)[i] = &(*in_t)[i];
  for (size_t i = 0; i < n.outputs.size(); ++i)
    if (n.outputs[i] >= 0) (*out_ptrs)[i] = &(*out_t)[i];
  const std::string where = n.Where();
  return std::function<Status()>(
      [k, in_t, out_t, in_ptrs, out_ptrs, where] { return k(*in_ptrs, *out_ptrs).With(where); });
}

}  // namespace tare
