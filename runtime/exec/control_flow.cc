// Reference kernels of If, Loop, Scan and SequenceMap (semantics: runtime/ops/control_flow.cc).
// Bodies run on BodyRunners made once when the kernel is made: the reference interpreter
// (GraphEvaluator) in the node's compute type, or nested sessions on a session's own backends. Values pass between iterations without copies (tensors
// are immutable once produced); scan outputs are stacked by copying.
// Bounds (ControlFlowBudget, runtime/exec/eval_node.h): body runs of all nested control flow
// together at most 2^20 per outermost node (a loop that never stops, or loops nested to multiply
// their counts, get an error instead of hanging); the parts collected for one stacked output at most
// the session's max_tensor_bytes, checked as each part arrives.
#include <algorithm>
#include <cstring>
#include <memory>

#include "runtime/exec/eval_node.h"

namespace tare {
namespace {

using Evaluator = std::shared_ptr<BodyRunner>;

/// The reference interpreter as a BodyRunner.
class EvaluatorRunner : public BodyRunner {
 public:
  EvaluatorRunner(std::unique_ptr<GraphEvaluator> e, std::string where) : e_(std::move(e)), where_(std::move(where)) {}
  Result<std::vector<Tensor>> Run(const std::vector<Tensor>& inputs) override { return e_->Run(inputs); }
  std::string Placement() const override { return where_; }

 private:
  std::unique_ptr<GraphEvaluator> e_;
  std::string where_;
};

Result<Evaluator> Prepare(const Node& node, const char* name, const BodyFactory& factory) {
  auto it = node.attrs.find(name);
  if (it == node.attrs.end() || it->second.kind != Attr::Kind::kGraph || !it->second.graph)
    return Status::Error(node.Where() + ": attribute '" + std::string(name) + "' (a graph) is missing");
  Result<Evaluator> e = factory(it->second.graph);
  if (!e.ok()) return Status::Error(node.Where() + ": " + name + ": " + e.status().message());
  return std::move(e).value();
}

bool ReadCond(const Tensor& t) { return ReadInt(t, 0) != 0; }

Tensor Int64Scalar(int64_t v) {
  Tensor t = Tensor::Alloc(DType::kInt64, {}).value();
  *t.as<int64_t>() = v;
  return t;
}

Tensor BoolScalar(bool v) {
  Tensor t = Tensor::Alloc(DType::kBool, {}).value();
  *t.as<bool>() = v;
  return t;
}

// Slice i of x along `axis` (that axis removed), copied.
Result<Tensor> SliceAxis(const Tensor& x, size_t axis, int64_t i) {
  Shape s = x.shape;
  s.erase(s.begin() + static_cast<std::ptrdiff_t>(axis));
  TARE_ASSIGN_OR_RETURN(Tensor y, Tensor::Alloc(x.dtype, s));
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (size_t d = axis + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
  const int64_t len = x.shape[axis];
  const size_t es = DTypeSize(x.dtype);
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(static_cast<uint8_t*>(y.data) + static_cast<size_t>(o * inner) * es,
                static_cast<const uint8_t*>(x.data) + static_cast<size_t>((o * len + i) * inner) * es,
                static_cast<size_t>(inner) * es);
  return y;
}

// Stacks equal-shaped tensors along a new `axis` (in [0, rank]). With no parts the result is
// [0] + nothing known: shape {0}.
Result<Tensor> Stack(const std::vector<Tensor>& parts, size_t axis, DType dtype, const std::string& where) {
  if (parts.empty()) return Tensor::Alloc(dtype, {0});
  const Tensor& p0 = parts[0];
  if (p0.dtype == DType::kString || !p0.is_tensor()) return Status::Error(where + ": scan outputs must be numeric tensors");
  for (const Tensor& p : parts)
    if (p.shape != p0.shape || p.dtype != p0.dtype || !p.is_tensor())
      return Status::Error(where + ": scan output slices differ in shape or type (" + TypeStr(p0) + " vs " + TypeStr(p) + ")");
  if (axis > p0.shape.size()) return Status::Error(where + ": scan output axis is out of range");
  Shape s = p0.shape;
  s.insert(s.begin() + static_cast<std::ptrdiff_t>(axis), static_cast<int64_t>(parts.size()));
  TARE_ASSIGN_OR_RETURN(Tensor y, Tensor::Alloc(p0.dtype, s));
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= p0.shape[d];
  for (size_t d = axis; d < p0.shape.size(); ++d) inner *= p0.shape[d];
  const int64_t n = static_cast<int64_t>(parts.size());
  const size_t es = DTypeSize(p0.dtype);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < n; ++k)
      std::memcpy(static_cast<uint8_t*>(y.data) + static_cast<size_t>((o * n + k) * inner) * es,
                  static_cast<const uint8_t*>(parts[static_cast<size_t>(k)].data) + static_cast<size_t>(o * inner) * es,
                  static_cast<size_t>(inner) * es);
  return y;
}

Result<size_t> Axis(int64_t a, size_t rank, const std::string& where, const char* what) {
  const int64_t r = static_cast<int64_t>(rank);
  if (a < -r || a >= r) return Status::Error(where + ": " + what + " " + std::to_string(a) + " is out of range for rank " + std::to_string(r));
  return static_cast<size_t>(a < 0 ? a + r : a);
}

Result<KernelFn> MakeIf(const Node& node, const BodyFactory& factory) {
  TARE_ASSIGN_OR_RETURN(Evaluator then_e, Prepare(node, "then_branch", factory));
  TARE_ASSIGN_OR_RETURN(Evaluator else_e, Prepare(node, "else_branch", factory));
  const std::string where = node.Where();
  return KernelFn([then_e, else_e, where](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
    std::vector<Tensor> captured;
    for (size_t i = 1; i < in.size(); ++i) captured.push_back(in[i] ? *in[i] : Tensor());
    BodyRunner& e = ReadCond(*in[0]) ? *then_e : *else_e;
    ControlFlowBudget budget;
    TARE_RETURN_IF_ERROR(budget.CountRun(where));
    TARE_ASSIGN_OR_RETURN(std::vector<Tensor> res, e.Run(captured));
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i]) *out[i] = std::move(res[i]);
    return Status::Ok();
  });
}

