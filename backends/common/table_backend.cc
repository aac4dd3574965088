#include "backends/common/table_backend.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>

#include "runtime/exec/ref_kernel.h"

namespace tare {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
bool AllFinite(const float* x, size_t n) {
  for (size_t i = 0; i < n; i += 4096) {
    const size_t e = std::min(n, i + 4096);
    uint32_t bad = 0;
    for (size_t j = i; j < e; ++j) {
      uint32_t b;
      std::memcpy(&b, x + j, sizeof b);
      bad |= (b & 0x7f800000u) == 0x7f800000u;
    }
    if (bad) return false;
  }
  return true;
}

GraphInfo GraphInfo::Of(const Graph& g) {
  GraphInfo info;
  info.known.assign(g.values.size(), 0);
  info.readers.assign(g.values.size(), 0);
  for (size_t v = 0; v < g.values.size(); ++v) info.known[v] = g.values[v].is_constant;
  for (const Node& n : g.nodes) {
    bool all = true;
    for (int v : n.inputs)
      if (v >= 0) {
        all = all && info.known[v];
        ++info.readers[v];
      }
    const bool shape_only = (n.op == "Shape" || n.op == "Size") && n.domain.empty();
    if (all || shape_only)
      for (int v : n.outputs)
        if (v >= 0) info.known[v] = 1;
  }
  for (int v : g.outputs) ++info.readers[v];
  return info;
}

bool IsF32(const Graph& g, int v) {
  return v >= 0 && (g.values[v].dtype == DType::kFloat32 || g.values[v].dtype == DType::kUndefined);
}

bool SupportsLayerNormalization(const Node& n, const Graph& g, const GraphInfo& info) {
  if (n.NumInputs() < 2 || !IsF32(g, n.inputs[0]) || !Known(info, n.inputs[1])) return false;
  if (n.NumInputs() > 2 && n.inputs[2] >= 0 && !Known(info, n.inputs[2])) return false;
  for (size_t i = 1; i < n.outputs.size(); ++i)
    if (n.outputs[i] >= 0) return false;  // Mean and InvStdDev outputs: ref
  return true;
}

bool FloatDataKnownParams(const Node& n, const Graph& g, const GraphInfo& info) {
  if (n.inputs.empty() || !IsF32(g, n.inputs[0])) return false;
  for (size_t i = 1; i < n.inputs.size(); ++i)
    if (n.inputs[i] >= 0 && !Known(info, n.inputs[i])) return false;
  return true;
}

bool AllInputsF32(const Node& n, const Graph& g, const GraphInfo&) {
  if (n.inputs.empty()) return false;
  for (int v : n.inputs)
    if (!IsF32(g, v)) return false;
  return true;
}

bool RnnDefaultActivations(const Node& n, bool lstm, int64_t nd) {
  auto it = n.attrs.find("activations");
  if (it == n.attrs.end()) return true;
  const std::vector<std::string> def =
      lstm ? std::vector<std::string>{"sigmoid", "tanh", "tanh"} : std::vector<std::string>{"sigmoid", "tanh"};
  const std::vector<std::string>& names = it->second.strings;
  if (names.size() != def.size() && names.size() != def.size() * static_cast<size_t>(nd)) return false;
  for (size_t i = 0; i < names.size(); ++i) {
    std::string l;
    for (char ch : names[i]) l += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (l != def[i % def.size()]) return false;
  }
  return true;
}

Result<std::function<Status()>> RefStep(const Node& n, std::vector<Tensor> ins, std::vector<Tensor> outs) {
  TARE_ASSIGN_OR_RETURN(KernelFn k, MakeRefKernel(n, DType::kFloat32));
  // The tensors are bound now; the vectors of pointers are built once.
  auto in_t = std::make_shared<std::vector<Tensor>>(std::move(ins));
  auto out_t = std::make_shared<std::vector<Tensor>>(std::move(outs));
  auto in_ptrs = std::make_shared<std::vector<const Tensor*>>(n.inputs.size(), nullptr);
  auto out_ptrs = std::make_shared<std::vector<Tensor*>>(n.outputs.size(), nullptr);
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (n.inputs[i] >= 0) (*in_ptrs)[i] = &(*in_t)[i];
  for (size_t i = 0; i < n.outputs.size(); ++i)
    if (n.outputs[i] >= 0) (*out_ptrs)[i] = &(*out_t)[i];
  const std::string where = n.Where();
  return std::function<Status()>(
      [k, in_t, out_t, in_ptrs, out_ptrs, where] { return k(*in_ptrs, *out_ptrs).With(where); });
}

}  // namespace tare

