// TFLite shape and layout operators: RESHAPE, SQUEEZE, EXPAND_DIMS, TRANSPOSE, CONCATENATION, PAD,
// GATHER, SLICE, STRIDED_SLICE, PACK, UNPACK, SPLIT, resizes and depth/space -> ONNX-domain ops.

#include <cmath>
#include <cstdint>

#include "converters/tflite/converter.h"

namespace tare {
namespace tflite {

using A = tfl::ActivationFunctionType;

/// TFLite RESHAPE: the shape from the constant second input, else the options' new_shape, else the
/// output tensor's shape; ONNX Reshape (allowzero = 1) in TFLite's layout.
Status Converter::Reshape(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  const tfl::Operator& op = args.op;
  if (in.empty() || out.size() != 1) return Error("expects an input and one output");
  std::vector<int64_t> shape;
  if (in.size() > 1 && in[1] >= 0 && IsConst(in[1])) {
    TARE_ASSIGN_OR_RETURN(shape, ConstInts(in[1], "shape"));
  } else if (const auto* o = op.builtin_options_as_ReshapeOptions(); o && o->new_shape()) {
    shape.assign(o->new_shape()->begin(), o->new_shape()->end());
  } else {
    shape.assign(S(out[0]).shape.begin(), S(out[0]).shape.end());
  }
  TARE_ASSIGN_OR_RETURN(int xv, Plain(in[0]));
  const std::string nm = OpName(out[0]);
  S(out[0]).plain = Node1("Reshape", nm, {xv, ConstI64(nm + "/shape", shape)}, NameFor(out[0], false), S(out[0]).dtype,
                            {{"allowzero", IntAttr(1)}});
  return Status::Ok();
}

/// TFLite SQUEEZE: ONNX Squeeze of squeeze_dims (all 1-dims when empty).
Status Converter::Squeeze(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  const tfl::Operator& op = args.op;
  TARE_RETURN_IF_ERROR(Need(args, 1, 1));
  const auto* o = op.builtin_options_as_SqueezeOptions();
  std::vector<int64_t> axes;
  if (o && o->squeeze_dims()) axes.assign(o->squeeze_dims()->begin(), o->squeeze_dims()->end());
  TARE_ASSIGN_OR_RETURN(int xv, Plain(in[0]));
  const std::string nm = OpName(out[0]);
  std::vector<int> ins = {xv};
  if (!axes.empty()) ins.push_back(ConstI64(nm + "/axes", axes));
  S(out[0]).plain = Node1("Squeeze", nm, ins, NameFor(out[0], false), S(out[0]).dtype);
  return Status::Ok();
}

/// TFLite EXPAND_DIMS with a constant axis: ONNX Unsqueeze.
Status Converter::ExpandDims(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  TARE_RETURN_IF_ERROR(Need(args, 2, 1));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ConstInts(in[1], "axis"));
  TARE_ASSIGN_OR_RETURN(int xv, Plain(in[0]));
  const std::string nm = OpName(out[0]);
  S(out[0]).plain = Node1("Unsqueeze", nm, {xv, ConstI64(nm + "/axes", axes)}, NameFor(out[0], false), S(out[0]).dtype);
  return Status::Ok();
}

/// TFLite TRANSPOSE with a constant perm: ONNX Transpose in TFLite's layout.
Status Converter::Transpose(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  TARE_RETURN_IF_ERROR(Need(args, 2, 1));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> perm, ConstInts(in[1], "perm"));
  TARE_ASSIGN_OR_RETURN(int xv, Plain(in[0]));
  S(out[0]).plain = Node1("Transpose", OpName(out[0]), {xv}, NameFor(out[0], false), S(out[0]).dtype, {{"perm", IntsAttr(perm)}});
  return Status::Ok();
}

