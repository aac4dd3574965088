// Reference kernels of NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (semantics:
// runtime/ops/loss.cc). Scores are viewed as [N, C, D] (D = product of D1..Dk, 1 when k = 0);
// float32 tensors compute in T, float64 tensors in double. Order, in the compute type:
//   SoftmaxCrossEntropyLoss first computes lp per (n, d) exactly as the LogSoftmax kernel does:
//     max = x_0, then x_c when x_c > max (c increasing); dc = x_c - max (one rounding);
//     sum = 0 + exp(d_0) + exp(d_1) + ... (exp in double rounded once, c increasing);
//     ls = log(sum) in double rounded once; lp_c = d_c - ls.
//   Per sample s = (n, d) in row-major order: w = weight[c] (or 1), l = -(p * w) with p the
//     gathered score (without weight: l = -p exactly); ignored samples give l = 0, w = 0.
//   "sum": acc = 0 + l_0 + l_1 + ... (s increasing); "mean": the same acc divided once by
//     wsum = 0 + w_0 + w_1 + ... (s increasing).
#include <cmath>
#include <string>

#include "kernels/ref/ref_kernels.h"
#include "kernels/ref/softmax_block.h"

namespace tare {
namespace {

/// Attributes of a loss node.
struct LossAttrs {
  bool sce = false;
  std::string reduction;
  bool has_ignore = false;
  int64_t ignore = 0;
};

/// Computes the loss (and log_prob for SoftmaxCrossEntropyLoss) on element type U.
template <class U>
Status Loss(const LossAttrs& a, const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
  const Tensor& xt = *in[0];
  const Tensor& tt = *in[1];
  const U* w = in.size() > 2 && in[2] ? in[2]->as<U>() : nullptr;
  const int64_t n = xt.shape[0], c = xt.shape[1];
  int64_t d = 1;  // D1 * ... * Dk (from the shape: C may be 0 while targets exist)
  for (size_t i = 2; i < xt.shape.size(); ++i) d *= xt.shape[i];
  const U* p = xt.as<U>();
  std::vector<U> tmp;
  if (a.sce) {
    U* lp = nullptr;
    if (out.size() > 1 && out[1]) {
      lp = out[1]->as<U>();
    } else {
      tmp.resize(static_cast<size_t>(xt.numel()));
      lp = tmp.data();
    }
    if (c > 0) SoftmaxBlock<U>(p, lp, n, c, d, /*log=*/true);
    p = lp;
  }
  U* y = out[0]->as<U>();
  const bool none = a.reduction == "none";
  U acc = 0, wsum = 0;
  for (int64_t ni = 0; ni < n; ++ni)
    for (int64_t j = 0; j < d; ++j) {
      const int64_t s = ni * d + j;
      const int64_t cls = ReadInt(tt, s);
      U l = 0, ws = 0;
      if (!(a.has_ignore && cls == a.ignore)) {
        if (cls < 0 || cls >= c)
          return Status::Error("target value " + std::to_string(cls) + " at index " + std::to_string(s) +
                               " is out of range [0, " + std::to_string(c) + ") and is not ignore_index");
        const U v = p[(ni * c + cls) * d + j];
        ws = w ? w[cls] : U(1);
        l = w ? static_cast<U>(-(v * ws)) : static_cast<U>(-v);
      }
      if (none) {
        y[s] = l;
      } else {
        acc = acc + l;
        wsum = wsum + ws;
      }
    }
  if (!none) y[0] = a.reduction == "sum" ? acc : static_cast<U>(acc / wsum);
  return Status::Ok();
}

}  // namespace

template <class T>
Result<KernelFn> MakeLoss(const Node& node) {
  LossAttrs a;
  a.sce = node.op == "SoftmaxCrossEntropyLoss";
  TARE_ASSIGN_OR_RETURN(a.reduction, node.GetString("reduction", "mean"));
  a.has_ignore = node.has("ignore_index");
  TARE_ASSIGN_OR_RETURN(a.ignore, node.GetInt("ignore_index", 0));
  const std::string where = node.Where();
  return KernelFn([a, where](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Status s = in[0]->dtype == DType::kFloat64 ? Loss<double>(a, in, out) : Loss<T>(a, in, out);
    return s.With(where);
  });
}

TARE_INSTANTIATE_REF(Loss)

}  // namespace tare
