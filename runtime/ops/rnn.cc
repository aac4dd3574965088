// Recurrent layers: ONNX LSTM-14, GRU-14 and RNN-14, one layer (models of opset 7+ have the same
// semantics; they lack `layout`, which then defaults to 0). G = gates per cell: LSTM 4 (order i,o,f,c),
// GRU 3 (z,r,h), RNN 1; nd = num_directions (2 for "bidirectional", else 1); H = hidden size.
// Inputs: X [S,B,I] (layout 1: [B,S,I]); W [nd,G*H,I]; R [nd,G*H,H]; optional B [nd,2*G*H]
//   (Wb then Rb); sequence_lens [B] (int32, int64 accepted; each in [0,S]); initial_h [nd,B,H]
//   (layout 1: [B,nd,H]), zeros when absent; LSTM only: initial_c (as initial_h) and peepholes
//   P [nd,3*H] (order i,o,f), zeros when absent. Float inputs share X's dtype.
// Outputs, each optional: Y [S,nd,B,H] (layout 1: [B,S,nd,H]); Y_h [nd,B,H] (layout 1: [B,nd,H]);
//   LSTM only Y_c (as Y_h). Steps t >= sequence_lens[b] give zeros in Y; Y_h/Y_c hold the state
//   after the last valid step (forward: t = len-1, reverse: t = 0; the initial state when len = 0).
//   The reverse direction processes each batch entry's own steps len-1 down to 0.
// Attributes (defaults): hidden_size (optional; must equal R.shape[2] > 0); direction "forward" |
//   "reverse" | "bidirectional"; layout 0 | 1; activations, per direction LSTM f,g,h (Sigmoid,
//   Tanh, Tanh), GRU f,g (Sigmoid, Tanh), RNN f (Tanh): names Sigmoid, Tanh, Relu, HardSigmoid (any
//   case); a bidirectional node lists the forward then the reverse ones, or one set used for both;
//   activation_alpha/activation_beta: one float per HardSigmoid in list order (defaults 0.2, 0.5;
//   the other activations take none); clip (> 0; absent:
//   no clipping) clamps every activation's input to [-clip, clip] (LSTM: h(clip(C)), the stored cell
//   C itself is not clipped); LSTM input_forget 0 | 1 (1: f = 1 - i); GRU linear_before_reset 0
//   (nonzero: the recurrence of the h gate is applied before the reset gate).
// Equations and the reference accumulation order: kernels/ref/rnn.cc.
#include <cctype>

#include "runtime/ops/specs.h"

namespace tare {
namespace {

/// Checks the `activations` attribute: known names, count G_act per direction (or nd times that).
Status CheckActivations(const InferContext& ctx, int64_t per_dir, int64_t nd) {
  auto it = ctx.node.attrs.find("activations");
  size_t hard = 0;  // HardSigmoid entries: each takes one activation_alpha and one activation_beta
  if (it != ctx.node.attrs.end() && it->second.kind == Attr::Kind::kStrings)
    for (const std::string& name : it->second.strings) {
      std::string l;
      for (char ch : name) l += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      hard += l == "hardsigmoid";
    }
  for (const char* a : {"activation_alpha", "activation_beta"}) {
    auto at = ctx.node.attrs.find(a);
    if (at == ctx.node.attrs.end() || (at->second.floats.empty() && at->second.kind == Attr::Kind::kFloats)) continue;
    if (at->second.kind != Attr::Kind::kFloats || at->second.floats.size() > hard)
      return ctx.Error(std::string("attribute '") + a + "' must give at most one float per HardSigmoid activation (" +
                       std::to_string(hard) + " here)");
  }
  if (it == ctx.node.attrs.end()) return Status::Ok();
  if (it->second.kind != Attr::Kind::kStrings)
    return ctx.Error(std::string("attribute 'activations' must be strings, got ") + AttrKindName(it->second.kind));
  const std::vector<std::string>& names = it->second.strings;
  const int64_t n = static_cast<int64_t>(names.size());
  if (n != per_dir * nd && n != per_dir)
    return ctx.Error("attribute 'activations' must list " + std::to_string(per_dir * nd) + " functions (" +
                     std::to_string(per_dir) + " per direction), got " + std::to_string(n));
  for (const std::string& name : names) {
    std::string l;
    for (char ch : name) l += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (l != "sigmoid" && l != "tanh" && l != "relu" && l != "hardsigmoid")
      return ctx.Error("activation '" + name + "' is not supported (expected Sigmoid, Tanh, Relu or HardSigmoid)");
  }
  return Status::Ok();
}

/// Error unless input i (when present) has exactly the shape `want`.
Status ExpectShape(const InferContext& ctx, size_t i, const char* what, const Shape& want) {
  if (!ctx.has(i) || ctx.in[i].shape == want) return Status::Ok();
  return ctx.Error(std::string("input '") + what + "' must have shape " + ShapeStr(want) + ", got " +
                   ShapeStr(ctx.in[i].shape));
}

}  // namespace

Status InferRnn(InferContext& ctx) {
  const Node& node = ctx.node;
  const bool lstm = node.op == "LSTM", gru = node.op == "GRU";
  const int64_t G = lstm ? 4 : gru ? 3 : 1;
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(3, lstm ? 8 : 6));
  const size_t max_out = lstm ? 3 : 2;
  if (node.outputs.size() > max_out)
    return ctx.Error("has " + std::to_string(node.outputs.size()) + " outputs, at most " +
                     std::to_string(max_out) + " allowed");
  TARE_ASSIGN_OR_RETURN(std::string dir, node.GetString("direction", "forward"));
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
    return ctx.Error("attribute 'direction' must be forward, reverse or bidirectional, got '" + dir + "'");
  const int64_t nd = dir == "bidirectional" ? 2 : 1;
  TARE_ASSIGN_OR_RETURN(int64_t layout, node.GetInt("layout", 0));
  if (layout != 0 && layout != 1) return ctx.Error("attribute 'layout' must be 0 or 1, got " + std::to_string(layout));
  TARE_RETURN_IF_ERROR(CheckActivations(ctx, lstm ? 3 : gru ? 2 : 1, nd));
  if (node.has("clip")) {
    TARE_ASSIGN_OR_RETURN(float clip, node.GetFloat("clip", 0.f));
    if (!(clip > 0)) return ctx.Error("attribute 'clip' must be > 0, got " + std::to_string(clip));
  }
  if (lstm) {
    TARE_ASSIGN_OR_RETURN(int64_t f, node.GetInt("input_forget", 0));
    if (f != 0 && f != 1) return ctx.Error("attribute 'input_forget' must be 0 or 1, got " + std::to_string(f));
  }
  if (gru) TARE_RETURN_IF_ERROR(node.GetInt("linear_before_reset", 0).status());

