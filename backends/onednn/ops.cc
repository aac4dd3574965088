// The ops of the onednn backend: for each, a Supports test (op, dtypes, attributes, which inputs
// are known at plan time; decided before shapes are known) and a Compile function that makes its
// primitive once from the concrete shapes and adds its step (compiler.h). Semantics are ONNX's as
// the reference kernels implement them (runtime/ops/*.cc); a case a primitive cannot express is
// sent to the reference kernel (Compiler::CompileRef), and so is any node for which oneDNN throws
// while making the primitive (compiler.cc).
//
// LSTM and GRU: rnn.cc.
// Conv: convolution_direct (never Winograd), src/weights/dst format_tag::any; weights (and a
// folded BatchNormalization) reordered once. Fusions, each follower being the next node and the
// only reader of its input, which is not live out:
//   Conv -> BatchNormalization (inference, known parameters): folded into weights and bias in
//     double, rounded once: s = scale / sqrt(var + eps); W' = W s; b' = (b - mean) s + B.
//   ... -> an eltwise op (Relu, LeakyRelu, Clip with known bounds, Sigmoid, Tanh, Exp, Sqrt, Abs,
//     Neg): eltwise post-op. (Elu, Log and LogSoftmax are not claimed: oneDNN 2.6's eltwise_elu,
//     eltwise_log and logsoftmax measured 13, 165 and 199 times their error budgets against
//     ref64, and eltwise_hardswish up to about 1.1 times on a blocked input; docs/ONEDNN.md.)
//   ... -> Add(other operand of the same shape): sum post-op (dst pre-filled with the other
//     operand, reordered into dst's layout), at most one, in chain order with the eltwise ones.
// Padding: the end pads given to oneDNN are those that give the inferred output size (unused
// trailing padding dropped; a negative value when the last input rows are never read, retried
// as 0 when oneDNN refuses it).
#include <cmath>
#include <cstring>

#include "backends/common/patterns.h"
#include "backends/onednn/op_util.h"
#include "kernels/ref/conv_geometry.h"

namespace tare::onednn {

memory::dims Dims(const Shape& s) {
  memory::dims d(s.begin(), s.end());
  if (d.empty()) d = {1};
  return d;
}

memory::desc RowMajor(const memory::dims& dims) {
  memory::dims strides(dims.size());
  int64_t st = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = st;
    st *= dims[i];
  }
  return memory::desc(dims, dt::f32, strides);
}

memory::desc Any(const memory::dims& dims) { return memory::desc(dims, dt::f32, tag::any); }

/// A view of m's bytes with another desc (same bytes, e.g. a 2-D view of a row-major tensor).
memory View(const Compiler& c, const memory& m, const memory::desc& d) {
  return memory(d, c.engine(), m.get_data_handle());
}

float ReadScalar(const Compiler& c, int v) { return static_cast<float>(ReadDouble(c.slot(v), 0)); }