/// TFLite CONCATENATION: ONNX Concat, in NCHW when every input is rank 4 and one is held in NCHW.
Status Converter::Concatenation(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  const tfl::Operator& op = args.op;
  if (in.empty() || out.size() != 1) return Error("expects inputs and one output");
  const auto* o = op.builtin_options_as_ConcatenationOptions();
  if (!o) return Error("missing ConcatenationOptions");
  int64_t axis = o->axis();
  const int64_t r = Rank(out[0]);
  if (axis < -r || axis >= r) return Error("axis " + std::to_string(axis) + " is out of range");
  if (axis < 0) axis += r;
  bool nchw = r == 4;
  bool any_nchw = false;
  for (int t : in) {
    if (t < 0) return Error("an input is missing");
    nchw = nchw && Rank(t) == 4;
    any_nchw = any_nchw || HasNchw(t);
  }
  nchw = nchw && any_nchw;
  std::vector<int> ins;
  for (int t : in) {
    TARE_ASSIGN_OR_RETURN(int v, nchw ? Nchw(t) : Plain(t));
    ins.push_back(v);
  }
  const auto act = o->fused_activation_function();
  if (act != A::NONE) return Error("a fused activation on CONCATENATION (TFLite's kernel refuses it) is not supported");
  const int core = OutValue(out[0], nchw, act);
  AddNode("Concat", OpName(out[0]), ins, {core}, {{"axis", IntAttr(nchw ? NhwcAxisToNchw(axis) : axis)}});
  return SetOutput(out[0], core, nchw, act);
}

/// TFLite PAD and PADV2 (constant value input): ONNX Pad (mode constant), paddings [rank, 2]
/// permuted to NCHW when the input is held in NCHW.
Status Converter::Pad(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  const int code = args.code;
  TARE_RETURN_IF_ERROR(Need(args, 2, 1));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> p, ConstInts(in[1], "paddings"));
  const size_t r = static_cast<size_t>(Rank(in[0]));
  if (p.size() != 2 * r) return Error("paddings must have shape [rank, 2]");
  const bool nchw = r == 4 && HasNchw(in[0]);
  std::vector<int64_t> pads(2 * r);
  for (size_t d = 0; d < r; ++d) {
    const size_t id = nchw ? static_cast<size_t>(NhwcAxisToNchw(static_cast<int64_t>(d))) : d;
    pads[id] = p[2 * d];
    pads[r + id] = p[2 * d + 1];
  }
  TARE_ASSIGN_OR_RETURN(int xv, nchw ? Nchw(in[0]) : Plain(in[0]));
  const std::string nm = OpName(out[0]);
  std::vector<int> ins = {xv, ConstI64(nm + "/pads", pads)};
  if (IsQuant(in[0])) {
    TARE_ASSIGN_OR_RETURN(int cv, QuantPadValue(args, nm));
    ins.push_back(cv);
  } else if (code == PADV2 && in.size() > 2 && in[2] >= 0) {
    TARE_ASSIGN_OR_RETURN(int cv, Plain(in[2]));
    ins.push_back(cv);
  }
  const int y = NewValue(NameFor(out[0], nchw), S(out[0]).dtype);
  AddNode("Pad", nm, ins, {y}, {{"mode", StrAttr("constant")}});
  return SetOutput(out[0], y, nchw, A::NONE);
}

/// The padding code of a quantized PAD / PADV2 (TFLite pad.cc, int8/uint8/int16): input and output
/// share one scale and zero point (the codes are copied), the padding is the output's zero point
/// (real 0) or PADV2's constant, a quantized scalar of the same scale and zero point. Returns a
/// scalar constant of the input's code type. Errors: other quantizations, a non-constant value.
Result<int> Converter::QuantPadValue(const OpArgs& args, const std::string& nm) {
  const std::vector<int>& in = args.in, &out = args.out;
  if (!IsQuant(out[0])) return Error("quantized PAD with an output without scales");
  std::map<std::string, Attr> q;
  TARE_RETURN_IF_ERROR(QuantAttrs(in[0], "x_scale", "x_zero_point", &q));
  TARE_RETURN_IF_ERROR(QuantAttrs(out[0], "y_scale", "y_zero_point", &q));
  if (q["x_scale"].f != q["y_scale"].f || q["x_zero_point"].i != q["y_zero_point"].i)
    return Error("quantized PAD: the input (tensor " + std::to_string(in[0]) + ": scale " + std::to_string(q["x_scale"].f) +
                 ", zero point " + std::to_string(q["x_zero_point"].i) + ") and output (tensor " + std::to_string(out[0]) +
                 ": scale " + std::to_string(q["y_scale"].f) + ", zero point " + std::to_string(q["y_zero_point"].i) +
                 ") must have the same scale and zero point");
  if (!(std::isfinite(q["y_scale"].f) && q["y_scale"].f > 0))
    return Error("quantized PAD: tensor " + std::to_string(out[0]) + " has scale " + std::to_string(q["y_scale"].f) +
                 "; it must be finite and > 0");
  int64_t code = q["y_zero_point"].i;
  if (args.code == PADV2 && in.size() > 2 && in[2] >= 0) {
    if (!IsConst(in[2]) || !IsQuant(in[2]) || S(in[2]).dtype != S(in[0]).dtype)
      return Error("quantized PADV2: constant_values must be a constant of the input's type and quantization");
    TARE_RETURN_IF_ERROR(QuantAttrs(in[2], "c_scale", "c_zero_point", &q));
    if (q["c_scale"].f != q["y_scale"].f || q["c_zero_point"].i != q["y_zero_point"].i)
      return Error("quantized PADV2: constant_values must have the output's scale and zero point");
    if (S(in[2]).data.numel() != 1) return Error("quantized PADV2: constant_values must hold one value");
    code = ReadInt(S(in[2]).data, 0);
  }
  TARE_ASSIGN_OR_RETURN(Tensor t, Tensor::Alloc(S(in[0]).dtype, {}));
  WriteInt(t, 0, code);
  return Const(nm + "/constant_value", t);
}

