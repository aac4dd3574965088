// TFLite reductions and normalizations: MEAN / SUM / REDUCE_MAX / REDUCE_MIN, SOFTMAX, LOG_SOFTMAX,
// L2_NORMALIZATION -> ONNX-domain ops.

#include <algorithm>

#include "converters/tflite/converter.h"

namespace tare {
namespace tflite {

using A = tfl::ActivationFunctionType;

/// TFLite MEAN, SUM, REDUCE_MAX, REDUCE_MIN with constant axes: ONNX ReduceMean / ReduceSum /
/// ReduceMax / ReduceMin, in NCHW when the input is held in NCHW and the kept dims come out in the
/// same order either way (always with keep_dims).
Status Converter::Reduce(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  const std::string ir_op = args.ir();
  const tfl::Operator& op = args.op;
  if (in.size() != 2 || out.size() != 1) return Error("expects inputs (input, axes) and one output");
  const int x = in[0], y = out[0];
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ConstInts(in[1], "axes"));
  const auto* o = op.builtin_options_as_ReducerOptions();
  const bool keep = o && o->keep_dims();
  const int64_t r = Rank(x);
  std::set<int64_t> red;
  for (int64_t& a : axes) {
    if (a < -r || a >= r) return Error("axis " + std::to_string(a) + " is out of range for rank " + std::to_string(r));
    if (a < 0) a += r;
    red.insert(a);
  }
  // NCHW when the input has it and the kept dims come out in the same order either way.
  bool nchw = HasNchw(x) && r == 4;
  if (nchw && !keep) nchw = KeptDimsInNchwOrder(red);
  std::vector<int64_t> ir_axes;
  for (int64_t a : red) ir_axes.push_back(nchw ? NhwcAxisToNchw(a) : a);
  std::sort(ir_axes.begin(), ir_axes.end());
  TARE_ASSIGN_OR_RETURN(int xv, nchw ? Nchw(x) : Plain(x));
  const bool out_nchw = nchw && keep;
  const int core = OutValue(y, out_nchw, tfl::ActivationFunctionType::NONE);
  std::map<std::string, Attr> attrs = {{"keepdims", IntAttr(keep ? 1 : 0)}};
  std::vector<int> ins = {xv};
  if (ir_op == "ReduceSum") {
    ins.push_back(ConstI64(OpName(y) + "/axes", ir_axes));
  } else {
    attrs["axes"] = IntsAttr(ir_axes);
  }
  if (ir_axes.empty() && ir_op == "ReduceSum") attrs["noop_with_empty_axes"] = IntAttr(1);
  AddNode(ir_op, OpName(y), ins, {core}, attrs);
  return SetOutput(y, core, out_nchw, tfl::ActivationFunctionType::NONE);
}

/// TFLite SOFTMAX (beta as a Mul before it) and LOG_SOFTMAX over the last axis (channels: axis 1 in NCHW).
Status Converter::Softmax(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  const tfl::Operator& op = args.op;
  const int code = args.code;
  TARE_RETURN_IF_ERROR(Need(args, 1, 1));
  float beta = 1;
  if (code == SOFTMAX)
    if (const auto* o = op.builtin_options_as_SoftmaxOptions()) beta = o->beta();
  const bool nchw = Rank(in[0]) == 4 && HasNchw(in[0]);
  TARE_ASSIGN_OR_RETURN(int xv, nchw ? Nchw(in[0]) : Plain(in[0]));
  const std::string nm = OpName(out[0]);
  if (beta != 1) xv = Node1("Mul", nm + "/beta", {xv, Const(nm + "/beta", Float32Scalar(beta))}, nm + "/scaled", DType::kFloat32);
  const int y = NewValue(NameFor(out[0], nchw), S(out[0]).dtype);
  AddNode(code == SOFTMAX ? "Softmax" : "LogSoftmax", nm, {xv}, {y}, {{"axis", IntAttr(nchw ? 1 : -1)}});
  return SetOutput(out[0], y, nchw, A::NONE);
}

/// TFLite L2_NORMALIZATION over the last axis (channels: axis 1 in NCHW): x / max(sqrt(sum x^2), 1e-6),
/// then the fused activation.
Status Converter::L2Normalization(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  const tfl::Operator& op = args.op;
  // TFLite L2_NORMALIZATION over the last axis: x / max(sqrt(sum x^2), 1e-6).
  TARE_RETURN_IF_ERROR(Need(args, 1, 1));
  const bool nchw = Rank(in[0]) == 4 && HasNchw(in[0]);
  TARE_ASSIGN_OR_RETURN(int xv, nchw ? Nchw(in[0]) : Plain(in[0]));
  const std::string nm = OpName(out[0]);
  const int64_t axis = nchw ? 1 : Rank(in[0]) - 1;
  const int ss = Node1("ReduceSumSquare", nm + "/sum_squares", {xv}, nm + "/sum_squares", DType::kFloat32,
                       {{"axes", IntsAttr({axis})}, {"keepdims", IntAttr(1)}});
  const int n = Node1("Sqrt", nm + "/norm", {ss}, nm + "/norm", DType::kFloat32);
  const int m = Node1("Max", nm + "/clamp", {n, Const(nm + "/epsilon", Float32Scalar(1e-6f))}, nm + "/clamped", DType::kFloat32);
  const auto* o = op.builtin_options_as_L2NormOptions();
  const auto act = o ? o->fused_activation_function() : A::NONE;
  const int y = OutValue(out[0], nchw, act);
  AddNode("Div", nm, {xv, m}, {y});
  return SetOutput(out[0], y, nchw, act);
}

}  // namespace tflite
}  // namespace tare