namespace {

// ---- eltwise ---------------------------------------------------------------------------------

struct Elt {
  algorithm alg = algorithm::undef;
  float alpha = 0, beta = 0;
};

bool EltSupported(const Node& n, const Graph& g, const GraphInfo& info) {
  if (!n.domain.empty() && n.domain != "ai.onnx") return false;
  static const char* kOps[] = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Exp", "Sqrt", "Abs", "Neg", "Clip", "Pow"};
  bool found = false;
  for (const char* o : kOps) found = found || n.op == o;
  if (!found || n.inputs.empty() || !IsF32(g, n.inputs[0])) return false;
  if ((n.op == "Sigmoid" || n.op == "Exp") && !ExpKernelsInBudget()) return false;  // FINDINGS F14
  if (n.op == "Pow") {
    // x^2 only (LayerNorm's square: eltwise_square, x * x rounded once, as the reference's double
    // pow rounded to float); other exponents run on ref.
    if (n.inputs.size() != 2 || n.inputs[1] < 0 || !Known(info, n.inputs[1]) || !IsF32(g, n.inputs[1])) return false;
    const Value& e = g.values[n.inputs[1]];
    return !e.is_constant || (e.constant.numel() == 1 && e.constant.as<float>()[0] == 2.0f);
  }
  if (n.op == "Clip") {
    // Bounds as known inputs (Clip-11+); absent = unbounded.
    for (size_t i = 1; i < n.inputs.size(); ++i)
      if (n.inputs[i] >= 0 && (!Known(info, n.inputs[i]) || !IsF32(g, n.inputs[i]))) return false;
  } else if (n.inputs.size() != 1) {
    return false;
  }
  return true;
}

/// The eltwise algorithm of n (which EltSupported accepted); false when the concrete case is not
/// expressible.
bool EltOf(const Compiler& c, const Node& n, Elt* e) {
  if (n.op == "Relu") {
    e->alg = algorithm::eltwise_relu;
  } else if (n.op == "LeakyRelu") {
    e->alg = algorithm::eltwise_relu;
    Result<float> a = n.GetFloat("alpha", 0.01f);
    if (!a.ok()) return false;
    e->alpha = *a;
  } else if (n.op == "Sigmoid") {
    if (!ExpKernelsInBudget()) return false;  // docs/FINDINGS.md F14
    e->alg = algorithm::eltwise_logistic;
  } else if (n.op == "Tanh") {
    e->alg = algorithm::eltwise_tanh;
  } else if (n.op == "Elu") {
    e->alg = algorithm::eltwise_elu;
    Result<float> a = n.GetFloat("alpha", 1.0f);
    if (!a.ok()) return false;
    e->alpha = *a;
  } else if (n.op == "Exp") {
    if (!ExpKernelsInBudget()) return false;
    e->alg = algorithm::eltwise_exp;
  } else if (n.op == "Log") {
    e->alg = algorithm::eltwise_log;
  } else if (n.op == "Sqrt") {
    e->alg = algorithm::eltwise_sqrt;
  } else if (n.op == "Pow") {
    if (!c.F32(n.inputs[1]) || c.slot(n.inputs[1]).numel() != 1 || ReadScalar(c, n.inputs[1]) != 2.0f) return false;
    e->alg = algorithm::eltwise_square;
  } else if (n.op == "Abs") {
    e->alg = algorithm::eltwise_abs;
  } else if (n.op == "Neg") {
    e->alg = algorithm::eltwise_linear;
    e->alpha = -1;
    e->beta = 0;
  } else if (n.op == "Clip") {
    e->alg = algorithm::eltwise_clip_v2;
    e->alpha = -INFINITY;
    e->beta = INFINITY;
    if (n.inputs.size() > 1 && n.inputs[1] >= 0) {
      if (!c.F32(n.inputs[1]) || c.slot(n.inputs[1]).numel() != 1) return false;
      e->alpha = ReadScalar(c, n.inputs[1]);
    }
    if (n.inputs.size() > 2 && n.inputs[2] >= 0) {
      if (!c.F32(n.inputs[2]) || c.slot(n.inputs[2]).numel() != 1) return false;
      e->beta = ReadScalar(c, n.inputs[2]);
    }
    if (!(e->alpha <= e->beta)) return false;  // min > max: ONNX gives max everywhere; ref runs it
  } else {
    return false;
  }
  return true;
}

bool SupportsUnary(const Node& n, const Graph& g, const GraphInfo& info) { return EltSupported(n, g, info); }

Status CompileUnary(Compiler& c, const Node& n) {
  Elt e;
  const int x = n.inputs[0];
  int y = n.outputs[0];
  if (!EltOf(c, n, &e) || c.shape(x) != c.shape(y)) return c.CompileRef(n);
  // SiLU as PyTorch exports nn.SiLU (Sigmoid(x), then Mul by x in either order; the Sigmoid's
  // output read only by the Mul): one eltwise_swish (x * sigmoid(x); within the two nodes'
  // budgets, tests/backends/onednn_test.cc).
  if (n.op == "Sigmoid") {
    const Node* mul = patterns::Ahead(c, 1);
    if (mul && mul->op == "Mul" && patterns::Private(c, y, 1) && patterns::Other(*mul, y) == x && c.F32(mul->outputs[0]) &&
        c.shape(mul->outputs[0]) == c.shape(x)) {
      e.alg = algorithm::eltwise_swish;
      e.alpha = 1.0f;
      c.AbsorbNext();
      y = mul->outputs[0];
    }
  }
  memory src = c.Current(x);
  dnnl::eltwise_forward::desc d(prop_kind::forward_inference, e.alg, src.get_desc(), e.alpha, e.beta);
  dnnl::eltwise_forward::primitive_desc pd(d, c.engine());
  memory dst = c.Out(y, pd.dst_desc(), {x});
  c.Add(dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, pd.impl_info_str());
  c.Done(y);
  return Status::Ok();
}

// ---- Conv ------------------------------------------------------------------------------------

bool SupportsConv(const Node& n, const Graph& g, const GraphInfo& info) {
  if (n.NumInputs() < 2 || !IsF32(g, n.inputs[0]) || !Known(info, n.inputs[1]) || !IsF32(g, n.inputs[1])) return false;
  if (n.NumInputs() > 2 && n.inputs[2] >= 0 && (!Known(info, n.inputs[2]) || !IsF32(g, n.inputs[2]))) return false;
  const Value& w = g.values[n.inputs[1]];
  if (w.has_shape && (w.shape.size() < 3 || w.shape.size() > 5)) return false;
  return true;
}

bool IsFoldableBatchNorm(const Compiler& c, const Node& n, int x) {
  if (n.op != "BatchNormalization" || !n.domain.empty() || n.inputs.size() != 5 || n.inputs[0] != x) return false;
  for (size_t i = 1; i < 5; ++i)
    if (!c.IsConst(n.inputs[i]) || !c.F32(n.inputs[i])) return false;
  for (size_t i = 1; i < n.outputs.size(); ++i)
    if (n.outputs[i] >= 0) return false;
  Result<int64_t> training = n.GetInt("training_mode", 0);
  return training.ok() && *training == 0 && c.F32(n.outputs[0]);
}

/// A Conv's weights (value w, known) and bias (value b, known, or -1: zeros) as floats, M
/// output channels.
void ConvParams(const Compiler& c, int w, int b, int64_t M, std::vector<float>* wv, std::vector<float>* bv) {
  const Tensor& wt = c.slot(w);
  wv->assign(wt.as<float>(), wt.as<float>() + wt.numel());
  bv->assign(size_t(M), 0.0f);
  if (b >= 0) std::memcpy(bv->data(), c.slot(b).as<float>(), sizeof(float) * size_t(M));
}

/// When the next node is a foldable BatchNormalization of y (the output of a Conv with M output
/// channels and weights wv, bias bv as floats), folds it into wv and bv in double (rounded once),
/// absorbs it and returns its output; else returns y.
int FoldBatchNorm(Compiler& c, int y, int64_t M, std::vector<float>* wv_, std::vector<float>* bv_, std::string* what) {
  std::vector<float>& wv = *wv_;
  std::vector<float>& bv = *bv_;
  const Shape& Y = c.shape(y);
  int cur = y;
  if (const Node* bn = c.NextSoleReader(y); bn && IsFoldableBatchNorm(c, *bn, y) && c.shape(bn->outputs[0]) == Y &&
                                            c.slot(bn->inputs[1]).numel() == M) {
    Result<float> eps = bn->GetFloat("epsilon", 1e-5f);
    if (eps.ok()) {
      const float* scale = c.slot(bn->inputs[1]).as<float>();
      const float* bias = c.slot(bn->inputs[2]).as<float>();
      const float* mean = c.slot(bn->inputs[3]).as<float>();
      const float* var = c.slot(bn->inputs[4]).as<float>();
      bool ok = true;
      for (size_t i = 2; i < 5; ++i) ok = ok && c.slot(bn->inputs[i]).numel() == M;
      if (ok) {
        const size_t per = wv.size() / size_t(M);
        for (size_t m = 0; m < size_t(M); ++m) {
          const double s = double(scale[m]) / std::sqrt(double(var[m]) + double(*eps));
          for (size_t i = 0; i < per; ++i) wv[m * per + i] = static_cast<float>(double(wv[m * per + i]) * s);
          bv[m] = static_cast<float>((double(bv[m]) - double(mean[m])) * s + double(bias[m]));
        }
        *what += "+BatchNormalization";
        c.AbsorbNext();
        cur = bn->outputs[0];
      }
    }
  }
  return cur;
}

/// Follows the chain after a producer writing y: eltwise post-ops and at most one sum (Add of an
/// operand of y's shape, when allow_sum). Returns the chain's last value; *sum_src the Add's other
/// operand (-1 when none).
/// The algorithm of the last post-op of `po`, an eltwise one.
algorithm LastEltAlg(const dnnl::post_ops& po) {
  float scale = 0, alpha = 0, beta = 0;
  algorithm alg = algorithm::undef;
  po.get_params_eltwise(po.len() - 1, scale, alg, alpha, beta);
  return alg;
}

int FusePostOps(Compiler& c, int y, bool allow_sum, dnnl::post_ops* po, int* sum_src, std::string* what) {
  int cur = y;
  *sum_src = -1;
  for (;;) {
    // SiLU (Sigmoid, then Mul by its input): oneDNN's eltwise_swish, x * sigmoid(alpha x), alpha 1.
    if (const Node* mul = c.NextSilu(cur);
        mul && ExpKernelsInBudget() && c.F32(mul->outputs[0]) && c.shape(mul->outputs[0]) == c.shape(cur)) {
      po->append_eltwise(1.0f, algorithm::eltwise_swish, 1.0f, 0.0f);
      *what += "+SiLU";
      c.AbsorbNext();
      c.AbsorbNext();
      cur = mul->outputs[0];
      continue;
    }
    const Node* next = c.NextSoleReader(cur);
    if (!next || next->outputs.empty() || !c.F32(next->outputs[0]) || c.shape(next->outputs[0]) != c.shape(cur)) break;
    Elt e;
    bool is_elt = false;
    {
      static const char* kOps[] = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Exp", "Sqrt", "Abs", "Neg", "Clip"};
      for (const char* o : kOps) is_elt = is_elt || next->op == o;
      is_elt = is_elt && next->domain.empty() && next->inputs[0] == cur;
      if (is_elt && next->op == "Clip")
        for (size_t i = 1; i < next->inputs.size(); ++i)
          if (next->inputs[i] >= 0 && !c.IsConst(next->inputs[i])) is_elt = false;
      if (is_elt && next->op != "Clip" && next->inputs.size() != 1) is_elt = false;
    }
    // Two consecutive eltwise post-ops of one algorithm: oneDNN 2.6 applies only the first (two
    // Clips, docs/FINDINGS.md F12), so the second runs as its own primitive.
    if (is_elt && EltOf(c, *next, &e) && !(po->len() > 0 && po->kind(po->len() - 1) == dnnl::primitive::kind::eltwise &&
                                            LastEltAlg(*po) == e.alg)) {
      po->append_eltwise(1.0f, e.alg, e.alpha, e.beta);
      *what += "+" + next->op;
      c.AbsorbNext();
      cur = next->outputs[0];
      continue;
    }
    if (allow_sum && *sum_src < 0 && next->op == "Add" && next->domain.empty() && next->inputs.size() == 2) {
      const int other = next->inputs[0] == cur ? next->inputs[1] : next->inputs[0];
      if (other == cur || !c.F32(other) || c.shape(other) != c.shape(cur)) break;
      po->append_sum(1.0f);
      *sum_src = other;
      *what += "+Add(sum)";
      c.AbsorbNext();
      cur = next->outputs[0];
      continue;
    }
    break;
  }
  return cur;
}

}  // namespace

