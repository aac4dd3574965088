// Pooling on the cpu backend, NHWC:
//   MaxPool (2-D, no Indices output): XNNPACK (padding never wins; dilations supported except a
//     row dilation > 1 with a different column dilation, which runs the reference).
//   AveragePool (2-D, no dilation): XNNPACK divides by the number of in-input taps when any
//     padding is given, by kh*kw otherwise. Claimed when that is ONNX's count: count_include_pad=0,
//     or count_include_pad=1 with all pads zero (no auto_pad SAME): then the only padding is the
//     ceil_mode tail, which ONNX does not count either.
//   ceil_mode / auto_pad: the begin pads are resolved as the reference does; the end pads passed
//   to XNNPACK are those that give the inferred output size.
//   GlobalAveragePool: XNNPACK global_average_pooling_nwc. GlobalMaxPool: own loop over pixels
//   (the reference's order and NaN rule, bit-identical).
#include <algorithm>
#include <cmath>

#include "backends/cpu/ops.h"

namespace tare::cpu {
namespace {

bool AllZero(const std::vector<int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 0; });
}
bool AllOne(const std::vector<int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 1; });
}

Status CompileGlobalMax(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  const Shape& s = c.shape(x);
  const size_t N = s[0], C = s[1], P = s[2] * s[3];
  const float* xp = c.In(x, Layout::kNHWC);
  float* yp = c.Out(y, Layout::kPlain);
  ThreadPool* pool = c.pool();
  c.Add([=] {
    pool->ParallelFor(N, 1, [=](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) {
        const float* xi = xp + i * P * C;
        float* yi = yp + i * C;
        std::copy(xi, xi + C, yi);
        for (size_t p = 1; p < P; ++p)
          for (size_t ch = 0; ch < C; ++ch) {
            const float v = xi[p * C + ch], best = yi[ch];
            if (!std::isnan(best) && (v > best || std::isnan(v))) yi[ch] = v;
          }
      }
    });
    return Status::Ok();
  });
  c.Done(y);
  return Status::Ok();
}

}  // namespace

bool SupportsPool(const Node& n, const Graph& g, const GraphInfo&) {
  if (n.inputs.size() != 1 || !IsF32(g, n.inputs[0])) return false;
  if (n.outputs.size() > 1 && n.outputs[1] >= 0) return false;  // MaxPool Indices: ref
  const Value& x = g.values[n.inputs[0]];
  if (x.has_shape && x.shape.size() != 4) return false;
  if (n.op == "GlobalAveragePool" || n.op == "GlobalMaxPool") return true;
  Result<std::vector<int64_t>> ks = n.GetInts("kernel_shape");
  if (!ks.ok() || ks->size() != 2) return false;
  if (n.op == "MaxPool") return true;
  Result<std::vector<int64_t>> dil = n.GetInts("dilations");
  Result<std::vector<int64_t>> pads = n.GetInts("pads");
  Result<int64_t> cip = n.GetInt("count_include_pad", 0);
  Result<std::string> ap = n.GetString("auto_pad", "NOTSET");
  if (!dil.ok() || !pads.ok() || !cip.ok() || !ap.ok() || !AllOne(*dil)) return false;
  if (*cip == 0) return true;
  return AllZero(*pads) && (*ap == "NOTSET" || *ap == "VALID");
}

Status CompilePool(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  const Shape& xs = c.shape(x);
  const Shape& ys = c.shape(y);
  if (xs.size() != 4 || c.slot(x).numel() == 0 || c.slot(y).numel() == 0) return c.CompileRef(n);
  if (n.op == "GlobalMaxPool") return CompileGlobalMax(c, n);
  pthreadpool* pool = c.pool()->raw();
  const std::string where = n.Where();
  if (n.op == "GlobalAveragePool") {
    Result<XnnOp> made = CreateGlobalAvgPool(xs[1], -INFINITY, INFINITY);
    if (!made.ok()) return made.status().With(where);
    xnn_operator* raw = c.Keep(std::move(made).value());
    const float* xp = c.In(x, Layout::kNHWC);
    float* yp = c.Out(y, Layout::kPlain);
    TARE_RETURN_IF_ERROR(SetupGlobalAvgPool(raw, xs[0], xs[2] * xs[3], xp, yp, pool).With(where));
    c.Add([raw, pool, where] { return RunXnn(raw, pool).With(where); });
    c.Done(y);
    return Status::Ok();
  }
  const bool is_max = n.op == "MaxPool";
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> ks, n.GetInts("kernel_shape"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> st, n.GetInts("strides"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> dil, n.GetInts("dilations"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> pads, n.GetInts("pads"));
  TARE_ASSIGN_OR_RETURN(std::string ap, n.GetString("auto_pad", "NOTSET"));
  if (ks[0] * ks[1] == 1) return c.CompileRef(n);  // XNNPACK rejects 1x1 pooling
  int64_t b[2], e[2], s[2], d[2];
  for (int i = 0; i < 2; ++i) {
    s[i] = st.empty() ? 1 : st[i];
    d[i] = dil.empty() ? 1 : dil[i];
    const int64_t in = xs[2 + i], out = ys[2 + i], dk = (ks[i] - 1) * d[i] + 1;
    b[i] = 0;
    if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
      const int64_t total = std::max<int64_t>(0, (out - 1) * s[i] + dk - in);
      b[i] = ap == "SAME_UPPER" ? total / 2 : (total + 1) / 2;
    } else if (ap == "NOTSET" && !pads.empty()) {
      b[i] = pads[i];
    }
    e[i] = std::max<int64_t>(0, (out - 1) * s[i] + dk - in - b[i]);
  }
  // This XNNPACK snapshot's max pooling is wrong with a row dilation > 1, a column dilation of 1
  // and column padding (found by tests/backends/cpu_test.cc): such cases run the reference.
  if (d[0] != d[1] && d[0] != 1) return c.CompileRef(n);
  XnnPoolDesc pd;
  pd.pad_top = b[0];
  pd.pad_left = b[1];
  pd.pad_bottom = e[0];
  pd.pad_right = e[1];
  pd.kh = ks[0];
  pd.kw = ks[1];
  pd.stride_h = s[0];
  pd.stride_w = s[1];
  pd.dil_h = d[0];
  pd.dil_w = d[1];
  pd.channels = xs[1];
  Result<XnnOp> made = is_max ? CreateMaxPool2d(pd, -INFINITY, INFINITY) : CreateAvgPool2d(pd, -INFINITY, INFINITY);
  if (!made.ok()) return c.CompileRef(n);  // a geometry this XNNPACK refuses
  xnn_operator* raw = c.Keep(std::move(made).value());
  const float* xp = c.In(x, Layout::kNHWC);
  float* yp = c.Out(y, Layout::kNHWC);
  TARE_RETURN_IF_ERROR(SetupPool2d(raw, is_max, xs[0], xs[2], xs[3], xp, yp, pool).With(where));
  c.Add([raw, pool, where] { return RunXnn(raw, pool).With(where); });
  c.Done(y);
  return Status::Ok();
}

}  // namespace tare::cpu
