// Reference kernels of LSTM, GRU and RNN (semantics, shapes and attributes: runtime/ops/rnn.cc).
//
// Each direction and batch entry runs its own steps (forward t = 0..len-1, reverse t = len-1..0).
// Per step, with x = X[t], h = the previous hidden state, C = the previous LSTM cell:
//   xw_j = sum_k x_k * W[j,k]  and  hr_j = sum_k h_k * R[j,k]   (each starts at 0 and adds its
//   terms in k order, in T), and every gate pre-activation is, added left to right in T,
//     a_j = xw_j + hr_j [+ P_j*C] + Wb_j + Rb_j
//   then clamped to [-clip, clip] when `clip` is set and passed to its activation (Sigmoid and Tanh
//   evaluated in double and rounded once: ViaDouble; Relu exact). Every product is rounded to T
//   before it is added (no FMA). Gates, per hidden unit:
//   RNN:  H' = f(a)
//   GRU:  z = f(a_z), r = f(a_r);
//         linear_before_reset = 0: a_h = xw_h + sum_k (r_k*h_k)*Rh[j,k] + Wb_h + Rb_h
//                                  (the products r_k*h_k rounded first, the sum as hr above);
//         linear_before_reset != 0: a_h = xw_h + r*(hr_h + Rb_h) + Wb_h;
//         H' = (1 - z)*g(a_h) + z*h   (both products rounded, then added)
//   LSTM: i = f(a_i) (peephole P_i*C), f = f(a_f) (peephole P_f*C; input_forget: f = 1 - i),
//         c = g(a_c), C' = f*C + i*c, o = f(a_o) (peephole P_o*C'), H' = o*h(clip(C')).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

enum class ActKind { kSigmoid, kTanh, kRelu, kHardSigmoid };

/// One activation function of a cell; HardSigmoid max(0, min(1, alpha x + beta)) computed in T as
/// the standalone op (kernels/ref/unary.cc), alpha and beta float attributes.
struct Act {
  ActKind kind = ActKind::kSigmoid;
  float alpha = 0.2f, beta = 0.5f;
};

/// Parsed attributes of one recurrent node.
struct RnnConfig {
  int64_t gates = 1;        ///< G: 1 (RNN), 3 (GRU), 4 (LSTM)
  int64_t nd = 1;           ///< number of directions
  bool reverse = false;     ///< direction == "reverse" (nd == 1)
  bool layout1 = false;     ///< batch-major tensors
  bool has_clip = false;
  double clip = 0;
  bool input_forget = false;
  bool lbr = false;         ///< GRU linear_before_reset
  std::vector<Act> acts;    ///< per direction, `acts.size() / nd` functions
};

template <class T>
T Activate(const Act& a, T v) {
  if (a.kind == ActKind::kSigmoid) return ViaDouble<T>([](double d) { return 1.0 / (1.0 + std::exp(-d)); }, v);
  if (a.kind == ActKind::kTanh) return ViaDouble<T>([](double d) { return std::tanh(d); }, v);
  if (a.kind == ActKind::kHardSigmoid) {
    T s = static_cast<T>(static_cast<T>(a.alpha) * v);
    s = static_cast<T>(s + static_cast<T>(a.beta));
    return s < 0 ? T(0) : s > 1 ? T(1) : s;
  }
  return v < 0 ? T(0) : v;
}

/// out[j] = sum_k v[k] * mt[k*ld + j] for j < n, each sum starting at 0 in k order (vectorizes
/// over j; mt is a transposed weight block).
template <class T>
void MatVec(const T* v, const T* mt, int64_t K, int64_t ld, int64_t n, T* out) {
  std::fill(out, out + n, T(0));
  for (int64_t k = 0; k < K; ++k) {
    const T vk = v[k];
    const T* row = mt + k * ld;
    for (int64_t j = 0; j < n; ++j) out[j] = out[j] + static_cast<T>(vk * row[j]);
  }
}

/// Copies the [rows, cols] matrix m into mt as [cols, rows].
template <class T>
void Transpose(const T* m, int64_t rows, int64_t cols, T* mt) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) mt[c * rows + r] = m[r * cols + c];
}

