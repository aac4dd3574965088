// LSTM and GRU (ONNX LSTM-14 / GRU-14, semantics in runtime/ops/rnn.cc) on oneDNN's RNN
// primitives, where their semantics match ONNX's: one layer, default activations (LSTM sigmoid,
// tanh, tanh; GRU sigmoid, tanh), no clip, layout 0, LSTM input_forget 0 and no peepholes, every
// sequence_lens entry equal to S (checked at Compile; else the reference kernel runs), W, R, B
// and sequence_lens known at plan time (initial_h / initial_c may be run-time values).
// One primitive per direction (a bidirectional node runs left2right and right2left, each writing
// its half of Y through a reorder: ONNX's Y [S, nd, B, H] interleaves the directions).
// Gates: ONNX LSTM i,o,f,c -> oneDNN i,f,c,o; GRU z,r,h -> oneDNN u,r,o (same order). Bias: LSTM
// and GRU (linear_before_reset 0) Wb + Rb per gate (rounded once in float); GRU with
// linear_before_reset uses oneDNN's lbr_gru, whose 4th bias row is Rb of the h gate.
#include <cstring>

#include "backends/onednn/op_util.h"

namespace tare::onednn {
namespace {

/// A memory over `base`'s bytes starting `offset` floats in, with desc d.
memory At(const Compiler& c, const memory& base, size_t offset, const memory::desc& d) {
  return memory(d, c.engine(), static_cast<float*>(base.get_data_handle()) + offset);
}

}  // namespace

std::string RnnDeclines(const Node& n, const Graph& g, const GraphInfo& info) {
  const bool lstm = n.op == "LSTM";
  if (!lstm && n.op != "GRU") return "not an RNN";
  const size_t ni = n.inputs.size();
  if (ni < 3 || !IsF32(g, n.inputs[0])) return "X is not float32";
  if (!Known(info, n.inputs[1]) || !Known(info, n.inputs[2])) return "W and R must be known at plan time";
  auto opt_known = [&](size_t i) { return i >= ni || n.inputs[i] < 0 || Known(info, n.inputs[i]); };
  if (!opt_known(3)) return "B must be known at plan time";
  if (!opt_known(4)) return "sequence_lens must be known at plan time";
  if (lstm && ni > 7 && n.inputs[7] >= 0) return "peepholes (P): oneDNN's lstm_forward has none in this form";
  if (n.has("clip")) return "clip: oneDNN's RNN primitives do not clip";
  Result<std::string> dir = n.GetString("direction", "forward");
  Result<int64_t> layout = n.GetInt("layout", 0);
  Result<int64_t> input_forget = n.GetInt("input_forget", 0);
  if (!dir.ok() || !layout.ok() || !input_forget.ok()) return "invalid attributes";
  if (*layout != 0) return "layout 1 (batch first)";
  if (lstm && *input_forget != 0) return "input_forget (coupled gates)";
  for (const char* a : {"activation_alpha", "activation_beta"}) {
    auto it = n.attrs.find(a);
    if (it != n.attrs.end() && !it->second.floats.empty()) return std::string(a) + ": only the default activations";
  }
  if (!RnnDefaultActivations(n, lstm, *dir == "bidirectional" ? 2 : 1)) return "non-default activations";
  return "";
}

bool SupportsRnn(const Node& n, const Graph& g, const GraphInfo& info) { return RnnDeclines(n, g, info).empty(); }

Status CompileRnn(Compiler& c, const Node& n) {
  auto in = [&](size_t i) { return i < n.inputs.size() ? n.inputs[i] : -1; };
  auto out = [&](size_t i) { return i < n.outputs.size() ? n.outputs[i] : -1; };
  const bool lstm = n.op == "LSTM";
  const int x = in(0), w = in(1), r = in(2), b = in(3), sl = in(4), h0 = in(5), c0 = lstm ? in(6) : -1;
  if (!c.F32(w) || !c.F32(r) || (b >= 0 && !c.F32(b)) || (h0 >= 0 && !c.F32(h0)) || (c0 >= 0 && !c.F32(c0)))
    return c.CompileRef(n);
  for (size_t i = 0; i < n.outputs.size() && i < 3; ++i)
    if (out(i) >= 0 && !c.F32(out(i))) return c.CompileRef(n);
  const Shape &xs = c.shape(x), &rs = c.shape(r);
  if (xs.size() != 3 || rs.size() != 3) return c.CompileRef(n);
  const int64_t S = xs[0], B = xs[1], I = xs[2], H = rs[2], nd = rs[0], G = lstm ? 4 : 3;
  if (sl >= 0) {
    const Tensor& t = c.slot(sl);
    if (t.dtype != DType::kInt32 && t.dtype != DType::kInt64) return c.CompileRef(n);
    for (int64_t i = 0; i < t.numel(); ++i) {
      const int64_t v = t.dtype == DType::kInt32 ? t.as<int32_t>()[i] : t.as<int64_t>()[i];
      if (v != S) return c.CompileRef(n);
    }
  }
  TARE_ASSIGN_OR_RETURN(std::string dir, n.GetString("direction", "forward"));
  TARE_ASSIGN_OR_RETURN(int64_t lbr_attr, n.GetInt("linear_before_reset", 0));
  const bool lbr = !lstm && lbr_attr != 0;
  // oneDNN gate g takes ONNX gate map[g].
  const std::vector<int64_t> map = lstm ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 1, 2};
  const int64_t GB = lbr ? 4 : G;  // bias rows
  const float* W = c.slot(w).as<float>();
  const float* R = c.slot(r).as<float>();
  const float* Bt = b >= 0 ? c.slot(b).as<float>() : nullptr;