Result<KernelFn> MakeLoop(const Node& node, const BodyFactory& factory) {
  TARE_ASSIGN_OR_RETURN(Evaluator body, Prepare(node, "body", factory));
  TARE_ASSIGN_OR_RETURN(int64_t cap, node.GetInt("tare.captured", 0));
  const std::string where = node.Where();
  return KernelFn([body, cap, where](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
    const size_t carried = in.size() - static_cast<size_t>(cap) - 2;
    const size_t scans = out.size() - carried;
    // No M: no trip limit. A negative M runs no iteration (as ONNX Runtime does).
    const bool has_trip = in[0] != nullptr;
    const int64_t max_trip = has_trip ? std::max<int64_t>(ReadInt(*in[0], 0), 0) : 0;
    bool cond = in[1] ? ReadCond(*in[1]) : true;
    std::vector<Tensor> args(2 + carried + static_cast<size_t>(cap));
    for (size_t i = 0; i < carried; ++i) args[2 + i] = *in[2 + i];
    for (size_t i = 0; i < static_cast<size_t>(cap); ++i) args[2 + carried + i] = in[2 + carried + i] ? *in[2 + carried + i] : Tensor();
    std::vector<std::vector<Tensor>> scan_parts(scans);
    std::vector<size_t> scan_bytes(scans, 0);
    ControlFlowBudget budget;
    int64_t i = 0;
    for (; (!has_trip || i < max_trip) && cond; ++i) {
      TARE_RETURN_IF_ERROR(budget.CountRun(where));
      args[0] = Int64Scalar(i);
      args[1] = BoolScalar(cond);
      TARE_ASSIGN_OR_RETURN(std::vector<Tensor> res, body->Run(args));
      const Tensor& c = res[0];
      if (!c.is_tensor() || c.numel() != 1) return Status::Error(where + ": the body's cond output must have one element");
      cond = ReadCond(c);
      for (size_t k = 0; k < carried; ++k) {
        const Tensor& before = args[2 + k];
        const Tensor& after = res[1 + k];
        // An optional may turn into the value it holds (ONNX test_loop16_seq_none); otherwise the
        // kind and the element type stay.
        const bool optional = before.kind == ValueKind::kOptional || after.kind == ValueKind::kOptional;
        if (!optional && (after.kind != before.kind ||
                          (after.dtype != before.dtype && before.dtype != DType::kUndefined && after.dtype != DType::kUndefined)))
          return Status::Error("loop-carried value " + std::to_string(k) + " changes type from " + TypeStr(before) +
                               " to " + TypeStr(after));
        args[2 + k] = std::move(res[1 + k]);
      }
      for (size_t k = 0; k < scans; ++k) {
        TARE_RETURN_IF_ERROR(ControlFlowBudget::Collect(res[1 + carried + k].nbytes(), &scan_bytes[k], where));
        scan_parts[k].push_back(std::move(res[1 + carried + k]));
      }
    }
    for (size_t k = 0; k < carried; ++k)
      if (out[k]) *out[k] = args[2 + k];
    for (size_t k = 0; k < scans; ++k) {
      if (!out[carried + k]) continue;
      const DType dt = scan_parts[k].empty() ? out[carried + k]->dtype : scan_parts[k][0].dtype;
      TARE_ASSIGN_OR_RETURN(*out[carried + k], Stack(scan_parts[k], 0, dt, where));
    }
    return Status::Ok();
  });
}

