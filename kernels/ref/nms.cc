// Reference kernel of NonMaxSuppression (semantics: runtime/ops/nms.cc). Exact: boxes and scores
// are read as double (float32 inputs hold the same values in `ref` and `ref64`), and every
// comparison and IoU is evaluated in double, so both backends select the same boxes.
// Per (batch, class): the candidates (score > score_threshold when given; NaN scores never) are
// ordered by descending score, equal scores by ascending box index; each candidate is selected
// unless max_output_boxes_per_class boxes are already selected (then the class stops) or its IoU
// with an already selected box is > iou_threshold. IoU of boxes a, b (corners sorted per axis:
// ymin = min(y1, y2), ...; center format first converted to corners x_c -/+ w/2, y_c -/+ h/2):
// inter = (min(ymax) - max(ymin)) * (min(xmax) - max(xmin)) when both extents are > 0, else no
// overlap (IoU 0); an area <= 0 also gives IoU 0; IoU = inter / (area_a + area_b - inter).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/ref/data_dependent.h"
#include "kernels/ref/ref_kernels.h"

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

/// Reads the optional scalar inputs of NonMaxSuppression (validated by shape inference).
void NmsParams(const std::vector<const Tensor*>& in, int64_t* max_out, double* iou, bool* has_score, double* score) {
  *max_out = in.size() > 2 && in[2] && in[2]->numel() > 0 ? ReadInt(*in[2], 0) : 0;
  *iou = in.size() > 3 && in[3] && in[3]->numel() > 0 ? ReadDouble(*in[3], 0) : 0.0;
  *has_score = in.size() > 4 && in[4] && in[4]->numel() > 0;
  *score = *has_score ? ReadDouble(*in[4], 0) : 0.0;
}

}  // namespace

/// The selection of NonMaxSuppression: appends (batch, class, box) triples to `sel` in output
/// order. boxes [B, S, 4], scores [B, C, S] (any float dtype). Also called by the shape inference
/// (runtime/ops/nms.cc), which needs the number of selected boxes (kernels/ref/data_dependent.h).
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

template <class T>
Result<KernelFn> MakeNms(const Node& node) {
  TARE_ASSIGN_OR_RETURN(int64_t center, node.GetInt("center_point_box", 0));
  const std::string where = node.Where();
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    int64_t max_out;
    double iou, score;
    bool has_score;
    NmsParams(in, &max_out, &iou, &has_score, &score);
    std::vector<int64_t> sel;
    NmsSelect(*in[0], *in[1], max_out, iou, has_score, score, center != 0, &sel);
    Tensor& y = *out[0];
    if (static_cast<int64_t>(sel.size()) != y.numel())
      return Status::Error(where + ": " + std::to_string(sel.size() / 3) + " boxes selected, " +
                           std::to_string(y.numel() / 3) + " were planned");
    if (!sel.empty()) std::copy(sel.begin(), sel.end(), y.as<int64_t>());
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Nms)

}  // namespace tare
