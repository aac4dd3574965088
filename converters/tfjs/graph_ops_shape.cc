// TF.js graph models: shapes, concatenation, packing, splitting, slicing, gathering, padding, casts, resizing, depth-to-space -> ONNX-domain ops (graph_converter.h lists the files).

#include <algorithm>
#include <climits>
#include "converters/tfjs/graph_converter.h"

namespace tare {
namespace tfjs {

/// TensorFlow ConcatV2, Concat.
Status GraphConverter::ConcatV2(const NodeView& n) {
  const std::string& op = n.op;
  const std::string& y = n.name;
  if (n.ins.size() < 2) return Error("expects the values and the axis");
  const bool v2 = op == "ConcatV2";
  const std::string ax = v2 ? n.ins.back() : n.ins.front();
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> axis, b_->ConstInts(ax, "the axis"));
  if (axis.size() != 1) return Error("the axis must be one value");
  std::vector<std::string> xs(n.ins.begin() + (v2 ? 0 : 1), n.ins.end() - (v2 ? 1 : 0));
  TARE_RETURN_IF_ERROR(b_->Concat(y, xs, axis[0]));
  int64_t len = 0;  // 1-D parts of known lengths: a shape's length
  for (const std::string& x : xs) len = len >= 0 && b_->Len(x) >= 0 ? len + b_->Len(x) : -1;
  if (b_->Rank(y) == 1 && len >= 0) b_->SetLen(y, len);
  return Status::Ok();
}

/// TensorFlow Pack.
Status GraphConverter::Pack(const NodeView& n) {
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(int64_t axis, n.I("axis", 0));
  if (n.ins.empty()) return Error("packs nothing");
  const int r = b_->Rank(n.ins[0]);
  if (axis < 0 && r >= 0) axis += r + 1;  // else ONNX's negative axis counts the same way
  std::vector<int> parts;
  for (size_t k = 0; k < n.ins.size(); ++k) {
    TARE_ASSIGN_OR_RETURN(int v, b_->Plain(n.ins[k]));
    const std::string p = y + "/part_" + std::to_string(k);
    parts.push_back(b_->Node1("Unsqueeze", p, {v, b_->ConstI64(p + "/axes", {axis})}, p, b_->S(n.ins[k]).dtype));
  }
  const DType dt = b_->S(n.ins[0]).dtype;
  const int v = b_->Node1("Concat", y, parts, b_->NameFor(y, false), dt, {{"axis", IntAttr(axis)}});
  b_->Set(y, v, false, r < 0 ? -1 : r + 1, dt);
  if (r == 0) b_->SetLen(y, static_cast<int64_t>(n.ins.size()));
  return Status::Ok();
}

/// TensorFlow Unpack, Split, SplitV.
Status GraphConverter::Unpack(const NodeView& n) {
  const std::string& op = n.op;
  const std::string& y = n.name;
  std::string x;
  int64_t axis = 0, num = 0;
  std::vector<int64_t> sizes;
  if (op == "Unpack") {
    TARE_ASSIGN_OR_RETURN(x, In(n, 0));
    TARE_ASSIGN_OR_RETURN(axis, n.I("axis", 0));
    TARE_ASSIGN_OR_RETURN(num, n.I("num", 0));
  } else if (op == "Split") {
    TARE_ASSIGN_OR_RETURN(std::string ax, In(n, 0));
    TARE_ASSIGN_OR_RETURN(x, In(n, 1));
    TARE_ASSIGN_OR_RETURN(std::vector<int64_t> a, b_->ConstInts(ax, "the axis"));
    if (a.size() != 1) return Error("the axis must be one value");
    axis = a[0];
    TARE_ASSIGN_OR_RETURN(num, n.I("num_split", 0));
  } else {
    TARE_ASSIGN_OR_RETURN(x, In(n, 0));
    TARE_ASSIGN_OR_RETURN(std::string sz, In(n, 1));
    TARE_ASSIGN_OR_RETURN(std::string ax, In(n, 2));
    TARE_ASSIGN_OR_RETURN(sizes, b_->ConstInts(sz, "the sizes"));
    TARE_ASSIGN_OR_RETURN(std::vector<int64_t> a, b_->ConstInts(ax, "the axis"));
    if (a.size() != 1) return Error("the axis must be one value");
    axis = a[0];
    num = static_cast<int64_t>(sizes.size());
    if (std::count(sizes.begin(), sizes.end(), -1) > 0) return Error("SplitV with a -1 size is not supported");
  }
  if (num < 1 || num > 65536) return Error("splits into " + std::to_string(num) + " parts");
  const int r = b_->Rank(x);
  if (axis < 0 && r >= 0) axis += r;  // else ONNX's negative axis counts the same way
  TARE_ASSIGN_OR_RETURN(int xv, b_->Plain(x));
  std::vector<int> outs;
  for (int64_t k = 0; k < num; ++k) outs.push_back(b_->NewValue(y + "/split_" + std::to_string(k), b_->S(x).dtype));
  std::vector<int> ins = {xv};
  if (!sizes.empty()) ins.push_back(b_->ConstI64(y + "/sizes", sizes));
  std::map<std::string, Attr> attrs = {{"axis", IntAttr(axis)}};
  if (sizes.empty()) attrs["num_outputs"] = IntAttr(num);
  b_->AddNode("Split", y + (op == "Unpack" ? "/split" : ""), ins, outs, attrs);
  const DType dt = b_->S(x).dtype;
  for (int64_t k = 0; k < num; ++k) {
    const std::string t = k == 0 ? y : y + ":" + std::to_string(k);
    int v = outs[static_cast<size_t>(k)];
    if (op == "Unpack") v = b_->Node1("Squeeze", t + "/squeeze", {v, b_->ConstI64(t + "/axes", {axis})}, t, dt);
    b_->Set(t, v, false, r < 0 ? -1 : (op == "Unpack" ? r - 1 : r), dt);
  }
  return Status::Ok();
}

/// TensorFlow Reshape.
Status GraphConverter::Reshape(const NodeView& n) {
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string s, In(n, 1));
  if (b_->IsConst(s)) {
    TARE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, b_->ConstInts(s, "the shape"));
    TARE_RETURN_IF_ERROR(b_->Reshape(y, x, shape));
    // To one dim: its length, given or (-1) that of a scalar or known 1-D x.
    if (shape.size() == 1 && b_->Rank(y) == 1)
      b_->SetLen(y, shape[0] >= 0 ? shape[0] : b_->Rank(x) == 0 ? 1 : b_->Len(x));
    return Status::Ok();
  }
  TARE_ASSIGN_OR_RETURN(int xv, b_->Plain(x));
  TARE_ASSIGN_OR_RETURN(int sv, AsI64(s, y + "/shape"));
  const int v = b_->Node1("Reshape", y, {xv, sv}, b_->NameFor(y, false), b_->S(x).dtype, {{"allowzero", IntAttr(1)}});
  const int64_t len = b_->Len(s);  // a run-time shape: the rank is its length, where known here
  b_->Set(y, v, false, len >= 0 && len <= 64 ? static_cast<int>(len) : -1, b_->S(x).dtype);
  return Status::Ok();
}

