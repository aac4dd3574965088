// The data-dependent selections of NonMaxSuppression-11 and Unique-11 (runtime/ops/data_dependent.h).
//
// NonMaxSuppression: boxes and scores are read as double (float32 inputs hold the same values in
// `ref` and `ref64`), and every comparison and IoU is evaluated in double, so both backends select
// the same boxes. Per (batch, class): the candidates (score > score_threshold when given; NaN
// scores never) are ordered by descending score, equal scores by ascending box index; each
// candidate is selected unless max_output_boxes_per_class boxes are already selected (then the
// class stops) or its IoU with an already selected box is > iou_threshold. IoU of boxes a, b
// (corners sorted per axis: ymin = min(y1, y2), ...; center format first converted to corners
// x_c -/+ w/2, y_c -/+ h/2): inter = (min(ymax) - max(ymin)) * (min(xmax) - max(xmin)) when both
// extents are > 0, else no overlap (IoU 0); an area <= 0 also gives IoU 0;
// IoU = inter / (area_a + area_b - inter).
//
// Unique: X is viewed as [outer, dim, inner] (no axis: [1, numel, 1]); slice j is the elements
// x[o, j, i] read o-major, i-minor (numpy's moveaxis + reshape). The slice numbers 0..dim-1 are
// sorted stably by the lexicographic order of their slices (NaN above every number and equal to
// every NaN; -0 equals +0), and runs of equal slices form the unique groups. Each group's first
// slice (smallest j) is its representative. sorted=1 lists groups in that order, sorted=0 by the
// position of their first slice.
#include "runtime/ops/data_dependent.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "runtime/ir/elem.h"

