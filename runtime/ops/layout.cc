// Layout family: data-movement and shape ops. They never compute on values, so every one is
// dtype-generic (any storable type: float16/32/64, int8..int64, uint8..uint64, bool) and exact.
// This file holds the dispatch, the shared validation helpers and the ops that only reinterpret
// or create data; layout_copy.cc holds the ops that move elements (Transpose, Concat, Split,
// Slice, Gather, Expand, Pad, CenterCropPad).
//   Flatten (ONNX Flatten-13): attribute axis=1 in [-r, r]; y is 2-D
//     [d0*...*d(axis-1), d(axis)*...*d(r-1)] (an empty product is 1).
//   Reshape (ONNX Reshape-14): input 1 `shape` (1-D integer, known at plan time); attribute
//     allowzero=0. A 0 copies the input dim at that index (allowzero=0) or means a zero dim
//     (allowzero=1; then 0 and -1 together are an error); at most one -1, inferred from the element
//     count; other entries must be >= 0; element counts must match.
//   Squeeze (ONNX Squeeze-13): optional input 1 `axes` (integer, known); axes in [-r, r), no
//     duplicates, each selected dim must be 1; without axes every dim equal to 1 is removed.
//   Unsqueeze (ONNX Unsqueeze-13): input 1 `axes` (integer, known), in [-r', r') with
//     r' = r + len(axes), no duplicates; a 1 is inserted at each of those output positions.
//   Shape (ONNX Shape-15): attributes start=0, end=r; negative values get r added, then both are
//     clamped to [0, r]; y is the int64 vector dims[start:end] (empty when end <= start).
//   Constant (ONNX Constant-13): exactly one of value (tensor), value_float (float32 scalar),
//     value_floats (float32 1-D), value_int (int64 scalar), value_ints (int64 1-D);
//     sparse_value and value_string(s) are not supported.
//   ConstantOfShape (ONNX ConstantOfShape-9): input 0 `shape` (1-D int64, known, dims >= 0);
//     attribute value = a one-element tensor whose dtype is y's (default float32 0).
#include <algorithm>

#include "runtime/ops/specs.h"

