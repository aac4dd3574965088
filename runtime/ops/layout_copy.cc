// Layout ops that move elements (dtype-generic, exact; dispatched from layout.cc):
//   Transpose (ONNX Transpose-13): attribute perm (a permutation of 0..r-1, default reversed);
//     y.dims[i] = x.dims[perm[i]].
//   Concat (ONNX Concat-13): attribute axis (required, in [-r, r)); >= 1 inputs of equal dtype and
//     rank >= 1 whose dims agree except on axis; y's axis dim is their sum.
//   Split (ONNX Split-18): attribute axis=0; optional input 1 `split` (integer, known, one entry
//     >= 0 per output, summing to the axis dim); or attribute num_outputs (Split-18, equal to the
//     output count): chunks of ceil(dim / num_outputs), the last smaller; with neither (Split-13)
//     the dim is split into equal parts, one per output, and must be divisible by their number.
//   Slice (ONNX Slice-13): inputs starts, ends (known integers), optional axes (default 0..n-1, in
//     [-r, r), no duplicates) and steps (default 1, nonzero). Negative starts/ends get the dim
//     added; then for step > 0 start and end are clamped to [0, dim], for step < 0 start to
//     [0, dim-1] and end to [-1, dim-1]; the axis keeps ceil((end - start) / step) elements (>= 0).
//   Gather (ONNX Gather-13): attribute axis=0 in [-r, r), r >= 1; indices int32 or int64 of any
//     rank q, negative values count from the end; y has rank r - 1 + q. An index outside
//     [-dim, dim) is an error (at plan time when the indices are known, otherwise at run time).
//   Expand (ONNX Expand-13): input 1 `shape` (1-D integer, known, entries >= 0); y's shape is the
//     multidirectional broadcast of x's shape and `shape`.
//   Pad (ONNX Pad-13, plus Pad-18's optional `axes` input 3): input 1 `pads` (known integers,
//     [b_1..b_n, e_1..e_n] for the n padded axes, default all axes), optional input 2
//     `constant_value` (one element of x's dtype, default 0; ignored by edge/reflect), attribute
//     mode=constant|reflect|edge|wrap (wrap: Pad-19).
//     Negative pads crop: the cropped range is removed first (the crop on one axis may not exceed
//     its dim), then the remaining range is padded: constant fills the value, edge repeats the
//     border element, reflect mirrors without repeating the border (numpy.pad 'reflect', repeated
//     when the pad is longer than the range), wrap repeats the range periodically (numpy.pad
//     'wrap'). edge/reflect/wrap need a non-empty range to pad.
//   CenterCropPad (ONNX CenterCropPad-18): input 1 `shape` (1-D int32/int64, known, entries >= 0),
//     one target size per axis of attribute axes (default 0..r-1; in [-r, r), no duplicates; its
//     length must equal len(shape)); other axes keep their size. Per axis with input size D and
//     target S: S < D crops the window starting at floor((D - S) / 2) (the odd element is dropped
//     at the end); S > D pads floor((S - D) / 2) zeros before and the rest (the odd one) after.
#include <algorithm>

#include "runtime/ops/data_dependent.h"
#include "runtime/ops/specs.h"