int ConvChain(Compiler& c, int w, int b, int64_t M, int y, bool allow_sum, std::vector<float>* wv, std::vector<float>* bv,
              dnnl::post_ops* po, int* sum_src, std::string* what) {
  ConvParams(c, w, b, M, wv, bv);
  *what = "Conv";
  const int cur = FoldBatchNorm(c, y, M, wv, bv, what);
  return FusePostOps(c, cur, allow_sum, po, sum_src, what);
}

namespace {

Status CompileConv(Compiler& c, const Node& n) {
  const int x = n.inputs[0], w = n.inputs[1], b = n.inputs.size() > 2 ? n.inputs[2] : -1, y = n.outputs[0];
  if (!c.F32(w) || (b >= 0 && !c.F32(b)) || !c.F32(y) || !c.IsConst(w) || (b >= 0 && !c.IsConst(b)))
    return c.CompileRef(n);
  const Shape &X = c.shape(x), &W = c.shape(w), &Y = c.shape(y);
  if (X.size() < 3 || X.size() > 5 || W.size() != X.size() || Y.size() != X.size()) return c.CompileRef(n);
  TARE_ASSIGN_OR_RETURN(ConvAttrs a, ConvAttrs::Parse(n));
  const ConvGeometry geo(a, X, W, Y);
  const size_t nsp = X.size() - 2;
  const int64_t g = a.group, M = W[0];
  if (M % g != 0 || X[1] != W[1] * g) return c.CompileRef(n);
  memory::dims strides, dil, pl, pr;
  for (size_t i = 0; i < nsp; ++i) {
    const size_t j = 3 - nsp + i;
    strides.push_back(geo.s[j]);
    dil.push_back(geo.d[j] - 1);
    pl.push_back(geo.pb[j]);
    pr.push_back((geo.out[j] - 1) * geo.s[j] + (geo.k[j] - 1) * geo.d[j] + 1 - geo.in[j] - geo.pb[j]);
  }
  // Weights and bias as floats (a BatchNormalization may be folded in), post-ops.
  std::vector<float> wv, bv;
  dnnl::post_ops po;
  int sum_src = -1;
  std::string what;
  // No sum post-op when some output window reads only padding: oneDNN 2.6's brgconv (AVX-512)
  // crashes on a sum followed by an eltwise post-op there (docs/FINDINGS.md F15); such a Conv's
  // Add runs as its own binary primitive.
  int cur = ConvChain(c, w, b, M, y, !geo.HasWindowInPaddingOnly(), &wv, &bv, &po, &sum_src, &what);
  dnnl::primitive_attr attr;
  attr.set_post_ops(po);

  memory::dims wdims;
  if (g > 1) {
    wdims = {g, M / g};
    wdims.insert(wdims.end(), W.begin() + 1, W.end());
  } else {
    wdims.assign(W.begin(), W.end());
  }
  const memory::dims xd = Dims(X), yd = Dims(Y);
  // A first layer (fewer than 8 input channels, no groups) reads its input in the plain layout
  // (NCHW) when an implementation other than the reference one takes it: oneDNN's direct jit
  // kernel for this case needs no reorder of the image (on SqueezeNet 1.1's stem 0.30 ms against
  // 0.36 ms plus a 0.04 ms reorder for channels-last brgconv).
  bool plain_src = X[1] < 8 && g == 1;
  auto make = [&](const memory::dims& pad_r, const memory::desc& dst_md) {
    dnnl::convolution_forward::desc d(prop_kind::forward_inference, algorithm::convolution_direct, plain_src ? c.PlainDesc(x) : Any(xd), Any(wdims),
                                      RowMajor({M}), dst_md, strides, dil, pl, pad_r);
    return dnnl::convolution_forward::primitive_desc(d, attr, c.engine());
  };
  dnnl::convolution_forward::primitive_desc pd;
  memory::dims pad_r = pr;
  auto make_any = [&] {
    try {
      return make(pad_r, Any(yd));
    } catch (const dnnl::error&) {
      bool neg = false;
      for (auto& v : pad_r)
        if (v < 0) v = 0, neg = true;
      if (!neg) throw;
      return make(pad_r, Any(yd));
    }
  };
  if (plain_src) {
    try {
      pd = make_any();
      if (std::string(pd.impl_info_str()).find("ref") != std::string::npos) plain_src = false;
    } catch (const dnnl::error&) {
      plain_src = false;
    }
  }
  if (!plain_src) pd = make_any();
  // Channel-blocked policy (see Compiler::blocked_policy): the destination in nChw16c (or
  // nChw8c) when an implementation other than the reference one takes it.
  if (c.blocked_policy() && yd.size() >= 3) {
    for (int64_t block : {16, 8}) {
      if (M % block != 0) continue;
      try {
        auto pd2 = make(pad_r, memory::desc(yd, memory::data_type::f32, Compiler::BlockedTag(yd.size(), block)));
        if (std::string(pd2.impl_info_str()).find("ref") == std::string::npos) {
          pd = pd2;
          break;
        }
      } catch (const dnnl::error&) {
      }
    }
  }
  // Read only by a channel Concat: write straight into the Concat's buffer (channel-blocked) when
  // a primitive other than the reference implementation takes that layout (under the blocked
  // policy; else only when it is the layout oneDNN chose anyway).
  bool in_concat = false;
  if (sum_src < 0) {
    const memory::desc part = c.ConcatPart(cur);
    if (!part.is_zero() && (c.blocked_policy() || part == pd.dst_desc())) {
      try {
        dnnl::convolution_forward::primitive_desc pd2 = make(pad_r, part);
        if (std::string(pd2.impl_info_str()).find("ref") == std::string::npos) {
          pd = pd2;
          in_concat = true;
        }
      } catch (const dnnl::error&) {
      }
    }
  }
  // Weights and bias: reordered once into the primitive's layout.
  memory wmem(pd.weights_desc(), c.engine());
  {
    memory user(RowMajor(wdims), c.engine(), wv.data());
    dnnl::stream s(c.engine());
    dnnl::reorder(user, wmem).execute(s, user, wmem);
    s.wait();
  }
  memory bmem(pd.bias_desc(), c.engine());
  std::memcpy(bmem.get_data_handle(), bv.data(), sizeof(float) * bv.size());

  memory src = c.In(x, pd.src_desc());
  std::vector<int> reads = {x};
  if (sum_src >= 0) reads.push_back(sum_src);
  memory dst = in_concat ? c.ConcatOut(cur) : c.Out(cur, pd.dst_desc(), reads);
  if (in_concat) what += " -> Concat buffer";
  if (sum_src >= 0) {
    // The sum post-op adds dst's previous content: the Add's other operand, in dst's layout.
    memory other = c.Current(sum_src);
    dnnl::reorder r(other, dst);
    c.Add(r, {{DNNL_ARG_FROM, other}, {DNNL_ARG_TO, dst}});
  }
  c.Add(dnnl::convolution_forward(pd),
        {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wmem}, {DNNL_ARG_BIAS, bmem}, {DNNL_ARG_DST, dst}},
        std::string(pd.impl_info_str()) + (what == "Conv" ? "" : " [" + what + "]"));
  c.Done(cur);
  return Status::Ok();
}