namespace tare {
namespace layout_spec {

/// Input i must hold a plain storable type (not string/undefined).
Status CheckStorable(const InferContext& ctx, size_t i) {
  if (DTypeSize(ctx.in[i].dtype) == 0)
    return ctx.Error("input " + std::to_string(i) + " has unsupported type " + DTypeName(ctx.in[i].dtype));
  return Status::Ok();
}

/// Normalizes `axes` (each in [-rank, rank)) and rejects duplicates; `what` names them in errors.
Result<std::vector<int64_t>> UniqueAxes(const std::vector<int64_t>& axes, int64_t rank,
                                        const InferContext& ctx, const char* what) {
  std::vector<int64_t> out;
  for (int64_t a : axes) {
    if (a < -rank || a >= rank)
      return ctx.Error(std::string(what) + " value " + std::to_string(a) + " is out of range [" +
                       std::to_string(-rank) + ", " + std::to_string(rank) + ")");
    int64_t n = a < 0 ? a + rank : a;
    if (std::find(out.begin(), out.end(), n) != out.end())
      return ctx.Error(std::string(what) + " contains axis " + std::to_string(n) + " twice");
    out.push_back(n);
  }
  return out;
}

// Ops defined in layout_copy.cc.
Status InferTranspose(InferContext& ctx);
Status InferConcat(InferContext& ctx);
Status InferSplit(InferContext& ctx);
Status InferSlice(InferContext& ctx);
Status InferGather(InferContext& ctx);
Status InferExpand(InferContext& ctx);
Status InferPad(InferContext& ctx);
Status InferCenterCropPad(InferContext& ctx);

namespace {

Status InferFlatten(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  TARE_RETURN_IF_ERROR(CheckStorable(ctx, 0));
  const Shape& x = ctx.in[0].shape;
  const int64_t r = static_cast<int64_t>(x.size());
  TARE_ASSIGN_OR_RETURN(int64_t axis, ctx.node.GetInt("axis", 1));
  if (axis < -r || axis > r)
    return ctx.Error("attribute 'axis' = " + std::to_string(axis) + " is out of range [" + std::to_string(-r) +
                     ", " + std::to_string(r) + "]");
  if (axis < 0) axis += r;
  int64_t a = 1, b = 1;  // input shapes are valid (<= 2^40 elements): no overflow
  for (int64_t i = 0; i < r; ++i) (i < axis ? a : b) *= x[i];
  ctx.SetOut(0, ctx.in[0].dtype, {a, b});
  return Status::Ok();
}

Status InferReshape(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
  TARE_RETURN_IF_ERROR(CheckStorable(ctx, 0));
  TARE_ASSIGN_OR_RETURN(int64_t allowzero, ctx.node.GetInt("allowzero", 0));
  if (allowzero != 0 && allowzero != 1)
    return ctx.Error("attribute 'allowzero' must be 0 or 1, got " + std::to_string(allowzero));
  if (ctx.in[1].shape.size() != 1) return ctx.Error("input 'shape' must be 1-D, got shape " + ShapeStr(ctx.in[1].shape));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> spec, ctx.KnownInts(1, "shape"));
  const Shape& x = ctx.in[0].shape;
  TARE_ASSIGN_OR_RETURN(int64_t count, NumElements(x));
  Shape out(spec.size());
  int64_t infer_at = -1, known = 1;
  for (size_t i = 0; i < spec.size(); ++i) {
    int64_t v = spec[i];
    if (v == -1) {
      if (infer_at >= 0) return ctx.Error("shape " + ShapeStr(spec) + " has more than one -1");
      infer_at = static_cast<int64_t>(i);
      continue;
    }
    if (v < -1) return ctx.Error("shape[" + std::to_string(i) + "] = " + std::to_string(v) + " is invalid (must be >= -1)");
    if (v == 0 && !allowzero) {
      if (i >= x.size())
        return ctx.Error("shape[" + std::to_string(i) + "] = 0 copies input dim " + std::to_string(i) +
                         " but the input " + ShapeStr(x) + " has rank " + std::to_string(x.size()));
      v = x[i];
    }
    if (v != 0 && known > kMaxElements / v) return ctx.Error("shape " + ShapeStr(spec) + " has too many elements");
    known *= v;
    out[i] = v;
  }
  if (infer_at >= 0) {
    if (allowzero && std::count(spec.begin(), spec.end(), 0))
      return ctx.Error("shape " + ShapeStr(spec) + " has both 0 and -1 with allowzero=1");
    if (known == 0 || count % known != 0)
      return ctx.Error("cannot infer the -1 of shape " + ShapeStr(spec) + ": input " + ShapeStr(x) + " has " +
                       std::to_string(count) + " elements");
    out[infer_at] = count / known;
  } else if (known != count) {
    return ctx.Error("shape " + ShapeStr(out) + " has " + std::to_string(known) + " elements, input " + ShapeStr(x) +
                     " has " + std::to_string(count));
  }
  ctx.SetOut(0, ctx.in[0].dtype, out);
  return Status::Ok();
}

Status InferSqueeze(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 2));
  TARE_RETURN_IF_ERROR(CheckStorable(ctx, 0));
  const Shape& x = ctx.in[0].shape;
  const int64_t r = static_cast<int64_t>(x.size());
  std::vector<bool> drop(x.size(), false);
  if (ctx.has(1)) {
    TARE_ASSIGN_OR_RETURN(std::vector<int64_t> raw, ctx.KnownInts(1, "axes"));
    TARE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, UniqueAxes(raw, r, ctx, "axes"));
    for (int64_t a : axes) {
      if (x[a] != 1)
        return ctx.Error("cannot squeeze axis " + std::to_string(a) + " of shape " + ShapeStr(x) + ": dim is " +
                         std::to_string(x[a]) + ", not 1");
      drop[a] = true;
    }
  } else {
    for (size_t i = 0; i < x.size(); ++i) drop[i] = x[i] == 1;
  }
  Shape out;
  for (size_t i = 0; i < x.size(); ++i)
    if (!drop[i]) out.push_back(x[i]);
  ctx.SetOut(0, ctx.in[0].dtype, out);
  return Status::Ok();
}

Status InferUnsqueeze(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
  TARE_RETURN_IF_ERROR(CheckStorable(ctx, 0));
  const Shape& x = ctx.in[0].shape;
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> raw, ctx.KnownInts(1, "axes"));
  const int64_t r = static_cast<int64_t>(x.size() + raw.size());
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, UniqueAxes(raw, r, ctx, "axes"));
  Shape out(static_cast<size_t>(r), 1);
  std::vector<bool> inserted(out.size(), false);
  for (int64_t a : axes) inserted[a] = true;
  size_t k = 0;
  for (size_t i = 0; i < out.size(); ++i)
    if (!inserted[i]) out[i] = x[k++];
  ctx.SetOut(0, ctx.in[0].dtype, out);
  return Status::Ok();
}

Status InferShape(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  const int64_t r = static_cast<int64_t>(ctx.in[0].shape.size());
  TARE_ASSIGN_OR_RETURN(int64_t start, ctx.node.GetInt("start", 0));
  TARE_ASSIGN_OR_RETURN(int64_t end, ctx.node.GetInt("end", r));
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  ctx.SetOut(0, DType::kInt64, {std::max<int64_t>(0, end - start)});
  return Status::Ok();
}