namespace tare {
namespace layout_spec {

Status CheckStorable(const InferContext& ctx, size_t i);
Result<std::vector<int64_t>> UniqueAxes(const std::vector<int64_t>& axes, int64_t rank,
                                        const InferContext& ctx, const char* what);

namespace {
/// Reads the required integer attribute `name` (error when absent).
Result<int64_t> RequiredInt(const InferContext& ctx, const char* name) {
  if (!ctx.node.has(name)) return ctx.Error(std::string("attribute '") + name + "' is required");
  return ctx.node.GetInt(name, 0);
}
}  // namespace

Status InferTranspose(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  TARE_RETURN_IF_ERROR(CheckStorable(ctx, 0));
  const Shape& x = ctx.in[0].shape;
  const int64_t r = static_cast<int64_t>(x.size());
  std::vector<int64_t> dflt(x.size());
  for (int64_t i = 0; i < r; ++i) dflt[i] = r - 1 - i;
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> perm, ctx.node.GetInts("perm", dflt));
  if (static_cast<int64_t>(perm.size()) != r)
    return ctx.Error("attribute 'perm' has " + std::to_string(perm.size()) + " entries, input rank is " + std::to_string(r));
  std::vector<bool> seen(x.size(), false);
  Shape out(x.size());
  for (int64_t i = 0; i < r; ++i) {
    if (perm[i] < 0 || perm[i] >= r || seen[perm[i]])
      return ctx.Error("attribute 'perm' " + ShapeStr(perm) + " is not a permutation of 0.." + std::to_string(r - 1));
    seen[perm[i]] = true;
    out[i] = x[perm[i]];
  }
  ctx.SetOut(0, ctx.in[0].dtype, out);
  return Status::Ok();
}

Status InferConcat(InferContext& ctx) {
  const int n = ctx.node.NumInputs();
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, n < 1 ? 1 : n));
  TARE_ASSIGN_OR_RETURN(int64_t axis_attr, RequiredInt(ctx, "axis"));
  const Shape& x0 = ctx.in[0].shape;
  const int64_t r = static_cast<int64_t>(x0.size());
  if (r == 0) return ctx.Error("inputs must have rank >= 1");
  TARE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, r, ctx, "attribute 'axis'"));
  Shape out = x0;
  out[axis] = 0;
  for (int i = 0; i < n; ++i) {
    if (!ctx.has(i)) return ctx.Error("input " + std::to_string(i) + " is missing");
    TARE_RETURN_IF_ERROR(CheckStorable(ctx, i));
    const Shape& xi = ctx.in[i].shape;
    if (ctx.in[i].dtype != ctx.in[0].dtype)
      return ctx.Error("input " + std::to_string(i) + " has type " + DTypeName(ctx.in[i].dtype) + ", input 0 has " +
                       DTypeName(ctx.in[0].dtype));
    bool ok = xi.size() == x0.size();
    for (int64_t d = 0; ok && d < r; ++d) ok = d == axis || xi[d] == x0[d];
    if (!ok)
      return ctx.Error("input " + std::to_string(i) + " shape " + ShapeStr(xi) + " does not match input 0 shape " +
                       ShapeStr(x0) + " outside axis " + std::to_string(axis));
    out[axis] += xi[axis];
  }
  ctx.SetOut(0, ctx.in[0].dtype, out);
  return Status::Ok();
}

Status InferSplit(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 2));
  TARE_RETURN_IF_ERROR(CheckStorable(ctx, 0));
  if (ctx.node.has("split")) return ctx.Error("attribute 'split' (Split-11) is not accepted: give input 'split' (Split-13)");
  const Shape& x = ctx.in[0].shape;
  TARE_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.node.GetInt("axis", 0));
  TARE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, static_cast<int64_t>(x.size()), ctx, "attribute 'axis'"));
  if (x.empty()) return ctx.Error("input must have rank >= 1");
  const int64_t n_out = static_cast<int64_t>(ctx.node.outputs.size());
  if (n_out < 1) return ctx.Error("needs at least one output");
  std::vector<int64_t> sizes;
  if (ctx.has(1)) {
    if (ctx.node.has("num_outputs")) return ctx.Error("give input 'split' or attribute 'num_outputs', not both");
    TARE_ASSIGN_OR_RETURN(sizes, ctx.KnownInts(1, "split"));
    if (static_cast<int64_t>(sizes.size()) != n_out)
      return ctx.Error("input 'split' has " + std::to_string(sizes.size()) + " entries for " + std::to_string(n_out) + " outputs");
    int64_t sum = 0;
    for (int64_t s : sizes) {
      if (s < 0 || s > x[axis]) return ctx.Error("input 'split' " + ShapeStr(sizes) + " has an invalid size " + std::to_string(s));
      sum += s;
    }
    if (sum != x[axis])
      return ctx.Error("input 'split' " + ShapeStr(sizes) + " sums to " + std::to_string(sum) + ", axis " +
                       std::to_string(axis) + " has dim " + std::to_string(x[axis]));
  } else if (ctx.node.has("num_outputs")) {
    // Split-18: chunks of ceil(dim / num_outputs), the last one smaller when dim is not a multiple.
    TARE_ASSIGN_OR_RETURN(int64_t num, ctx.node.GetInt("num_outputs", 0));
    if (num != n_out)
      return ctx.Error("attribute 'num_outputs' is " + std::to_string(num) + " but the node has " + std::to_string(n_out) + " outputs");
    sizes = SplitSizes(x[axis], n_out);
    if (sizes.back() <= 0 && x[axis] > 0)
      return ctx.Error("dim " + std::to_string(x[axis]) + " of axis " + std::to_string(axis) + " cannot be split into " +
                       std::to_string(n_out) + " chunks of " + std::to_string(sizes[0]) + " (the last would be empty)");
  } else {
    if (x[axis] % n_out != 0)
      return ctx.Error("dim " + std::to_string(x[axis]) + " of axis " + std::to_string(axis) + " cannot be split into " +
                       std::to_string(n_out) + " equal parts");
    sizes.assign(n_out, x[axis] / n_out);
  }
  for (int64_t i = 0; i < n_out; ++i) {
    if (ctx.node.outputs[i] < 0) continue;
    Shape s = x;
    s[axis] = sizes[i];
    ctx.SetOut(i, ctx.in[0].dtype, s);
  }
  return Status::Ok();
}

