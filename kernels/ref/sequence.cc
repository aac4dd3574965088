// Reference kernels of the Sequence family (semantics: runtime/ops/sequence.cc). Exact: data
// movement only. Tensors entering a sequence keep their storage when they own it (a shared
// owner) and are copied otherwise (borrowed views, e.g. of a caller's buffer); items leaving a
// sequence (SequenceAt) share the item's storage. Sequences are immutable: Insert and Erase
// build a new item list that shares the items.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/ref/ref_kernels.h"

namespace tare {
namespace {

/// t itself when it owns its storage, else a copy that does.
Result<Tensor> Own(const Tensor& t) {
  if (t.owner || !t.is_tensor()) return t;
  return ConvertTensor(t, t.dtype);
}

/// Copies n elements of src (from element so) to dst (from element d0); same dtype.
void CopyElems(const Tensor& src, int64_t so, Tensor& dst, int64_t d0, int64_t n) {
  if (n <= 0) return;
  if (src.dtype == DType::kString) {
    for (int64_t k = 0; k < n; ++k) dst.as<std::string>()[d0 + k] = src.as<std::string>()[so + k];
    return;
  }
  const size_t es = DTypeSize(src.dtype);
  std::memcpy(static_cast<char*>(dst.data) + d0 * es, static_cast<const char*>(src.data) + so * es, n * es);
}

int64_t Prod(const Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t d = from; d < to; ++d) p *= s[d];
  return p;
}

/// Position input i normalized against n (inference checked the range).
int64_t Position(const Tensor* p, int64_t n, int64_t dflt) {
  const int64_t v = p ? ReadInt(*p, 0) : dflt;
  return v < 0 ? v + n : v;
}

Status CheckRange(int64_t p, int64_t lo, int64_t hi) {
  if (p < lo || p > hi) return Status::Error("position out of range");  // inference checks this first
  return Status::Ok();
}

template <class T>
Result<KernelFn> MakeSplitToSequence(const Node& node) {
  TARE_ASSIGN_OR_RETURN(int64_t axis_attr, node.GetInt("axis", 0));
  TARE_ASSIGN_OR_RETURN(int64_t keepdims, node.GetInt("keepdims", 1));
  return KernelFn([axis_attr, keepdims](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
    const Tensor& x = *in[0];
    const Tensor* split = in.size() > 1 ? in[1] : nullptr;
    const size_t r = x.shape.size();
    const size_t axis = static_cast<size_t>(axis_attr < 0 ? axis_attr + static_cast<int64_t>(r) : axis_attr);
    const int64_t dim = x.shape[axis];
    std::vector<int64_t> sizes;
    if (!split) {
      sizes.assign(static_cast<size_t>(dim), 1);
    } else if (split->shape.empty()) {
      const int64_t s = ReadInt(*split, 0);
      for (int64_t st = 0; st < dim; st += s) sizes.push_back(std::min(s, dim - st));
    } else {
      for (int64_t k = 0; k < split->numel(); ++k) sizes.push_back(ReadInt(*split, k));
    }
    const bool squeeze = !split && keepdims == 0;
    const int64_t outer = Prod(x.shape, 0, axis), inner = Prod(x.shape, axis + 1, r);
    std::vector<Tensor> items;
    items.reserve(sizes.size());
    int64_t start = 0;
    for (int64_t len : sizes) {
      Shape s = x.shape;
      if (squeeze) s.erase(s.begin() + static_cast<std::ptrdiff_t>(axis));
      else s[axis] = len;
      TARE_ASSIGN_OR_RETURN(Tensor t, Tensor::Alloc(x.dtype, s));
      for (int64_t o = 0; o < outer; ++o) CopyElems(x, (o * dim + start) * inner, t, o * len * inner, len * inner);
      items.push_back(std::move(t));
      start += len;
    }
    *out[0] = Tensor::Sequence(x.dtype, std::move(items));
    return Status::Ok();
  });
}

template <class T>
Result<KernelFn> MakeConcatFromSequence(const Node& node) {
  TARE_ASSIGN_OR_RETURN(int64_t axis_attr, node.GetInt("axis", 0));
  return KernelFn([axis_attr](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
    const std::vector<Tensor>& items = *in[0]->items;
    Tensor& y = *out[0];
    const int64_t yr = static_cast<int64_t>(y.shape.size());
    const size_t axis = static_cast<size_t>(axis_attr < 0 ? axis_attr + yr : axis_attr);
    const int64_t outer = Prod(y.shape, 0, axis), yblock = Prod(y.shape, axis, y.shape.size());
    int64_t offset = 0;  // elements of each output block already filled
    for (const Tensor& t : items) {
      const int64_t block = Prod(t.shape, axis, t.shape.size());  // new_axis: the new axis has size 1 per item
      for (int64_t o = 0; o < outer; ++o) CopyElems(t, o * block, y, o * yblock + offset, block);
      offset += block;
    }
    return Status::Ok();
  });
}

}  // namespace

