// Reference kernel of TfIdfVectorizer (semantics: runtime/ops/tfidf.cc). Counts are exact
// integers; Y = count (TF), weight (IDF, count > 0) or count * weight (TFIDF), one product in T
// (float for `ref`, double for `ref64`: at most one rounding apart).
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/ref/ref_kernels.h"

namespace tare {

template <class T>
Result<KernelFn> MakeTfIdf(const Node& node) {
  TARE_ASSIGN_OR_RETURN(std::string mode, node.GetString("mode", "TF"));
  TARE_ASSIGN_OR_RETURN(int64_t min_n, node.GetInt("min_gram_length", 1));
  TARE_ASSIGN_OR_RETURN(int64_t max_n, node.GetInt("max_gram_length", 1));
  TARE_ASSIGN_OR_RETURN(int64_t skip, node.GetInt("max_skip_count", 0));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> pool, node.GetInts("pool_int64s"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> counts, node.GetInts("ngram_counts"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> indexes, node.GetInts("ngram_indexes"));
  TARE_ASSIGN_OR_RETURN(std::vector<float> weights, node.GetFloats("weights"));
  // The pool as a map from n-gram to its position (shape inference validated the layout; the
  // bounds are re-checked here only so that a bad node can never read outside the attributes).
  auto lookup = std::make_shared<std::map<std::vector<int64_t>, size_t>>();
  const int64_t pool_size = static_cast<int64_t>(pool.size());
  for (size_t l = 0; l < counts.size(); ++l) {
    const int64_t n = static_cast<int64_t>(l) + 1;
    const int64_t begin = counts[l], end = l + 1 < counts.size() ? counts[l + 1] : pool_size;
    if (begin < 0 || begin > end || end > pool_size || (end - begin) % n != 0)
      return Status::Error(node.Where() + ": attribute 'ngram_counts' does not describe pool_int64s");
    for (int64_t p = begin; p < end; p += n)
      lookup->emplace(std::vector<int64_t>(pool.begin() + p, pool.begin() + p + n), lookup->size());
  }
  if (indexes.size() < lookup->size() || (!weights.empty() && weights.size() < lookup->size()))
    return Status::Error(node.Where() + ": attributes 'ngram_indexes' / 'weights' are shorter than the pool");
  if (min_n < 1 || max_n < min_n || skip < 0)
    return Status::Error(node.Where() + ": invalid n-gram lengths or max_skip_count");
  const int64_t levels = static_cast<int64_t>(counts.size());
  const int mode_code = mode == "TF" ? 0 : mode == "IDF" ? 1 : 2;
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor& x = *in[0];
    Tensor& y = *out[0];
    const bool batched = x.shape.size() == 2;
    const int64_t rows = batched ? x.shape[0] : 1, c = x.shape.back();
    const int64_t cols = y.shape.back();
    if (y.numel() == 0) return Status::Ok();
    T* yp = y.as<T>();
    std::fill(yp, yp + y.numel(), T(0));
    std::vector<int64_t> count(lookup->size());
    std::vector<int64_t> g;
    const int64_t top = std::min({max_n, levels, c});
    for (int64_t r = 0; r < rows; ++r) {
      std::fill(count.begin(), count.end(), 0);
      auto at = [&](int64_t j) { return ReadInt(x, r * c + j); };
      for (int64_t p = 0; p < c; ++p)
        for (int64_t n = min_n; n <= top; ++n) {
          // Skips s whose last position p + (n-1)(s+1) is inside the row (no overflow: divided).
          const int64_t fit = n == 1 ? 1 : (c - 1 - p) / (n - 1);
          const int64_t skips = n == 1 ? 0 : std::min(skip, fit - 1);
          for (int64_t s = 0; s <= skips; ++s) {
            g.clear();
            for (int64_t k = 0; k < n; ++k) g.push_back(at(p + k * (s + 1)));
            auto it = lookup->find(g);
            if (it != lookup->end()) ++count[it->second];
          }
        }
      for (size_t i = 0; i < count.size(); ++i) {
        if (count[i] == 0) continue;
        const T w = weights.empty() ? T(1) : static_cast<T>(weights[i]);
        const T v = mode_code == 0 ? static_cast<T>(count[i]) : mode_code == 1 ? w : static_cast<T>(count[i]) * w;
        yp[r * cols + indexes[i]] = v;
      }
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(TfIdf)

}  // namespace tare