struct ScanAttrs {
  int64_t m = 0;
  std::vector<int64_t> in_axes, in_dirs, out_axes, out_dirs;
  bool v8 = false;
};

// One Scan-9+ run over states and scan inputs (already without the batch axis for Scan-8).
Result<std::vector<Tensor>> ScanOnce(BodyRunner& body, const ScanAttrs& a, std::vector<Tensor> states,
                                     const std::vector<Tensor>& xs, const std::vector<Tensor>& captured,
                                     size_t n_outputs, const std::string& where) {
  const size_t n_states = states.size();
  const size_t m = xs.size();
  std::vector<size_t> axes(m);
  int64_t len = -1;
  for (size_t j = 0; j < m; ++j) {
    TARE_ASSIGN_OR_RETURN(axes[j], Axis(j < a.in_axes.size() ? a.in_axes[j] : 0, xs[j].shape.size(), where, "scan_input_axes value"));
    const int64_t l = xs[j].shape[axes[j]];
    if (len >= 0 && l != len) return Status::Error(where + ": scan inputs have different lengths (" + std::to_string(len) + " and " + std::to_string(l) + ")");
    len = l;
  }
  const size_t scans = n_outputs - n_states;
  std::vector<std::vector<Tensor>> parts(scans);
  std::vector<size_t> held(scans, 0);
  ControlFlowBudget budget;
  std::vector<Tensor> args(n_states + m + captured.size());
  for (size_t c = 0; c < captured.size(); ++c) args[n_states + m + c] = captured[c];
  for (int64_t t = 0; t < len; ++t) {
    for (size_t s = 0; s < n_states; ++s) args[s] = states[s];
    for (size_t j = 0; j < m; ++j) {
      const bool rev = j < a.in_dirs.size() && a.in_dirs[j] == 1;
      TARE_ASSIGN_OR_RETURN(args[n_states + j], SliceAxis(xs[j], axes[j], rev ? len - 1 - t : t));
    }
    TARE_RETURN_IF_ERROR(budget.CountRun(where));
    TARE_ASSIGN_OR_RETURN(std::vector<Tensor> res, body.Run(args));
    for (size_t s = 0; s < n_states; ++s) states[s] = std::move(res[s]);
    for (size_t k = 0; k < scans; ++k) {
      TARE_RETURN_IF_ERROR(ControlFlowBudget::Collect(res[n_states + k].nbytes(), &held[k], where));
      parts[k].push_back(std::move(res[n_states + k]));
    }
  }
  std::vector<Tensor> out = std::move(states);
  for (size_t k = 0; k < scans; ++k) {
    if (k < a.out_dirs.size() && a.out_dirs[k] == 1) std::reverse(parts[k].begin(), parts[k].end());
    const size_t rank = parts[k].empty() ? 0 : parts[k][0].shape.size();
    TARE_ASSIGN_OR_RETURN(size_t axis, Axis(k < a.out_axes.size() ? a.out_axes[k] : 0, rank + 1, where, "scan_output_axes value"));
    const DType dt = parts[k].empty() ? DType::kFloat32 : parts[k][0].dtype;
    TARE_ASSIGN_OR_RETURN(Tensor y, Stack(parts[k], axis, dt, where));
    out.push_back(std::move(y));
  }
  return out;
}

