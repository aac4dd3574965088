#include "compare/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

namespace tare {
namespace {

// float32 bits mapped to an integer line where adjacent floats differ by 1 (negative floats below).
int64_t Ordered(float f) {
  int32_t i;
  std::memcpy(&i, &f, 4);
  return i < 0 ? -static_cast<int64_t>(i & 0x7fffffff) : static_cast<int64_t>(i);
}

// The indices of the k largest values of row[0..n) (ties to the lower index; NaN above all).
std::vector<int64_t> TopK(const double* row, int64_t n, int k) {
  std::vector<int64_t> idx(static_cast<size_t>(n));
  std::iota(idx.begin(), idx.end(), 0);
  auto greater = [row](int64_t a, int64_t b) {
    const double x = row[a], y = row[b];
    const bool xn = std::isnan(x), yn = std::isnan(y);
    if (xn != yn) return xn;
    if (!xn && x != y) return x > y;
    return a < b;
  };
  std::partial_sort(idx.begin(), idx.begin() + std::min<int64_t>(k, n), idx.end(), greater);
  idx.resize(static_cast<size_t>(std::min<int64_t>(k, n)));
  std::sort(idx.begin(), idx.end());
  return idx;
}

bool Numeric(const Tensor& t) { return t.is_tensor() && t.dtype != DType::kString && DTypeSize(t.dtype) > 0; }

}  // namespace

uint64_t UlpDistance32(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : std::numeric_limits<uint64_t>::max();
  const int64_t d = Ordered(a) - Ordered(b);
  return static_cast<uint64_t>(d < 0 ? -d : d);
}

std::string Sci(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3e", v);
  return b;
}

Result<Metrics> CompareTensors(const Tensor& got, const Tensor& want, int k) {
  if (!Numeric(got) || !Numeric(want))
    return Status::Error("can only compare numeric tensors, got " + TypeStr(got) + " and " + TypeStr(want));
  if (got.shape != want.shape)
    return Status::Error("shapes differ: " + ShapeStr(got.shape) + " vs " + ShapeStr(want.shape));
  if (k < 1) return Status::Error("k must be at least 1");
  Metrics m;
  m.k = k;
  m.count = want.numel();
  const size_t n = static_cast<size_t>(m.count);
  std::vector<double> g(n), w(n);
  for (size_t i = 0; i < n; ++i) {
    g[i] = ReadDouble(got, static_cast<int64_t>(i));
    w[i] = ReadDouble(want, static_cast<int64_t>(i));
  }
  const double inf = std::numeric_limits<double>::infinity();
  double diff2 = 0, want2 = 0, got2 = 0, dot = 0;
  for (size_t i = 0; i < n; ++i) {
    const bool gn = std::isnan(g[i]), wn = std::isnan(w[i]);
    m.max_ulp = std::max(m.max_ulp, UlpDistance32(static_cast<float>(g[i]), static_cast<float>(w[i])));
    if (gn || wn) {
      if (gn != wn) {
        ++m.nan_mismatch;
        m.max_abs = m.max_rel = inf;
        m.worst_index = static_cast<int64_t>(i);
      }
      continue;
    }
    const double d = g[i] == w[i] ? 0.0 : std::fabs(g[i] - w[i]);  // equal infinities are 0 apart
    if (d > m.max_abs || m.worst_index < 0) {
      if (d > m.max_abs) m.max_abs = d;
      if (m.worst_index < 0 || d > std::fabs(g[static_cast<size_t>(m.worst_index)] - w[static_cast<size_t>(m.worst_index)]))
        m.worst_index = static_cast<int64_t>(i);
    }
    if (w[i] != 0) m.max_rel = std::max(m.max_rel, d / std::fabs(w[i]));
    else if (d != 0) m.max_rel = inf;
    diff2 += d * d;
    want2 += w[i] * w[i];
    got2 += g[i] * g[i];
    dot += g[i] * w[i];
  }
  // An infinite difference is an infinite distance, also when want's norm is infinite too.
  m.rel_l2 = m.nan_mismatch || std::isinf(diff2) ? inf : want2 > 0 ? std::sqrt(diff2 / want2) : (diff2 > 0 ? inf : 0.0);
  if (got2 == 0 && want2 == 0) m.cosine = 1;
  else if (got2 == 0 || want2 == 0) m.cosine = 0;
  else m.cosine = dot / (std::sqrt(got2) * std::sqrt(want2));
  // Classification agreement over the last axis.
  const int64_t classes = want.shape.empty() ? 1 : want.shape.back();
  if (classes > 0 && m.count > 0) {
    const int64_t rows = m.count / classes;
    int64_t same1 = 0, samek = 0;
    for (int64_t r = 0; r < rows; ++r) {
      const double* gr = g.data() + r * classes;
      const double* wr = w.data() + r * classes;
      same1 += TopK(gr, classes, 1) == TopK(wr, classes, 1);
      samek += TopK(gr, classes, k) == TopK(wr, classes, k);
    }
    m.top1 = static_cast<double>(same1) / static_cast<double>(rows);
    m.topk = k > classes ? -1.0 : static_cast<double>(samek) / static_cast<double>(rows);
  }
  return m;
}

}  // namespace tare
