// Data movement on the cpu backend (own code; exact):
//   Flatten, Reshape, Squeeze, Unsqueeze: the output is plain; from an NHWC-held input the
//     transpose to NCHW order is written straight into the output (a copy otherwise).
//   Concat: strided row copies in the layout the inputs are held in (NHWC when one is; the
//     channel axis is then the last). Inputs a convolution already wrote into the output
//     (Compiler::PlaceInConcat) are skipped.
//   Transpose: any permutation of a plain input (rank <= 6 fast path; the NHWC-held input with
//     perm (0, 2, 3, 1) is a copy).
//   Pad (constant mode, non-negative pads): fill, then row copies; NHWC when the input is held so.
//   Slice (ONNX Slice-13, known starts/ends/axes/steps, any sign): one strided copy of a plain
//     input, the geometry the reference's (kernels/ref/slice_geometry.h).
#include <algorithm>
#include <cstring>

#include "backends/cpu/ops.h"
#include "kernels/ref/slice_geometry.h"

namespace tare::cpu {
namespace {

constexpr size_t kTile = size_t(1) << 14;

/// Axis a of a 4-D NCHW shape as an axis of the NHWC order.
int64_t NhwcAxis(int64_t a) {
  static const int64_t m[4] = {0, 3, 1, 2};
  return m[a];
}

Shape InLayout(const Shape& s, Layout l) { return l == Layout::kNHWC ? NhwcShape(s) : s; }

size_t Prod(const Shape& s, size_t from, size_t to) {
  size_t p = 1;
  for (size_t i = from; i < to; ++i) p *= static_cast<size_t>(s[i]);
  return p;
}

}  // namespace

void AddStridedCopy(Compiler& c, const float* xp, int64_t base, const std::vector<int64_t>& od, const std::vector<int64_t>& is, float* yp) {
  const size_t r = od.size();
  size_t count = 1;
  for (int64_t d : od) count *= static_cast<size_t>(d);
  const size_t inner = static_cast<size_t>(od[r - 1]), rows = count / inner;
  const int64_t istep = is[r - 1];
  ThreadPool* pool = c.pool();
  c.Add([=] {
    pool->ParallelFor(rows, std::max<size_t>(1, kTile / inner), [&](size_t b, size_t e) {
      for (size_t row = b; row < e; ++row) {
        int64_t rem = static_cast<int64_t>(row), off = base;
        for (size_t k = r - 1; k-- > 0;) {
          off += (rem % od[k]) * is[k];
          rem /= od[k];
        }
        float* yr = yp + row * inner;
        if (istep == 1) std::memcpy(yr, xp + off, inner * sizeof(float));
        else
          for (size_t j = 0; j < inner; ++j) yr[j] = xp[off + static_cast<int64_t>(j) * istep];
      }
    });
    return Status::Ok();
  });
}

bool SupportsReshape(const Node& n, const Graph& g, const GraphInfo& info) {
  if (n.inputs.empty() || !IsF32(g, n.inputs[0])) return false;
  for (size_t i = 1; i < n.inputs.size(); ++i)
    if (n.inputs[i] >= 0 && !Known(info, n.inputs[i])) return false;
  return true;
}

Status CompileReshape(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  const size_t count = static_cast<size_t>(c.slot(x).numel());
  float* yp = c.Out(y, Layout::kPlain);
  ThreadPool* pool = c.pool();
  if (c.LayoutMatters(x) && !c.PlainRep(x)) {
    const Shape& s = c.shape(x);
    const float* xp = c.NhwcRep(x);
    const size_t N = s[0], C = s[1], HW = s[2] * s[3];
    c.Add([=] { NhwcToNchw(xp, yp, N, C, HW, pool); return Status::Ok(); });
  } else {
    const float* xp = c.In(x, Layout::kPlain);
    c.Add([=] { CopyFloats(xp, yp, count, pool); return Status::Ok(); });
  }
  c.Done(y);
  return Status::Ok();
}

Status CompileConcat(Compiler& c, const Node& n) {
  const int y = n.outputs[0];
  const Shape& ys = c.shape(y);
  if (c.slot(y).numel() == 0) return c.CompileRef(n);
  TARE_ASSIGN_OR_RETURN(int64_t axis, n.GetInt("axis", 0));
  if (axis < 0) axis += static_cast<int64_t>(ys.size());
  bool nhwc = ys.size() == 4 && c.LayoutMatters(y);
  bool any = false;
  for (int v : n.inputs) any = any || c.HasNHWC(v) || c.PlacedInConcat(v);
  nhwc = nhwc && any;
  const Layout l = nhwc ? Layout::kNHWC : Layout::kPlain;
  const size_t ax = static_cast<size_t>(nhwc ? NhwcAxis(axis) : axis);
  const Shape yl = InLayout(ys, l);
  const size_t outer = Prod(yl, 0, ax), row = Prod(yl, ax, yl.size());
  struct Part {
    const float* x;
    size_t len, off;
  };
  auto parts = std::make_shared<std::vector<Part>>();
  size_t off = 0;
  for (int v : n.inputs) {
    const size_t len = Prod(InLayout(c.shape(v), l), ax, yl.size());
    if (len && !c.PlacedInConcat(v)) parts->push_back({c.In(v, l), len, off});  // placed: already there
    off += len;
  }
  float* yp = c.ConcatOut(y);
  if (!yp) yp = c.Out(y, l);
  if (parts->empty()) {
    c.Done(y);
    return Status::Ok();
  }
  ThreadPool* pool = c.pool();
  c.Add([=] {
    pool->ParallelFor(outer, std::max<size_t>(1, kTile / row), [=](size_t b, size_t e) {
      for (size_t o = b; o < e; ++o)
        for (const Part& p : *parts) std::memcpy(yp + o * row + p.off, p.x + o * p.len, p.len * sizeof(float));
    });
    return Status::Ok();
  });
  c.Done(y);
  return Status::Ok();
}

bool SupportsTranspose(const Node& n, const Graph& g, const GraphInfo&) {
  return n.inputs.size() == 1 && IsF32(g, n.inputs[0]);
}

Status CompileTranspose(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  const Shape& xs = c.shape(x);
  const size_t r = xs.size();
  std::vector<int64_t> dflt(r);
  for (size_t i = 0; i < r; ++i) dflt[i] = static_cast<int64_t>(r - 1 - i);
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> perm, n.GetInts("perm", dflt));
  const size_t count = static_cast<size_t>(c.slot(x).numel());
  if (count == 0 || r == 0 || r > 6) return c.CompileRef(n);
  ThreadPool* pool = c.pool();
  float* yp = c.Out(y, Layout::kPlain);
  if (c.LayoutMatters(x) && !c.PlainRep(x) && perm == std::vector<int64_t>{0, 2, 3, 1}) {
    const float* xp = c.NhwcRep(x);
    c.Add([=] { CopyFloats(xp, yp, count, pool); return Status::Ok(); });
    c.Done(y);
    return Status::Ok();
  }
  const float* xp = c.In(x, Layout::kPlain);
  // Output dims and the input stride of each output axis.
  std::vector<int64_t> od(r), is(r), xstride(r);
  int64_t st = 1;
  for (size_t i = r; i-- > 0;) {
    xstride[i] = st;
    st *= xs[i];
  }
  for (size_t k = 0; k < r; ++k) {
    od[k] = xs[perm[k]];
    is[k] = xstride[perm[k]];
  }
  AddStridedCopy(c, xp, 0, od, is, yp);
  c.Done(y);
  return Status::Ok();
}