  const memory::desc x_md = RowMajor({S, B, I});
  const memory::desc state_md = RowMajor({1, 1, B, H});
  const memory::desc y_md = RowMajor({S, B, H});
  // Primitive descs first (they may throw: the reference kernel then runs the node).
  struct Dir {
    dnnl::primitive prim;
    memory::desc wl, wi;
    std::string impl;
    std::vector<float> wlv, wiv, bv;
  };
  std::vector<Dir> dirs(static_cast<size_t>(nd));
  for (int64_t d = 0; d < nd; ++d) {
    Dir& D = dirs[size_t(d)];
    const bool rev = nd == 2 ? d == 1 : dir == "reverse";
    const dnnl::rnn_direction rd =
        rev ? dnnl::rnn_direction::unidirectional_right2left : dnnl::rnn_direction::unidirectional_left2right;
    const memory::desc wl_any({1, 1, I, G, H}, dt::f32, tag::any), wi_any({1, 1, H, G, H}, dt::f32, tag::any);
    const memory::desc bias_md = RowMajor({1, 1, GB, H});
    if (lstm) {
      dnnl::lstm_forward::desc ld(dnnl::prop_kind::forward_inference, rd, x_md, state_md, state_md, wl_any, wi_any,
                                  bias_md, y_md, state_md, state_md);
      dnnl::lstm_forward::primitive_desc pd(ld, c.engine());
      D.prim = dnnl::lstm_forward(pd);
      D.impl = pd.impl_info_str();
      D.wl = pd.weights_layer_desc();
      D.wi = pd.weights_iter_desc();
    } else if (lbr) {
      dnnl::lbr_gru_forward::desc gd(dnnl::prop_kind::forward_inference, rd, x_md, state_md, wl_any, wi_any, bias_md,
                                     y_md, state_md);
      dnnl::lbr_gru_forward::primitive_desc pd(gd, c.engine());
      D.prim = dnnl::lbr_gru_forward(pd);
      D.impl = pd.impl_info_str();
      D.wl = pd.weights_layer_desc();
      D.wi = pd.weights_iter_desc();
    } else {
      dnnl::gru_forward::desc gd(dnnl::prop_kind::forward_inference, rd, x_md, state_md, wl_any, wi_any, bias_md, y_md,
                                 state_md);
      dnnl::gru_forward::primitive_desc pd(gd, c.engine());
      D.prim = dnnl::gru_forward(pd);
      D.impl = pd.impl_info_str();
      D.wl = pd.weights_layer_desc();
      D.wi = pd.weights_iter_desc();
    }
    // ldigo / ldgo user layouts from ONNX's [G*H, I] rows.
    D.wlv.resize(size_t(I * G * H));
    D.wiv.resize(size_t(H * G * H));
    D.bv.assign(size_t(GB * H), 0.0f);
    const float* Wd = W + d * G * H * I;
    const float* Rd = R + d * G * H * H;
    for (int64_t g = 0; g < G; ++g) {
      const int64_t og = map[size_t(g)];
      for (int64_t h = 0; h < H; ++h) {
        for (int64_t i = 0; i < I; ++i) D.wlv[size_t((i * G + g) * H + h)] = Wd[(og * H + h) * I + i];
        for (int64_t j = 0; j < H; ++j) D.wiv[size_t((j * G + g) * H + h)] = Rd[(og * H + h) * H + j];
        if (Bt) {
          const float wb = Bt[d * 2 * G * H + og * H + h], rb = Bt[d * 2 * G * H + G * H + og * H + h];
          D.bv[size_t(g * H + h)] = lbr && g == 2 ? wb : wb + rb;
        }
      }
    }
    if (lbr && Bt)
      for (int64_t h = 0; h < H; ++h) D.bv[size_t(3 * H + h)] = Bt[d * 2 * G * H + G * H + 2 * H + h];
  }