/// TensorFlow Squeeze.
Status GraphConverter::Squeeze(const NodeView& n) {
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, n.Ints("squeeze_dims"));
  if (dims.empty()) return Error("Squeeze without squeeze_dims is not supported (the squeezed dims depend on the shape)");
  TARE_ASSIGN_OR_RETURN(int xv, b_->Plain(x));
  const int v = b_->Node1("Squeeze", y, {xv, b_->ConstI64(y + "/axes", dims)}, b_->NameFor(y, false), b_->S(x).dtype);
  b_->Set(y, v, false, b_->Rank(x) < 0 ? -1 : b_->Rank(x) - static_cast<int>(dims.size()), b_->S(x).dtype);
  return Status::Ok();
}

/// TensorFlow ExpandDims.
Status GraphConverter::ExpandDims(const NodeView& n) {
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string d, In(n, 1));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, b_->ConstInts(d, "the dim"));
  if (dims.size() != 1) return Error("the dim must be one value");
  int64_t a = dims[0];
  const int r = b_->Rank(x);
  if (a < 0 && r >= 0) a += r + 1;  // else ONNX Unsqueeze's negative axis counts the same way
  TARE_ASSIGN_OR_RETURN(int xv, b_->Plain(x));
  const int v = b_->Node1("Unsqueeze", y, {xv, b_->ConstI64(y + "/axes", {a})}, b_->NameFor(y, false), b_->S(x).dtype);
  b_->Set(y, v, false, r < 0 ? -1 : r + 1, b_->S(x).dtype);
  return Status::Ok();
}

