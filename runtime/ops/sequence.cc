// Sequence family: the ONNX sequence ops of opset 11 (unchanged since; SequenceMap is ControlFlow).
// A sequence is an ordered list of tensors of one element type (possibly of different shapes);
// tare holds it as a Tensor of kind kSequence (runtime/ir/tensor.h). Positions are int32/int64
// tensors holding one value (a scalar in ONNX; a 1-element 1-D tensor is accepted too).
//   SequenceEmpty-11: () -> empty sequence of element type `dtype` (default float32).
//   SequenceConstruct-11: (t1, ..., tN), N >= 1, all of one element type -> [t1, ..., tN].
//   SequenceAt-11: (seq, position) -> the tensor at position p in [-n, n-1] (negative counts from
//     the back).
//   SequenceInsert-11: (seq, tensor, position?) -> seq with `tensor` inserted before position p in
//     [-n, n] (default n: appended); the tensor's element type must be the sequence's.
//   SequenceErase-11: (seq, position?) -> seq without the item at p in [-n, n-1] (default -1).
//   SequenceLength-11: (seq) -> int64 scalar n.
//   SplitToSequence-11: (input, split?) with attributes axis=0 in [-r, r-1] (input rank r >= 1)
//     and keepdims=1 (0 or 1): split absent -> pieces of size 1 along axis, squeezed when
//     keepdims=0; split a scalar s > 0 -> pieces of size s (the last one smaller when s does not
//     divide the dim; none when the dim is 0); split 1-D (int32/int64) -> pieces of those sizes
//     (each >= 0, summing to the dim). keepdims is ignored when split is given (ONNX). At most 2^24
//     pieces (tare's limit).
//   ConcatFromSequence-11: (seq) with attributes axis (required) and new_axis=0 (0 or 1):
//     new_axis=0 concatenates the items along axis in [-r, r-1] (same rank r >= 1, same dims
//     except axis); new_axis=1 stacks them along a new axis in [-r-1, r] (same shapes). The
//     sequence must not be empty.
// Sequence and item values are needed to check positions, element types and shapes, so these ops
// infer from data (ctx.Known: the session evaluates them at run time). Sequence outputs, and
// SequenceAt's tensor (it shares the item's storage), are created by the kernel
// (kernels/ref/sequence.cc). Errors: wrong input counts or kinds, non-integer or non-scalar
// positions, positions out of range, element type mismatches, invalid axes or splits, shape
// mismatches in ConcatFromSequence.
#include "runtime/ops/specs.h"