template <class T>
Result<KernelFn> MakeSequence(const Node& node) {
  const std::string& op = node.op;
  if (op == "SplitToSequence") return MakeSplitToSequence<T>(node);
  if (op == "ConcatFromSequence") return MakeConcatFromSequence<T>(node);
  if (op == "SequenceEmpty") {
    TARE_ASSIGN_OR_RETURN(int64_t dt, node.GetInt("dtype", static_cast<int64_t>(DType::kFloat32)));
    DType elem = static_cast<DType>(dt);
    if (elem == DType::kFloat32 && std::is_same<T, double>::value) elem = DType::kFloat64;
    return KernelFn([elem](const std::vector<const Tensor*>&, const std::vector<Tensor*>& out) {
      *out[0] = Tensor::Sequence(elem, {});
      return Status::Ok();
    });
  }
  if (op == "SequenceConstruct")
    return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
      std::vector<Tensor> items;
      for (const Tensor* t : in) {
        TARE_ASSIGN_OR_RETURN(Tensor c, Own(*t));
        items.push_back(std::move(c));
      }
      *out[0] = Tensor::Sequence(in[0]->dtype, std::move(items));
      return Status::Ok();
    });
  if (op == "SequenceLength")
    return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      out[0]->as<int64_t>()[0] = static_cast<int64_t>(in[0]->items->size());
      return Status::Ok();
    });
  if (op == "SequenceAt")
    return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
      const std::vector<Tensor>& items = *in[0]->items;
      const int64_t n = static_cast<int64_t>(items.size());
      const int64_t p = Position(in[1], n, 0);
      TARE_RETURN_IF_ERROR(CheckRange(p, 0, n - 1));
      *out[0] = items[static_cast<size_t>(p)];
      return Status::Ok();
    });
  if (op == "SequenceInsert")
    return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
      const std::vector<Tensor>& items = *in[0]->items;
      const int64_t n = static_cast<int64_t>(items.size());
      const int64_t p = Position(in.size() > 2 ? in[2] : nullptr, n, n);
      TARE_RETURN_IF_ERROR(CheckRange(p, 0, n));
      TARE_ASSIGN_OR_RETURN(Tensor t, Own(*in[1]));
      std::vector<Tensor> next = items;
      next.insert(next.begin() + static_cast<std::ptrdiff_t>(p), std::move(t));
      *out[0] = Tensor::Sequence(in[1]->dtype, std::move(next));
      return Status::Ok();
    });
  if (op == "SequenceErase")
    return KernelFn([](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
      const std::vector<Tensor>& items = *in[0]->items;
      const int64_t n = static_cast<int64_t>(items.size());
      const int64_t p = Position(in.size() > 1 ? in[1] : nullptr, n, -1);
      TARE_RETURN_IF_ERROR(CheckRange(p, 0, n - 1));
      std::vector<Tensor> next = items;
      next.erase(next.begin() + static_cast<std::ptrdiff_t>(p));
      *out[0] = Tensor::Sequence(in[0]->dtype, std::move(next));
      return Status::Ok();
    });
  return Status::Error(node.Where() + ": not a Sequence-family op");
}

TARE_INSTANTIATE_REF(Sequence)

}  // namespace tare
