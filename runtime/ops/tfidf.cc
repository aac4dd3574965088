// TfIdf family: TfIdfVectorizer (ONNX TfIdfVectorizer-9). Counts the n-grams of each row of X that
// appear in a pool and writes their weighted counts to Y.
// X: int32 or int64, shape [C] or [N, C] (rows are independent); string input is not supported.
// Y: float32, shape [D] or [N, D] with D = max(ngram_indexes) + 1 (0 when the pool is empty).
// Attributes (all required except weights): mode ("TF", "IDF" or "TFIDF"); min_gram_length and
// max_gram_length (1 <= min <= max); max_skip_count (>= 0); pool_int64s (the pool: the 1-grams,
// then the 2-grams, ..., flattened; pool_strings is not supported); ngram_counts (ngram_counts[l]
// is the offset in the pool where the (l+1)-grams start: non-decreasing, within the pool, each
// level's span a multiple of its n; the first entry is where the 1-grams start); ngram_indexes
// (one output column per pool n-gram, in [0, 2^40), no column twice); weights (optional, one per
// pool n-gram, default 1). An n-gram may appear only once in the pool.
// Counting (onnxruntime's, as the ONNX tests show): for every start position p of a row and every
// n in [min_gram_length, max_gram_length], the n-grams x[p], x[p + s + 1], ..., x[p + (n-1)(s+1)]
// for every skip s in [0, max_skip_count] that fit in the row are looked up (a 1-gram once, not
// once per skip). Y[column of g] = count (TF), min(count, 1) * weight (IDF) or count * weight
// (TFIDF); columns of no pool n-gram are 0. Values: see kernels/ref/tfidf.cc.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "runtime/ops/specs.h"

namespace tare {

Status InferTfIdf(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  const ValueInfo& x = ctx.in[0];
  if (x.dtype == DType::kString) return ctx.Error("string input (pool_strings) is not supported; use int32 or int64");
  if (x.dtype != DType::kInt32 && x.dtype != DType::kInt64)
    return ctx.Error("input X must be int32 or int64, got " + DTypeName(x.dtype));
  if (x.shape.size() != 1 && x.shape.size() != 2)
    return ctx.Error("input X must be 1-D or 2-D, got shape " + ShapeStr(x.shape));
  for (const char* a :
       {"mode", "min_gram_length", "max_gram_length", "max_skip_count", "ngram_counts", "ngram_indexes"})
    if (!ctx.node.has(a)) return ctx.Error(std::string("attribute '") + a + "' is required");
  if (ctx.node.has("pool_strings")) return ctx.Error("attribute 'pool_strings' is not supported (string n-grams)");
  if (!ctx.node.has("pool_int64s")) return ctx.Error("attribute 'pool_int64s' is required");
  TARE_ASSIGN_OR_RETURN(std::string mode, ctx.node.GetString("mode", ""));
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
    return ctx.Error("attribute 'mode' must be TF, IDF or TFIDF, got '" + mode + "'");
  TARE_ASSIGN_OR_RETURN(int64_t min_n, ctx.node.GetInt("min_gram_length", 0));
  TARE_ASSIGN_OR_RETURN(int64_t max_n, ctx.node.GetInt("max_gram_length", 0));
  TARE_ASSIGN_OR_RETURN(int64_t skip, ctx.node.GetInt("max_skip_count", 0));
  if (min_n < 1 || max_n < min_n || max_n > kMaxElements)
    return ctx.Error("need 1 <= min_gram_length <= max_gram_length, got " + std::to_string(min_n) + " and " +
                     std::to_string(max_n));
  if (skip < 0 || skip > kMaxElements)
    return ctx.Error("attribute 'max_skip_count' = " + std::to_string(skip) + " is out of range [0, 2^40]");
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> pool, ctx.node.GetInts("pool_int64s"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> counts, ctx.node.GetInts("ngram_counts"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> indexes, ctx.node.GetInts("ngram_indexes"));
  TARE_ASSIGN_OR_RETURN(std::vector<float> weights, ctx.node.GetFloats("weights"));
  const int64_t pool_size = static_cast<int64_t>(pool.size());
  size_t ngrams = 0;
  std::map<std::vector<int64_t>, size_t> seen;
  for (size_t l = 0; l < counts.size(); ++l) {
    const int64_t n = static_cast<int64_t>(l) + 1;
    const int64_t begin = counts[l], end = l + 1 < counts.size() ? counts[l + 1] : pool_size;
    if (begin < 0 || begin > end || end > pool_size)
      return ctx.Error("attribute 'ngram_counts' must be non-decreasing offsets into pool_int64s (size " +
                       std::to_string(pool_size) + "), got " + std::to_string(begin) + " at position " +
                       std::to_string(l));
    if ((end - begin) % n != 0)
      return ctx.Error("the " + std::to_string(n) + "-grams of pool_int64s span " + std::to_string(end - begin) +
                       " values, not a multiple of " + std::to_string(n));
    for (int64_t p = begin; p < end; p += n) {
      std::vector<int64_t> g(pool.begin() + p, pool.begin() + p + n);
      if (!seen.emplace(g, ngrams).second)
        return ctx.Error("the n-gram at offset " + std::to_string(p) + " of pool_int64s appears twice in the pool");
      ++ngrams;
    }
  }
  if (indexes.size() != ngrams)
    return ctx.Error("attribute 'ngram_indexes' has " + std::to_string(indexes.size()) + " values for " +
                     std::to_string(ngrams) + " pool n-grams");
  if (!weights.empty() && weights.size() != ngrams)
    return ctx.Error("attribute 'weights' has " + std::to_string(weights.size()) + " values for " +
                     std::to_string(ngrams) + " pool n-grams");
  int64_t cols = 0;
  std::map<int64_t, size_t> used;
  for (size_t i = 0; i < indexes.size(); ++i) {
    if (indexes[i] < 0 || indexes[i] >= kMaxElements)
      return ctx.Error("attribute 'ngram_indexes' value " + std::to_string(indexes[i]) + " is out of range [0, 2^40)");
    if (!used.emplace(indexes[i], i).second)
      return ctx.Error("attribute 'ngram_indexes' names output column " + std::to_string(indexes[i]) + " twice");
    cols = std::max(cols, indexes[i] + 1);
  }
  const Shape y = x.shape.size() == 1 ? Shape{cols} : Shape{x.shape[0], cols};
  TARE_RETURN_IF_ERROR(NumElements(y).status());
  ctx.SetOut(0, DType::kFloat32, y);
  return Status::Ok();
}

}  // namespace tare