/// TFLite GATHER (batch_dims 0): ONNX Gather in TFLite's layout.
Status Converter::Gather(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  const tfl::Operator& op = args.op;
  TARE_RETURN_IF_ERROR(Need(args, 2, 1));
  const auto* o = op.builtin_options_as_GatherOptions();
  if (o && o->batch_dims() != 0) return Error("batch_dims != 0 is not supported");
  TARE_ASSIGN_OR_RETURN(int xv, Plain(in[0]));
  TARE_ASSIGN_OR_RETURN(int iv, Plain(in[1]));
  S(out[0]).plain = Node1("Gather", OpName(out[0]), {xv, iv}, NameFor(out[0], false), S(out[0]).dtype,
                            {{"axis", IntAttr(o ? o->axis() : 0)}});
  return Status::Ok();
}

/// TFLite SLICE with constant begin and size (-1: to the end): ONNX Slice.
Status Converter::Slice(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  TARE_RETURN_IF_ERROR(Need(args, 3, 1));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> begin, ConstInts(in[1], "begin"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> size, ConstInts(in[2], "size"));
  if (begin.size() != size.size() || begin.size() != static_cast<size_t>(Rank(in[0]))) return Error("begin and size must have one value per dim");
  std::vector<int64_t> ends(begin.size()), axes(begin.size());
  for (size_t i = 0; i < begin.size(); ++i) {
    ends[i] = size[i] == -1 ? INT64_MAX : begin[i] + size[i];
    axes[i] = static_cast<int64_t>(i);
  }
  TARE_ASSIGN_OR_RETURN(int xv, Plain(in[0]));
  const std::string nm = OpName(out[0]);
  S(out[0]).plain = Node1("Slice", nm, {xv, ConstI64(nm + "/starts", begin), ConstI64(nm + "/ends", ends), ConstI64(nm + "/axes", axes)},
                            NameFor(out[0], false), S(out[0]).dtype);
  return Status::Ok();
}