  // Memory: weights reordered once; states and outputs bound to the slots (or private buffers).
  dnnl::stream s(c.engine());
  memory src = c.Plain(x);
  memory h0m = h0 >= 0 ? c.Plain(h0) : memory();
  memory c0m = c0 >= 0 ? c.Plain(c0) : memory();
  const int y = out(0), yh = out(1), yc = lstm ? out(2) : -1;
  const std::vector<int> reads = {x, h0, c0};
  memory ym = y >= 0 ? c.Out(y, c.PlainDesc(y), reads) : memory();
  memory yhm = yh >= 0 ? c.Out(yh, c.PlainDesc(yh), reads) : memory();
  memory ycm = yc >= 0 ? c.Out(yc, c.PlainDesc(yc), reads) : memory();
  for (int64_t d = 0; d < nd; ++d) {
    Dir& D = dirs[size_t(d)];
    memory wl(D.wl, c.engine()), wi(D.wi, c.engine()), bias(RowMajor({1, 1, GB, H}), c.engine());
    {
      memory u1(memory::desc({1, 1, I, G, H}, dt::f32, tag::ldigo), c.engine(), D.wlv.data());
      memory u2(memory::desc({1, 1, H, G, H}, dt::f32, tag::ldigo), c.engine(), D.wiv.data());
      dnnl::reorder(u1, wl).execute(s, u1, wl);
      dnnl::reorder(u2, wi).execute(s, u2, wi);
      s.wait();
      std::memcpy(bias.get_data_handle(), D.bv.data(), sizeof(float) * D.bv.size());
    }
    const size_t off = size_t(d * B * H);
    auto state = [&](const memory& m) {
      if (m) return At(c, m, off, state_md);
      memory z(state_md, c.engine());
      std::memset(z.get_data_handle(), 0, sizeof(float) * size_t(B * H));
      return z;
    };
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC_LAYER, src},
                                            {DNNL_ARG_SRC_ITER, state(h0m)},
                                            {DNNL_ARG_WEIGHTS_LAYER, wl},
                                            {DNNL_ARG_WEIGHTS_ITER, wi},
                                            {DNNL_ARG_BIAS, bias},
                                            {DNNL_ARG_DST_ITER, yhm ? At(c, yhm, off, state_md) : memory(state_md, c.engine())}};
    if (lstm) {
      args[DNNL_ARG_SRC_ITER_C] = state(c0m);
      args[DNNL_ARG_DST_ITER_C] = ycm ? At(c, ycm, off, state_md) : memory(state_md, c.engine());
    }
    // Y: direct for one direction; for two, a private [S, B, H] reordered into Y's strided half.
    const bool direct = ym && nd == 1;
    memory dl = direct ? At(c, ym, 0, y_md) : memory(y_md, c.engine());
    args[DNNL_ARG_DST_LAYER] = dl;
    c.Add(D.prim, std::move(args),
          std::string(lstm ? "lstm " : lbr ? "lbr_gru " : "gru ") + D.impl + (nd == 2 ? " (one primitive per direction)" : ""));
    if (ym && !direct) {
      memory half(memory::desc({S, B, H}, dt::f32, {nd * B * H, H, 1}), c.engine(),
                  static_cast<float*>(ym.get_data_handle()) + off);
      dnnl::reorder ro(dl, half);
      c.Add(ro, {{DNNL_ARG_FROM, dl}, {DNNL_ARG_TO, half}});
    }
  }
  for (int v : {y, yh, yc})
    if (v >= 0) c.Done(v);
  return Status::Ok();
}

}  // namespace tare::onednn