Status InferConstant(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(0, 0));
  const Node& n = ctx.node;
  for (const char* a : {"sparse_value", "value_string", "value_strings"})
    if (n.has(a)) return ctx.Error(std::string("attribute '") + a + "' is not supported");
  int given = 0;
  for (const char* a : {"value", "value_float", "value_floats", "value_int", "value_ints"}) given += n.has(a);
  if (given != 1) return ctx.Error("exactly one of value, value_float(s), value_int(s) must be given, got " + std::to_string(given));
  if (n.has("value")) {
    const Attr& a = n.attrs.at("value");
    if (a.kind != Attr::Kind::kTensor) return ctx.Error("attribute 'value' should be tensor, got " + std::string(AttrKindName(a.kind)));
    if (DTypeSize(a.tensor.dtype) == 0) return ctx.Error("attribute 'value' has unsupported type " + DTypeName(a.tensor.dtype));
    Result<int64_t> count = NumElements(a.tensor.shape);
    if (!count.ok()) return ctx.Error("attribute 'value': " + count.status().message());
    if (*count > 0 && !a.tensor.data) return ctx.Error("attribute 'value' has no data");
    ctx.SetOut(0, a.tensor.dtype, a.tensor.shape);
  } else if (n.has("value_float")) {
    TARE_RETURN_IF_ERROR(n.GetFloat("value_float", 0).status());
    ctx.SetOut(0, DType::kFloat32, {});
  } else if (n.has("value_int")) {
    TARE_RETURN_IF_ERROR(n.GetInt("value_int", 0).status());
    ctx.SetOut(0, DType::kInt64, {});
  } else if (n.has("value_floats")) {
    TARE_ASSIGN_OR_RETURN(std::vector<float> v, n.GetFloats("value_floats"));
    ctx.SetOut(0, DType::kFloat32, {static_cast<int64_t>(v.size())});
  } else {
    TARE_ASSIGN_OR_RETURN(std::vector<int64_t> v, n.GetInts("value_ints"));
    ctx.SetOut(0, DType::kInt64, {static_cast<int64_t>(v.size())});
  }
  return Status::Ok();
}

Status InferConstantOfShape(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  if (ctx.in[0].dtype != DType::kInt64) return ctx.Error("input 'shape' must be int64, got " + DTypeName(ctx.in[0].dtype));
  if (ctx.in[0].shape.size() != 1) return ctx.Error("input 'shape' must be 1-D, got shape " + ShapeStr(ctx.in[0].shape));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ctx.KnownInts(0, "shape"));
  for (int64_t d : dims)
    if (d < 0) return ctx.Error("input 'shape' " + ShapeStr(dims) + " has a negative dim");
  DType dtype = DType::kFloat32;
  if (ctx.node.has("value")) {
    const Attr& a = ctx.node.attrs.at("value");
    if (a.kind != Attr::Kind::kTensor) return ctx.Error("attribute 'value' should be tensor, got " + std::string(AttrKindName(a.kind)));
    if (DTypeSize(a.tensor.dtype) == 0) return ctx.Error("attribute 'value' has unsupported type " + DTypeName(a.tensor.dtype));
    Result<int64_t> count = NumElements(a.tensor.shape);
    if (!count.ok() || *count != 1 || !a.tensor.data)
      return ctx.Error("attribute 'value' must hold exactly one element, got shape " + ShapeStr(a.tensor.shape));
    dtype = a.tensor.dtype;
  }
  ctx.SetOut(0, dtype, dims);
  return Status::Ok();
}

}  // namespace
}  // namespace layout_spec

Status InferLayout(InferContext& ctx) {
  using namespace layout_spec;
  static const std::pair<const char*, Status (*)(InferContext&)> kOps[] = {
      {"Flatten", InferFlatten},     {"Reshape", InferReshape},   {"Squeeze", InferSqueeze},
      {"Unsqueeze", InferUnsqueeze}, {"Shape", InferShape},       {"Constant", InferConstant},
      {"ConstantOfShape", InferConstantOfShape},                  {"Transpose", InferTranspose},
      {"Concat", InferConcat},       {"Split", InferSplit},       {"Slice", InferSlice},
      {"Gather", InferGather},       {"Expand", InferExpand},     {"Pad", InferPad},
      {"CenterCropPad", InferCenterCropPad},
  };
  for (const auto& [name, fn] : kOps)
    if (ctx.node.op == name) return fn(ctx);
  return ctx.Error("not a layout op");
}

}  // namespace tare