/// TensorFlow Transpose.
Status GraphConverter::Transpose(const NodeView& n) {
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string p, In(n, 1));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> perm, b_->ConstInts(p, "the permutation"));
  TARE_ASSIGN_OR_RETURN(int xv, b_->Plain(x));
  const int v = b_->Node1("Transpose", y, {xv}, b_->NameFor(y, false), b_->S(x).dtype, {{"perm", IntsAttr(perm)}});
  b_->Set(y, v, false, static_cast<int>(perm.size()), b_->S(x).dtype);
  return Status::Ok();
}

/// TensorFlow Tile.
Status GraphConverter::Tile(const NodeView& n) {
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string m, In(n, 1));
  TARE_ASSIGN_OR_RETURN(int xv, b_->Plain(x));
  TARE_ASSIGN_OR_RETURN(int mv, AsI64(m, y + "/multiples"));
  const int v = b_->Node1("Tile", y, {xv, mv}, b_->NameFor(y, false), b_->S(x).dtype);
  b_->Set(y, v, false, b_->Rank(x), b_->S(x).dtype);
  return Status::Ok();
}

/// TensorFlow Pad, PadV2, MirrorPad.
Status GraphConverter::PadOp(const NodeView& n) {
  const std::string& op = n.op;
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string p, In(n, 1));
  if (!b_->IsConst(p) && op != "MirrorPad") {
    // Run-time paddings [rank, 2]: ONNX Pad's pads are its transpose, flattened (begins, then ends).
    const int r = b_->Rank(x);
    if (r < 0) return Error("run-time paddings on a tensor of unknown rank");
    TARE_ASSIGN_OR_RETURN(int xv, b_->Plain(x));
    TARE_ASSIGN_OR_RETURN(int pv, AsI64(p, y + "/paddings"));
    const int t = b_->Node1("Transpose", y + "/pads_t", {pv}, y + "/pads_t", DType::kInt64, {{"perm", IntsAttr({1, 0})}});
    const int flat = b_->Node1("Reshape", y + "/pads", {t, b_->ConstI64(y + "/pads_shape", {-1})}, y + "/pads", DType::kInt64);
    std::vector<int> ins = {xv, flat};
    if (op == "PadV2" && n.ins.size() > 2) {
      TARE_ASSIGN_OR_RETURN(int cv, b_->Plain(n.ins[2]));
      ins.push_back(cv);
    }
    const int v = b_->Node1("Pad", y, ins, b_->NameFor(y, false), b_->S(x).dtype, {{"mode", StrAttr("constant")}});
    b_->Set(y, v, false, r, b_->S(x).dtype);
    return Status::Ok();
  }
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> pads, b_->ConstInts(p, "the paddings"));
  float value = 0;
  if (op == "PadV2" && n.ins.size() > 2) {
    TARE_ASSIGN_OR_RETURN(Tensor c, b_->ConstFloat(n.ins[2], "the constant value"));
    if (c.numel() != 1) return Error("the constant value must be a scalar");
    value = static_cast<const float*>(c.data)[0];
  }
  std::string mode = "constant";
  if (op == "MirrorPad") {
    const std::string m = n.S("mode", "REFLECT");
    if (m == "SYMMETRIC") return SymmetricPad(y, x, pads);
    if (m != "REFLECT") return Error("MirrorPad mode '" + m + "' is not supported (REFLECT, SYMMETRIC)");
    mode = "reflect";
  }
  return b_->Pad(y, x, pads, mode, value);
}