Result<KernelFn> MakeScan(const Node& node, const BodyFactory& factory) {
  TARE_ASSIGN_OR_RETURN(Evaluator body, Prepare(node, "body", factory));
  TARE_ASSIGN_OR_RETURN(int64_t cap, node.GetInt("tare.captured", 0));
  ScanAttrs a;
  TARE_ASSIGN_OR_RETURN(int64_t v8, node.GetInt("tare.scan8", 0));
  a.v8 = v8 != 0;
  TARE_ASSIGN_OR_RETURN(a.m, node.GetInt("num_scan_inputs", 1));
  TARE_ASSIGN_OR_RETURN(a.in_axes, node.GetInts("scan_input_axes"));
  TARE_ASSIGN_OR_RETURN(a.in_dirs, node.GetInts(a.v8 ? "directions" : "scan_input_directions"));
  TARE_ASSIGN_OR_RETURN(a.out_axes, node.GetInts("scan_output_axes"));
  TARE_ASSIGN_OR_RETURN(a.out_dirs, node.GetInts("scan_output_directions"));
  const std::string where = node.Where();
  const size_t n_outs = node.outputs.size();
  for (const auto* dirs : {&a.in_dirs, &a.out_dirs})
    for (int64_t d : *dirs)
      if (d != 0 && d != 1) return Status::Error(where + ": scan directions must be 0 (forward) or 1 (reverse), got " + std::to_string(d));
  if (a.in_dirs.size() > static_cast<size_t>(a.m) || a.in_axes.size() > static_cast<size_t>(a.m))
    return Status::Error(where + ": scan_input_axes/directions have more values than num_scan_inputs");
  if (a.out_dirs.size() > n_outs || a.out_axes.size() > n_outs)
    return Status::Error(where + ": scan_output_axes/directions have more values than there are outputs");
  return KernelFn([body, cap, a, where](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
    const size_t first = a.v8 ? 1 : 0;
    const size_t n_in = in.size() - static_cast<size_t>(cap) - first;
    const size_t m = static_cast<size_t>(a.m), n_states = n_in - m;
    std::vector<Tensor> captured;
    for (size_t c = 0; c < static_cast<size_t>(cap); ++c) captured.push_back(in[first + n_in + c] ? *in[first + n_in + c] : Tensor());
    std::vector<Tensor> results;
    if (!a.v8) {
      std::vector<Tensor> states, xs;
      for (size_t s = 0; s < n_states; ++s) states.push_back(*in[s]);
      for (size_t j = 0; j < m; ++j) xs.push_back(*in[n_states + j]);
      TARE_ASSIGN_OR_RETURN(results, ScanOnce(*body, a, states, xs, captured, out.size(), where));
    } else {
      // Scan-8: every input has a batch axis 0; run each batch entry and stack the results.
      int64_t batch = -1;
      for (size_t i = first; i < first + n_in; ++i) {
        if (in[i]->shape.empty()) return Status::Error(where + ": Scan-8 inputs need a batch axis");
        if (batch >= 0 && in[i]->shape[0] != batch) return Status::Error(where + ": Scan-8 inputs differ in batch size");
        batch = in[i]->shape[0];
      }
      std::vector<std::vector<Tensor>> per_out(out.size());
      std::vector<size_t> per_out_bytes(out.size(), 0);
      ControlFlowBudget budget;  // held across the batch, so every entry's runs count together
      for (int64_t b = 0; b < batch; ++b) {
        std::vector<Tensor> states, xs;
        for (size_t s = 0; s < n_states; ++s) {
          TARE_ASSIGN_OR_RETURN(Tensor st, SliceAxis(*in[first + s], 0, b));
          states.push_back(std::move(st));
        }
        for (size_t j = 0; j < m; ++j) {
          TARE_ASSIGN_OR_RETURN(Tensor x, SliceAxis(*in[first + n_states + j], 0, b));
          if (in[0] && ReadInt(*in[0], b) != x.shape[0])
            return Status::Error(where + ": Scan-8 sequence_lens shorter than the scan axis are not supported");
          xs.push_back(std::move(x));
        }
        TARE_ASSIGN_OR_RETURN(std::vector<Tensor> r, ScanOnce(*body, a, states, xs, captured, out.size(), where));
        for (size_t k = 0; k < r.size(); ++k) {
          TARE_RETURN_IF_ERROR(ControlFlowBudget::Collect(r[k].nbytes(), &per_out_bytes[k], where));
          per_out[k].push_back(std::move(r[k]));
        }
      }
      for (size_t k = 0; k < out.size(); ++k) {
        const DType dt = per_out[k].empty() ? DType::kFloat32 : per_out[k][0].dtype;
        TARE_ASSIGN_OR_RETURN(Tensor y, Stack(per_out[k], 0, dt, where));
        results.push_back(std::move(y));
      }
    }
    for (size_t k = 0; k < out.size(); ++k)
      if (out[k]) *out[k] = std::move(results[k]);
    return Status::Ok();
  });
}

