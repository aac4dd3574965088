// Concat on the onednn backend (ONNX Concat-13): a concat primitive into the plain or blocked
// layout oneDNN picks; a Concat read only by a 1x1 Conv (or by a pool that commutes with it) is
// not materialized (CompileConcatIntoConv); convolutions may write their channels of a Concat's
// buffer in place (compiler.h, ConcatTarget).
#include <cstring>

#include "backends/onednn/op_util.h"
#include "kernels/ref/conv_geometry.h"

namespace tare::onednn {
namespace {

/// A channel Concat (rank 4, axis 1) read only by a 1x1 Conv (group 1, stride 1, no pads or
/// dilations, known weights), directly or through a MaxPool / AveragePool (per channel, so it
/// commutes with the Concat: each input is pooled on its own): the Concat is not materialized.
/// The Conv runs as one primitive per Concat input, over that input's channels (its slice of the
/// weights): the first writes the destination (with the bias), each next one adds to it (sum
/// post-op), the last one also applies the Conv's fused followers (BatchNormalization folded,
/// eltwise ops). Returns false (nothing added) when the pattern does not apply.
Result<bool> CompileConcatIntoConv(Compiler& c, const Node& cat) {
  const int y = cat.outputs[0];
  if (c.shape(y).size() != 4 || cat.inputs.size() < 2 || c.ConcatOf(y)) return false;  // not when written in place
  Result<int64_t> axis = cat.GetInt("axis", 0);
  if (!axis.ok() || (*axis != 1 && *axis != -3)) return false;
  const Compiler::Snapshot snap = c.Save();
  const Node* conv = c.NextSoleReader(y);
  const Node* pool = nullptr;
  if (conv && (conv->op == "MaxPool" || conv->op == "AveragePool") && conv->domain.empty() && conv->inputs[0] == y &&
      (conv->outputs.size() == 1 || conv->outputs[1] < 0) && c.F32(conv->outputs[0])) {
    pool = conv;
    c.AbsorbNext();
    conv = c.NextSoleReader(pool->outputs[0]);
  }
  const int cin = pool ? pool->outputs[0] : y;  // what the Conv reads
  const Shape& Y = c.shape(cin);
  auto no = [&] {
    c.Restore(snap);
    return false;
  };
  if (!conv || conv->op != "Conv" || !conv->domain.empty() || conv->inputs.empty() || conv->inputs[0] != cin) return no();
  if (Y.size() != 4 || (pool && c.shape(y)[1] != Y[1])) return no();
  const int w = conv->inputs.size() > 1 ? conv->inputs[1] : -1, b = conv->inputs.size() > 2 ? conv->inputs[2] : -1;
  const int z = conv->outputs.empty() ? -1 : conv->outputs[0];
  if (w < 0 || !c.IsConst(w) || !c.F32(w) || (b >= 0 && (!c.IsConst(b) || !c.F32(b))) || z < 0 || !c.F32(z)) return no();
  const Shape &W = c.shape(w), &Z = c.shape(z);
  if (W.size() != 4 || W[1] != Y[1] || W[2] != 1 || W[3] != 1 || Z.size() != 4 || Z[2] != Y[2] || Z[3] != Y[3]) return no();
  Result<ConvAttrs> a = ConvAttrs::Parse(*conv);
  if (!a.ok() || a->group != 1) return no();
  for (int64_t v : a->strides)
    if (v != 1) return no();
  for (int64_t v : a->dilations)
    if (v != 1) return no();
  for (int64_t v : a->pads)
    if (v != 0) return no();
  const Shape& cat_shape = c.shape(y);
  for (int u : cat.inputs)
    if (!c.F32(u) || c.shape(u).size() != 4 || c.shape(u)[0] != cat_shape[0] || c.shape(u)[2] != cat_shape[2] ||
        c.shape(u)[3] != cat_shape[3])
      return no();
  const int64_t M = W[0], Ct = W[1];
  // The Conv and its followers, as CompileConv fuses them (no Add as sum: the sum post-op is taken).
  c.AbsorbNext();
  std::vector<float> wv, bv;
  dnnl::post_ops tail;
  int sum_src = -1;
  std::string what;
  const int cur = ConvChain(c, w, b, M, z, false, &wv, &bv, &tail, &sum_src, &what);
  const memory::dims zd = Dims(Z), one = {1, 1}, zero = {0, 0};
  memory dst;
  std::string impls;
  int64_t off = 0;
  for (size_t i = 0; i < cat.inputs.size(); ++i) {
    const int u = cat.inputs[i];
    const int64_t C = c.shape(u)[1];
    const bool first = i == 0, last = i + 1 == cat.inputs.size();
    std::vector<float> wi(size_t(M * C));
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < C; ++k) wi[size_t(m * C + k)] = wv[size_t(m * Ct + off + k)];
    off += C;
    dnnl::post_ops po;
    if (!first) po.append_sum(1.0f);
    if (last)
      for (int k = 0; k < tail.len(); ++k) {
        algorithm alg;
        float scale, alpha, beta;
        tail.get_params_eltwise(k, scale, alg, alpha, beta);
        po.append_eltwise(scale, alg, alpha, beta);
      }
    dnnl::primitive_attr attr;
    attr.set_post_ops(po);
    // The part's source: the input, or the input pooled on its own into a private buffer.
    memory pooled;
    Shape us = c.shape(u);
    if (pool) {
      us = {Y[0], C, Y[2], Y[3]};
      memory in = c.Current(u);
      dnnl::pooling_v2_forward::primitive_desc ppd;
      TARE_ASSIGN_OR_RETURN(bool made, MakePoolPd(c, *pool, in.get_desc(), c.shape(u), us, &ppd));
      if (!made) return no();
      pooled = memory(ppd.dst_desc(), c.engine());
      c.Add(dnnl::pooling_v2_forward(ppd), {{DNNL_ARG_SRC, in}, {DNNL_ARG_DST, pooled}});
    }
    const memory::dims ud = Dims(us), wd = {M, C, 1, 1};
    const memory::desc dst_md = first ? Any(zd) : dst.get_desc();
    dnnl::convolution_forward::primitive_desc pd =
        first ? dnnl::convolution_forward::primitive_desc(
                    dnnl::convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct, Any(ud),
                                                    Any(wd), RowMajor({M}), dst_md, one, zero, zero, zero),
                    attr, c.engine())
              : dnnl::convolution_forward::primitive_desc(
                    dnnl::convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct, Any(ud),
                                                    Any(wd), dst_md, one, zero, zero, zero),
                    attr, c.engine());
    memory wmem(pd.weights_desc(), c.engine());
    {
      memory user(RowMajor(wd), c.engine(), wi.data());
      dnnl::stream st(c.engine());
      dnnl::reorder(user, wmem).execute(st, user, wmem);
      st.wait();
    }
    memory src;
    if (!pool) {
      src = c.In(u, pd.src_desc());
    } else if (pooled.get_desc() == pd.src_desc()) {
      src = pooled;
    } else {
      src = memory(pd.src_desc(), c.engine());
      c.Add(dnnl::reorder(pooled, src), {{DNNL_ARG_FROM, pooled}, {DNNL_ARG_TO, src}});
    }
    if (first) dst = c.Out(cur, pd.dst_desc(), cat.inputs);
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wmem}, {DNNL_ARG_DST, dst}};
    if (first) {
      memory bmem(pd.bias_desc(), c.engine());
      std::memcpy(bmem.get_data_handle(), bv.data(), sizeof(float) * bv.size());
      args[DNNL_ARG_BIAS] = bmem;
    }
    impls += (impls.empty() ? "" : ", ") + std::string(pd.impl_info_str());
    c.Add(dnnl::convolution_forward(pd), std::move(args));
  }
  c.Note("not materialized: read by " + conv->name + (pool ? " through " + pool->name + " (each input pooled)" : "") +
         " as " + std::to_string(cat.inputs.size()) + " convolutions over its inputs' channels, summed (" + impls + ") [" +
         what + "]");
  c.Done(cur);
  return true;
}

}  // namespace