/// MirrorPad SYMMETRIC (the edge repeated: [a b c] padded by 2 is [b a a b c c b]), which ONNX Pad
/// has no mode for: per padded axis, Concat of the first `before` elements reversed, the tensor,
/// and the last `after` reversed (Slices with step -1), in TensorFlow's layout.
Status GraphConverter::SymmetricPad(const std::string& y, const std::string& x, const std::vector<int64_t>& pads) {
  const int r = b_->Rank(x);
  if (r < 0 || pads.size() != 2 * static_cast<size_t>(r)) return Error("paddings must have shape [rank, 2]");
  TARE_ASSIGN_OR_RETURN(int v, b_->Plain(x));
  const DType dt = b_->S(x).dtype;
  for (int64_t d = 0; d < r; ++d) {
    const int64_t before = pads[static_cast<size_t>(2 * d)], after = pads[static_cast<size_t>(2 * d + 1)];
    if (before < 0 || after < 0) return Error("negative paddings are not supported");
    if (!before && !after) continue;
    const std::string a = y + "/axis" + std::to_string(d);
    std::vector<int> parts;
    auto slice = [&](const std::string& nm, int64_t start, int64_t end) {
      return b_->Node1("Slice", nm, {v, b_->ConstI64(nm + "/starts", {start}), b_->ConstI64(nm + "/ends", {end}), b_->ConstI64(nm + "/axes", {d}),
                                     b_->ConstI64(nm + "/steps", {-1})},
                      nm, dt);
    };
    if (before) parts.push_back(slice(a + "/before", before - 1, INT64_MIN));  // x[before-1 ... 0]
    parts.push_back(v);
    if (after) parts.push_back(slice(a + "/after", -1, -after - 1));  // x[-1 ... -after]
    v = b_->Node1("Concat", a, parts, a, dt, {{"axis", IntAttr(d)}});
  }
  const int out = b_->Node1("Identity", y, {v}, b_->NameFor(y, false), dt);
  b_->Set(y, out, false, r, dt);
  return Status::Ok();
}

/// TensorFlow BroadcastTo(x, shape): ONNX Expand (numpy broadcasting to the shape).
Status GraphConverter::BroadcastTo(const NodeView& n) {
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string s, In(n, 1));
  TARE_ASSIGN_OR_RETURN(int xv, b_->Plain(x));
  TARE_ASSIGN_OR_RETURN(int sv, AsI64(s, y + "/shape"));
  const int v = b_->Node1("Expand", y, {xv, sv}, b_->NameFor(y, false), b_->S(x).dtype);
  int rank = -1;
  if (b_->IsConst(s)) rank = static_cast<int>(b_->Data(s).numel());
  b_->Set(y, v, false, rank, b_->S(x).dtype);
  return Status::Ok();
}

/// TensorFlow Where with one input: the coordinates of the true (nonzero) elements, [count, rank]
/// in row-major order (ONNX NonZero transposed), int32 as TF.js returns them.
Status GraphConverter::WhereIndices(const NodeView& n) {
  const std::string& y = n.name;
  if (n.ins.size() != 1) return Error("Where with " + std::to_string(n.ins.size()) + " inputs (SelectV2 is the three-input form)");
  TARE_ASSIGN_OR_RETURN(int xv, b_->Plain(n.ins[0]));
  const int nz = b_->Node1("NonZero", y + "/nonzero", {xv}, y + "/nonzero", DType::kInt64);
  const int t = b_->Node1("Transpose", y + "/transpose", {nz}, y + "/coordinates", DType::kInt64, {{"perm", IntsAttr({1, 0})}});
  const int c = b_->Node1("Cast", y, {t}, b_->NameFor(y, false), DType::kInt32, {{"to", IntAttr(static_cast<int>(DType::kInt32))}});
  b_->Set(y, c, false, 2, DType::kInt32);
  return Status::Ok();
}

