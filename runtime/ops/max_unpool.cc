// MaxUnpool family: MaxUnpool (ONNX MaxUnpool-11; MaxUnpool-9 is the same op). Semantics of the
// operator text, its backend test data and the ONNX reference implementation:
// The partial inverse of MaxPool. Let U (the "unpooled" shape) be [N, C, O1..On] with
// O_i = (D_i - 1) * strides_i + kernel_shape_i - b_i - e_i, where the pads b/e are the attribute's
// when output_shape is absent and 0 when it is given ("pads are ignored"). U is zero except
// U.flat[I[i]] = X.flat[i] for every element i of X in row-major order (a repeated index keeps the
// last write); I holds flat row-major indices into the whole of U (batch and channel included,
// as MaxPool's Indices output with storage_order=0), each in [0, numel(U)).
// Y = U when output_shape is absent; otherwise Y has shape output_shape (each dim >= U's, so the
// extra space is the auto-generated padding) and holds U at its origin, zeros elsewhere.
// (onnxruntime instead scatters I directly into the flat output_shape tensor; the two agree when
// output_shape equals U.)
// Inputs: X (numeric, [N, C, D1..Dn], n >= 1 spatial axes); I (int64, X's shape); output_shape
// (optional int64 [n + 2], known at plan time).
// Attributes: kernel_shape (required, n values >= 1); strides (n values >= 1, default 1); pads
// ([b1..bn, e1..en] >= 0, default 0).
// Errors: ranks, dtypes, attribute counts/ranges, a negative O_i, an output_shape of the wrong
// length or smaller than U on some axis, and (at run time) an index of I outside [0, numel(U)).
#include "runtime/ops/specs.h"

namespace tare {

Status InferMaxUnpool(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 3));
  const ValueInfo& x = ctx.in[0];
  if (DTypeSize(x.dtype) == 0 || x.dtype == DType::kBool)
    return ctx.Error("input type " + DTypeName(x.dtype) + " is not supported (numeric types only)");
  if (x.shape.size() < 3) return ctx.Error("input X must be [N, C, D1, ...] (rank >= 3), got shape " + ShapeStr(x.shape));
  if (ctx.in[1].dtype != DType::kInt64) return ctx.Error("input I must be int64, got " + DTypeName(ctx.in[1].dtype));
  if (ctx.in[1].shape != x.shape)
    return ctx.Error("input I must have X's shape " + ShapeStr(x.shape) + ", got " + ShapeStr(ctx.in[1].shape));
  const size_t n = x.shape.size() - 2;
  if (!ctx.node.has("kernel_shape")) return ctx.Error("attribute 'kernel_shape' is required");
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> k, ctx.IntsAttr("kernel_shape", n, 1, 1, kMaxElements));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> s, ctx.IntsAttr("strides", n, 1, 1, kMaxElements));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> p, ctx.IntsAttr("pads", 2 * n, 0, 0, kMaxElements));
  const bool given = ctx.has(2);
  Shape u = x.shape;
  for (size_t i = 0; i < n; ++i) {
    const int64_t d = x.shape[i + 2];
    if (d > 0 && d - 1 > kMaxElements / s[i]) return ctx.Error("output dim " + std::to_string(i) + " is too large");
    const int64_t o = (d - 1) * s[i] + k[i] - (given ? 0 : p[i] + p[i + n]);
    if (o < 0)
      return ctx.Error("output dim " + std::to_string(i) + " = (" + std::to_string(d) +
                       " - 1) * stride + kernel - pads = " + std::to_string(o) + " is negative");
    u[i + 2] = o;
  }
  TARE_RETURN_IF_ERROR(NumElements(u).status());
  Shape y = u;
  if (given) {
    TARE_ASSIGN_OR_RETURN(std::vector<int64_t> os, ctx.KnownInts(2, "output_shape"));
    if (os.size() != x.shape.size())
      return ctx.Error("input output_shape must have " + std::to_string(x.shape.size()) + " values, got " +
                       std::to_string(os.size()));
    for (size_t i = 0; i < os.size(); ++i)
      if (os[i] < u[i] || os[i] > kMaxElements)
        return ctx.Error("output_shape " + ShapeStr(Shape(os.begin(), os.end())) +
                         " must not be smaller than the unpooled shape " + ShapeStr(u) + " on any axis");
    y.assign(os.begin(), os.end());
  }
  TARE_RETURN_IF_ERROR(NumElements(y).status());
  ctx.SetOut(0, x.dtype, y);
  return Status::Ok();
}

}  // namespace tare
