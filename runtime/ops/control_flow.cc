// ControlFlow family: ops whose semantics run a subgraph.
//   If-16:  cond (bool, one element) selects then_branch or else_branch; the branch's outputs are
//           the node's outputs (the two branches may give different shapes).
//   Loop-16: inputs M (optional int64 max trip count), cond (optional bool), N loop-carried
//           values; body(iteration_num, cond_in, carried...) -> (cond_out, carried..., K scan
//           outputs); node outputs: the N final carried values, then the K scan outputs stacked
//           along a new axis 0. Carried values may be tensors, sequences or optionals.
//   Scan-16: N initial states then num_scan_inputs scan inputs; the body gets the states and one
//           slice of each scan input (along scan_input_axes, reversed where scan_input_directions
//           is 1) and returns N states and K scan-output slices, stacked along scan_output_axes
//           (in reverse order where scan_output_directions is 1). Scan-8 (the converter marks it
//           with "tare.scan8"): a leading optional sequence_lens input, batch axis 0 on every
//           input and output, scan axis 1, attribute `directions`.
//   SequenceMap-17: body applied to the i-th item of every sequence input (tensor inputs passed
//           whole); each body output collected into an output sequence.
// Subgraphs are closed: the converter turns each outer-scope value a body reads into a trailing
// node input and a trailing body input (their number is the int attribute "tare.captured").
// Output shapes are only known by running the body, so outputs are created by the kernel and the
// session evaluates these nodes at run time. Errors: missing or non-graph body attributes, input
// and output counts that do not match the body, a non-bool or non-scalar cond, bad axes, scan
// inputs of different lengths.
#include "runtime/ops/specs.h"