/// TensorFlow Slice.
Status GraphConverter::Slice(const NodeView& n) {
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string bg, In(n, 1));
  TARE_ASSIGN_OR_RETURN(std::string sz, In(n, 2));
  if (!b_->IsConst(bg) || !b_->IsConst(sz)) {
    // Run-time begin or size (one value per dim of x): ends = begin + size, or the end where size is -1.
    const int r = b_->Rank(x);
    if (r < 0) return Error("a Slice with a run-time begin or size on a tensor of unknown rank");
    TARE_ASSIGN_OR_RETURN(int xv, b_->Plain(x));
    TARE_ASSIGN_OR_RETURN(int bv, AsI64(bg, y + "/begin"));
    TARE_ASSIGN_OR_RETURN(int sv, AsI64(sz, y + "/size"));
    const int sum = b_->Node1("Add", y + "/end", {bv, sv}, y + "/end", DType::kInt64);
    const int neg = b_->Node1("Less", y + "/to_end", {sv, b_->ConstI64(y + "/zero", {0})}, y + "/to_end", DType::kBool);
    const int ends = b_->Node1("Where", y + "/ends", {neg, b_->ConstI64(y + "/max", {INT64_MAX}), sum}, y + "/ends", DType::kInt64);
    std::vector<int64_t> axes(static_cast<size_t>(r));
    for (int d = 0; d < r; ++d) axes[static_cast<size_t>(d)] = d;
    const int v = b_->Node1("Slice", y, {xv, bv, ends, b_->ConstI64(y + "/axes", axes)}, b_->NameFor(y, false), b_->S(x).dtype);
    b_->Set(y, v, false, r, b_->S(x).dtype);
    return Status::Ok();
  }
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> begin, b_->ConstInts(bg, "the begin"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> size, b_->ConstInts(sz, "the size"));
  if (begin.size() != size.size()) return Error("begin and size must have the same length");
  std::vector<int64_t> ends(begin.size()), axes(begin.size());
  for (size_t d = 0; d < begin.size(); ++d) {
    ends[d] = size[d] < 0 ? INT64_MAX : begin[d] + size[d];
    axes[d] = static_cast<int64_t>(d);
  }
  TARE_ASSIGN_OR_RETURN(int xv, b_->Plain(x));
  const int v = b_->Node1("Slice", y, {xv, b_->ConstI64(y + "/starts", begin), b_->ConstI64(y + "/ends", ends), b_->ConstI64(y + "/axes", axes)},
                         b_->NameFor(y, false), b_->S(x).dtype);
  b_->Set(y, v, false, b_->Rank(x), b_->S(x).dtype);
  return Status::Ok();
}

