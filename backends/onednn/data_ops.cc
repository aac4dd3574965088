// The onednn backend's data movement and reductions for transformer graphs (issue 23): Transpose
// and Slice as reorders of strided views, Gather as the reference kernel inside the partition,
// ReduceMean as oneDNN's reduction. Registered in ops.cc's table (declared in op_util.h).
#include "backends/common/patterns.h"
#include "backends/onednn/op_util.h"
#include "kernels/ref/slice_geometry.h"

namespace tare::onednn {

// ---- Gather (ONNX Gather-13) ----------------------------------------------------------------

bool SupportsGather(const Node& n, const Graph& g, const GraphInfo&) {
  return n.domain.empty() && n.NumInputs() == 2 && IsF32(g, n.inputs[0]);
}

/// Gather of float data: the reference kernel inside the partition (one memcpy per block; oneDNN
/// has no gather), so an embedding lookup does not split the partition.
Status CompileGather(Compiler& c, const Node& n) { return c.CompileRef(n); }

// ---- Transpose (ONNX Transpose-13) -----------------------------------------------------------

bool SupportsTranspose(const Node& n, const Graph& g, const GraphInfo&) {
  return n.NumInputs() == 1 && IsF32(g, n.inputs[0]);
}

/// A reorder from x viewed in y's dim order (x's strides permuted) into y row-major.
Status CompileTranspose(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  const Shape& xs = c.shape(x);
  const size_t r = xs.size();
  if (!c.F32(x) || !c.F32(y) || r == 0 || r > DNNL_MAX_NDIMS) return c.CompileRef(n);
  std::vector<int64_t> perm(r);
  for (size_t i = 0; i < r; ++i) perm[i] = static_cast<int64_t>(r - 1 - i);
  if (n.attrs.count("perm")) {
    TARE_ASSIGN_OR_RETURN(perm, n.GetInts("perm"));
    if (perm.size() != r) return c.CompileRef(n);
  }
  memory::dims xstr(r), yd(r), vst(r);
  int64_t st = 1;
  for (size_t i = r; i-- > 0;) {
    xstr[i] = st;
    st *= xs[i];
  }
  for (size_t i = 0; i < r; ++i) {
    const int64_t p = perm[i] < 0 ? perm[i] + static_cast<int64_t>(r) : perm[i];
    if (p < 0 || p >= static_cast<int64_t>(r)) return c.CompileRef(n);
    yd[i] = xs[size_t(p)];
    vst[i] = xstr[size_t(p)];
  }
  memory src = View(c, c.Plain(x), memory::desc(yd, dt::f32, vst));
  memory dst = View(c, c.Out(y, c.PlainDesc(y), {x}), RowMajor(yd));
  c.Add(dnnl::reorder(src, dst), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}}, "reorder (transpose)");
  c.Done(y);
  return Status::Ok();
}

// ---- Slice (ONNX Slice-13) --------------------------------------------------------------------

bool SupportsSlice(const Node& n, const Graph& g, const GraphInfo& info) {
  return n.NumInputs() >= 3 && n.NumInputs() <= 5 && FloatDataKnownParams(n, g, info);
}

/// A reorder from x viewed with y's dims at the first element's offset and x's strides times the
/// steps (kernels/ref/slice_geometry.h, the reference's geometry) into y row-major. Negative steps
/// (negative strides, which oneDNN does not take) and empty outputs run the reference kernel.
Status CompileSlice(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  const Shape& xs = c.shape(x);
  if (!c.F32(x) || !c.F32(y) || xs.empty() || xs.size() > DNNL_MAX_NDIMS) return c.CompileRef(n);
  int64_t base = 0;
  std::vector<int64_t> stride;
  TARE_RETURN_IF_ERROR(
      SliceGeometryOf(n, [&](int v) -> const Tensor& { return c.slot(v); }, xs, c.shape(y), &base, &stride).With(n.Where()));
  for (int64_t st : stride)
    if (st < 0) return c.CompileRef(n);
  const memory::dims yd = Dims(c.shape(y));
  memory src(memory::desc(yd, dt::f32, memory::dims(stride.begin(), stride.end())), c.engine(),
             static_cast<float*>(c.Plain(x).get_data_handle()) + base);
  memory dst = View(c, c.Out(y, c.PlainDesc(y), {x}), RowMajor(yd));
  c.Add(dnnl::reorder(src, dst), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}}, "reorder (slice)");
  c.Done(y);
  return Status::Ok();
}