// ---- ConvTranspose ---------------------------------------------------------------------------

Status CompileConvTranspose(Compiler& c, const Node& n) {
  const int x = n.inputs[0], w = n.inputs[1], b = n.inputs.size() > 2 ? n.inputs[2] : -1, y = n.outputs[0];
  if (!c.F32(w) || (b >= 0 && !c.F32(b)) || !c.F32(y) || !c.IsConst(w) || (b >= 0 && !c.IsConst(b)))
    return c.CompileRef(n);
  const Shape &X = c.shape(x), &W = c.shape(w), &Y = c.shape(y);
  if (X.size() < 3 || X.size() > 5 || W.size() != X.size() || Y.size() != X.size()) return c.CompileRef(n);
  const size_t nsp = X.size() - 2;
  TARE_ASSIGN_OR_RETURN(int64_t g, n.GetInt("group", 1));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> st, n.GetInts("strides"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> di, n.GetInts("dilations"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> pads, n.GetInts("pads"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> opad, n.GetInts("output_padding"));
  TARE_ASSIGN_OR_RETURN(std::string auto_pad, n.GetString("auto_pad", "NOTSET"));
  const bool has_shape = n.has("output_shape");
  const int64_t C = X[1], M = W[1] * g;
  if (g < 1 || C % g != 0 || W[0] != C || Y[1] != M) return c.CompileRef(n);
  memory::dims strides, dil, pl, pr;
  for (size_t i = 0; i < nsp; ++i) {
    const int64_t s = st.empty() ? 1 : st[i], d = di.empty() ? 1 : di[i], op = opad.empty() ? 0 : opad[i];
    const int64_t in = X[2 + i], k = W[2 + i], o = Y[2 + i];
    const int64_t full0 = (in - 1) * s + (k - 1) * d + 1, full = full0 + op;
    int64_t bgn = 0;
    if (has_shape || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t total = full - o;
      if (total < 0) return c.CompileRef(n);  // outputs past the scatter hold only the bias
      bgn = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else if (auto_pad != "VALID" && !pads.empty()) {
      bgn = pads[i];
    }
    strides.push_back(s);
    dil.push_back(d - 1);
    pl.push_back(bgn);
    pr.push_back(full0 - bgn - o);
  }
  // ONNX W (C, M/g, k...) = oneDNN weights (g, OC/g, IC/g, k...) with IC outermost in memory.
  int64_t K = 1;
  for (size_t i = 2; i < W.size(); ++i) K *= W[i];
  memory::dims wdims, wstrides;
  const int64_t cg = C / g, mg = M / g;
  if (g > 1) {
    wdims = {g, mg, cg};
    wstrides = {cg * mg * K, K, mg * K};
  } else {
    wdims = {M, C};
    wstrides = {K, M * K};
  }
  {
    int64_t sp = K;
    for (size_t i = 2; i < W.size(); ++i) {
      wdims.push_back(W[i]);
      sp /= W[i];
      wstrides.push_back(sp);
    }
  }
  std::vector<float> bv(size_t(M), 0.0f);
  if (b >= 0) std::memcpy(bv.data(), c.slot(b).as<float>(), sizeof(float) * size_t(M));
  dnnl::deconvolution_forward::desc d(prop_kind::forward_inference, algorithm::deconvolution_direct, Any(Dims(X)),
                                      Any(wdims), RowMajor({M}), Any(Dims(Y)), strides, dil, pl, pr);
  dnnl::deconvolution_forward::primitive_desc pd(d, c.engine());
  memory wmem(pd.weights_desc(), c.engine());
  {
    memory user(memory::desc(wdims, dt::f32, wstrides), c.engine(), const_cast<void*>(c.slot(w).data));
    dnnl::stream s(c.engine());
    dnnl::reorder(user, wmem).execute(s, user, wmem);
    s.wait();
  }
  memory bmem(pd.bias_desc(), c.engine());
  std::memcpy(bmem.get_data_handle(), bv.data(), sizeof(float) * bv.size());
  memory src = c.In(x, pd.src_desc());
  memory dst = c.Out(y, pd.dst_desc(), {x});
  c.Add(dnnl::deconvolution_forward(pd),
        {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wmem}, {DNNL_ARG_BIAS, bmem}, {DNNL_ARG_DST, dst}},
        pd.impl_info_str());
  c.Done(y);
  return Status::Ok();
}

// ---- pools -----------------------------------------------------------------------------------

bool SupportsPool(const Node& n, const Graph& g, const GraphInfo& info) {
  (void)info;
  if (n.inputs.size() != 1 || !IsF32(g, n.inputs[0])) return false;
  for (size_t i = 1; i < n.outputs.size(); ++i)
    if (n.outputs[i] >= 0) return false;  // MaxPool's Indices: ref
  return true;
}

}  // namespace

Result<bool> PoolGeometry(const Node& n, const Shape& X, const Shape& Y, PoolGeom* out) {
  const size_t nsp = X.size() - 2;
  const bool global = n.op == "GlobalAveragePool" || n.op == "GlobalMaxPool";
  PoolGeom& g = *out;
  g = PoolGeom();
  g.avg = n.op == "AveragePool" || n.op == "GlobalAveragePool";
  std::vector<int64_t> ks, st, di, pads;
  std::string auto_pad = "NOTSET";
  int64_t include_pad = 0;
  if (!global) {
    TARE_ASSIGN_OR_RETURN(ks, n.GetInts("kernel_shape"));
    TARE_ASSIGN_OR_RETURN(st, n.GetInts("strides"));
    TARE_ASSIGN_OR_RETURN(di, n.GetInts("dilations"));
    TARE_ASSIGN_OR_RETURN(pads, n.GetInts("pads"));
    TARE_ASSIGN_OR_RETURN(auto_pad, n.GetString("auto_pad", "NOTSET"));
    TARE_ASSIGN_OR_RETURN(include_pad, n.GetInt("count_include_pad", 0));
    if (ks.size() != nsp) return false;
  }
  g.include_pad = include_pad != 0;
  for (size_t i = 0; i < nsp; ++i) {
    const int64_t in = X[2 + i], o = Y[2 + i];
    const int64_t k = global ? in : ks[i], s = st.empty() ? 1 : st[i], d = di.empty() ? 1 : di[i];
    const int64_t ek = (k - 1) * d + 1;
    int64_t bgn = 0, end = 0;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t total = std::max<int64_t>(0, (o - 1) * s + ek - in);
      bgn = auto_pad == "SAME_UPPER" ? total / 2 : (total + 1) / 2;
      end = total - bgn;
    } else if (auto_pad == "NOTSET" && !pads.empty()) {
      bgn = pads[i];
      end = pads[nsp + i];
    }
    const int64_t r = (o - 1) * s + ek - in - bgn;
    // count_include_pad with a ceil_mode window past the end pad: ONNX counts only the padded
    // extent, oneDNN the whole window; the reference runs it.
    if (g.avg && g.include_pad && r > end) return false;
    g.kernel.push_back(k);
    g.strides.push_back(s);
    g.dil.push_back(d - 1);
    g.pl.push_back(bgn);
    g.pr.push_back(r);
  }
  return true;
}

