// Reference kernels of the layout family (semantics: runtime/ops/layout.cc and layout_copy.cc):
// the dispatch, the ops that keep the data as is (Flatten, Reshape, Squeeze, Unsqueeze: one
// memcpy) and the ops that create data (Shape, Constant, ConstantOfShape). The element-moving ops
// are in layout_copy.cc. Nothing here does arithmetic on values: results are exact; the only
// conversion is float32 constants widened to the compute type (exact).
#include <algorithm>
#include <cstring>

#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace layout_ref {

// Kernels defined in layout_copy.cc.
Result<KernelFn> MakeTranspose(const Node& node);
Result<KernelFn> MakeSlice(const Node& node);
Result<KernelFn> MakeExpand(const Node& node);
Result<KernelFn> MakeConcat(const Node& node);
Result<KernelFn> MakeSplit(const Node& node);
Result<KernelFn> MakeGather(const Node& node);
Result<KernelFn> MakePad(const Node& node);
Result<KernelFn> MakeCenterCropPad(const Node& node);

namespace {

using Ins = std::vector<const Tensor*>;
using Outs = std::vector<Tensor*>;

/// Writes `src` into `dst` (same element count): a memcpy when the storage types agree, else an
/// element-wise conversion (only float32 constants into a float64 compute type, which is exact).
void CopyConverted(const Tensor& src, Tensor& dst) {
  const int64_t n = dst.numel();
  if (src.dtype == dst.dtype) {
    if (n) std::memcpy(dst.data, src.data, dst.nbytes());
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (DTypeIsFloat(dst.dtype)) WriteDouble(dst, i, ReadDouble(src, i));
    else WriteInt(dst, i, ReadInt(src, i));
  }
}

/// Flatten, Reshape, Squeeze, Unsqueeze: same elements in the same order.
Result<KernelFn> MakeCopy(const Node&) {
  return KernelFn([](const Ins& in, const Outs& out) {
    if (out[0]->data != in[0]->data && in[0]->nbytes()) std::memcpy(out[0]->data, in[0]->data, in[0]->nbytes());
    return Status::Ok();
  });
}

/// Shape: dims[start:end] of the input as int64 (start/end clamped as in shape inference).
Result<KernelFn> MakeShape(const Node& node) {
  const bool has_end = node.has("end");
  TARE_ASSIGN_OR_RETURN(int64_t start_attr, node.GetInt("start", 0));
  TARE_ASSIGN_OR_RETURN(int64_t end_attr, node.GetInt("end", 0));
  return KernelFn([=](const Ins& in, const Outs& out) {
    const Shape& x = in[0]->shape;
    const int64_t r = static_cast<int64_t>(x.size());
    int64_t start = start_attr < 0 ? start_attr + r : start_attr;
    int64_t end = !has_end ? r : end_attr < 0 ? end_attr + r : end_attr;
    start = std::clamp<int64_t>(start, 0, r);
    end = std::clamp<int64_t>(end, 0, r);
    if (out[0]->numel() != std::max<int64_t>(0, end - start)) return Status::Error("Shape: output size mismatch");
    int64_t* y = out[0]->as<int64_t>();
    for (int64_t i = start; i < end; ++i) y[i - start] = x[i];
    return Status::Ok();
  });
}

/// Constant: the attribute's data, built once when the kernel is prepared.
Result<KernelFn> MakeConstant(const Node& node) {
  Tensor value;
  if (node.has("value")) {
    const Attr& a = node.attrs.at("value");
    if (a.kind != Attr::Kind::kTensor) return Status::Error(node.Where() + ": attribute 'value' should be tensor");
    value = a.tensor;
  } else if (node.has("value_float") || node.has("value_floats")) {
    std::vector<float> v;
    if (node.has("value_float")) {
      TARE_ASSIGN_OR_RETURN(float f, node.GetFloat("value_float", 0));
      v.push_back(f);
    } else {
      TARE_ASSIGN_OR_RETURN(v, node.GetFloats("value_floats"));
    }
    TARE_ASSIGN_OR_RETURN(value, Tensor::Alloc(DType::kFloat32, node.has("value_float") ? Shape{} : Shape{int64_t(v.size())}));
    std::copy(v.begin(), v.end(), value.as<float>());
  } else if (node.has("value_int") || node.has("value_ints")) {
    std::vector<int64_t> v;
    if (node.has("value_int")) {
      TARE_ASSIGN_OR_RETURN(int64_t i, node.GetInt("value_int", 0));
      v.push_back(i);
    } else {
      TARE_ASSIGN_OR_RETURN(v, node.GetInts("value_ints"));
    }
    TARE_ASSIGN_OR_RETURN(value, Tensor::Alloc(DType::kInt64, node.has("value_int") ? Shape{} : Shape{int64_t(v.size())}));
    std::copy(v.begin(), v.end(), value.as<int64_t>());
  } else {
    return Status::Error(node.Where() + ": no supported value attribute");
  }
  return KernelFn([value](const Ins&, const Outs& out) {
    if (out[0]->numel() != value.numel()) return Status::Error("Constant: output size mismatch");
    CopyConverted(value, *out[0]);
    return Status::Ok();
  });
}

/// ConstantOfShape: every element is the `value` attribute's element (default float32 0).
Result<KernelFn> MakeConstantOfShape(const Node& node) {
  Tensor value;
  if (node.has("value")) {
    const Attr& a = node.attrs.at("value");
    if (a.kind != Attr::Kind::kTensor || !a.tensor.data || a.tensor.numel() != 1)
      return Status::Error(node.Where() + ": attribute 'value' must be a one-element tensor");
    value = a.tensor;
  } else {
    TARE_ASSIGN_OR_RETURN(value, Tensor::Alloc(DType::kFloat32, {}));
  }
  return KernelFn([value](const Ins&, const Outs& out) {
    Tensor& y = *out[0];
    const size_t es = DTypeSize(y.dtype);
    TARE_ASSIGN_OR_RETURN(Tensor one, Tensor::Alloc(y.dtype, {}));
    Tensor src = Tensor::View(value.dtype, {}, value.data);
    CopyConverted(src, one);
    char* dst = static_cast<char*>(y.data);
    for (int64_t i = 0; i < y.numel(); ++i) std::memcpy(dst + i * static_cast<int64_t>(es), one.data, es);
    return Status::Ok();
  });
}

}  // namespace
}  // namespace layout_ref

template <class T>
Result<KernelFn> MakeLayout(const Node& node) {
  using namespace layout_ref;
  static const std::pair<const char*, Result<KernelFn> (*)(const Node&)> kOps[] = {
      {"Flatten", MakeCopy},     {"Reshape", MakeCopy},        {"Squeeze", MakeCopy},
      {"Unsqueeze", MakeCopy},   {"Shape", MakeShape},         {"Constant", MakeConstant},
      {"ConstantOfShape", MakeConstantOfShape},                {"Transpose", MakeTranspose},
      {"Concat", MakeConcat},    {"Split", MakeSplit},         {"Slice", MakeSlice},
      {"Gather", MakeGather},    {"Expand", MakeExpand},       {"Pad", MakePad},
      {"CenterCropPad", MakeCenterCropPad},
  };
  for (const auto& [name, fn] : kOps)
    if (node.op == name) return fn(node);
  return Status::Error(node.Where() + ": not a layout op");
}

TARE_INSTANTIATE_REF(Layout)

}  // namespace tare