/// TensorFlow StridedSlice.
Status GraphConverter::StridedSlice(const NodeView& n) {
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  if (n.ins.size() < 4) return Error("expects inputs (input, begin, end, strides)");
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> begin, b_->ConstInts(n.ins[1], "the begin"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> end, b_->ConstInts(n.ins[2], "the end"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, b_->ConstInts(n.ins[3], "the strides"));
  TARE_ASSIGN_OR_RETURN(int64_t bm, n.I("begin_mask", 0));
  TARE_ASSIGN_OR_RETURN(int64_t em, n.I("end_mask", 0));
  TARE_ASSIGN_OR_RETURN(int64_t elm, n.I("ellipsis_mask", 0));
  TARE_ASSIGN_OR_RETURN(int64_t nam, n.I("new_axis_mask", 0));
  TARE_ASSIGN_OR_RETURN(int64_t sam, n.I("shrink_axis_mask", 0));
  if (begin.size() != end.size() || begin.size() != strides.size()) return Error("begin, end and strides must have the same length");
  if (begin.size() > 64) return Error("more than 64 slice entries");
  const int r = b_->Rank(x);
  // The spec's entries over the input's dims: an ellipsis stands for the dims no other entry names,
  // a new axis inserts a dim of 1 in the output (begin, end and shrink ignored there).
  int named = 0, ellipses = 0;
  for (size_t d = 0; d < begin.size(); ++d) {
    if ((elm >> d) & 1) ++ellipses;
    else if (!((nam >> d) & 1)) ++named;
  }
  if (ellipses > 1) return Error("more than one ellipsis");
  if (ellipses && r < 0) return Error("an ellipsis on a tensor of unknown rank");
  if (r >= 0 && named > r) return Error("the slice names " + std::to_string(named) + " dims of a rank-" + std::to_string(r) + " tensor");
  std::vector<int64_t> starts, ends, axes, steps, squeeze, unsqueeze;
  int64_t di = 0, out = 0;
  for (size_t d = 0; d < begin.size(); ++d) {
    if ((elm >> d) & 1) {
      const int64_t k = r - named;
      di += k;
      out += k;
      continue;
    }
    if ((nam >> d) & 1) {
      unsqueeze.push_back(out++);
      continue;
    }
    const int64_t s = strides[d];
    if (s == 0) return Error("a stride of 0");
    const bool shrink = (sam >> d) & 1;
    int64_t b0 = begin[d], e0 = end[d];
    if (shrink) {
      e0 = b0 == -1 ? INT64_MAX : b0 + 1;
      squeeze.push_back(di);
    } else {
      if ((bm >> d) & 1) b0 = s > 0 ? 0 : INT64_MAX;
      if ((em >> d) & 1) e0 = s > 0 ? INT64_MAX : INT64_MIN;
      ++out;
    }
    starts.push_back(b0);
    ends.push_back(e0);
    axes.push_back(di++);
    steps.push_back(shrink ? 1 : s);
  }
  TARE_ASSIGN_OR_RETURN(int v, b_->Plain(x));
  const DType dt = b_->S(x).dtype;
  const bool sq = !squeeze.empty(), unsq = !unsqueeze.empty();
  if (!axes.empty())
    v = b_->Node1("Slice", y + (sq || unsq ? "/slice" : ""), {v, b_->ConstI64(y + "/starts", starts), b_->ConstI64(y + "/ends", ends), b_->ConstI64(y + "/axes", axes),
                                                        b_->ConstI64(y + "/steps", steps)},
                  sq || unsq ? y + "/slice" : b_->NameFor(y, false), dt);
  if (sq) v = b_->Node1("Squeeze", y + (unsq ? "/squeeze" : ""), {v, b_->ConstI64(y + "/squeeze_axes", squeeze)}, unsq ? y + "/squeeze" : b_->NameFor(y, false), dt);
  if (unsq) v = b_->Node1("Unsqueeze", y, {v, b_->ConstI64(y + "/new_axes", unsqueeze)}, b_->NameFor(y, false), dt);
  if (axes.empty() && !sq && !unsq) return b_->Alias(y, x);
  b_->Set(y, v, false, r < 0 ? -1 : r - static_cast<int>(squeeze.size()) + static_cast<int>(unsqueeze.size()), dt);
  const int64_t len = b_->Len(x);
  if (r == 1 && len >= 0 && squeeze.empty() && unsqueeze.empty() && axes.size() == 1) {
    // Slice-13's clamping on a known length (a shape's dims sliced: a rank).
    const int64_t st = steps[0];
    auto clamp = [&](int64_t i, bool is_end) {
      if (i < 0) i += len;
      return st > 0 ? std::clamp<int64_t>(i, 0, len) : std::clamp<int64_t>(i, -1, len - (is_end ? 0 : 1));
    };
    const int64_t b0 = clamp(std::clamp<int64_t>(starts[0], -(int64_t(1) << 40), int64_t(1) << 40), false);
    const int64_t e0 = clamp(std::clamp<int64_t>(ends[0], -(int64_t(1) << 40), int64_t(1) << 40), true);
    const int64_t k = st > 0 ? (e0 > b0 ? (e0 - b0 + st - 1) / st : 0) : (b0 > e0 ? (b0 - e0 - st - 1) / -st : 0);
    b_->SetLen(y, k);
  }
  return Status::Ok();
}

/// TensorFlow GatherV2, Gather.
Status GraphConverter::GatherV2(const NodeView& n) {
  const std::string& op = n.op;
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string idx, In(n, 1));
  int64_t axis = 0;
  if (op == "GatherV2") {
    TARE_ASSIGN_OR_RETURN(std::string ax, In(n, 2));
    TARE_ASSIGN_OR_RETURN(std::vector<int64_t> a, b_->ConstInts(ax, "the axis"));
    if (a.size() != 1) return Error("the axis must be one value");
    axis = a[0];
    TARE_ASSIGN_OR_RETURN(int64_t bd, n.I("batch_dims", 0));
    if (bd != 0) return Error("GatherV2 with batch_dims " + std::to_string(bd) + " is not supported");
  }
  TARE_ASSIGN_OR_RETURN(int xv, b_->Plain(x));
  TARE_ASSIGN_OR_RETURN(int iv, b_->Plain(idx));
  const int v = b_->Node1("Gather", y, {xv, iv}, b_->NameFor(y, false), b_->S(x).dtype, {{"axis", IntAttr(axis)}});
  const int r = b_->Rank(x), ri = b_->Rank(idx);
  b_->Set(y, v, false, r < 0 || ri < 0 ? -1 : r - 1 + ri, b_->S(x).dtype);
  return Status::Ok();
}