Result<bool> MakePoolPd(Compiler& c, const Node& n, const memory::desc& src_md, const Shape& X, const Shape& Y,
                        dnnl::pooling_v2_forward::primitive_desc* out) {
  PoolGeom g;
  TARE_ASSIGN_OR_RETURN(bool ok, PoolGeometry(n, X, Y, &g));
  if (!ok) return false;
  const algorithm alg = !g.avg ? algorithm::pooling_max
                               : g.include_pad ? algorithm::pooling_avg_include_padding
                                               : algorithm::pooling_avg_exclude_padding;
  auto make = [&](const memory::dims& pad_r) {
    dnnl::pooling_v2_forward::desc d(prop_kind::forward_inference, alg, src_md, Any(Dims(Y)), g.strides, g.kernel,
                                     g.dil, g.pl, pad_r);
    return dnnl::pooling_v2_forward::primitive_desc(d, c.engine());
  };
  try {
    *out = make(g.pr);
  } catch (const dnnl::error&) {
    memory::dims pr0 = g.pr;
    bool neg = false;
    for (auto& v : pr0)
      if (v < 0) v = 0, neg = true;
    if (!neg) throw;
    *out = make(pr0);
  }
  return true;
}

namespace {

Status CompilePool(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  const Shape &X = c.shape(x), &Y = c.shape(y);
  if (X.size() < 3 || X.size() > 5 || Y.size() != X.size() || X[0] != Y[0] || X[1] != Y[1]) return c.CompileRef(n);
  if (n.op == "MaxPool") {
    TARE_ASSIGN_OR_RETURN(bool own, TryOwnMaxPool(c, n));
    if (own) return Status::Ok();
  }
  memory src = c.Current(x);
  dnnl::pooling_v2_forward::primitive_desc pd;
  TARE_ASSIGN_OR_RETURN(bool made, MakePoolPd(c, n, src.get_desc(), X, Y, &pd));
  if (!made) return c.CompileRef(n);
  memory dst = c.Out(y, pd.dst_desc(), {x});
  c.Add(dnnl::pooling_v2_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, pd.impl_info_str());
  c.Done(y);
  return Status::Ok();
}

// ---- BatchNormalization ----------------------------------------------------------------------

bool SupportsBatchNorm(const Node& n, const Graph& g, const GraphInfo& info) {
  (void)info;
  if (n.inputs.size() != 5) return false;
  for (int v : n.inputs)
    if (!IsF32(g, v)) return false;
  for (size_t i = 1; i < n.outputs.size(); ++i)
    if (n.outputs[i] >= 0) return false;
  Result<int64_t> training = n.GetInt("training_mode", 0);
  return training.ok() && *training == 0;
}

Status CompileBatchNorm(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  const Shape& X = c.shape(x);
  if (X.size() < 2 || c.shape(y) != X) return c.CompileRef(n);
  for (size_t i = 1; i < 5; ++i)
    if (!c.F32(n.inputs[i]) || c.slot(n.inputs[i]).numel() != X[1] || c.shape(n.inputs[i]).size() != 1)
      return c.CompileRef(n);
  TARE_ASSIGN_OR_RETURN(float eps, n.GetFloat("epsilon", 1e-5f));
  memory src = c.Current(x);
  const auto flags = dnnl::normalization_flags::use_global_stats | dnnl::normalization_flags::use_scale |
                     dnnl::normalization_flags::use_shift;
  dnnl::batch_normalization_forward::desc d(prop_kind::forward_inference, src.get_desc(), eps, flags);
  dnnl::batch_normalization_forward::primitive_desc pd(d, c.engine());
  memory scale = c.Plain(n.inputs[1]), shift = c.Plain(n.inputs[2]), mean = c.Plain(n.inputs[3]),
         var = c.Plain(n.inputs[4]);
  memory dst = c.Out(y, pd.dst_desc(), {x});
  c.Add(dnnl::batch_normalization_forward(pd),
        {{DNNL_ARG_SRC, src},
         {DNNL_ARG_MEAN, mean},
         {DNNL_ARG_VARIANCE, var},
         {DNNL_ARG_SCALE, scale},
         {DNNL_ARG_SHIFT, shift},
         {DNNL_ARG_DST, dst}},
        pd.impl_info_str());
  c.Done(y);
  return Status::Ok();
}

// ---- binary ----------------------------------------------------------------------------------

bool SupportsBinary(const Node& n, const Graph& g, const GraphInfo& info) {
  (void)info;
  return n.inputs.size() == 2 && IsF32(g, n.inputs[0]) && IsF32(g, n.inputs[1]);
}

Status CompileBinary(Compiler& c, const Node& n) {
  if (n.op == "Div" || n.op == "Mul") {
    TARE_ASSIGN_OR_RETURN(bool gelu, n.op == "Div" ? TryGelu(c, n) : TryGeluTanh(c, n));
    if (gelu) return Status::Ok();
  }
  int a = n.inputs[0], b = n.inputs[1];
  const int y = n.outputs[0];
  if (!c.F32(a) || !c.F32(b)) return c.CompileRef(n);
  const Shape& Y = c.shape(y);
  const size_t r = std::max<size_t>(Y.size(), 1);
  auto pad = [&](const Shape& s) {
    memory::dims d(r - s.size(), 1);
    d.insert(d.end(), s.begin(), s.end());
    return d;
  };
  const memory::dims yd = Dims(Y);
  memory::dims yd_view = yd;  // y's dims as the primitive sees them (same bytes)
  memory::dims ad = pad(c.shape(a)), bd = pad(c.shape(b));
  algorithm alg = n.op == "Add" ? algorithm::binary_add
                  : n.op == "Sub" ? algorithm::binary_sub
                  : n.op == "Mul" ? algorithm::binary_mul
                                  : algorithm::binary_div;
  if (ad != yd) {
    // oneDNN broadcasts src1 only: swap the operands of a commutative op.
    if (bd != yd || (n.op != "Add" && n.op != "Mul")) return c.CompileRef(n);
    std::swap(a, b);
    std::swap(ad, bd);
  }
  memory src0 = c.Current(a), src1;
  const bool blocked0 = src0.get_desc() != c.PlainDesc(a);
  if (blocked0 && c.shape(a) == c.shape(b)) {
    // Same shapes: src0 as held (blocked layouts stay), src1 in the same layout.
    src1 = c.In(b, src0.get_desc());
  } else {
    src1 = View(c, c.Plain(b), RowMajor(bd));
    if (blocked0) {
      // Broadcasting from a blocked src0: oneDNN handles per-channel src1; else go plain. Also
      // plain when only its reference kernel takes the blocked case: with 8-channel blocks (AVX2)
      // an SE block's per-channel Mul ran on it, 7.6 ms each on EfficientNet-B0 (issue 23).
      try {
        dnnl::binary::desc d(alg, src0.get_desc(), src1.get_desc(), Any(yd));
        dnnl::binary::primitive_desc pd(d, c.engine());
        if (std::string(pd.impl_info_str()).rfind("ref", 0) == 0) {
          TARE_ASSIGN_OR_RETURN(bool done, TryBlockedChannelScale(c, n, a, b));
          if (done) return Status::Ok();
          src0 = c.Plain(a);
        }
      } catch (const dnnl::error&) {
        src0 = c.Plain(a);
      }
    }
  }
  if (src0.get_desc() == c.PlainDesc(a)) {
    src0 = View(c, src0, RowMajor(ad));
    // src1 broadcast along the last axis only ([..., D] op [..., 1], LayerNorm's Sub and Div):
    // oneDNN 2.6 runs that shape on its reference kernel (12 ms for ConvNeXt's 56 x 56 x 96); as
    // [1, rows, D] op [1, rows, 1] it is a per-channel broadcast its jit kernel takes. Same bytes.
    const size_t rk = ad.size();
    bool last_only = rk >= 2 && bd[rk - 1] == 1 && ad[rk - 1] > 1;
    for (size_t i = 0; last_only && i + 1 < rk; ++i) last_only = ad[i] == bd[i];
    if (last_only) {
      const int64_t D = ad[rk - 1], rows = static_cast<int64_t>(c.slot(a).numel()) / D;
      ad = {1, rows, D};
      bd = {1, rows, 1};
      src0 = View(c, src0, RowMajor(ad));
      src1 = View(c, src1, RowMajor(bd));
      yd_view = {1, rows, D};
    }
  }
  dnnl::binary::desc d(alg, src0.get_desc(), src1.get_desc(), Any(yd_view));
  dnnl::binary::primitive_desc pd(d, c.engine());
  memory::desc dd = pd.dst_desc();
  memory dst;
  if (dd == RowMajor(yd_view)) {
    dst = View(c, c.Out(y, c.PlainDesc(y), {a, b}), dd);
  } else {
    dst = c.Out(y, dd, {a, b});
  }
  c.Add(dnnl::binary(pd), {{DNNL_ARG_SRC_0, src0}, {DNNL_ARG_SRC_1, src1}, {DNNL_ARG_DST, dst}}, pd.impl_info_str());
  c.Done(y);
  return Status::Ok();
}

// ---- Gemm / MatMul ---------------------------------------------------------------------------

bool SupportsGemm(const Node& n, const Graph& g, const GraphInfo& info) {
  if (n.NumInputs() < 2 || !IsF32(g, n.inputs[0]) || !IsF32(g, n.inputs[1])) return false;
  if (n.op == "Gemm") {
    if (n.NumInputs() > 2 && n.inputs[2] >= 0 && (!Known(info, n.inputs[2]) || !IsF32(g, n.inputs[2]))) return false;
    if (!Known(info, n.inputs[1])) {
      Result<float> alpha = n.GetFloat("alpha", 1.0f);
      if (!alpha.ok() || *alpha != 1.0f) return false;
    }
  } else if (n.inputs.size() != 2) {
    return false;
  }
  return true;
}

Status CompileGemm(Compiler& c, const Node& n) {
  const int A = n.inputs[0], B = n.inputs[1], y = n.outputs[0];
  if (!c.F32(B) || !c.F32(y)) return c.CompileRef(n);
  const Shape &as = c.shape(A), &bs = c.shape(B);
  memory::dims ad, bd, yd, astr, bstr;
  std::vector<float> wv;
  std::vector<float> biasv;
  memory::dims biasd;
  if (n.op == "Gemm") {
    const int C = n.inputs.size() > 2 ? n.inputs[2] : -1;
    TARE_ASSIGN_OR_RETURN(int64_t ta, n.GetInt("transA", 0));
    TARE_ASSIGN_OR_RETURN(int64_t tb, n.GetInt("transB", 0));
    TARE_ASSIGN_OR_RETURN(float alpha, n.GetFloat("alpha", 1.0f));
    TARE_ASSIGN_OR_RETURN(float beta, n.GetFloat("beta", 1.0f));
    if (as.size() != 2 || bs.size() != 2) return c.CompileRef(n);
    const int64_t M = ta ? as[1] : as[0], K = ta ? as[0] : as[1], N = tb ? bs[0] : bs[1];
    ad = {M, K};
    astr = ta ? memory::dims{1, M} : memory::dims{K, 1};
    bd = {K, N};
    bstr = tb ? memory::dims{1, K} : memory::dims{N, 1};
    yd = {M, N};
    if (alpha != 1.0f) {
      if (!c.IsConst(B)) return c.CompileRef(n);
      const float* bp = c.slot(B).as<float>();
      wv.resize(size_t(K * N));
      for (size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<float>(double(alpha) * double(bp[i]));
    }
    if (C >= 0 && beta != 0.0f) {
      if (!c.F32(C) || !c.IsConst(C)) return c.CompileRef(n);
      const Shape& cs = c.shape(C);
      if (cs.size() > 2) return c.CompileRef(n);
      const int64_t cm = cs.size() == 2 ? cs[0] : 1, cn = cs.empty() ? 1 : cs.back();
      if ((cm != 1 && cm != M) || (cn != 1 && cn != N)) return c.CompileRef(n);
      biasd = {cm, cn};
      const float* cp = c.slot(C).as<float>();
      biasv.resize(size_t(cm * cn));
      for (size_t i = 0; i < biasv.size(); ++i)
        biasv[i] = beta == 1.0f ? cp[i] : static_cast<float>(double(beta) * double(cp[i]));
    }
  } else {
    // MatMul: numpy.matmul; 1-D operands promoted (and the added dim dropped from Y).
    if (!c.F32(A)) return c.CompileRef(n);
    memory::dims a2(as.begin(), as.end()), b2(bs.begin(), bs.end());
    if (a2.size() == 1) a2.insert(a2.begin(), 1);
    if (b2.size() == 1) b2.push_back(1);
    const size_t r = std::max(a2.size(), b2.size());
    a2.insert(a2.begin(), r - a2.size(), 1);
    b2.insert(b2.begin(), r - b2.size(), 1);
    yd.assign(r, 1);
    for (size_t i = 0; i + 2 < r; ++i) yd[i] = std::max(a2[i], b2[i]);
    yd[r - 2] = a2[r - 2];
    yd[r - 1] = b2[r - 1];
    int64_t yn = 1;
    for (int64_t v : yd) yn *= v;
    if (yn != c.slot(y).numel() || a2[r - 1] != b2[r - 2]) return c.CompileRef(n);
    ad = a2;
    bd = b2;
    bool b_flat = true;  // B has no batch dims (or only 1s): A's batch dims fold into M
    for (size_t i = 0; i + 2 < r; ++i) b_flat = b_flat && b2[i] == 1;
    if (b_flat && r > 2) {
      // One [rows, K] x [K, N] product instead of a batch of small ones: PyTorch's
      // MultiheadAttention feeds [197, 1, 768] x [768, 2304], which oneDNN ran as 197 GEMVs
      // (17 ms against 2 ms). Same bytes: A and Y are row-major.
      const int64_t rows = c.slot(A).numel() / a2[r - 1];
      ad = {rows, a2[r - 1]};
      bd = {b2[r - 2], b2[r - 1]};
      yd = {rows, b2[r - 1]};
    }
  }
  auto strided = [](const memory::dims& d, const memory::dims& s) {
    return s.empty() ? RowMajor(d) : memory::desc(d, dt::f32, s);
  };
  const memory::desc a_md = strided(ad, astr), b_user = strided(bd, bstr);
  const bool const_b = c.IsConst(B) && bd.size() == 2;
  // A known B whose rows are a multiple of 4 KiB apart gets 16 floats of padding per row: oneDNN
  // 2.6's gemm:jit ran ViT-B/16's [197 x 768] x [768 x 3072] at half the speed of its 768 x 2304
  // products (4 KiB aliasing between the rows it packs). Measured on an AMD EPYC Zen 3 (AVX2, one
  // thread): 20 -> 9.8 ms each, ViT-B/16 540-570 -> 421-427 ms.
  const bool pad_b = const_b && (bd[1] * 4) % 4096 == 0;
  const memory::desc b_md = pad_b ? memory::desc(bd, dt::f32, memory::dims{bd[1] + 16, 1}) : const_b ? Any(bd) : b_user;
  std::unique_ptr<dnnl::matmul::desc> d;
  if (!biasd.empty())
    d.reset(new dnnl::matmul::desc(a_md, b_md, RowMajor(biasd), RowMajor(yd)));
  else
    d.reset(new dnnl::matmul::desc(a_md, b_md, RowMajor(yd)));
  dnnl::matmul::primitive_desc pd(*d, c.engine());
  memory wmem;
  if (const_b) {
    wmem = memory(pd.weights_desc(), c.engine());
    void* bp = wv.empty() ? const_cast<void*>(c.slot(B).data) : static_cast<void*>(wv.data());
    memory user(b_user, c.engine(), bp);
    dnnl::stream s(c.engine());
    dnnl::reorder(user, wmem).execute(s, user, wmem);
    s.wait();
  } else {
    wmem = View(c, c.Plain(B), b_user);
  }
  memory src = View(c, c.Plain(A), a_md);
  memory dst = View(c, c.Out(y, c.PlainDesc(y), {A, B}), RowMajor(yd));
  std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wmem}, {DNNL_ARG_DST, dst}};
  if (!biasd.empty()) {
    memory bmem(RowMajor(biasd), c.engine());
    std::memcpy(bmem.get_data_handle(), biasv.data(), sizeof(float) * biasv.size());
    args[DNNL_ARG_BIAS] = bmem;
  }
  c.Add(dnnl::matmul(pd), std::move(args), pd.impl_info_str());
  c.Done(y);
  return Status::Ok();
}