Status InferSlice(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(3, 5));
  TARE_RETURN_IF_ERROR(CheckStorable(ctx, 0));
  const Shape& x = ctx.in[0].shape;
  const int64_t r = static_cast<int64_t>(x.size());
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> starts, ctx.KnownInts(1, "starts"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> ends, ctx.KnownInts(2, "ends"));
  const size_t n = starts.size();
  if (ends.size() != n) return ctx.Error("inputs 'starts' and 'ends' have different lengths");
  std::vector<int64_t> raw_axes(n), steps(n, 1);
  for (size_t i = 0; i < n; ++i) raw_axes[i] = static_cast<int64_t>(i);
  if (ctx.has(3)) {
    TARE_ASSIGN_OR_RETURN(raw_axes, ctx.KnownInts(3, "axes"));
  }
  if (ctx.has(4)) {
    TARE_ASSIGN_OR_RETURN(steps, ctx.KnownInts(4, "steps"));
  }
  if (raw_axes.size() != n || steps.size() != n)
    return ctx.Error("inputs 'starts', 'ends', 'axes', 'steps' must have the same length");
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, UniqueAxes(raw_axes, r, ctx, "axes"));
  Shape out = x;
  for (size_t i = 0; i < n; ++i) {
    const int64_t dim = x[axes[i]], step = steps[i];
    if (step == 0) return ctx.Error("steps[" + std::to_string(i) + "] is 0");
    if (dim == 0) {
      out[axes[i]] = 0;
      continue;
    }
    int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      out[axes[i]] = e > s ? 1 + (e - s - 1) / step : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      // -step may overflow for INT64_MIN: any |step| >= dim takes one element, so cap it there.
      const int64_t mag = step < -dim ? dim : -step;
      out[axes[i]] = s > e ? 1 + (s - e - 1) / mag : 0;
    }
  }
  ctx.SetOut(0, ctx.in[0].dtype, out);
  return Status::Ok();
}

Status InferGather(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
  TARE_RETURN_IF_ERROR(CheckStorable(ctx, 0));
  const Shape& x = ctx.in[0].shape;
  const ValueInfo& idx = ctx.in[1];
  if (x.empty()) return ctx.Error("input 'data' must have rank >= 1");
  if (idx.dtype != DType::kInt64 && idx.dtype != DType::kInt32)
    return ctx.Error("input 'indices' must be int32 or int64, got " + DTypeName(idx.dtype));
  TARE_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.node.GetInt("axis", 0));
  TARE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, static_cast<int64_t>(x.size()), ctx, "attribute 'axis'"));
  if (idx.value) {
    const int64_t count = idx.value->numel();
    for (int64_t i = 0; i < count; ++i) {
      const int64_t v = ReadInt(*idx.value, i);
      if (v < -x[axis] || v >= x[axis])
        return ctx.Error("index " + std::to_string(v) + " is out of range for axis " + std::to_string(axis) +
                         " of size " + std::to_string(x[axis]));
    }
  }
  Shape out(x.begin(), x.begin() + axis);
  out.insert(out.end(), idx.shape.begin(), idx.shape.end());
  out.insert(out.end(), x.begin() + axis + 1, x.end());
  ctx.SetOut(0, ctx.in[0].dtype, out);
  return Status::Ok();
}

Status InferExpand(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
  TARE_RETURN_IF_ERROR(CheckStorable(ctx, 0));
  if (ctx.in[1].shape.size() != 1) return ctx.Error("input 'shape' must be 1-D, got shape " + ShapeStr(ctx.in[1].shape));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ctx.KnownInts(1, "shape"));
  for (int64_t d : shape)
    if (d < 0) return ctx.Error("input 'shape' " + ShapeStr(shape) + " has a negative dim");
  Result<Shape> out = BroadcastShapes(ctx.in[0].shape, shape);
  if (!out.ok()) return ctx.Error(out.status().message());
  ctx.SetOut(0, ctx.in[0].dtype, *out);
  return Status::Ok();
}