/// TensorFlow Cast.
Status GraphConverter::Cast(const NodeView& n) {
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(DType to, TfType(n.Type("DstT")));
  const bool nchw = b_->HasNchw(x);
  TARE_ASSIGN_OR_RETURN(int xv, nchw ? b_->Nchw(x) : b_->Plain(x));
  const int v = b_->Node1("Cast", y, {xv}, b_->NameFor(y, nchw), to, {{"to", IntAttr(static_cast<int>(to))}});
  b_->Set(y, v, nchw, b_->Rank(x), to);
  b_->SetLen(y, b_->Len(x));
  return Status::Ok();
}

/// TensorFlow Shape, Size, Rank.
Status GraphConverter::ShapeOp(const NodeView& n) {
  const std::string& op = n.op;
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(int xv, b_->Plain(x));
  int v = b_->Node1(op == "Size" ? "Size" : "Shape", y + "/int64", {xv}, y + "/int64", DType::kInt64);
  if (op == "Rank") v = b_->Node1("Size", y + "/rank", {v}, y + "/rank", DType::kInt64);
  const int c = b_->Node1("Cast", y, {v}, b_->NameFor(y, false), DType::kInt32, {{"to", IntAttr(static_cast<int>(DType::kInt32))}});
  b_->Set(y, c, false, op == "Shape" ? 1 : 0, DType::kInt32);
  if (op == "Shape") b_->SetLen(y, b_->Rank(x));
  return Status::Ok();
}

/// TensorFlow Fill.
Status GraphConverter::Fill(const NodeView& n) {
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string d, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string val, In(n, 1));
  TARE_ASSIGN_OR_RETURN(int dv, AsI64(d, y + "/dims"));
  TARE_ASSIGN_OR_RETURN(int vv, b_->Plain(val));
  const int v = b_->Node1("Expand", y, {vv, dv}, b_->NameFor(y, false), b_->S(val).dtype);
  const int64_t len = b_->Len(d);
  b_->Set(y, v, false, len >= 0 && len <= 64 ? static_cast<int>(len) : -1, b_->S(val).dtype);
  return Status::Ok();
}

