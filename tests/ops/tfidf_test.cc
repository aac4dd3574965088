// TfIdfVectorizer. Expected values: the ONNX examples (their expected outputs, re-derived by hand
// below) and hand counts for weights, IDF/TFIDF, trigrams and 2-D input.
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
const std::vector<double> kSeq = {1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8};
// Pool: unigrams 2, 3, 5, 4 (columns 0..3); bigrams (5,6), (7,8), (6,7) (columns 4..6).
NodeOf Tf(int64_t min_n, int64_t max_n, int64_t skip, const char* mode = "TF") {
  NodeOf n("TfIdfVectorizer");
  n.Attr("mode", mode).Attr("min_gram_length", min_n).Attr("max_gram_length", max_n).Attr("max_skip_count", skip);
  n.Attr("ngram_counts", std::vector<int64_t>{0, 4}).Attr("ngram_indexes", std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6});
  n.Attr("pool_int64s", std::vector<int64_t>{2, 3, 5, 4, 5, 6, 7, 8, 6, 7});
  return n;
}
}  // namespace

TEST_CASE("TfIdfVectorizer TF counts (ONNX examples)") {
  const Tensor x = Make(DType::kInt32, {12}, kSeq);
  // Adjacent pairs: (5,6) at 9-10, (7,8) at 5-6, (6,7) at 7-8.
  Check(Tf(2, 2, 0), {x}, {{{7}, {0, 0, 0, 0, 1, 1, 1}}});
  // Skips 0..5 (distance 1..6): (7,8) at 5-6, 5-11, 8-11 -> 3; the others once.
  Check(Tf(2, 2, 5), {x}, {{{7}, {0, 0, 0, 0, 1, 3, 1}}});
  // Unigrams are counted once per position: 3 three times, 5 once.
  Check(Tf(1, 2, 5), {x}, {{{7}, {0, 3, 1, 0, 1, 3, 1}}});
  const Tensor xb = Make(DType::kInt64, {2, 6}, kSeq);
  // Rows [1,1,3,3,3,7] and [8,6,7,5,6,8]: pairs never cross rows.
  Check(Tf(2, 2, 0), {xb}, {{{2, 7}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1}}});
  Check(Tf(2, 2, 5), {xb}, {{{2, 7}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1}}});
  Check(Tf(1, 2, 5), {xb}, {{{2, 7}, {0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1}}});
  // No unigram level entries (ngram_counts [0, 0]): the pool holds only the three bigrams.
  NodeOf empty("TfIdfVectorizer");
  empty.Attr("mode", "TF").Attr("min_gram_length", 2).Attr("max_gram_length", 2).Attr("max_skip_count", 0);
  empty.Attr("ngram_counts", std::vector<int64_t>{0, 0}).Attr("ngram_indexes", std::vector<int64_t>{0, 1, 2});
  empty.Attr("pool_int64s", std::vector<int64_t>{5, 6, 7, 8, 6, 7});
  Check(empty, {x}, {{{3}, {1, 1, 1}}});
}

TEST_CASE("TfIdfVectorizer IDF and TFIDF weights, trigrams, column mapping") {
  const Tensor x = Make(DType::kInt32, {12}, kSeq);
  const std::vector<float> w = {0.5f, 2, 0.25f, 1, 3, 0.75f, 1.5f};
  // TF counts with skip 5 and unigrams: [0, 3, 1, 0, 1, 3, 1].
  Check(Tf(1, 2, 5, "TFIDF").Attr("weights", w), {x}, {{{7}, {0, 6, 0.25, 0, 3, 2.25, 1.5}}});
  Check(Tf(1, 2, 5, "IDF").Attr("weights", w), {x}, {{{7}, {0, 2, 0.25, 0, 3, 0.75, 1.5}}});
  Check(Tf(1, 2, 5, "IDF"), {x}, {{{7}, {0, 1, 1, 0, 1, 1, 1}}});
  // Trigrams with skips 0..2: (3,3,3) only at 2-3-4 (skip 0); (1,3,7) only at 1-3-5 (skip 1);
  // (1,3,8) only at 0-3-6 (skip 2). The pool's n-grams map to columns 2, 0 and 4.
  NodeOf tri("TfIdfVectorizer");
  tri.Attr("mode", "TF").Attr("min_gram_length", 3).Attr("max_gram_length", 3).Attr("max_skip_count", 2);
  tri.Attr("ngram_counts", std::vector<int64_t>{0, 0, 0}).Attr("ngram_indexes", std::vector<int64_t>{2, 0, 4});
  tri.Attr("pool_int64s", std::vector<int64_t>{3, 3, 3, 1, 3, 7, 1, 3, 8});
  Check(tri, {x}, {{{5}, {1, 0, 1, 0, 1}}});
  // An empty row length: C = 0 gives zeros.
  Check(Tf(1, 2, 5), {Make(DType::kInt32, {2, 0}, {})}, {{{2, 7}, std::vector<double>(14, 0.0)}});
}

TEST_CASE("TfIdfVectorizer rejects bad attributes and inputs") {
  const Tensor x = Make(DType::kInt32, {12}, kSeq);
  CheckFails(Tf(2, 2, 0), {F32({3}, {1, 2, 3})}, "int32 or int64");
  CheckFails(Tf(2, 2, 0), {Make(DType::kInt32, {1, 2, 3}, {1, 2, 3, 4, 5, 6})}, "1-D or 2-D");
  CheckFails(Tf(2, 2, 0, "BM25"), {x}, "mode");
  CheckFails(Tf(3, 2, 0), {x}, "min_gram_length");
  CheckFails(Tf(0, 2, 0), {x}, "min_gram_length");
  CheckFails(Tf(2, 2, -1), {x}, "max_skip_count");
  CheckFails(Tf(2, 2, 0).Attr("ngram_counts", std::vector<int64_t>{0, 3}), {x}, "multiple of 2");
  CheckFails(Tf(2, 2, 0).Attr("ngram_counts", std::vector<int64_t>{0, 11}), {x}, "ngram_counts");
  CheckFails(Tf(2, 2, 0).Attr("ngram_indexes", std::vector<int64_t>{0, 1, 2, 3, 4, 5}), {x}, "ngram_indexes");
  CheckFails(Tf(2, 2, 0).Attr("ngram_indexes", std::vector<int64_t>{0, 1, 2, 3, 4, 5, 5}), {x}, "twice");
  CheckFails(Tf(2, 2, 0).Attr("ngram_indexes", std::vector<int64_t>{0, 1, 2, 3, 4, 5, -1}), {x}, "out of range");
  CheckFails(Tf(2, 2, 0).Attr("weights", std::vector<float>{1, 2}), {x}, "weights");
  CheckFails(Tf(2, 2, 0).Attr("pool_int64s", std::vector<int64_t>{2, 3, 5, 4, 5, 6, 7, 8, 5, 6}), {x}, "twice");
  CheckFails(Tf(2, 2, 0).Attr("pool_strings", std::vector<std::string>{"a"}), {x}, "pool_strings");
}