// ---- Softmax / LogSoftmax --------------------------------------------------------------------

bool SupportsSoftmax(const Node& n, const Graph& g, const GraphInfo& info) {
  (void)info;
  return n.inputs.size() == 1 && IsF32(g, n.inputs[0]);
}

Status CompileSoftmax(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  const Shape& X = c.shape(x);
  if (X.empty() || c.shape(y) != X) return c.CompileRef(n);
  TARE_ASSIGN_OR_RETURN(int64_t axis, n.GetInt("axis", -1));
  TARE_ASSIGN_OR_RETURN(int64_t legacy, n.GetInt("legacy_2d", 0));
  const int64_t r = int64_t(X.size());
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) return c.CompileRef(n);
  memory::dims d = Dims(X);
  if (legacy) {
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < r; ++i) (i < axis ? outer : inner) *= X[size_t(i)];
    d = {outer, inner};
    axis = 1;
  }
  const memory::desc md = RowMajor(d);
  memory src = View(c, c.Plain(x), md);
  memory dst = View(c, c.Out(y, c.PlainDesc(y), {x}), md);
  if (n.op == "LogSoftmax") {
    dnnl::logsoftmax_forward::desc sd(prop_kind::forward_inference, md, int(axis));
    dnnl::logsoftmax_forward::primitive_desc pd(sd, c.engine());
    c.Add(dnnl::logsoftmax_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, pd.impl_info_str());
  } else {
    dnnl::softmax_forward::desc sd(prop_kind::forward_inference, md, int(axis));
    dnnl::softmax_forward::primitive_desc pd(sd, c.engine());
    c.Add(dnnl::softmax_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, pd.impl_info_str());
  }
  c.Done(y);
  return Status::Ok();
}