bool SupportsSlice(const Node& n, const Graph& g, const GraphInfo& info) {
  return n.NumInputs() >= 3 && n.NumInputs() <= 5 && FloatDataKnownParams(n, g, info);
}

Status CompileSlice(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  const Shape& xs = c.shape(x);
  if (c.slot(y).numel() == 0 || xs.empty()) return c.CompileRef(n);
  int64_t base = 0;
  std::vector<int64_t> stride;
  TARE_RETURN_IF_ERROR(
      SliceGeometryOf(n, [&](int v) -> const Tensor& { return c.slot(v); }, xs, c.shape(y), &base, &stride).With(n.Where()));
  const float* xp = c.In(x, Layout::kPlain);
  float* yp = c.Out(y, Layout::kPlain);
  AddStridedCopy(c, xp, base, c.shape(y), stride, yp);
  c.Done(y);
  return Status::Ok();
}

bool SupportsSplit(const Node& n, const Graph& g, const GraphInfo& info) { return FloatDataKnownParams(n, g, info); }

Status CompileSplit(Compiler& c, const Node& n) {
  const int x = n.inputs[0];
  const Shape& xs = c.shape(x);
  const int64_t r = static_cast<int64_t>(xs.size());
  TARE_ASSIGN_OR_RETURN(int64_t axis, n.GetInt("axis", 0));
  if (axis < 0) axis += r;
  if (r == 0 || axis < 0 || axis >= r) return c.CompileRef(n);
  for (int y : n.outputs)  // an absent output still takes its part: the reference splits
    if (y < 0 || c.shape(y).size() != xs.size() || c.slot(y).dtype != DType::kFloat32) return c.CompileRef(n);
  std::vector<int64_t> xst(static_cast<size_t>(r), 1);
  for (int64_t i = r - 1; i > 0; --i) xst[size_t(i - 1)] = xst[size_t(i)] * xs[size_t(i)];
  const float* xp = c.In(x, Layout::kPlain);
  int64_t start = 0;  // along axis: the outputs' extents follow each other (shape inference)
  for (int y : n.outputs) {
    const Shape& ys = c.shape(y);
    float* yp = c.Out(y, Layout::kPlain);
    if (c.slot(y).numel() > 0) AddStridedCopy(c, xp, start * xst[size_t(axis)], ys, xst, yp);
    start += ys[size_t(axis)];
    c.Done(y);
  }
  return Status::Ok();
}