Status InferPad(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 4));
  TARE_RETURN_IF_ERROR(CheckStorable(ctx, 0));
  const Shape& x = ctx.in[0].shape;
  const int64_t r = static_cast<int64_t>(x.size());
  TARE_ASSIGN_OR_RETURN(std::string mode, ctx.node.GetString("mode", "constant"));
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
    return ctx.Error("attribute 'mode' must be constant, reflect, edge or wrap (Pad-19), got '" + mode + "'");
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ctx.KnownInts(1, "pads"));
  std::vector<int64_t> axes(x.size());
  for (int64_t i = 0; i < r; ++i) axes[i] = i;
  if (ctx.has(3)) {
    TARE_ASSIGN_OR_RETURN(std::vector<int64_t> raw, ctx.KnownInts(3, "axes"));
    TARE_ASSIGN_OR_RETURN(axes, UniqueAxes(raw, r, ctx, "axes"));
  }
  if (pads.size() != 2 * axes.size())
    return ctx.Error("input 'pads' has " + std::to_string(pads.size()) + " entries, expected " +
                     std::to_string(2 * axes.size()) + " (2 per padded axis)");
  if (ctx.has(2)) {
    if (ctx.in[2].dtype != ctx.in[0].dtype)
      return ctx.Error("input 'constant_value' has type " + DTypeName(ctx.in[2].dtype) + ", data has " + DTypeName(ctx.in[0].dtype));
    Result<int64_t> count = NumElements(ctx.in[2].shape);
    if (!count.ok() || *count != 1)
      return ctx.Error("input 'constant_value' must hold one element, got shape " + ShapeStr(ctx.in[2].shape));
  }
  Shape out = x;
  const size_t n = axes.size();
  for (size_t i = 0; i < n; ++i) {
    const int64_t d = x[axes[i]], b = pads[i], e = pads[i + n];
    const int64_t limit = kMaxElements;  // keeps the sums below from overflowing
    if (b > limit || e > limit || b < -limit || e < -limit)
      return ctx.Error("pads " + ShapeStr(pads) + " has an entry too large in magnitude");
    const int64_t kept = d - std::max<int64_t>(0, -b) - std::max<int64_t>(0, -e);
    if (kept < 0)
      return ctx.Error("negative pads " + std::to_string(b) + ", " + std::to_string(e) + " crop more than dim " +
                       std::to_string(d) + " of axis " + std::to_string(axes[i]));
    if (mode != "constant" && kept == 0 && (b > 0 || e > 0))
      return ctx.Error("mode '" + mode + "' cannot pad axis " + std::to_string(axes[i]) + ": it has no elements to repeat");
    out[axes[i]] = d + b + e;
  }
  ctx.SetOut(0, ctx.in[0].dtype, out);
  return Status::Ok();
}

Status InferCenterCropPad(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
  TARE_RETURN_IF_ERROR(CheckStorable(ctx, 0));
  const Shape& x = ctx.in[0].shape;
  const int64_t r = static_cast<int64_t>(x.size());
  if (ctx.in[1].dtype != DType::kInt64 && ctx.in[1].dtype != DType::kInt32)
    return ctx.Error("input 'shape' must be int32 or int64, got " + DTypeName(ctx.in[1].dtype));
  if (ctx.in[1].shape.size() != 1) return ctx.Error("input 'shape' must be 1-D, got shape " + ShapeStr(ctx.in[1].shape));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> target, ctx.KnownInts(1, "shape"));
  std::vector<int64_t> axes(x.size());
  for (int64_t i = 0; i < r; ++i) axes[i] = i;
  if (ctx.node.has("axes")) {
    TARE_ASSIGN_OR_RETURN(std::vector<int64_t> raw, ctx.node.GetInts("axes"));
    TARE_ASSIGN_OR_RETURN(axes, UniqueAxes(raw, r, ctx, "attribute 'axes'"));
  }
  if (target.size() != axes.size())
    return ctx.Error("input 'shape' has " + std::to_string(target.size()) + " entries, expected " +
                     std::to_string(axes.size()) + " (one per axis of " +
                     (ctx.node.has("axes") ? "attribute 'axes'" : "the input") + ")");
  Shape out = x;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (target[i] < 0 || target[i] > kMaxElements)
      return ctx.Error("shape[" + std::to_string(i) + "] = " + std::to_string(target[i]) + " must be in [0, 2^40]");
    out[axes[i]] = target[i];
  }
  ctx.SetOut(0, ctx.in[0].dtype, out);
  return Status::Ok();
}

}  // namespace layout_spec
}  // namespace tare