namespace tare {
namespace {

Result<const Graph*> Body(const InferContext& ctx, const char* name) {
  auto it = ctx.node.attrs.find(name);
  if (it == ctx.node.attrs.end() || it->second.kind != Attr::Kind::kGraph || !it->second.graph)
    return ctx.Error(std::string("attribute '") + name + "' (a graph) is missing");
  return it->second.graph.get();
}

Result<int64_t> Captured(const InferContext& ctx) {
  TARE_ASSIGN_OR_RETURN(int64_t c, ctx.node.GetInt("tare.captured", 0));
  if (c < 0 || c > static_cast<int64_t>(ctx.node.inputs.size()))
    return ctx.Error("attribute 'tare.captured' is out of range");
  return c;
}

Status ExpectCount(const InferContext& ctx, const char* what, size_t got, size_t want) {
  if (got != want)
    return ctx.Error(std::string(what) + ": expected " + std::to_string(want) + ", got " + std::to_string(got));
  return Status::Ok();
}

// Declares node output i as the body's output value `v`, created by the kernel.
void OutFromBody(InferContext& ctx, size_t i, const Graph& body, int v, ValueKind kind) {
  ctx.SetOutByKernel(i, kind, body.values[v].dtype);
}

Status CheckScalarCond(const InferContext& ctx, size_t i) {
  if (!ctx.has(i)) return Status::Ok();
  if (ctx.in[i].kind != ValueKind::kTensor || ctx.in[i].dtype != DType::kBool)
    return ctx.Error("cond must be a bool tensor");
  Result<int64_t> n = NumElements(ctx.in[i].shape);
  if (!n.ok() || *n != 1) return ctx.Error("cond must have exactly one element, got shape " + ShapeStr(ctx.in[i].shape));
  return Status::Ok();
}

Status InferIf(InferContext& ctx, int64_t cap) {
  if (ctx.node.inputs.size() != static_cast<size_t>(1 + cap) || !ctx.has(0))
    return ctx.Error("If takes one input (cond)");
  TARE_RETURN_IF_ERROR(CheckScalarCond(ctx, 0));
  TARE_ASSIGN_OR_RETURN(const Graph* then_g, Body(ctx, "then_branch"));
  TARE_ASSIGN_OR_RETURN(const Graph* else_g, Body(ctx, "else_branch"));
  for (const Graph* g : {then_g, else_g}) {
    TARE_RETURN_IF_ERROR(ExpectCount(ctx, "branch inputs", g->inputs.size(), static_cast<size_t>(cap)));
    TARE_RETURN_IF_ERROR(ExpectCount(ctx, "branch outputs", g->outputs.size(), ctx.node.outputs.size()));
  }
  for (size_t i = 0; i < ctx.node.outputs.size(); ++i) {
    const Value& t = then_g->values[then_g->outputs[i]];
    const Value& e = else_g->values[else_g->outputs[i]];
    if (t.kind != e.kind || (t.dtype != e.dtype && t.dtype != DType::kUndefined && e.dtype != DType::kUndefined))
      return ctx.Error("output " + std::to_string(i) + " has different types in the two branches (" + ValueKindName(t.kind) +
                       " of " + DTypeName(t.dtype) + " vs " + ValueKindName(e.kind) + " of " + DTypeName(e.dtype) + ")");
    OutFromBody(ctx, i, *then_g, then_g->outputs[i], t.kind);
  }
  return Status::Ok();
}

Status InferLoop(InferContext& ctx, int64_t cap) {
  const size_t n_in = ctx.node.inputs.size() - static_cast<size_t>(cap);
  if (n_in < 2) return ctx.Error("Loop takes inputs M, cond and the loop-carried values");
  if (ctx.has(0)) {
    if (ctx.in[0].dtype != DType::kInt64 || ctx.in[0].kind != ValueKind::kTensor) return ctx.Error("M must be int64");
    Result<int64_t> n = NumElements(ctx.in[0].shape);
    if (!n.ok() || *n != 1) return ctx.Error("M must have exactly one element");
  }
  TARE_RETURN_IF_ERROR(CheckScalarCond(ctx, 1));
  const size_t carried = n_in - 2;
  TARE_ASSIGN_OR_RETURN(const Graph* body, Body(ctx, "body"));
  TARE_RETURN_IF_ERROR(ExpectCount(ctx, "body inputs", body->inputs.size(), 2 + carried + static_cast<size_t>(cap)));
  if (body->outputs.size() < 1 + carried) return ctx.Error("body must return cond and the loop-carried values");
  const size_t scans = body->outputs.size() - 1 - carried;
  TARE_RETURN_IF_ERROR(ExpectCount(ctx, "outputs", ctx.node.outputs.size(), carried + scans));
  for (size_t i = 0; i < carried + scans; ++i) {
    const int v = body->outputs[1 + i];
    OutFromBody(ctx, i, *body, v, i < carried ? body->values[v].kind : ValueKind::kTensor);
  }
  return Status::Ok();
}

Status InferScan(InferContext& ctx, int64_t cap) {
  TARE_ASSIGN_OR_RETURN(int64_t v8, ctx.node.GetInt("tare.scan8", 0));
  TARE_ASSIGN_OR_RETURN(int64_t m, ctx.node.GetInt("num_scan_inputs", -1));
  const int64_t n_in = static_cast<int64_t>(ctx.node.inputs.size()) - cap - (v8 ? 1 : 0);
  if (m < 1 || m > n_in) return ctx.Error("attribute 'num_scan_inputs' must be in [1, " + std::to_string(n_in) + "]");
  const size_t states = static_cast<size_t>(n_in - m);
  TARE_ASSIGN_OR_RETURN(const Graph* body, Body(ctx, "body"));
  TARE_RETURN_IF_ERROR(ExpectCount(ctx, "body inputs", body->inputs.size(), states + static_cast<size_t>(m + cap)));
  if (body->outputs.size() < states) return ctx.Error("body must return the state values");
  const size_t scans = body->outputs.size() - states;
  TARE_RETURN_IF_ERROR(ExpectCount(ctx, "outputs", ctx.node.outputs.size(), states + scans));
  const size_t first = v8 ? 1 : 0;
  if (v8 && ctx.has(0) && ctx.in[0].dtype != DType::kInt64 && ctx.in[0].dtype != DType::kInt32)
    return ctx.Error("sequence_lens must be an integer tensor");
  for (size_t i = first; i < first + states + static_cast<size_t>(m); ++i)
    if (!ctx.has(i) || ctx.in[i].kind != ValueKind::kTensor) return ctx.Error("Scan inputs must be tensors");
  // Axes attributes are checked by the kernel against the actual ranks.
  for (size_t i = 0; i < states + scans; ++i) OutFromBody(ctx, i, *body, body->outputs[i], ValueKind::kTensor);
  return Status::Ok();
}

Status InferSequenceMap(InferContext& ctx, int64_t cap) {
  const size_t n_in = ctx.node.inputs.size() - static_cast<size_t>(cap);
  if (n_in < 1 || !ctx.has(0) || ctx.in[0].kind != ValueKind::kSequence)
    return ctx.Error("input 0 must be a sequence");
  TARE_ASSIGN_OR_RETURN(const Graph* body, Body(ctx, "body"));
  TARE_RETURN_IF_ERROR(ExpectCount(ctx, "body inputs", body->inputs.size(), n_in + static_cast<size_t>(cap)));
  TARE_RETURN_IF_ERROR(ExpectCount(ctx, "outputs", ctx.node.outputs.size(), body->outputs.size()));
  for (size_t i = 1; i < n_in; ++i)
    if (!ctx.has(i) || ctx.in[i].kind == ValueKind::kOptional) return ctx.Error("inputs must be sequences or tensors");
  for (size_t i = 0; i < body->outputs.size(); ++i) OutFromBody(ctx, i, *body, body->outputs[i], ValueKind::kSequence);
  return Status::Ok();
}

}  // namespace

Status InferControlFlow(InferContext& ctx) {
  TARE_ASSIGN_OR_RETURN(int64_t cap, Captured(ctx));
  const std::string& op = ctx.node.op;
  if (op == "If") return InferIf(ctx, cap);
  if (op == "Loop") return InferLoop(ctx, cap);
  if (op == "Scan") return InferScan(ctx, cap);
  return InferSequenceMap(ctx, cap);
}

}  // namespace tare