bool SupportsGather(const Node& n, const Graph& g, const GraphInfo&) {
  return n.NumInputs() == 2 && IsF32(g, n.inputs[0]);
}

Status CompileGather(Compiler& c, const Node& n) { return c.CompileRef(n); }

bool SupportsPad(const Node& n, const Graph& g, const GraphInfo& info) {
  Result<std::string> mode = n.GetString("mode", "constant");
  if (!mode.ok() || *mode != "constant" || n.NumInputs() < 2 || n.NumInputs() > 3) return false;
  if (!IsF32(g, n.inputs[0]) || !Known(info, n.inputs[1])) return false;
  return n.NumInputs() < 3 || n.inputs[2] < 0 || Known(info, n.inputs[2]);
}

Status CompilePad(Compiler& c, const Node& n) {
  const int x = n.inputs[0], y = n.outputs[0];
  const Shape& xs = c.shape(x);
  const size_t r = xs.size();
  const Tensor& pt = c.slot(n.inputs[1]);
  std::vector<int64_t> pads(static_cast<size_t>(pt.numel()));
  for (size_t i = 0; i < pads.size(); ++i) pads[i] = ReadInt(pt, static_cast<int64_t>(i));
  bool negative = std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p < 0; });
  if (negative || r == 0 || pads.size() != 2 * r || c.slot(x).numel() == 0) return c.CompileRef(n);
  const float value = n.inputs.size() > 2 && n.inputs[2] >= 0 ? c.slot(n.inputs[2]).as<float>()[0] : 0.0f;
  const Layout l = r == 4 && c.HasNHWC(x) ? Layout::kNHWC : Layout::kPlain;
  const Shape xl = InLayout(xs, l), yl = InLayout(c.shape(y), l);
  std::vector<size_t> begin(pads.begin(), pads.begin() + r);  // begin pads, in the layout's axis order
  if (l == Layout::kNHWC) begin = {size_t(pads[0]), size_t(pads[2]), size_t(pads[3]), size_t(pads[1])};
  const float* xp = c.In(x, l);
  float* yp = c.Out(y, l);
  const size_t inner = static_cast<size_t>(xl[r - 1]), rows = static_cast<size_t>(c.slot(x).numel()) / inner;
  const size_t total = static_cast<size_t>(c.slot(y).numel());
  std::vector<size_t> ystride(r);
  size_t st = 1;
  for (size_t i = r; i-- > 0;) {
    ystride[i] = st;
    st *= static_cast<size_t>(yl[i]);
  }
  std::vector<size_t> xd(xl.begin(), xl.end());
  ThreadPool* pool = c.pool();
  c.Add([=] {
    pool->ParallelFor(total, kTile, [=](size_t b, size_t e) { std::fill(yp + b, yp + e, value); });
    pool->ParallelFor(rows, std::max<size_t>(1, kTile / inner), [&](size_t b, size_t e) {
      for (size_t row = b; row < e; ++row) {
        size_t rem = row, off = begin[r - 1];
        for (size_t k = r - 1; k-- > 0;) {
          off += (rem % xd[k] + begin[k]) * ystride[k];
          rem /= xd[k];
        }
        std::memcpy(yp + off, xp + row * inner, inner * sizeof(float));
      }
    });
    return Status::Ok();
  });
  c.Done(y);
  return Status::Ok();
}

}  // namespace tare::cpu
