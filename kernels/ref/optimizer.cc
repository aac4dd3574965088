// Reference kernel of Adagrad, Adam and Momentum (semantics: runtime/ops/optimizer.cc). Every
// element is computed in double from its inputs (widened exactly) following the formulas left to
// right (attributes are float32 values, widened), and each output is rounded once to its type,
// so `ref` and `ref64` differ by that one rounding.
#include <cmath>
#include <string>
#include <vector>

#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

inline double Load(const Tensor& t, int64_t i) {
  return t.dtype == DType::kFloat32 ? static_cast<double>(t.as<float>()[i]) : t.as<double>()[i];
}
inline void Store(Tensor* t, int64_t i, double v) {
  if (!t) return;
  if (t->dtype == DType::kFloat32)
    t->as<float>()[i] = static_cast<float>(v);
  else
    t->as<double>()[i] = v;
}

}  // namespace

template <class T>
Result<KernelFn> MakeOptimizer(const Node& node) {
  const std::string op = node.op;
  const bool adam = op == "Adam", adagrad = op == "Adagrad";
  if (!adam && !adagrad && op != "Momentum") return Status::Error(node.Where() + ": not an optimizer op");
  const float d_alpha = adam ? 0.9f : 0.0f, d_beta = adam ? 0.999f : 0.0f;
  TARE_ASSIGN_OR_RETURN(float alpha_f, node.GetFloat("alpha", d_alpha));
  TARE_ASSIGN_OR_RETURN(float beta_f, node.GetFloat("beta", d_beta));
  TARE_ASSIGN_OR_RETURN(float eps_f, node.GetFloat("epsilon", 1e-6f));
  TARE_ASSIGN_OR_RETURN(float norm_f, node.GetFloat("norm_coefficient", 0.0f));
  TARE_ASSIGN_OR_RETURN(float post_f, node.GetFloat("norm_coefficient_post", 0.0f));
  TARE_ASSIGN_OR_RETURN(float decay_f, node.GetFloat("decay_factor", 0.0f));
  TARE_ASSIGN_OR_RETURN(std::string mode, node.GetString("mode", "standard"));
  const double alpha = alpha_f, beta = beta_f, eps = eps_f, norm = norm_f, post = post_f, decay = decay_f;
  const bool nesterov = mode == "nesterov";
  const int64_t states = adam ? 2 : 1;
  return KernelFn([=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const int64_t per = 2 + states;
    const int64_t k = (static_cast<int64_t>(in.size()) - 2) / per;
    const double R = Load(*in[0], 0);
    const int64_t T_ = in[1]->as<int64_t>()[0];
    const double t = static_cast<double>(T_);
    for (int64_t i = 0; i < k; ++i) {
      const Tensor& x = *in[static_cast<size_t>(2 + i)];
      const Tensor& g = *in[static_cast<size_t>(2 + k + i)];
      const Tensor& s1 = *in[static_cast<size_t>(2 + 2 * k + i)];
      const Tensor* s2 = adam ? in[static_cast<size_t>(2 + 3 * k + i)] : nullptr;
      auto out_at = [&](int64_t j) {
        return j < static_cast<int64_t>(out.size()) ? out[static_cast<size_t>(j)] : nullptr;
      };
      Tensor* x_out = out_at(i);
      Tensor* s1_out = out_at(k + i);
      Tensor* s2_out = adam ? out_at(2 * k + i) : nullptr;
      const int64_t n = x.numel();
      for (int64_t e = 0; e < n; ++e) {
        const double xv = Load(x, e);
        const double gr = norm * xv + Load(g, e);
        if (adagrad) {
          const double r = R / (1.0 + t * decay);
          const double h = Load(s1, e) + gr * gr;
          Store(x_out, e, xv - r * gr / (std::sqrt(h) + eps));
          Store(s1_out, e, h);
        } else if (adam) {
          const double v = alpha * Load(s1, e) + (1.0 - alpha) * gr;
          const double h = beta * Load(*s2, e) + (1.0 - beta) * (gr * gr);
          const double r = T_ > 0 ? R * std::sqrt(1.0 - std::pow(beta, t)) / (1.0 - std::pow(alpha, t)) : R;
          Store(x_out, e, (1.0 - post) * (xv - r * v / (std::sqrt(h) + eps)));
          Store(s1_out, e, v);
          Store(s2_out, e, h);
        } else {
          const double b = T_ > 0 ? beta : 1.0;
          const double v = alpha * Load(s1, e) + b * gr;
          Store(x_out, e, nesterov ? xv - R * (gr + alpha * v) : xv - R * v);
          Store(s1_out, e, v);
        }
      }
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Optimizer)

}  // namespace tare
