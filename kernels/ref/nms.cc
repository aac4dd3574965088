// Reference kernel of NonMaxSuppression (semantics: runtime/ops/nms.cc). Exact: the selection, in
// double on both `ref` and `ref64`, is NmsSelect (runtime/ops/data_dependent.cc, which describes it).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/ref/ref_kernels.h"
#include "runtime/ops/data_dependent.h"

namespace tare {
namespace {

/// Reads the optional scalar inputs of NonMaxSuppression (validated by shape inference).
void NmsParams(const std::vector<const Tensor*>& in, int64_t* max_out, double* iou, bool* has_score, double* score) {
  *max_out = in.size() > 2 && in[2] && in[2]->numel() > 0 ? ReadInt(*in[2], 0) : 0;
  *iou = in.size() > 3 && in[3] && in[3]->numel() > 0 ? ReadDouble(*in[3], 0) : 0.0;
  *has_score = in.size() > 4 && in[4] && in[4]->numel() > 0;
  *score = *has_score ? ReadDouble(*in[4], 0) : 0.0;
}

}  // namespace

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