/// TFLite STRIDED_SLICE: begin/end/strides constants, begin_mask/end_mask (bit i: ignore begin/end
/// of dim i), shrink_axis_mask (dim i taken at begin and removed). ellipsis_mask and new_axis_mask
/// are not supported. -> ONNX Slice (+ Squeeze for shrunk dims) in TFLite's layout.
Status Converter::StridedSlice(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  const tfl::Operator& op = args.op;
  if (in.size() != 4 || out.size() != 1) return Error("expects inputs (input, begin, end, strides) and one output");
  const auto* o = op.builtin_options_as_StridedSliceOptions();
  if (!o) return Error("missing StridedSliceOptions");
  if (o->ellipsis_mask() || o->new_axis_mask()) return Error("ellipsis_mask and new_axis_mask are not supported");
  if (o->offset()) return Error("offset = true is not supported");
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> begin, ConstInts(in[1], "begin"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> end, ConstInts(in[2], "end"));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, ConstInts(in[3], "strides"));
  const size_t r = static_cast<size_t>(Rank(in[0]));
  if (begin.size() != end.size() || begin.size() != strides.size() || begin.size() > r)
    return Error("begin, end and strides must have the same length, at most the input's rank");
  std::vector<int64_t> starts, ends, axes, steps, squeeze;
  const int64_t kMax = INT64_MAX, kMin = INT64_MIN;
  for (size_t i = 0; i < begin.size(); ++i) {
    const int64_t st = strides[i];
    if (st == 0) return Error("a stride is 0");
    const bool shrink = (o->shrink_axis_mask() >> i) & 1;
    int64_t b = (o->begin_mask() >> i) & 1 ? (st > 0 ? 0 : kMax) : begin[i];
    int64_t e = (o->end_mask() >> i) & 1 ? (st > 0 ? kMax : kMin) : end[i];
    if (shrink) {
      b = begin[i];
      const int64_t dim = S(in[0]).shape[i];
      const int64_t bb = b < 0 ? b + dim : b;
      if (bb < 0 || bb >= dim) return Error("shrink index " + std::to_string(b) + " is out of range for dim " + std::to_string(dim));
      b = bb;
      e = bb + 1;
      squeeze.push_back(static_cast<int64_t>(i));
    }
    starts.push_back(b), ends.push_back(e), axes.push_back(static_cast<int64_t>(i)), steps.push_back(shrink ? 1 : st);
  }
  TARE_ASSIGN_OR_RETURN(int xv, Plain(in[0]));
  const int y = out[0];
  const std::string nm = OpName(y);
  int v = Node1("Slice", nm, {xv, ConstI64(nm + "/starts", starts), ConstI64(nm + "/ends", ends), ConstI64(nm + "/axes", axes),
                              ConstI64(nm + "/steps", steps)},
                squeeze.empty() ? NameFor(y, false) : nm + "/sliced", S(y).dtype);
  if (!squeeze.empty()) v = Node1("Squeeze", nm + "/shrink", {v, ConstI64(nm + "/shrink/axes", squeeze)}, NameFor(y, false), S(y).dtype);
  S(y).plain = v;
  return Status::Ok();
}

/// TFLite PACK: an Unsqueeze of each input at the axis, then ONNX Concat.
Status Converter::Pack(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  const tfl::Operator& op = args.op;
  const auto* o = op.builtin_options_as_PackOptions();
  if (in.empty() || out.size() != 1 || !o) return Error("expects inputs, one output and PackOptions");
  const int64_t r = Rank(out[0]);
  int64_t axis = o->axis();
  if (axis < -r || axis >= r) return Error("axis is out of range");
  if (axis < 0) axis += r;
  const std::string nm = OpName(out[0]);
  std::vector<int> parts;
  const int ax = ConstI64(nm + "/axis", {axis});
  for (size_t k = 0; k < in.size(); ++k) {
    TARE_ASSIGN_OR_RETURN(int v, Plain(in[k]));
    parts.push_back(Node1("Unsqueeze", nm + "/unsqueeze_" + std::to_string(k), {v, ax}, nm + "/part_" + std::to_string(k), S(out[0]).dtype));
  }
  S(out[0]).plain = Node1("Concat", nm, parts, NameFor(out[0], false), S(out[0]).dtype, {{"axis", IntAttr(axis)}});
  return Status::Ok();
}