/// ONNX Split-18: each output a reorder from x viewed at its part along the axis (x's strides)
/// into the output row-major. Absent, empty or non-float outputs and rank over DNNL_MAX_NDIMS run
/// the reference kernel.
Status CompileSplit(Compiler& c, const Node& n) {
  const int x = n.inputs[0];
  const Shape& xs = c.shape(x);
  const int64_t r = static_cast<int64_t>(xs.size());
  TARE_ASSIGN_OR_RETURN(int64_t axis, n.GetInt("axis", 0));
  if (axis < 0) axis += r;
  if (!c.F32(x) || r == 0 || r > DNNL_MAX_NDIMS || axis < 0 || axis >= r) return c.CompileRef(n);
  for (int y : n.outputs)  // an absent output still takes its part: the reference splits
    if (y < 0 || c.shape(y).size() != xs.size() || !c.F32(y)) return c.CompileRef(n);  // F32: not empty either
  memory::dims xst(static_cast<size_t>(r), 1);
  for (int64_t i = r - 1; i > 0; --i) xst[size_t(i - 1)] = xst[size_t(i)] * xs[size_t(i)];
  float* xp = static_cast<float*>(c.Plain(x).get_data_handle());
  int64_t start = 0;  // along axis: the outputs' extents follow each other (shape inference)
  for (int y : n.outputs) {
    const memory::dims yd = Dims(c.shape(y));
    memory src(memory::desc(yd, dt::f32, xst), c.engine(), xp + start * xst[size_t(axis)]);
    memory dst = View(c, c.Out(y, c.PlainDesc(y), {x}), RowMajor(yd));
    c.Add(dnnl::reorder(src, dst), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}}, "reorder (split)");
    start += yd[size_t(axis)];
    c.Done(y);
  }
  return Status::Ok();
}

// ---- ReduceMean (ONNX ReduceMean-13 with `axes` as an attribute, ReduceMean-18 as an input) --

namespace {

/// The reduced axes of n over rank r (sorted, unique, non-negative), from the attribute or a
/// known input; empty axes mean all (unless noop_with_empty_axes, then false).
bool MeanAxes(const Compiler& c, const Node& n, size_t r, std::vector<char>* reduced) {
  Result<std::vector<int64_t>> got = patterns::ReduceAxes(c, n);
  if (!got.ok()) return false;
  const std::vector<int64_t>& axes = *got;
  Result<int64_t> noop = n.GetInt("noop_with_empty_axes", 0);
  if (!noop.ok() || (axes.empty() && *noop)) return false;
  reduced->assign(r, axes.empty() ? 1 : 0);
  for (int64_t a : axes) {
    if (a < 0) a += static_cast<int64_t>(r);
    if (a < 0 || a >= static_cast<int64_t>(r)) return false;
    (*reduced)[size_t(a)] = 1;
  }
  return true;
}

}  // namespace

bool SupportsReduceMean(const Node& n, const Graph& g, const GraphInfo& info) {
  if (n.inputs.empty() || !IsF32(g, n.inputs[0])) return false;
  return n.inputs.size() < 2 || n.inputs[1] < 0 || Known(info, n.inputs[1]);
}

/// dnnl::reduction (reduction_mean) into y's plain bytes viewed with keepdims' shape.
Status CompileReduceMean(Compiler& c, const Node& n) {
  TARE_ASSIGN_OR_RETURN(bool layer_norm, TryLayerNorm(c, n));
  if (layer_norm) return Status::Ok();
  const int x = n.inputs[0], y = n.outputs[0];
  const Shape& xs = c.shape(x);
  const size_t r = xs.size();
  std::vector<char> reduced;
  if (!c.F32(x) || !c.F32(y) || r == 0 || r > DNNL_MAX_NDIMS || !MeanAxes(c, n, r, &reduced)) return c.CompileRef(n);
  memory::dims xd(xs.begin(), xs.end()), yd(xd);
  for (size_t i = 0; i < r; ++i)
    if (reduced[i]) yd[i] = 1;
  if (yd == xd) return c.CompileRef(n);  // nothing reduced: a copy, left to ref
  memory src = c.Plain(x);
  const memory::desc dst_md = RowMajor(yd);
  dnnl::reduction::desc d(algorithm::reduction_mean, RowMajor(xd), dst_md, 0.0f, 0.0f);
  dnnl::reduction::primitive_desc pd(d, c.engine());
  memory dst = View(c, c.Out(y, c.PlainDesc(y), {x}), dst_md);
  c.Add(dnnl::reduction(pd), {{DNNL_ARG_SRC, View(c, src, RowMajor(xd))}, {DNNL_ARG_DST, dst}}, pd.impl_info_str());
  c.Done(y);
  return Status::Ok();
}

}  // namespace tare::onednn