/// TensorFlow ZerosLike, OnesLike.
Status GraphConverter::ZerosLike(const NodeView& n) {
  const std::string& op = n.op;
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(int xv, b_->Plain(x));
  const DType dt = b_->S(x).dtype;
  Tensor c = Tensor::Alloc(dt, {}).value();
  const double one = op == "OnesLike" ? 1 : 0;
  if (dt == DType::kFloat32) *static_cast<float*>(c.data) = static_cast<float>(one);
  else if (dt == DType::kInt32) *static_cast<int32_t*>(c.data) = static_cast<int32_t>(one);
  else if (dt == DType::kBool) *static_cast<uint8_t*>(c.data) = static_cast<uint8_t>(one);
  else return Error("of a " + std::string(DTypeName(dt)) + " tensor is not supported");
  const int s = b_->Node1("Shape", y + "/shape", {xv}, y + "/shape", DType::kInt64);
  const int v = b_->Node1("Expand", y, {b_->Const(y + "/value", c), s}, b_->NameFor(y, false), dt);
  b_->Set(y, v, false, b_->Rank(x), dt);
  return Status::Ok();
}

/// TensorFlow Range.
Status GraphConverter::Range(const NodeView& n) {
  const std::string& y = n.name;
  if (n.ins.size() != 3) return Error("expects inputs (start, limit, delta)");
  std::vector<int> vs;
  for (const std::string& t : n.ins) {
    TARE_ASSIGN_OR_RETURN(int v, b_->Plain(t));
    vs.push_back(v);
  }
  const DType dt = b_->S(n.ins[0]).dtype;
  const int v = b_->Node1("Range", y, vs, b_->NameFor(y, false), dt);
  b_->Set(y, v, false, 1, dt);
  return Status::Ok();
}

/// TensorFlow ResizeBilinear, ResizeNearestNeighbor.
Status GraphConverter::ResizeBilinear(const NodeView& n) {
  const std::string& op = n.op;
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string s, In(n, 1));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> size, b_->ConstInts(s, "the size"));
  if (size.size() != 2) return Error("the size must be [new_height, new_width]");
  return b_->Resize(y, x, size[0], size[1], op == "ResizeBilinear", n.B("align_corners", false), n.B("half_pixel_centers", false));
}

/// TensorFlow GatherNd.
Status GraphConverter::GatherNd(const NodeView& n) {
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string idx, In(n, 1));
  TARE_ASSIGN_OR_RETURN(int xv, b_->Plain(x));
  TARE_ASSIGN_OR_RETURN(int iv, AsI64(idx, y + "/indices"));
  const int v = b_->Node1("GatherND", y, {xv, iv}, b_->NameFor(y, false), b_->S(x).dtype, {{"batch_dims", IntAttr(0)}});
  b_->Set(y, v, false, -1, b_->S(x).dtype);
  return Status::Ok();
}

/// TensorFlow DepthToSpace, SpaceToDepth.
Status GraphConverter::DepthToSpace(const NodeView& n) {
  const std::string& op = n.op;
  const std::string& y = n.name;
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(int64_t bs, n.I("block_size", 0));
  if (bs < 2) return Error("block_size must be >= 2");
  if (n.S("data_format", "NHWC") != "NHWC") return Error("data_format must be NHWC");
  TARE_ASSIGN_OR_RETURN(int xv, b_->Nchw(x));
  std::map<std::string, Attr> attrs = {{"blocksize", IntAttr(bs)}};
  if (op == "DepthToSpace") attrs["mode"] = StrAttr("DCR");
  const int v = b_->Node1(op, y, {xv}, b_->NameFor(y, true), b_->S(x).dtype, attrs);
  b_->Set(y, v, true, 4, b_->S(x).dtype);
  return Status::Ok();
}

/// TensorFlow SpaceToBatchND and BatchToSpaceND: only as the two ends of a dilated convolution
/// (FindDilations, graph_model.cc), where they become aliases: the SpaceToBatchND of its input, the
/// BatchToSpaceND of the convolution's output. Elsewhere they are not supported.
Status GraphConverter::SpaceToBatchND(const NodeView& n) {
  auto it = s2b_of_.find(n.name);
  if (it == s2b_of_.end())
    return Error("is not supported outside a dilated convolution (SpaceToBatchND -> Conv2D / DepthwiseConv2dNative -> BatchToSpaceND)");
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  return b_->Alias(n.name, n.op == "SpaceToBatchND" ? x : it->second);
}

}  // namespace tfjs
}  // namespace tare
