// TFLite elementwise operators: binary arithmetic, unary math, activations and CAST -> ONNX-domain ops.

#include "converters/tflite/converter.h"

namespace tare {
namespace tflite {

using A = tfl::ActivationFunctionType;

namespace {

/// The fused activation of ADD, SUB, MUL and DIV (NONE when their options are absent, and for
/// MAXIMUM, MINIMUM, PRELU).
tfl::ActivationFunctionType ArithmeticActivation(const OpArgs& args) {
  const tfl::Operator& op = args.op;
  if (args.code == ADD) {
    const auto* o = op.builtin_options_as_AddOptions();
    return o ? o->fused_activation_function() : A::NONE;
  }
  if (args.code == SUB) {
    const auto* o = op.builtin_options_as_SubOptions();
    return o ? o->fused_activation_function() : A::NONE;
  }
  if (args.code == MUL) {
    const auto* o = op.builtin_options_as_MulOptions();
    return o ? o->fused_activation_function() : A::NONE;
  }
  if (args.code == DIV) {
    const auto* o = op.builtin_options_as_DivOptions();
    return o ? o->fused_activation_function() : A::NONE;
  }
  return A::NONE;
}

}  // namespace

/// TFLite ADD, SUB, MUL, DIV (with their fused activation), MAXIMUM, MINIMUM, PRELU (float): the
/// table's ONNX op, in NCHW when the output is rank 4 and an operand is held in NCHW (constants of
/// lower rank are expanded NHWC-style and permuted), else in TFLite's layout.
Status Converter::Binary(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  const std::string ir_op = args.ir();
  const tfl::ActivationFunctionType act = ArithmeticActivation(args);
  if (in.size() != 2 || out.size() != 1) return Error("expects two inputs and one output");
  const int a = in[0], b = in[1], y = out[0];
  // NCHW when the output is rank 4 and every run-time operand of rank 4 is (or can be) NCHW;
  // constants of lower rank are broadcast NHWC-style, so they are expanded to rank 4 and permuted.
  const bool use_nchw = Rank(y) == 4 && (HasNchw(a) || HasNchw(b)) &&
                        (Rank(a) == 4 || IsConst(a)) && (Rank(b) == 4 || IsConst(b));
  std::vector<int> ins;
  for (int t : {a, b}) {
    if (!use_nchw || Rank(t) == 4) {
      TARE_ASSIGN_OR_RETURN(int v, use_nchw ? Nchw(t) : Plain(t));
      ins.push_back(v);
      continue;
    }
    Tensor c = S(t).data;
    Shape s4(4 - c.shape.size(), 1);
    s4.insert(s4.end(), c.shape.begin(), c.shape.end());
    c.shape = s4;
    ins.push_back(Const(TName(t) + "/nchw", PermuteTensor(c, kToNchw)));
  }
  const int core = OutValue(y, use_nchw, act);
  AddNode(ir_op, OpName(y), ins, {core});
  return SetOutput(y, core, use_nchw, act);
}

/// One node `ir_op` on the first input (plus `extra` inputs), in NCHW when the input is held in NCHW
/// and the output is rank 4, else in TFLite's layout.
Status Converter::UnaryNode(const OpArgs& args, const std::string& ir_op, std::map<std::string, Attr> attrs,
                            std::vector<int> extra) {
  const std::vector<int>& in = args.in, &out = args.out;
  if (in.empty() || out.size() != 1) return Error("expects an input and one output");
  const int x = in[0], y = out[0];
  const bool nchw = HasNchw(x) && Rank(y) == 4;
  TARE_ASSIGN_OR_RETURN(int xv, nchw ? Nchw(x) : Plain(x));
  std::vector<int> ins = {xv};
  ins.insert(ins.end(), extra.begin(), extra.end());
  const int core = OutValue(y, nchw, tfl::ActivationFunctionType::NONE);
  AddNode(ir_op, OpName(y), ins, {core}, std::move(attrs));
  return SetOutput(y, core, nchw, tfl::ActivationFunctionType::NONE);
}

/// TFLite RELU, TANH, LOGISTIC, HARD_SWISH, EXP, SQRT, ABS, NEG (float): the table's ONNX op.
Status Converter::Elementwise(const OpArgs& args) { return UnaryNode(args, args.ir()); }

/// TFLite RELU6 and RELU_N1_TO_1: ONNX Clip to [0, 6] / [-1, 1].
Status Converter::ClipActivation(const OpArgs& args) {
  const std::vector<int>& out = args.out;
  const int code = args.code;
  const std::string nm = OpName(out.empty() ? 0 : out[0]);
  const float lo = code == RELU6 ? 0.f : -1.f, hi = code == RELU6 ? 6.f : 1.f;
  return UnaryNode(args, "Clip", {}, {Const(nm + "/min", Float32Scalar(lo)), Const(nm + "/max", Float32Scalar(hi))});
}

/// TFLite RSQRT: Reciprocal(Sqrt(x)).
Status Converter::Rsqrt(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  TARE_RETURN_IF_ERROR(Need(args, 1, 1));
  const bool nchw = HasNchw(in[0]);
  TARE_ASSIGN_OR_RETURN(int xv, nchw ? Nchw(in[0]) : Plain(in[0]));
  const int s = Node1("Sqrt", OpName(out[0]) + "/sqrt", {xv}, OpName(out[0]) + "/sqrt", DType::kFloat32);
  const int y = NewValue(NameFor(out[0], nchw), DType::kFloat32);
  AddNode("Reciprocal", OpName(out[0]), {s}, {y});
  return SetOutput(out[0], y, nchw, A::NONE);
}

/// TFLite SQUARE: Mul(x, x).
Status Converter::Square(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  TARE_RETURN_IF_ERROR(Need(args, 1, 1));
  const bool nchw = HasNchw(in[0]);
  TARE_ASSIGN_OR_RETURN(int xv, nchw ? Nchw(in[0]) : Plain(in[0]));
  const int y = NewValue(NameFor(out[0], nchw), S(out[0]).dtype);
  AddNode("Mul", OpName(out[0]), {xv, xv}, {y});
  return SetOutput(out[0], y, nchw, A::NONE);
}

/// TFLite LEAKY_RELU: ONNX LeakyRelu with the options' alpha (0 when absent).
Status Converter::LeakyRelu(const OpArgs& args) {
  const tfl::Operator& op = args.op;
  const auto* o = op.builtin_options_as_LeakyReluOptions();
  return UnaryNode(args, "LeakyRelu", {{"alpha", FloatAttr(o ? o->alpha() : 0.0f)}});
}

/// TFLite CAST: ONNX Cast to the output tensor's type, in TFLite's layout.
Status Converter::Cast(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  TARE_RETURN_IF_ERROR(Need(args, 1, 1));
  TARE_ASSIGN_OR_RETURN(int xv, Plain(in[0]));
  S(out[0]).plain = Node1("Cast", OpName(out[0]), {xv}, NameFor(out[0], false), S(out[0]).dtype,
                            {{"to", IntAttr(static_cast<int>(S(out[0]).dtype))}});
  return Status::Ok();
}

}  // namespace tflite
}  // namespace tare