namespace tare {
namespace {

/// Most items SplitToSequence may create (a [2^30, 0] input would otherwise ask for 2^30 tensors).
constexpr int64_t kMaxSequenceItems = int64_t(1) << 24;

Status ExpectSequence(const InferContext& ctx, size_t i, const char* what) {
  if (!ctx.has(i)) return ctx.Error(std::string("input '") + what + "' is missing");
  if (ctx.in[i].kind != ValueKind::kSequence)
    return ctx.Error(std::string("input '") + what + "' must be a sequence, got a " + ValueKindName(ctx.in[i].kind));
  return Status::Ok();
}

Status ExpectTensor(const InferContext& ctx, size_t i, const char* what) {
  if (ctx.in[i].kind != ValueKind::kTensor)
    return ctx.Error(std::string("input '") + what + "' must be a tensor, got a " + ValueKindName(ctx.in[i].kind));
  if (ctx.in[i].dtype == DType::kUndefined) return ctx.Error(std::string("input '") + what + "' has no element type");
  return Status::Ok();
}

/// Reads input i (a position) as one integer.
Result<int64_t> ReadPosition(const InferContext& ctx, size_t i) {
  TARE_RETURN_IF_ERROR(ExpectTensor(ctx, i, "position"));
  if (ctx.in[i].dtype != DType::kInt32 && ctx.in[i].dtype != DType::kInt64)
    return ctx.Error("input 'position' must be int32 or int64, got " + DTypeName(ctx.in[i].dtype));
  TARE_ASSIGN_OR_RETURN(const Tensor* p, ctx.Known(i, "position"));
  if (p->shape.size() > 1 || p->numel() != 1)
    return ctx.Error("input 'position' must be a scalar, got shape " + ShapeStr(p->shape));
  return ReadInt(*p, 0);
}

/// Checks p in [lo, hi] and returns it made non-negative (p < 0 counts from n).
Result<int64_t> NormalizePosition(const InferContext& ctx, int64_t p, int64_t n, int64_t hi) {
  if (p < -n || p > hi)
    return ctx.Error("position " + std::to_string(p) + " is out of range [" + std::to_string(-n) + ", " +
                     std::to_string(hi) + "] for a sequence of length " + std::to_string(n));
  return p < 0 ? p + n : p;
}

Status InferSplitToSequence(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 2));
  TARE_RETURN_IF_ERROR(ExpectTensor(ctx, 0, "input"));
  const Shape& s = ctx.in[0].shape;
  const int64_t r = static_cast<int64_t>(s.size());
  if (r == 0) return ctx.Error("input must have rank >= 1, got a scalar");
  TARE_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.node.GetInt("axis", 0));
  TARE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, r, ctx, "attribute 'axis'"));
  TARE_ASSIGN_OR_RETURN(int64_t keepdims, ctx.node.GetInt("keepdims", 1));
  if (keepdims != 0 && keepdims != 1) return ctx.Error("attribute 'keepdims' must be 0 or 1, got " + std::to_string(keepdims));
  const int64_t dim = s[axis];
  int64_t pieces = dim;
  if (ctx.has(1)) {
    TARE_RETURN_IF_ERROR(ExpectTensor(ctx, 1, "split"));
    if (ctx.in[1].dtype != DType::kInt32 && ctx.in[1].dtype != DType::kInt64)
      return ctx.Error("input 'split' must be int32 or int64, got " + DTypeName(ctx.in[1].dtype));
    TARE_ASSIGN_OR_RETURN(const Tensor* sp, ctx.Known(1, "split"));
    if (sp->shape.size() > 1) return ctx.Error("input 'split' must be a scalar or 1-D, got shape " + ShapeStr(sp->shape));
    if (sp->shape.empty()) {
      const int64_t v = ReadInt(*sp, 0);
      if (v <= 0) return ctx.Error("scalar split must be > 0, got " + std::to_string(v));
      pieces = dim / v + (dim % v != 0);
    } else {
      pieces = sp->numel();
      int64_t sum = 0;
      for (int64_t k = 0; k < sp->numel(); ++k) {
        const int64_t v = ReadInt(*sp, k);
        if (v < 0 || v > dim)
          return ctx.Error("split[" + std::to_string(k) + "] = " + std::to_string(v) + " is out of range [0, " +
                           std::to_string(dim) + "]");
        sum += v;  // each term <= dim <= 2^40: no overflow
        if (sum > dim) break;
      }
      if (sum != dim)
        return ctx.Error("split sizes must sum to the dim " + std::to_string(dim) + " of axis " +
                         std::to_string(axis) + " of input shape " + ShapeStr(s));
    }
  }
  if (pieces > kMaxSequenceItems)
    return ctx.Error("the split gives " + std::to_string(pieces) + " pieces, more than tare's limit of " +
                     std::to_string(kMaxSequenceItems) + " sequence items");
  ctx.SetOutByKernel(0, ValueKind::kSequence, ctx.in[0].dtype);
  return Status::Ok();
}

Status InferConcatFromSequence(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  TARE_RETURN_IF_ERROR(ExpectSequence(ctx, 0, "input_sequence"));
  if (!ctx.node.has("axis")) return ctx.Error("attribute 'axis' is required");
  TARE_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.node.GetInt("axis", 0));
  TARE_ASSIGN_OR_RETURN(int64_t new_axis, ctx.node.GetInt("new_axis", 0));
  if (new_axis != 0 && new_axis != 1) return ctx.Error("attribute 'new_axis' must be 0 or 1, got " + std::to_string(new_axis));
  if (ctx.in[0].dtype == DType::kUndefined) return ctx.Error("input_sequence has no element type");
  TARE_ASSIGN_OR_RETURN(const Tensor* seq, ctx.Known(0, "input_sequence"));
  const std::vector<Tensor>& items = *seq->items;
  if (items.empty()) return ctx.Error("input_sequence is empty (nothing to concatenate)");
  const Shape& s0 = items[0].shape;
  const int64_t r = static_cast<int64_t>(s0.size());
  if (!new_axis && r == 0) return ctx.Error("cannot concatenate scalars (use new_axis=1 to stack them)");
  TARE_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, r + new_axis, ctx, "attribute 'axis'"));
  int64_t total = 0;
  for (size_t k = 0; k < items.size(); ++k) {
    const Shape& sk = items[k].shape;
    bool ok = sk.size() == s0.size();
    for (size_t d = 0; ok && d < sk.size(); ++d) ok = sk[d] == s0[d] || (!new_axis && static_cast<int64_t>(d) == axis);
    if (!ok)
      return ctx.Error("item " + std::to_string(k) + " has shape " + ShapeStr(sk) + ", which does not match item 0's " +
                       ShapeStr(s0) + (new_axis ? "" : " outside axis " + std::to_string(axis)));
    total += new_axis ? 1 : sk[axis];
    if (total > kMaxElements) return ctx.Error("the output is too large");
  }
  Shape out = s0;
  if (new_axis) out.insert(out.begin() + axis, total);
  else out[axis] = total;
  ctx.SetOut(0, ctx.in[0].dtype, out);
  return Status::Ok();
}

}  // namespace