  const DType dt = ctx.in[0].dtype;
  // The kernels compute in T from float32 data (float on ref, double on ref64): float16 and
  // float64 inputs would be misread.
  if (dt != DType::kFloat32) return ctx.Error("input 'X' must be float32, got " + DTypeName(dt));
  static const char* const kNames[] = {"X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"};
  for (size_t i = 1; i < ctx.in.size(); ++i)
    if (i != 4 && ctx.has(i) && ctx.in[i].dtype != dt)
      return ctx.Error(std::string("input '") + kNames[i] + "' must have X's dtype " + DTypeName(dt) + ", got " +
                       DTypeName(ctx.in[i].dtype));
  const Shape& xs = ctx.in[0].shape;
  if (xs.size() != 3) return ctx.Error("input 'X' must be 3-D, got shape " + ShapeStr(xs));
  const int64_t S = xs[layout ? 1 : 0], B = xs[layout ? 0 : 1], I = xs[2];
  const Shape& rs = ctx.in[2].shape;
  if (rs.size() != 3 || rs[0] != nd || rs[2] < 1 || rs[1] != G * rs[2])
    return ctx.Error("input 'R' must have shape [" + std::to_string(nd) + "," + std::to_string(G) +
                     "*hidden_size,hidden_size] with hidden_size >= 1, got " + ShapeStr(rs));
  const int64_t H = rs[2];
  if (node.has("hidden_size")) {
    TARE_ASSIGN_OR_RETURN(int64_t hs, node.GetInt("hidden_size", 0));
    if (hs != H)
      return ctx.Error("attribute 'hidden_size' " + std::to_string(hs) + " does not match R's shape " +
                       ShapeStr(rs) + " (hidden size " + std::to_string(H) + ")");
  }
  const Shape hshape = layout ? Shape{B, nd, H} : Shape{nd, B, H};
  TARE_RETURN_IF_ERROR(ExpectShape(ctx, 1, "W", {nd, G * H, I}));
  TARE_RETURN_IF_ERROR(ExpectShape(ctx, 3, "B", {nd, 2 * G * H}));
  TARE_RETURN_IF_ERROR(ExpectShape(ctx, 4, "sequence_lens", {B}));
  TARE_RETURN_IF_ERROR(ExpectShape(ctx, 5, "initial_h", hshape));
  TARE_RETURN_IF_ERROR(ExpectShape(ctx, 6, "initial_c", hshape));
  TARE_RETURN_IF_ERROR(ExpectShape(ctx, 7, "P", {nd, 3 * H}));
  if (ctx.has(4)) {
    const ValueInfo& sl = ctx.in[4];
    if (sl.dtype != DType::kInt32 && sl.dtype != DType::kInt64)
      return ctx.Error("input 'sequence_lens' must be int32, got " + DTypeName(sl.dtype));
    for (int64_t b = 0; sl.value && b < B; ++b) {
      const int64_t v = ReadInt(*sl.value, b);
      if (v < 0 || v > S)
        return ctx.Error("sequence_lens[" + std::to_string(b) + "] = " + std::to_string(v) + " is outside [0, " +
                         std::to_string(S) + "]");
    }
  }
  // Omitted outputs (id -1) stay absent: the kernel then skips them.
  auto set = [&](size_t i, const Shape& s) {
    if (i < node.outputs.size() && node.outputs[i] >= 0) ctx.SetOut(i, dt, s);
  };
  set(0, layout ? Shape{B, S, nd, H} : Shape{S, nd, B, H});
  set(1, hshape);
  set(2, hshape);
  return Status::Ok();
}

}  // namespace tare