template <class T>
Status RunRnn(const RnnConfig& cfg, const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
  auto input = [&](size_t i) { return i < in.size() ? in[i] : nullptr; };
  auto output = [&](size_t i) { return i < out.size() ? out[i] : nullptr; };
  const Tensor& X = *in[0];
  const int64_t S = X.shape[cfg.layout1 ? 1 : 0], Bn = X.shape[cfg.layout1 ? 0 : 1], I = X.shape[2];
  const int64_t H = in[2]->shape[2], G = cfg.gates, GH = G * H, nd = cfg.nd;
  std::vector<int64_t> len(static_cast<size_t>(Bn), S);
  if (const Tensor* sl = input(4)) {
    for (int64_t b = 0; b < Bn; ++b) {
      len[b] = ReadInt(*sl, b);
      if (len[b] < 0 || len[b] > S)
        return Status::Error("sequence_lens[" + std::to_string(b) + "] = " + std::to_string(len[b]) +
                             " is outside [0, " + std::to_string(S) + "]");
    }
  }
  Tensor *Y = output(0), *Yh = output(1), *Yc = output(2);
  if (Y) std::fill(Y->as<T>(), Y->as<T>() + Y->numel(), T(0));
  const Tensor *Bt = input(3), *H0 = input(5), *C0 = input(6), *Pt = input(7);
  const int64_t n_act = static_cast<int64_t>(cfg.acts.size()) / nd;
  const T clip = static_cast<T>(cfg.clip);
  auto clamp = [&](T a) { return cfg.has_clip ? std::min(std::max(a, -clip), clip) : a; };
  auto hidx = [&](int64_t d, int64_t b) { return (cfg.layout1 ? b * nd + d : d * Bn + b) * H; };
  auto yidx = [&](int64_t t, int64_t d, int64_t b) {
    return (cfg.layout1 ? (b * S + t) * nd + d : (t * nd + d) * Bn + b) * H;
  };
  std::vector<T> wt(static_cast<size_t>(I * GH)), rt(static_cast<size_t>(H * GH)), zero_b(2 * GH, T(0));
  std::vector<T> zero_p(3 * H, T(0)), xw_all(static_cast<size_t>(S * GH)), hr(GH), h(H), c(H), tmp(H), rh(H);
  for (int64_t d = 0; d < nd; ++d) {
    const bool rev = nd == 2 ? d == 1 : cfg.reverse;
    Transpose(in[1]->as<T>() + d * GH * I, GH, I, wt.data());
    Transpose(in[2]->as<T>() + d * GH * H, GH, H, rt.data());
    const T* wb = Bt ? Bt->as<T>() + d * 2 * GH : zero_b.data();
    const T* rb = wb + GH;
    const T* p = Pt ? Pt->as<T>() + d * 3 * H : zero_p.data();
    const Act* act = cfg.acts.data() + d * n_act;
    const T* xw = nullptr;  // xw_all row of the current step
    // a_j = xw_j + hr_j [+ peep] + Wb_j + Rb_j, clamped (see the file comment).
    auto pre = [&](int64_t j, T peep) {
      T a = xw[j] + hr[j];
      if (Pt) a = a + peep;
      a = a + wb[j];
      return clamp(static_cast<T>(a + rb[j]));
    };
    for (int64_t b = 0; b < Bn; ++b) {
      for (int64_t u = 0; u < H; ++u) {
        h[u] = H0 ? H0->as<T>()[hidx(d, b) + u] : T(0);
        c[u] = C0 ? C0->as<T>()[hidx(d, b) + u] : T(0);
      }
      // Input projections of all steps first: per step the MatVec order (0, then k ascending),
      // with k outermost so that each row of wt is reused for every step.
      std::fill(xw_all.begin(), xw_all.begin() + len[b] * GH, T(0));
      for (int64_t k = 0; k < I; ++k) {
        const T* row = wt.data() + k * GH;
        for (int64_t t = 0; t < len[b]; ++t) {
          const T xk = X.as<T>()[(cfg.layout1 ? b * S + t : t * Bn + b) * I + k];
          T* o = xw_all.data() + t * GH;
          for (int64_t j = 0; j < GH; ++j) o[j] = o[j] + static_cast<T>(xk * row[j]);
        }
      }
      for (int64_t s = 0; s < len[b]; ++s) {
        const int64_t t = rev ? len[b] - 1 - s : s;
        xw = xw_all.data() + t * GH;
        if (G == 1) {  // RNN
          MatVec(h.data(), rt.data(), H, GH, GH, hr.data());
          for (int64_t u = 0; u < H; ++u) h[u] = Activate(act[0], pre(u, T(0)));
        } else if (G == 3) {  // GRU, gates z, r, h
          MatVec(h.data(), rt.data(), H, GH, cfg.lbr ? GH : 2 * H, hr.data());
          for (int64_t u = 0; u < H; ++u) {
            tmp[u] = Activate(act[0], pre(u, T(0)));      // z
            rh[u] = Activate(act[0], pre(H + u, T(0)));  // r
          }
          if (!cfg.lbr) {
            for (int64_t k = 0; k < H; ++k) rh[k] = static_cast<T>(rh[k] * h[k]);
            MatVec(rh.data(), rt.data() + 2 * H, H, GH, H, hr.data() + 2 * H);
          }
          for (int64_t u = 0; u < H; ++u) {
            const int64_t j = 2 * H + u;
            T a;
            if (cfg.lbr) {
              T rec = hr[j] + rb[j];
              rec = static_cast<T>(rh[u] * rec);
              a = xw[j] + rec;
              a = clamp(static_cast<T>(a + wb[j]));
            } else {
              a = pre(j, T(0));
            }
            const T hh = Activate(act[1], a), z = tmp[u];
            const T keep = static_cast<T>(T(1) - z), p1 = static_cast<T>(keep * hh), p2 = static_cast<T>(z * h[u]);
            h[u] = p1 + p2;
          }
        } else {  // LSTM, gates i, o, f, c
          MatVec(h.data(), rt.data(), H, GH, GH, hr.data());
          for (int64_t u = 0; u < H; ++u) {
            const T gi = Activate(act[0], pre(u, static_cast<T>(p[u] * c[u])));
            const T gf = cfg.input_forget ? static_cast<T>(T(1) - gi)
                                          : Activate(act[0], pre(2 * H + u, static_cast<T>(p[2 * H + u] * c[u])));
            const T gc = Activate(act[1], pre(3 * H + u, T(0)));
            const T fc = static_cast<T>(gf * c[u]), ic = static_cast<T>(gi * gc);
            c[u] = fc + ic;
            const T go = Activate(act[0], pre(H + u, static_cast<T>(p[H + u] * c[u])));
            h[u] = static_cast<T>(go * Activate(act[2], clamp(c[u])));
          }
        }
        if (Y) std::copy(h.begin(), h.end(), Y->as<T>() + yidx(t, d, b));
      }
      if (Yh) std::copy(h.begin(), h.end(), Yh->as<T>() + hidx(d, b));
      if (Yc) std::copy(c.begin(), c.end(), Yc->as<T>() + hidx(d, b));
    }
  }
  return Status::Ok();
}

}  // namespace

