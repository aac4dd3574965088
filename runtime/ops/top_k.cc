// TopK family: TopK (ONNX TopK-11; TopK-10 is the same without `largest`/`sorted`, TopK-1 gives k
// as an attribute, accepted here when input K is absent).
// Outputs Values (x's dtype) and Indices (int64), both of x's shape with dim `axis` replaced by k:
// the k largest (largest=1) or smallest (largest=0) elements along `axis` and their indices.
// Order: best first; equal values are ordered by lower index first (ONNX). NaN counts as larger
// than every number (so it comes first when largest=1 and last when largest=0). sorted=0 leaves
// the order unspecified in ONNX; tare returns the same sorted order.
// Inputs: X (numeric, rank >= 1); K (int64 tensor with one element, known at plan time), k in
// [0, dim]. Attributes: axis=-1 in [-r, r-1], largest=1, sorted=1 (each 0 or 1).
#include "runtime/ops/specs.h"

namespace tare {

Status InferTopK(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 2));
  const ValueInfo& x = ctx.in[0];
  if (DTypeSize(x.dtype) == 0 || x.dtype == DType::kBool)
    return ctx.Error("input type " + DTypeName(x.dtype) + " is not supported (numeric types only)");
  const int64_t r = static_cast<int64_t>(x.shape.size());
  if (r == 0) return ctx.Error("input X must have rank >= 1, got a scalar");
  TARE_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.node.GetInt("axis", -1));
  TARE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, r, ctx, "attribute 'axis'"));
  for (const char* a : {"largest", "sorted"}) {
    TARE_ASSIGN_OR_RETURN(int64_t v, ctx.node.GetInt(a, 1));
    if (v != 0 && v != 1) return ctx.Error(std::string("attribute '") + a + "' must be 0 or 1, got " + std::to_string(v));
  }
  int64_t k = 0;
  if (ctx.has(1)) {
    TARE_ASSIGN_OR_RETURN(std::vector<int64_t> kv, ctx.KnownInts(1, "K"));
    if (kv.size() != 1) return ctx.Error("input K must hold exactly one value, got " + std::to_string(kv.size()));
    k = kv[0];
  } else {
    if (!ctx.node.has("k")) return ctx.Error("input K is missing (and there is no TopK-1 attribute 'k')");
    TARE_ASSIGN_OR_RETURN(k, ctx.node.GetInt("k", 0));
  }
  if (k < 0 || k > x.shape[axis])
    return ctx.Error("k = " + std::to_string(k) + " is out of range [0, " + std::to_string(x.shape[axis]) +
                     "] for axis " + std::to_string(axis) + " of input shape " + ShapeStr(x.shape));
  Shape y = x.shape;
  y[axis] = k;
  ctx.SetOut(0, x.dtype, y);
  ctx.SetOut(1, DType::kInt64, y);
  return Status::Ok();
}

}  // namespace tare
