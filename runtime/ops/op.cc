#include "runtime/ops/op.h"

#include "runtime/ops/specs.h"

namespace tare {

Status InferContext::ExpectInputs(int lo, int hi) const {
  int n = node.NumInputs();
  if (n < lo || n > hi) {
    return Error("expects " + (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
                 " inputs, got " + std::to_string(n));
  }
  for (int i = 0; i < lo; ++i)
    if (!has(i)) return Error("required input " + std::to_string(i) + " is missing");
  return Status::Ok();
}

Result<const Tensor*> InferContext::Known(size_t i, const char* what) const {
  if (!has(i)) return Error(std::string("input '") + what + "' is missing");
  if (!in[i].value)
    return Status::NeedsValue(node.Where() + ": input '" + what + "' is only known at run time");
  return in[i].value;
}

Result<std::vector<int64_t>> InferContext::KnownInts(size_t i, const char* what) const {
  TARE_ASSIGN_OR_RETURN(const Tensor* t, Known(i, what));
  if (DTypeIsFloat(t->dtype) || t->dtype == DType::kBool)
    return Error(std::string("input '") + what + "' must be an integer tensor, got " + DTypeName(t->dtype));
  if (t->shape.size() > 1) return Error(std::string("input '") + what + "' must be 0-D or 1-D");
  std::vector<int64_t> v(static_cast<size_t>(t->numel()));
  for (size_t k = 0; k < v.size(); ++k) v[k] = ReadInt(*t, static_cast<int64_t>(k));
  return v;
}

Status InferContext::ExpectFloat32(std::initializer_list<const char*> names) const {
  size_t i = 0;
  for (const char* name : names) {
    if (has(i) && in[i].dtype != DType::kFloat32)
      return Error(std::string("input ") + name + " must be float32, got " + DTypeName(in[i].dtype));
    ++i;
  }
  return Status::Ok();
}

Result<std::vector<int64_t>> InferContext::IntsAttr(const char* name, size_t count, int64_t dflt, int64_t lo,
                                                    int64_t hi) const {
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> v, node.GetInts(name, std::vector<int64_t>(count, dflt)));
  if (v.size() != count)
    return Error(std::string("attribute '") + name + "' must have " + std::to_string(count) + " values, got " +
                 std::to_string(v.size()));
  for (int64_t e : v)
    if (e < lo || e > hi)
      return Error(std::string("attribute '") + name + "' values must be in [" + std::to_string(lo) + ", " +
                   (hi == kMaxElements ? std::string("2^40") : std::to_string(hi)) + "], got " + std::to_string(e));
  return v;
}

Status InferContext::CheckIndex(const Tensor& indices, int64_t p, int64_t dim) const {
  const int64_t v = ReadInt(indices, p);
  if (v < -dim || v >= dim)
    return Error("index " + std::to_string(v) + " (position " + std::to_string(p) + " of indices) is out of range [" +
                 std::to_string(-dim) + ", " + std::to_string(dim - 1) + "]");
  return Status::Ok();
}

void InferContext::SetOut(size_t i, DType dtype, Shape shape) {
  if (i >= out.size() || node.outputs[i] < 0) return;  // omitted optional output
  out[i].present = true;
  out[i].dtype = dtype;
  out[i].shape = std::move(shape);
}

void InferContext::SetOutByKernel(size_t i, ValueKind kind, DType dtype) {
  if (i >= out.size() || node.outputs[i] < 0) return;
  out[i].present = true;
  out[i].dtype = dtype;
  out[i].shape.clear();
  out[i].kind = kind;
  out[i].kernel_allocates = true;
}

Result<Shape> BroadcastShapes(const Shape& a, const Shape& b) {
  size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1)
      return Status::Error("shapes " + ShapeStr(a) + " and " + ShapeStr(b) + " cannot be broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Result<int64_t> NormalizeAxis(int64_t axis, int64_t rank, const InferContext& ctx, const char* what) {
  if (axis < -rank || axis >= rank || rank == 0) {
    if (rank == 0 && axis == 0) return 0;
    return ctx.Error(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " +
                     std::to_string(rank));
  }
  return axis < 0 ? axis + rank : axis;
}

const std::vector<OpSpec>& AllOps() {
  static const std::vector<OpSpec> ops = {
#define TARE_OP(name, family, budget, doc) {"", #name, #family, &Infer##family, budget, doc},
#define TARE_OP_IN(domain, name, family, budget, doc) {domain, #name, #family, &Infer##family, budget, doc},
#include "runtime/ops/op_list.inc"
#undef TARE_OP_IN
#undef TARE_OP
  };
  return ops;
}

const OpSpec* FindOp(const std::string& domain, const std::string& name) {
  const std::string d = domain == "ai.onnx" ? "" : domain;
  for (const OpSpec& s : AllOps())
    if (name == s.name && d == s.domain) return &s;
  return nullptr;
}

}  // namespace tare