Result<KernelFn> MakeSequenceMap(const Node& node, const BodyFactory& factory) {
  TARE_ASSIGN_OR_RETURN(Evaluator body, Prepare(node, "body", factory));
  TARE_ASSIGN_OR_RETURN(int64_t cap, node.GetInt("tare.captured", 0));
  const std::string where = node.Where();
  return KernelFn([body, cap, where](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
    const size_t n_in = in.size() - static_cast<size_t>(cap);
    const size_t len = in[0]->items->size();
    for (size_t i = 1; i < n_in; ++i)
      if (in[i]->kind == ValueKind::kSequence && in[i]->items->size() != len)
        return Status::Error(where + ": input sequences have different lengths (" + std::to_string(len) + " and " +
                             std::to_string(in[i]->items->size()) + ")");
    std::vector<std::vector<Tensor>> items(out.size());
    std::vector<Tensor> args(in.size());
    for (size_t i = n_in; i < in.size(); ++i) args[i] = in[i] ? *in[i] : Tensor();
    std::vector<size_t> held(out.size(), 0);
    ControlFlowBudget budget;
    for (size_t k = 0; k < len; ++k) {
      for (size_t i = 0; i < n_in; ++i) args[i] = in[i]->kind == ValueKind::kSequence ? (*in[i]->items)[k] : *in[i];
      TARE_RETURN_IF_ERROR(budget.CountRun(where));
      TARE_ASSIGN_OR_RETURN(std::vector<Tensor> res, body->Run(args));
      for (size_t o = 0; o < out.size(); ++o) {
        TARE_RETURN_IF_ERROR(ControlFlowBudget::Collect(res[o].nbytes(), &held[o], where));
        items[o].push_back(std::move(res[o]));
      }
    }
    for (size_t o = 0; o < out.size(); ++o) {
      if (!out[o]) continue;
      const DType dt = items[o].empty() ? out[o]->dtype : items[o][0].dtype;
      *out[o] = Tensor::Sequence(dt, std::move(items[o]));
    }
    return Status::Ok();
  });
}

}  // namespace

bool IsControlFlow(const Node& node) {
  if (!node.domain.empty() && node.domain != "ai.onnx") return false;
  return node.op == "If" || node.op == "Loop" || node.op == "Scan" || node.op == "SequenceMap";
}

Result<KernelFn> MakeControlFlowKernel(const Node& node, const BodyFactory& factory) {
  if (node.op == "If") return MakeIf(node, factory);
  if (node.op == "Loop") return MakeLoop(node, factory);
  if (node.op == "Scan") return MakeScan(node, factory);
  return MakeSequenceMap(node, factory);
}

BodyFactory ReferenceBodyFactory(DType compute) {
  return [compute](const std::shared_ptr<const Graph>& body) -> Result<Evaluator> {
    TARE_ASSIGN_OR_RETURN(std::unique_ptr<GraphEvaluator> e, GraphEvaluator::Create(body, compute));
    return Evaluator(std::make_shared<EvaluatorRunner>(std::move(e), compute == DType::kFloat64 ? "ref64" : "ref"));
  };
}

template <class T>
Result<KernelFn> MakeControlFlow(const Node& node) {
  return MakeControlFlowKernel(node, ReferenceBodyFactory(std::is_same_v<T, double> ? DType::kFloat64 : DType::kFloat32));
}

TARE_INSTANTIATE_REF(ControlFlow)

}  // namespace tare
