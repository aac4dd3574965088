// TFLite recurrent operators: UNIDIRECTIONAL_SEQUENCE_LSTM -> ONNX LSTM.

#include <cstring>

#include "converters/tflite/converter.h"

namespace tare {
namespace tflite {

/// TFLite UNIDIRECTIONAL_SEQUENCE_LSTM (float): inputs 0 x, 1-4 input weights (i, f, c, o), 5-8
/// recurrent weights, 9-11 peepholes (i, f, o; optional), 12-15 gate biases, 16-17 projection
/// (unsupported), 18-19 output and cell state (variable tensors, zero at the start of each run in
/// tare), 20-23 layer-norm coefficients (unsupported). -> ONNX LSTM with gates in ONNX's order
/// (i, o, f, c), batch-major input transposed to time-major when time_major is false.
Status Converter::Lstm(const OpArgs& args) {
  const std::vector<int>& in = args.in, &out = args.out;
  const tfl::Operator& op = args.op;
  if (in.size() < 20 || out.size() != 1) return Error("expects at least 20 inputs and one output");
  const auto* o = op.builtin_options_as_UnidirectionalSequenceLSTMOptions();
  if (!o) return Error("missing UnidirectionalSequenceLSTMOptions");
  if (o->cell_clip() != 0 || o->proj_clip() != 0) return Error("cell_clip and proj_clip are not supported");
  if (in[16] >= 0 || in[17] >= 0) return Error("projection weights are not supported");
  for (size_t k = 20; k < in.size(); ++k)
    if (in[k] >= 0) return Error("layer normalization coefficients are not supported");
  for (int k : {1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 15})
    if (!IsConst(in[static_cast<size_t>(k)])) return Error("weights and biases must be constants");
  const std::string nm = OpName(out[0]);
  auto cat = [&](std::vector<int> idx) -> Result<Tensor> {  // rows of the given tensors, stacked
    std::vector<Tensor> parts;
    int64_t rows = 0, cols = -1;
    for (int k : idx) {
      TARE_ASSIGN_OR_RETURN(Tensor t, ConstFloat(in[static_cast<size_t>(k)]));
      const int64_t c = t.shape.size() == 2 ? t.shape[1] : 1;
      if (cols >= 0 && c != cols) return Error("gate weights of different widths");
      cols = c;
      rows += t.shape[0];
      parts.push_back(t);
    }
    Tensor y = Tensor::Alloc(DType::kFloat32, cols == 1 && parts[0].shape.size() == 1 ? Shape{rows} : Shape{rows, cols}).value();
    size_t off = 0;
    for (const Tensor& p : parts) {
      std::memcpy(static_cast<uint8_t*>(y.data) + off, p.data, p.nbytes());
      off += p.nbytes();
    }
    return y;
  };
  TARE_ASSIGN_OR_RETURN(Tensor W, cat({1, 4, 2, 3}));  // i, o, f, c
  TARE_ASSIGN_OR_RETURN(Tensor R, cat({5, 8, 6, 7}));
  TARE_ASSIGN_OR_RETURN(Tensor Bw, cat({12, 15, 13, 14}));
  const int64_t hidden = R.shape[1];
  if (W.shape[0] != 4 * hidden || R.shape[0] != 4 * hidden || Bw.numel() != 4 * hidden) return Error("gate weight sizes do not match");
  W.shape.insert(W.shape.begin(), 1);
  R.shape.insert(R.shape.begin(), 1);
  Tensor B = Tensor::Alloc(DType::kFloat32, {1, 8 * hidden}).value();
  std::memcpy(B.data, Bw.data, Bw.nbytes());
  std::memset(static_cast<float*>(B.data) + 4 * hidden, 0, Bw.nbytes());
  std::vector<int> ins;
  TARE_ASSIGN_OR_RETURN(int xv, Plain(in[0]));
  const bool time_major = o->time_major();
  if (Rank(in[0]) != 3) return Error("input must have rank 3");
  if (!time_major) xv = Node1("Transpose", nm + "/time_major", {xv}, nm + "/x_time_major", DType::kFloat32, {{"perm", IntsAttr({1, 0, 2})}});
  ins = {xv, Const(nm + "/W", W), Const(nm + "/R", R), Const(nm + "/B", B), -1};
  // Initial states: the variable tensors' values, [1, batch, hidden]; a variable tensor without
  // stored data starts at zero, which is ONNX LSTM's omitted initial state (no zeros are stored:
  // their size would follow the file's declared batch, which nothing bounds).
  for (int k : {18, 19}) {
    const int t = in[static_cast<size_t>(k)];
    if (t < 0 || !IsConst(t)) {
      ins.push_back(-1);
    } else {
      TARE_ASSIGN_OR_RETURN(Tensor s, ConstFloat(t));
      s.shape.insert(s.shape.begin(), 1);
      ins.push_back(Const(nm + (k == 18 ? "/initial_h" : "/initial_c"), s));
    }
  }
  const bool peep = in[9] >= 0 || in[10] >= 0 || in[11] >= 0;
  if (peep) {
    if (!IsConst(in[9]) || !IsConst(in[10]) || !IsConst(in[11])) return Error("peepholes must all be constants");
    TARE_ASSIGN_OR_RETURN(Tensor P, cat({9, 11, 10}));  // i, o, f
    P.shape = {1, 3 * hidden};
    ins.push_back(Const(nm + "/P", P));
  }
  std::string act = "Tanh";
  switch (o->fused_activation_function()) {
    case tfl::ActivationFunctionType::TANH: act = "Tanh"; break;
    case tfl::ActivationFunctionType::RELU: act = "Relu"; break;
    case tfl::ActivationFunctionType::NONE: return Error("an LSTM without cell activation is not supported");
    default: return Error("this fused activation is not supported for the LSTM");
  }
  const int Y = NewValue(nm + "/Y", DType::kFloat32);
  AddNode("LSTM", nm, ins, {Y},
          {{"hidden_size", IntAttr(hidden)},
           {"activations", [&] {
              Attr a;
              a.kind = Attr::Kind::kStrings;
              a.strings = {"Sigmoid", act, act};
              return a;
            }()}});
  // Y [T, 1, batch, hidden] -> [T, batch, hidden] (-> batch-major).
  int v = Node1("Squeeze", nm + "/squeeze", {Y, ConstI64(nm + "/squeeze/axes", {1})}, time_major ? NameFor(out[0], false) : nm + "/y_time_major",
                DType::kFloat32);
  if (!time_major) v = Node1("Transpose", nm + "/batch_major", {v}, NameFor(out[0], false), DType::kFloat32, {{"perm", IntsAttr({1, 0, 2})}});
  S(out[0]).plain = v;
  return Status::Ok();
}

}  // namespace tflite
}  // namespace tare