/// TFLite UNPACK (Split, then Squeeze of the axis) and SPLIT (constant axis first input): equal parts.
Status Converter::Split(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  const tfl::Operator& op = args.op;
  const int code = args.code;
  const int x = code == UNPACK ? (in.empty() ? -1 : in[0]) : (in.size() < 2 ? -1 : in[1]);
  if (x < 0 || out.empty()) return Error("expects an input and outputs");
  int64_t axis = 0;
  if (code == UNPACK) {
    const auto* o = op.builtin_options_as_UnpackOptions();
    axis = o ? o->axis() : 0;
  } else {
    TARE_ASSIGN_OR_RETURN(std::vector<int64_t> a, ConstInts(in[0], "axis"));
    if (a.size() != 1) return Error("axis must have one value");
    axis = a[0];
  }
  const int64_t r = Rank(x);
  if (axis < -r || axis >= r) return Error("axis is out of range");
  if (axis < 0) axis += r;
  const int64_t n = static_cast<int64_t>(out.size());
  if (S(x).shape[static_cast<size_t>(axis)] % n) return Error("the axis does not divide evenly into the outputs");
  const std::string nm = OpName(out[0]);
  TARE_ASSIGN_OR_RETURN(int xv, Plain(x));
  std::vector<int> outs;
  for (int k = 0; k < static_cast<int>(n); ++k)
    outs.push_back(NewValue(code == UNPACK ? nm + "/split_" + std::to_string(k) : NameFor(out[static_cast<size_t>(k)], false),
                            S(x).dtype));
  AddNode("Split", nm + "/split", {xv, ConstI64(nm + "/split/sizes", std::vector<int64_t>(static_cast<size_t>(n), S(x).shape[static_cast<size_t>(axis)] / n))},
          outs, {{"axis", IntAttr(axis)}});
  for (size_t k = 0; k < out.size(); ++k) {
    if (code == UNPACK)
      outs[k] = Node1("Squeeze", nm + "/squeeze_" + std::to_string(k), {outs[k], ConstI64(nm + "/squeeze_" + std::to_string(k) + "/axes", {axis})},
                      NameFor(out[k], false), S(x).dtype);
    S(out[k]).plain = outs[k];
  }
  return Status::Ok();
}

/// TFLite RESIZE_BILINEAR (v3) and RESIZE_NEAREST_NEIGHBOR with a constant size: ONNX Resize on the NCHW input.
Status Converter::Resize(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  const tfl::Operator& op = args.op;
  const int code = args.code;
  TARE_RETURN_IF_ERROR(Need(args, 2, 1));
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> size, ConstInts(in[1], "size"));
  if (size.size() != 2 || Rank(in[0]) != 4) return Error("expects a rank-4 input and size [new_height, new_width]");
  bool align = false, half = false;
  if (code == RESIZE_BILINEAR) {
    if (const auto* o = op.builtin_options_as_ResizeBilinearOptions()) align = o->align_corners(), half = o->half_pixel_centers();
  } else if (const auto* o = op.builtin_options_as_ResizeNearestNeighborOptions()) {
    align = o->align_corners(), half = o->half_pixel_centers();
  }
  if (align && half) return Error("align_corners and half_pixel_centers cannot both be set");
  std::map<std::string, Attr> attrs = TfResizeAttrs(code == RESIZE_BILINEAR, align, half);  // converters/nhwc.h
  TARE_ASSIGN_OR_RETURN(int xv, Nchw(in[0]));
  const std::string nm = OpName(out[0]);
  const Shape& xs = S(in[0]).shape;
  const int y = NewValue(NameFor(out[0], true), S(out[0]).dtype);
  AddNode("Resize", nm, {xv, -1, -1, ConstI64(nm + "/sizes", {xs[0], xs[3], size[0], size[1]})}, {y}, attrs);
  return SetOutput(out[0], y, true, A::NONE);
}

/// TFLite DEPTH_TO_SPACE and SPACE_TO_DEPTH: ONNX DepthToSpace (DCR) / SpaceToDepth on the NCHW input.
Status Converter::DepthSpace(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  const tfl::Operator& op = args.op;
  const int code = args.code;
  TARE_RETURN_IF_ERROR(Need(args, 1, 1));
  int64_t bs = 0;
  if (code == DEPTH_TO_SPACE) {
    if (const auto* o = op.builtin_options_as_DepthToSpaceOptions()) bs = o->block_size();
  } else if (const auto* o = op.builtin_options_as_SpaceToDepthOptions()) {
    bs = o->block_size();
  }
  if (bs < 1) return Error("block_size must be >= 1");
  TARE_ASSIGN_OR_RETURN(int xv, Nchw(in[0]));
  const int y = NewValue(NameFor(out[0], true), S(out[0]).dtype);
  // TensorFlow's channel order (i * bs + j) * C + c is ONNX's DCR mode (and SpaceToDepth's).
  std::map<std::string, Attr> attrs = {{"blocksize", IntAttr(bs)}};
  if (code == DEPTH_TO_SPACE) attrs["mode"] = StrAttr("DCR");
  AddNode(code == DEPTH_TO_SPACE ? "DepthToSpace" : "SpaceToDepth", OpName(out[0]), {xv}, {y}, attrs);
  return SetOutput(out[0], y, true, A::NONE);
}

}  // namespace tflite
}  // namespace tare