namespace tare {

bool HasNarrowFloatData(const Node& n, const Graph& g) {
  auto f16 = [&](int v) {
    return v >= 0 && (g.values[v].dtype == DType::kFloat16 || g.values[v].dtype == DType::kBFloat16) &&
           g.values[v].kind == ValueKind::kTensor;
  };
  for (int v : n.inputs)
    if (f16(v)) return true;
  for (int v : n.outputs)
    if (f16(v)) return true;
  return false;
}

Graph WidenTypes(const Graph& g) {
  Graph w = g;
  for (Value& v : w.values)
    if (v.dtype == DType::kFloat16 || v.dtype == DType::kBFloat16) v.dtype = DType::kFloat32;
  return w;
}

namespace {

/// A Cast node (ONNX Cast-19: `to` a TensorProto data type code) from value `from` to `to`; to
/// bfloat16 it rounds to nearest even (kCastRoundTo).
Node CastNode(const std::string& name, int from, int to, int64_t code) {
  Node c;
  c.name = name;
  c.op = "Cast";
  c.inputs = {from};
  c.outputs = {to};
  c.attrs["to"] = IntAttr(code);
  if (code == 16) c.attrs[kCastRoundTo] = IntAttr(16);
  return c;
}

constexpr int64_t kOnnxFloat = 1, kOnnxFloat16 = 10, kOnnxBFloat16 = 16;

class WideExec : public Executable {
 public:
  WideExec(std::unique_ptr<WidePartition> w, std::unique_ptr<Executable> inner) : w_(std::move(w)), inner_(std::move(inner)) {}
  Status Run(std::vector<Tensor>& slots) override {
    (void)slots;  // bound at Compile: w_->slots holds the session's tensors, then the twins
    return inner_->Run(w_->slots);
  }
  std::vector<std::string> Notes() const override {
    const std::vector<std::string> in = inner_->Notes();
    std::vector<std::string> out;
    for (size_t k = 0; k < w_->part.nodes.size(); ++k) {
      const int o = w_->origin[k];
      if (o < 0) continue;
      if (out.size() <= size_t(o)) out.resize(size_t(o) + 1);
      const std::string note = k < in.size() ? in[k] : "";
      out[size_t(o)] = w_->widened[k] ? (note.empty() ? "" : note + " ") + "(" + DTypeName(DType(w_->widened[k])) +
                                             ", computed in float32)"
                                       : note;
    }
    return out;
  }
  std::vector<std::pair<std::string, double>> Phases() const override { return inner_->Phases(); }

