#include "runtime/plan/plan.h"

#include <string>
#include <utility>

#include "runtime/exec/eval_node.h"

namespace tare {
namespace {

/// Values that live in the arena: plain tensors of fixed size (not sequences, optionals, strings,
/// nor outputs whose kernel allocates them).
bool Plain(const ValueInfo& i) {
  return i.kind == ValueKind::kTensor && !i.kernel_allocates && i.dtype != DType::kString;
}

Status CheckBytes(const Node& node, const ValueInfo& v, DType storage, size_t max_tensor_bytes) {
  Result<int64_t> n = NumElements(v.shape);
  if (!n.ok()) return Status::Error(node.Where() + ": " + n.status().message());
  // In 64 bits: up to 2^40 elements of 8 bytes, which a 32-bit size_t would wrap.
  const uint64_t bytes = static_cast<uint64_t>(*n) * DTypeSize(StorageType(v.dtype, storage));
  if (bytes > max_tensor_bytes)
    return Status::Error(StatusCode::kLimit, node.Where() + ": output of shape " + ShapeStr(v.shape) + " needs " + std::to_string(bytes) +
                         " bytes, over the session limit of " + std::to_string(max_tensor_bytes));
  return Status::Ok();
}

/// Evaluates node `n`, all of whose inputs are known or (Shape, Size) have a known shape, and
/// stores its outputs in `slots` as known values.
Status Fold(const Node& n, const std::vector<ValueInfo>& vi, DType storage, std::vector<Tensor>* slots,
            std::vector<char>* known) {
  std::vector<Tensor> dummies(n.inputs.size());
  std::vector<const Tensor*> ptrs(n.inputs.size(), nullptr);
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    const int v = n.inputs[k];
    if (v < 0) continue;
    if ((*known)[v]) {
      ptrs[k] = &(*slots)[v];
    } else {
      dummies[k] = Tensor::View(StorageType(vi[v].dtype, storage), vi[v].shape, nullptr);
      ptrs[k] = &dummies[k];
    }
  }
  TARE_ASSIGN_OR_RETURN(std::vector<Tensor> res, EvalNode(n, ptrs, storage));
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    const int v = n.outputs[k];
    if (v < 0) continue;
    (*slots)[v] = res[k];
    (*known)[v] = 1;
  }
  return Status::Ok();
}

}  // namespace

Result<FoldResult> InferAndFold(const Graph& g, const std::vector<char>& live, const std::vector<Tensor>& consts,
                                const std::vector<Shape>& input_shapes, const std::vector<DType>& input_dtypes,
                                DType storage, size_t max_tensor_bytes, std::vector<Tensor>* slots) {
  const size_t nv = g.values.size();
  FoldResult r;
  r.known.assign(nv, 0);
  r.folded.assign(g.nodes.size(), 0);
  slots->assign(nv, Tensor());
  std::vector<ValueInfo> vi(nv);
  for (size_t v = 0; v < nv; ++v) {
    if (!g.values[v].is_constant) continue;
    (*slots)[v] = consts[v];
    vi[v] = {true, g.values[v].dtype, g.values[v].shape, &(*slots)[v]};
    r.known[v] = 1;
  }
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const int v = g.inputs[i];
    vi[v] = {true, input_dtypes[i], input_shapes[i], nullptr};
    vi[v].kind = g.values[v].kind;
    (*slots)[v] = Tensor::View(StorageType(input_dtypes[i], storage), input_shapes[i], nullptr);
  }
  auto stop = [&](FoldResult::Stop why, size_t at) {
    r.stop = why;
    r.at = at;
    return std::move(r);
  };
  for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
    if (!live[ni]) continue;
    const Node& n = g.nodes[ni];
    std::vector<ValueInfo> ins(n.inputs.size());
    bool all_known = true;
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      const int v = n.inputs[k];
      if (v < 0) continue;
      ins[k] = vi[v];
      ins[k].value = r.known[v] ? &(*slots)[v] : nullptr;
      all_known = all_known && r.known[v];
    }
    for (size_t k = 0; k < n.inputs.size(); ++k)
      if (n.inputs[k] >= 0 && !r.known[n.inputs[k]] && !Plain(ins[k])) return stop(FoldResult::Stop::kDynamic, ni);
    Result<std::vector<ValueInfo>> inferred = InferNode(n, ins);
    if (!inferred.ok() && inferred.status().needs_value()) return stop(FoldResult::Stop::kDynamic, ni);
    if (!inferred.ok()) return inferred.status();
    if (n.op == "If" && (n.domain.empty() || n.domain == "ai.onnx") && r.known[n.inputs[0]]) {
      r.cond = ReadInt((*slots)[n.inputs[0]], 0) != 0;
      return stop(FoldResult::Stop::kInlineIf, ni);
    }
    std::vector<ValueInfo> outs = std::move(inferred).value();
    if (!all_known)
      for (const ValueInfo& o : outs)
        if (o.present && !Plain(o)) return stop(FoldResult::Stop::kDynamic, ni);
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      if (n.outputs[k] < 0) continue;
      if (!outs[k].kernel_allocates) TARE_RETURN_IF_ERROR(CheckBytes(n, outs[k], storage, max_tensor_bytes));
      vi[n.outputs[k]] = outs[k];
    }
    // Shape and Size only read their input's shape, which is known here: fold them too.
    const bool shape_only = (n.op == "Shape" || n.op == "Size") && n.domain.empty();
    if (all_known || shape_only) {
      TARE_RETURN_IF_ERROR(Fold(n, vi, storage, slots, &r.known));
      r.folded[ni] = 1;
      continue;
    }
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      const int v = n.outputs[k];
      if (v >= 0) (*slots)[v] = Tensor::View(StorageType(outs[k].dtype, storage), outs[k].shape, nullptr);
    }
    r.steps.push_back(static_cast<int>(ni));
  }
  return r;
}

std::vector<Lifetime> ValueLifetimes(const Graph& g, const std::vector<int>& steps, const std::vector<char>& known,
                                     const std::vector<char>& traced) {
  std::vector<Lifetime> life(g.values.size());
  for (int v : g.inputs) life[v] = {-1, -1};
  for (size_t s = 0; s < steps.size(); ++s) {
    const Node& n = g.nodes[steps[s]];
    for (int v : n.inputs)
      if (v >= 0 && !known[v]) life[v].last = static_cast<int>(s);
    for (int v : n.outputs)
      if (v >= 0) life[v] = {static_cast<int>(s), static_cast<int>(s)};
  }
  const int end = static_cast<int>(steps.size());
  for (int v : g.outputs)
    if (!known[v]) life[v].last = end;
  for (size_t v = 0; v < life.size() && v < traced.size(); ++v)  // traced values keep their buffers to the end
    if (traced[v] && life[v].first != -2 && !known[v]) life[v].last = end;
  return life;
}

std::vector<Partition> SplitPartitions(const Graph& g, const std::vector<int>& steps,
                                       const std::vector<int>& node_backend, const std::vector<Lifetime>& life) {
  std::vector<Partition> parts;
  for (size_t s = 0; s < steps.size();) {
    Partition part;
    const int b = node_backend[steps[s]];
    while (s < steps.size() && node_backend[steps[s]] == b) part.nodes.push_back(steps[s++]);
    for (int ni : part.nodes)
      for (int v : g.nodes[ni].outputs)
        if (v >= 0 && life[v].last >= static_cast<int>(s)) part.live_out.push_back(v);
    parts.push_back(std::move(part));
  }
  return parts;
}

}  // namespace tare