// ---- Flatten, Reshape, Squeeze, Unsqueeze, Identity, Dropout (inference): a copy of the plain
// bytes (a reorder between two 1-D views), so the partition is not split around them.

bool SupportsCopy(const Node& n, const Graph& g, const GraphInfo& info) {
  (void)info;
  if (n.inputs.empty() || !IsF32(g, n.inputs[0])) return false;
  for (size_t i = 1; i < n.outputs.size(); ++i)
    if (n.outputs[i] >= 0) return false;  // Dropout's mask: ref
  return true;  // Dropout: inference mode, y = x (runtime/ops: ONNX Dropout-13 as tare runs it)
}

Status CompileCopy(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  if (!c.F32(y) || c.slot(x).numel() != c.slot(y).numel()) return c.CompileRef(n);
  const memory::desc flat = RowMajor({c.slot(x).numel()});
  memory src = View(c, c.Plain(x), flat);
  memory dst = View(c, c.Out(y, c.PlainDesc(y), {x}), flat);
  dnnl::reorder r(src, dst);
  c.Add(r, {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}}, "reorder (copy)");
  c.Done(y);
  return Status::Ok();
}

bool SupportsConvTranspose(const Node& n, const Graph& g, const GraphInfo& info) { return SupportsConv(n, g, info); }

}  // namespace

