#include "converters/nhwc.h"

#include <cstring>

namespace tare {

Tensor PermuteTensor(const Tensor& t, const std::vector<int64_t>& perm) {
  Shape s(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) s[i] = t.shape[static_cast<size_t>(perm[i])];
  Tensor y = Tensor::Alloc(t.dtype, s).value();
  const size_t r = perm.size(), es = DTypeSize(t.dtype);
  std::vector<int64_t> in_stride(r, 1);
  for (size_t d = r; d-- > 1;) in_stride[d - 1] = in_stride[d] * t.shape[d];
  std::vector<int64_t> idx(r, 0);
  for (int64_t o = 0; o < y.numel(); ++o) {
    int64_t src = 0;
    for (size_t d = 0; d < r; ++d) src += idx[d] * in_stride[static_cast<size_t>(perm[d])];
    std::memcpy(static_cast<uint8_t*>(y.data) + o * es, static_cast<const uint8_t*>(t.data) + src * es, es);
    for (size_t d = r; d-- > 0;) {
      if (++idx[d] < s[d]) break;
      idx[d] = 0;
    }
  }
  return y;
}

bool KeptDimsInNchwOrder(const std::set<int64_t>& reduced) {
  std::vector<int64_t> a_order, b_order;
  for (int64_t d : {0, 1, 2, 3})
    if (!reduced.count(d)) a_order.push_back(d);
  for (int64_t d : kToNchw)
    if (!reduced.count(d)) b_order.push_back(d);
  return a_order == b_order;
}

std::map<std::string, Attr> TfResizeAttrs(bool bilinear, bool align, bool half) {
  std::map<std::string, Attr> attrs;
  if (bilinear) {
    attrs["mode"] = StrAttr("linear");
    attrs["coordinate_transformation_mode"] = StrAttr(align ? "align_corners" : half ? "half_pixel" : "asymmetric");
  } else {
    attrs["mode"] = StrAttr("nearest");
    attrs["coordinate_transformation_mode"] = StrAttr(align ? "align_corners" : half ? "tf_half_pixel_for_nn" : "asymmetric");
    attrs["nearest_mode"] = StrAttr(align ? "round_prefer_ceil" : "floor");
  }
  return attrs;
}

int GraphWriter::NewValue(const std::string& name, DType dt, const Shape* shape) {
  std::string nm = name;
  for (int k = 1; names_.count(nm); ++k) nm = name + "/" + std::to_string(k);
  names_.insert(nm);
  Value v;
  v.name = nm;
  v.dtype = dt;
  if (shape) {
    v.shape = *shape;
    v.has_shape = true;
  }
  return g_->AddValue(std::move(v));
}

int GraphWriter::Const(const std::string& name, const Tensor& t) {
  const int id = NewValue(name, t.dtype, &t.shape);
  g_->values[static_cast<size_t>(id)].is_constant = true;
  g_->values[static_cast<size_t>(id)].constant = t;
  return id;
}

void GraphWriter::AddNode(const std::string& op, const std::string& name, std::vector<int> inputs, std::vector<int> outputs,
                          std::map<std::string, Attr> attrs) {
  Node n;
  n.op = op;
  n.name = name;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.attrs = std::move(attrs);
  g_->nodes.push_back(std::move(n));
}

int GraphWriter::Node1(const std::string& op, const std::string& name, std::vector<int> inputs, const std::string& out_name, DType dt,
                       std::map<std::string, Attr> attrs) {
  const int y = NewValue(out_name, dt);
  AddNode(op, name, std::move(inputs), {y}, std::move(attrs));
  return y;
}

}  // namespace tare
