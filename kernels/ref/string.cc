// Reference kernel of StringNormalizer (semantics: runtime/ops/string.cc; the case mapping:
// runtime/ops/string_case.h). Exact.
#include <unordered_set>

#include "kernels/ref/ref_kernels.h"
#include "runtime/ops/string_case.h"

namespace tare {

template <class T>
Result<KernelFn> MakeString(const Node& node) {
  TARE_ASSIGN_OR_RETURN(int64_t cs, node.GetInt("is_case_sensitive", 0));
  TARE_ASSIGN_OR_RETURN(std::string action, node.GetString("case_change_action", "NONE"));
  std::unordered_set<std::string> stop;
  auto it = node.attrs.find("stopwords");
  if (it != node.attrs.end())
    for (const std::string& w : it->second.strings) stop.insert(cs ? w : StringCaseMap(w, false));
  return KernelFn([cs, action, stop](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
    const Tensor& x = *in[0];
    Tensor& y = *out[0];
    int64_t j = 0;
    const int64_t cap = y.numel();
    for (int64_t k = 0; k < x.numel(); ++k) {
      const std::string& s = x.as<std::string>()[k];
      const std::string key = cs ? s : StringCaseMap(s, false);
      if (stop.count(key)) continue;
      if (j == cap) return Status::Error("StringNormalizer: more elements kept than planned");
      y.as<std::string>()[j++] = action == "NONE" ? s : StringCaseMap(s, action == "UPPER");
    }
    // Every element removed: y is the planned [""] (Alloc gives empty strings).
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(String)

}  // namespace tare