const std::vector<OpImpl>& OnednnOps() {
  static const std::vector<OpImpl> ops = TableOf<Compiler>({
      {{"Conv"}, SupportsConv, CompileConv},
      {{"ConvTranspose"}, SupportsConvTranspose, CompileConvTranspose},
      {{"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"}, SupportsPool, CompilePool},
      {{"BatchNormalization"}, SupportsBatchNorm, CompileBatchNorm},
      {{"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Exp", "Sqrt", "Abs", "Neg", "Clip", "Pow"}, SupportsUnary, CompileUnary},
      {{"Transpose"}, SupportsTranspose, CompileTranspose},
      {{"Erf"}, SupportsErf, CompileErf},
      {{"Slice"}, SupportsSlice, CompileSlice},
      {{"Split"}, FloatDataKnownParams, CompileSplit},
      {{"Gather"}, SupportsGather, CompileGather},
      {{"ReduceMean"}, SupportsReduceMean, CompileReduceMean},
      {{"LayerNormalization"}, SupportsLayerNormalization, CompileLayerNorm},
      {{"Add", "Sub", "Mul", "Div"}, SupportsBinary, CompileBinary},
      {{"Gemm", "MatMul"}, SupportsGemm, CompileGemm},
      {{"Softmax"}, SupportsSoftmax, CompileSoftmax},
      {{"Concat"}, AllInputsF32, CompileConcat},
      {{"Flatten", "Reshape", "Squeeze", "Unsqueeze", "Identity", "Dropout"}, SupportsCopy, CompileCopy},
      {{"LSTM", "GRU"}, SupportsRnn, CompileRnn},
  });
  return ops;
}

}  // namespace tare::onednn