Status CompileConcat(Compiler& c, const Node& n) {
  const int y = n.outputs[0];
  const Shape& Y = c.shape(y);
  if (Y.empty()) return c.CompileRef(n);
  for (int v : n.inputs)
    if (!c.F32(v) || c.shape(v).size() != Y.size()) return c.CompileRef(n);
  TARE_ASSIGN_OR_RETURN(int64_t axis, n.GetInt("axis", 0));
  if (axis < 0) axis += int64_t(Y.size());
  if (axis < 0 || axis >= int64_t(Y.size())) return c.CompileRef(n);
  TARE_ASSIGN_OR_RETURN(bool into_conv, CompileConcatIntoConv(c, n));
  if (into_conv) return Status::Ok();
  if (Compiler::ConcatTarget* t = c.ConcatOf(y)) {
    // Planned in place: inputs not written there by their producers are reordered into their part.
    int in_place = 0;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (t->written[i]) {
        ++in_place;
        continue;
      }
      const int v = n.inputs[i];
      memory part = t->Part(c.shape(v), i, c.engine());
      memory src = c.Current(v);
      c.Add(dnnl::reorder(src, part), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, part}});
    }
    c.Hold(y, t->whole);
    c.Note("in place: " + std::to_string(in_place) + " of " + std::to_string(n.inputs.size()) +
           " inputs written into its buffer by their producers");
    c.Done(y);
    return Status::Ok();
  }
  std::vector<memory> srcs;
  std::vector<memory::desc> mds;
  for (int v : n.inputs) {
    srcs.push_back(c.Current(v));
    mds.push_back(srcs.back().get_desc());
  }
  dnnl::concat::primitive_desc pd(Any(Dims(Y)), int(axis), mds, c.engine());
  memory dst = c.Out(y, pd.dst_desc(), n.inputs);
  std::unordered_map<int, memory> args = {{DNNL_ARG_DST, dst}};
  for (size_t i = 0; i < srcs.size(); ++i) args[DNNL_ARG_MULTIPLE_SRC + int(i)] = srcs[i];
  c.Add(dnnl::concat(pd), std::move(args), pd.impl_info_str());
  c.Done(y);
  return Status::Ok();
}

}  // namespace tare::onednn