Status InferSequence(InferContext& ctx) {
  const std::string& op = ctx.node.op;
  if (op == "SequenceEmpty") {
    TARE_RETURN_IF_ERROR(ctx.ExpectInputs(0, 0));
    TARE_ASSIGN_OR_RETURN(int64_t dt, ctx.node.GetInt("dtype", static_cast<int64_t>(DType::kFloat32)));
    if (dt < 0 || dt > 64 || !DTypeIsValid(static_cast<int32_t>(dt)))
      return ctx.Error("attribute 'dtype' = " + std::to_string(dt) + " is not a supported type code");
    ctx.SetOutByKernel(0, ValueKind::kSequence, static_cast<DType>(dt));
    return Status::Ok();
  }
  if (op == "SequenceConstruct") {
    if (ctx.in.empty()) return ctx.Error("needs at least one input");
    for (size_t i = 0; i < ctx.in.size(); ++i) {
      if (!ctx.has(i)) return ctx.Error("input " + std::to_string(i) + " is missing");
      TARE_RETURN_IF_ERROR(ExpectTensor(ctx, i, "inputs"));
      if (ctx.in[i].dtype != ctx.in[0].dtype)
        return ctx.Error("all inputs must have one element type: input 0 is " + DTypeName(ctx.in[0].dtype) + ", input " +
                         std::to_string(i) + " is " + DTypeName(ctx.in[i].dtype));
    }
    ctx.SetOutByKernel(0, ValueKind::kSequence, ctx.in[0].dtype);
    return Status::Ok();
  }
  if (op == "SplitToSequence") return InferSplitToSequence(ctx);
  if (op == "ConcatFromSequence") return InferConcatFromSequence(ctx);
  if (op == "SequenceLength") {
    TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    TARE_RETURN_IF_ERROR(ExpectSequence(ctx, 0, "input_sequence"));
    ctx.SetOut(0, DType::kInt64, {});
    return Status::Ok();
  }
  if (op == "SequenceAt") {
    TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
    TARE_RETURN_IF_ERROR(ExpectSequence(ctx, 0, "input_sequence"));
    TARE_ASSIGN_OR_RETURN(int64_t p, ReadPosition(ctx, 1));
    TARE_ASSIGN_OR_RETURN(const Tensor* seq, ctx.Known(0, "input_sequence"));
    const int64_t n = static_cast<int64_t>(seq->items->size());
    TARE_RETURN_IF_ERROR(NormalizePosition(ctx, p, n, n - 1).status());
    ctx.SetOutByKernel(0, ValueKind::kTensor, ctx.in[0].dtype);
    return Status::Ok();
  }
  if (op == "SequenceInsert") {
    TARE_RETURN_IF_ERROR(ctx.ExpectInputs(2, 3));
    TARE_RETURN_IF_ERROR(ExpectSequence(ctx, 0, "input_sequence"));
    if (!ctx.has(1)) return ctx.Error("input 'tensor' is missing");
    TARE_RETURN_IF_ERROR(ExpectTensor(ctx, 1, "tensor"));
    const DType elem = ctx.in[0].dtype;
    if (elem != DType::kUndefined && elem != ctx.in[1].dtype)
      return ctx.Error("input 'tensor' is " + DTypeName(ctx.in[1].dtype) + ", the sequence holds " + DTypeName(elem));
    if (ctx.has(2)) {
      TARE_ASSIGN_OR_RETURN(int64_t p, ReadPosition(ctx, 2));
      TARE_ASSIGN_OR_RETURN(const Tensor* seq, ctx.Known(0, "input_sequence"));
      const int64_t n = static_cast<int64_t>(seq->items->size());
      TARE_RETURN_IF_ERROR(NormalizePosition(ctx, p, n, n).status());
    }
    ctx.SetOutByKernel(0, ValueKind::kSequence, ctx.in[1].dtype);
    return Status::Ok();
  }
  if (op == "SequenceErase") {
    TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 2));
    TARE_RETURN_IF_ERROR(ExpectSequence(ctx, 0, "input_sequence"));
    TARE_ASSIGN_OR_RETURN(const Tensor* seq, ctx.Known(0, "input_sequence"));
    const int64_t n = static_cast<int64_t>(seq->items->size());
    int64_t p = -1;
    if (ctx.has(1)) {
      TARE_ASSIGN_OR_RETURN(p, ReadPosition(ctx, 1));
    }
    if (n == 0) return ctx.Error("cannot erase from an empty sequence");
    TARE_RETURN_IF_ERROR(NormalizePosition(ctx, p, n, n - 1).status());
    ctx.SetOutByKernel(0, ValueKind::kSequence, ctx.in[0].dtype);
    return Status::Ok();
  }
  return ctx.Error("not a Sequence-family op");
}

}  // namespace tare