template <class T>
Result<KernelFn> MakeRnn(const Node& node) {
  RnnConfig cfg;
  const bool lstm = node.op == "LSTM", gru = node.op == "GRU";
  cfg.gates = lstm ? 4 : gru ? 3 : 1;
  TARE_ASSIGN_OR_RETURN(std::string dir, node.GetString("direction", "forward"));
  cfg.nd = dir == "bidirectional" ? 2 : 1;
  cfg.reverse = dir == "reverse";
  TARE_ASSIGN_OR_RETURN(int64_t layout, node.GetInt("layout", 0));
  cfg.layout1 = layout == 1;
  cfg.has_clip = node.has("clip");
  TARE_ASSIGN_OR_RETURN(float clip, node.GetFloat("clip", 0.f));
  cfg.clip = clip;
  TARE_ASSIGN_OR_RETURN(int64_t input_forget, node.GetInt("input_forget", 0));
  cfg.input_forget = lstm && input_forget != 0;
  TARE_ASSIGN_OR_RETURN(int64_t lbr, node.GetInt("linear_before_reset", 0));
  cfg.lbr = gru && lbr != 0;
  std::vector<std::string> names = lstm ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                   : gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                         : std::vector<std::string>{"Tanh"};
  const size_t per_dir = names.size();
  auto it = node.attrs.find("activations");
  if (it != node.attrs.end()) names = it->second.strings;
  if (names.size() == per_dir && cfg.nd == 2) {
    const std::vector<std::string> one = names;  // one set for both directions
    names.insert(names.end(), one.begin(), one.end());
  }
  if (names.size() != per_dir * static_cast<size_t>(cfg.nd))
    return Status::Error(node.Where() + ": attribute 'activations' has " + std::to_string(names.size()) +
                         " entries, expected " + std::to_string(per_dir * cfg.nd));
  // activation_alpha / activation_beta: one entry per HardSigmoid, in the order of `names`.
  TARE_ASSIGN_OR_RETURN(std::vector<float> alphas, node.GetFloats("activation_alpha", {}));
  TARE_ASSIGN_OR_RETURN(std::vector<float> betas, node.GetFloats("activation_beta", {}));
  size_t k = 0;
  for (const std::string& name : names) {
    std::string l;
    for (char ch : name) l += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    Act a;
    if (l == "sigmoid") a.kind = ActKind::kSigmoid;
    else if (l == "tanh") a.kind = ActKind::kTanh;
    else if (l == "relu") a.kind = ActKind::kRelu;
    else if (l == "hardsigmoid") {
      a.kind = ActKind::kHardSigmoid;
      if (k < alphas.size()) a.alpha = alphas[k];
      if (k < betas.size()) a.beta = betas[k];
      ++k;
    } else {
      return Status::Error(node.Where() + ": activation '" + name + "' is not supported");
    }
    cfg.acts.push_back(a);
  }
  // Names given once for both directions share their alpha / beta entries.
  if (k && alphas.size() != k && alphas.size() * 2 == k)
    for (size_t i = cfg.acts.size() / 2; i < cfg.acts.size(); ++i) cfg.acts[i] = cfg.acts[i - cfg.acts.size() / 2];
  return KernelFn([cfg](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    return RunRnn<T>(cfg, in, out);
  });
}

TARE_INSTANTIATE_REF(Rnn)

}  // namespace tare