 private:
  std::unique_ptr<WidePartition> w_;
  std::unique_ptr<Executable> inner_;
};

}  // namespace

Result<std::unique_ptr<WidePartition>> Widen(const Graph& g, const Partition& part, const std::vector<Tensor>& slots,
                                            const GraphInfo& info, const std::function<bool(const Node&)>& computes) {
  // Concrete dtypes (the slots'): a value the converter left untyped is typed by now.
  auto is_f16 = [&](int v) {
    return v >= 0 && (slots[v].dtype == DType::kFloat16 || slots[v].dtype == DType::kBFloat16) && slots[v].is_tensor();
  };
  auto narrow = [&](const Node& n) {
    if (!computes(n)) return false;
    for (int v : n.inputs)
      if (is_f16(v)) return true;
    for (int v : n.outputs)
      if (is_f16(v)) return true;
    return false;
  };
  bool any = false;
  for (int ni : part.nodes) any = any || narrow(g.nodes[ni]);
  if (!any) return std::unique_ptr<WidePartition>();
  auto w = std::make_unique<WidePartition>();
  w->graph = g;
  w->slots = slots;
  w->part.live_out = part.live_out;
  std::vector<int> widened(g.values.size(), -1);  // the float32 twin a reader of v reads
  // A narrow value read only by narrow nodes of this partition (and not live out) is never needed
  // in its narrow type: its producer's twin is rounded in float32 (a Cast with kCastRoundTo)
  // and the readers read that, one step instead of a Cast to the narrow type and one back.
  std::vector<int> inner_reads(g.values.size(), 0);
  std::vector<char> live(g.values.size(), 0);
  for (int v : part.live_out) live[size_t(v)] = 1;
  for (int ni : part.nodes)
    if (narrow(g.nodes[ni]))
      for (int v : g.nodes[ni].inputs)
        if (v >= 0) ++inner_reads[size_t(v)];
  auto stays_float = [&](int v) { return !live[size_t(v)] && info.readers[size_t(v)] == inner_reads[size_t(v)]; };
  auto twin = [&](int v, const std::string& suffix) -> Result<int> {
    Value val = g.values[v];
    val.name += suffix;
    val.dtype = DType::kFloat32;
    val.is_constant = false;
    val.constant = Tensor();
    Tensor t;
    if (info.known[v]) {
      TARE_ASSIGN_OR_RETURN(t, ConvertTensor(slots[v], DType::kFloat32));
      val.is_constant = true;
      val.constant = t;
    } else {
      TARE_ASSIGN_OR_RETURN(t, Tensor::Alloc(DType::kFloat32, slots[v].shape));
    }
    const int id = w->graph.AddValue(std::move(val));
    w->slots.push_back(t);
    return id;
  };
  for (size_t k = 0; k < part.nodes.size(); ++k) {
    const Node& n = g.nodes[part.nodes[k]];
    if (!narrow(n)) {
      w->part.nodes.push_back(part.nodes[k]);
      w->origin.push_back(int(k));
      w->widened.push_back(0);
      continue;
    }
    Node wn = n;
    for (int& v : wn.inputs) {
      if (!is_f16(v)) continue;
      if (widened[v] < 0) {
        TARE_ASSIGN_OR_RETURN(widened[v], twin(v, "/float32"));
        if (!info.known[v]) {
          w->graph.nodes.push_back(CastNode(n.name + "/widen " + g.values[v].name, v, widened[v], kOnnxFloat));
          w->part.nodes.push_back(int(w->graph.nodes.size()) - 1);
          w->origin.push_back(-1);
          w->widened.push_back(0);
        }
      }
      v = widened[v];
    }
    DType narrow_type = DType::kFloat16;
    for (int v : n.outputs)
      if (is_f16(v)) narrow_type = slots[v].dtype;
    std::vector<std::pair<int, int>> rounds;  // (twin, value)
    for (int& v : wn.outputs) {
      if (!is_f16(v)) continue;
      TARE_ASSIGN_OR_RETURN(int t, twin(v, "/float32 out"));
      rounds.push_back({t, v});
      v = t;
    }
    w->graph.nodes[size_t(part.nodes[k])] = std::move(wn);  // in place: the float16 form reads nothing
    w->part.nodes.push_back(part.nodes[k]);
    w->origin.push_back(int(k));
    w->widened.push_back(static_cast<char>(narrow_type));
    for (auto [t, v] : rounds) {
      const int64_t code = slots[v].dtype == DType::kBFloat16 ? kOnnxBFloat16 : kOnnxFloat16;
      if (stays_float(v)) {
        TARE_ASSIGN_OR_RETURN(const int r, twin(v, "/float32 rounded"));
        Node round = CastNode(n.name + "/round " + g.values[v].name, t, r, kOnnxFloat);
        round.attrs[kCastRoundTo] = IntAttr(code);
        w->graph.nodes.push_back(std::move(round));
        widened[v] = r;
      } else {
        w->graph.nodes.push_back(CastNode(n.name + "/round " + g.values[v].name, t, v, code));
      }
      w->part.nodes.push_back(int(w->graph.nodes.size()) - 1);
      w->origin.push_back(-1);
      w->widened.push_back(0);
    }
  }
  return w;
}

std::unique_ptr<Executable> WideExecutable(std::unique_ptr<WidePartition> w, std::unique_ptr<Executable> inner) {
  return std::unique_ptr<Executable>(new WideExec(std::move(w), std::move(inner)));
}

}  // namespace tare