namespace tare {
namespace {

struct Box {
  double ymin, xmin, ymax, xmax;
};

Box ReadBox(const Tensor& boxes, int64_t off, bool center) {
  const double a = ReadDouble(boxes, off), b = ReadDouble(boxes, off + 1);
  const double c = ReadDouble(boxes, off + 2), d = ReadDouble(boxes, off + 3);
  if (center) {  // [x_center, y_center, width, height]
    const double x1 = a - c / 2, x2 = a + c / 2, y1 = b - d / 2, y2 = b + d / 2;
    return {std::min(y1, y2), std::min(x1, x2), std::max(y1, y2), std::max(x1, x2)};
  }
  return {std::min(a, c), std::min(b, d), std::max(a, c), std::max(b, d)};  // [y1, x1, y2, x2]
}

bool Overlaps(const Box& p, const Box& q, double iou_threshold) {
  const double ih = std::min(p.ymax, q.ymax) - std::max(p.ymin, q.ymin);
  const double iw = std::min(p.xmax, q.xmax) - std::max(p.xmin, q.xmin);
  if (!(ih > 0) || !(iw > 0)) return false;
  const double inter = ih * iw;
  const double ap = (p.ymax - p.ymin) * (p.xmax - p.xmin), aq = (q.ymax - q.ymin) * (q.xmax - q.xmin);
  if (!(ap > 0) || !(aq > 0)) return false;
  const double uni = ap + aq - inter;
  if (!(uni > 0)) return false;
  return inter / uni > iou_threshold;
}

}  // namespace

/// The selection of NonMaxSuppression: appends (batch, class, box) triples to `sel` in output
/// order. boxes [B, S, 4], scores [B, C, S] (any float dtype).
void NmsSelect(const Tensor& boxes, const Tensor& scores, int64_t max_out, double iou_threshold,
               bool has_score_threshold, double score_threshold, bool center, std::vector<int64_t>* sel) {
  const int64_t nb = scores.shape[0], nc = scores.shape[1], ns = scores.shape[2];
  if (max_out <= 0) return;
  std::vector<Box> bx(static_cast<size_t>(ns));
  std::vector<double> sc(static_cast<size_t>(ns));
  std::vector<int64_t> cand, chosen;
  for (int64_t b = 0; b < nb; ++b) {
    for (int64_t s = 0; s < ns; ++s) bx[s] = ReadBox(boxes, (b * ns + s) * 4, center);
    for (int64_t c = 0; c < nc; ++c) {
      cand.clear();
      for (int64_t s = 0; s < ns; ++s) {
        sc[s] = ReadDouble(scores, (b * nc + c) * ns + s);
        if (!std::isnan(sc[s]) && (!has_score_threshold || sc[s] > score_threshold)) cand.push_back(s);
      }
      std::stable_sort(cand.begin(), cand.end(), [&](int64_t p, int64_t q) { return sc[p] > sc[q]; });
      chosen.clear();
      for (int64_t s : cand) {
        if (static_cast<int64_t>(chosen.size()) >= max_out) break;
        bool suppressed = false;
        for (int64_t t : chosen)
          if (Overlaps(bx[t], bx[s], iou_threshold)) {
            suppressed = true;
            break;
          }
        if (suppressed) continue;
        chosen.push_back(s);
        sel->insert(sel->end(), {b, c, s});
      }
    }
  }
}

/// The grouping of Unique: groups the slices of x along `axis` (-1: the flattened x) and gives,
/// for each unique slice in output order, its first slice number (`first`) and its count; and for
/// each slice number, the output position of its group (`inverse`). False if x's dtype is not
/// numeric.
bool UniqueGroupSlices(const Tensor& x, int64_t axis, bool sorted, std::vector<int64_t>* first_out,
                       std::vector<int64_t>* counts_out, std::vector<int64_t>* inverse_out) {
  int64_t outer = 1, dim = x.numel(), inner = 1;
  if (axis >= 0) {
    dim = x.shape[static_cast<size_t>(axis)];
    for (int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
    for (size_t d = static_cast<size_t>(axis) + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
  }
  std::vector<int64_t> order(static_cast<size_t>(dim));
  std::iota(order.begin(), order.end(), int64_t(0));
  std::vector<char> same_as_prev(static_cast<size_t>(dim), 0);
  const bool ok = VisitNumeric(x.dtype, [&](auto e) {
    using E = decltype(e);
    using V = typename E::C;
    const typename E::S* p = x.template as<typename E::S>();
    // -1, 0, 1 comparison of two values: NaN above all numbers, NaNs equal.
    auto cmp = [](V a, V b) -> int {
      const bool an = IsNan(a), bn = IsNan(b);
      if (an || bn) return an == bn ? 0 : (an ? 1 : -1);
      return a < b ? -1 : (b < a ? 1 : 0);
    };
    auto cmp_slices = [&](int64_t a, int64_t b) -> int {
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          const int c = cmp(E::Load(p[(o * dim + a) * inner + i]), E::Load(p[(o * dim + b) * inner + i]));
          if (c != 0) return c;
        }
      return 0;
    };
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return cmp_slices(a, b) < 0; });
    for (int64_t t = 1; t < dim; ++t) same_as_prev[t] = cmp_slices(order[t - 1], order[t]) == 0;
  });
  if (!ok) return false;
  // Groups in sorted order: the first member of each run is its smallest slice number (stable sort).
  std::vector<int64_t> group_of(static_cast<size_t>(dim));
  std::vector<int64_t> first, counts;
  for (int64_t t = 0; t < dim; ++t) {
    if (t == 0 || !same_as_prev[t]) {
      first.push_back(order[t]);
      counts.push_back(0);
    }
    counts.back() += 1;
    group_of[order[t]] = static_cast<int64_t>(first.size()) - 1;
  }
  const size_t u = first.size();
  std::vector<int64_t> pos(u);  // output position of each sorted group
  std::iota(pos.begin(), pos.end(), int64_t(0));
  if (!sorted) {
    std::vector<int64_t> by_first(u);
    std::iota(by_first.begin(), by_first.end(), int64_t(0));
    std::sort(by_first.begin(), by_first.end(), [&](int64_t a, int64_t b) { return first[a] < first[b]; });
    for (size_t q = 0; q < u; ++q) pos[by_first[q]] = static_cast<int64_t>(q);
  }
  first_out->assign(u, 0);
  counts_out->assign(u, 0);
  for (size_t q = 0; q < u; ++q) {
    (*first_out)[pos[q]] = first[q];
    (*counts_out)[pos[q]] = counts[q];
  }
  inverse_out->resize(static_cast<size_t>(dim));
  for (int64_t j = 0; j < dim; ++j) (*inverse_out)[j] = pos[group_of[j]];
  return true;
}

}  // namespace tare
