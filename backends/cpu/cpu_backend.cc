// The cpu backend: claims nodes (Supports), compiles partitions (Compile) node by node through
// the Compiler, which tracks layouts and private buffers (compiler.h). One thread pool per backend
// instance, created at the first Compile with SessionOptions::threads.
#include "backends/cpu/cpu_backend.h"

#include <mutex>

#include "backends/cpu/ops.h"

namespace tare::cpu {

const std::vector<OpImpl>& CpuOps() {
  static const std::vector<OpImpl> ops = {
      {"Conv", SupportsConv, CompileConv},
      {"MaxPool", SupportsPool, CompilePool},
      {"AveragePool", SupportsPool, CompilePool},
      {"GlobalAveragePool", SupportsPool, CompilePool},
      {"GlobalMaxPool", SupportsPool, CompilePool},
      {"Relu", SupportsUnary, CompileUnary},
      {"Clip", SupportsUnary, CompileUnary},
      {"LeakyRelu", SupportsUnary, CompileUnary},
      {"Sigmoid", SupportsUnary, CompileUnary},
      {"HardSwish", SupportsUnary, CompileUnary},
      {"Identity", SupportsUnary, CompileUnary},
      {"Dropout", SupportsUnary, CompileUnary},
      {"BatchNormalization", SupportsBatchNorm, CompileBatchNorm},
      {"Add", SupportsBinary, CompileBinary},
      {"Sub", SupportsBinary, CompileBinary},
      {"Mul", SupportsBinary, CompileBinary},
      {"Div", SupportsBinary, CompileBinary},
      {"Gemm", SupportsGemm, CompileGemm},
      {"MatMul", SupportsGemm, CompileGemm},
      {"Softmax", SupportsSoftmax, CompileSoftmax},
      {"Flatten", SupportsReshape, CompileReshape},
      {"Reshape", SupportsReshape, CompileReshape},
      {"Squeeze", SupportsReshape, CompileReshape},
      {"Unsqueeze", SupportsReshape, CompileReshape},
      {"Concat", SupportsConcat, CompileConcat},
      {"Transpose", SupportsTranspose, CompileTranspose},
      {"Pad", SupportsPad, CompilePad},
      {"LSTM", SupportsRnn, CompileRnn},
      {"GRU", SupportsRnn, CompileRnn},
  };
  return ops;
}

namespace {

const OpImpl* Find(const Node& n) {
  if (!n.domain.empty() && n.domain != "ai.onnx") return nullptr;
  for (const OpImpl& op : CpuOps())
    if (n.op == op.op) return &op;
  return nullptr;
}

/// Whether the data tensors of n are float32 as the fast paths assume: its first output and its
/// first input, and every input of the elementwise ops and Concat (other inputs are attributes-like:
/// shapes, pads, bounds; or checked float32 by shape inference: weights of Conv and Gemm).
bool FloatData(const Node& n, const std::vector<Tensor>& slots) {
  auto f32 = [&](int v) { return v >= 0 && slots[v].dtype == DType::kFloat32 && slots[v].is_tensor(); };
  if (!f32(n.outputs[0]) || !f32(n.inputs[0])) return false;
  const bool all = n.op == "Add" || n.op == "Sub" || n.op == "Mul" || n.op == "Div" || n.op == "Concat";
  for (int v : n.inputs)
    if (all && !f32(v)) return false;
  return true;
}

class CpuBackend : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  DType float_storage() const override { return DType::kFloat32; }

  bool ClaimsOp(const std::string& domain, const std::string& op) const override {
    Node n;
    n.op = op;
    n.domain = domain;
    return Find(n) != nullptr;
  }

  bool Supports(const Node& node, const Graph& graph) const override {
    const OpImpl* op = Find(node);
    if (!op) return false;
    // A float32 first output (integer variants of these ops stay on ref; an unknown dtype is
    // checked at Compile); the ops check the rest.
    if (node.outputs.empty() || !IsF32(graph, node.outputs[0])) return false;
    return op->supports(node, graph, Info(graph));
  }

  Result<std::unique_ptr<Executable>> Compile(const Graph& graph, const Partition& part, const std::vector<Tensor>& slots,
                                              const SessionOptions& options) override {
    TARE_RETURN_IF_ERROR(XnnInit());
    if (!pool_) pool_ = std::make_shared<ThreadPool>(options.threads);
    Compiler c(graph, part, slots, Info(graph), pool_.get());
    for (size_t p = 0; p < part.nodes.size(); ++p) {
      if (c.Absorbed(p)) continue;
      c.Begin(p);
      const Node& n = graph.nodes[part.nodes[p]];
      const OpImpl* op = Find(n);
      TARE_RETURN_IF_ERROR(op && FloatData(n, slots) ? op->compile(c, n) : c.CompileRef(n));
    }
    return c.Finish(pool_);
  }

 private:
  const GraphInfo& Info(const Graph& g) const {
    std::lock_guard<std::mutex> lock(mu_);
    if (info_graph_ != &g || info_.known.size() != g.values.size()) {
      info_ = GraphInfo::Of(g);
      info_graph_ = &g;
    }
    return info_;
  }
  std::shared_ptr<ThreadPool> pool_;
  mutable std::mutex mu_;
  mutable const Graph* info_graph_ = nullptr;
  mutable GraphInfo info_;
};

}  // namespace

std::unique_ptr<Backend> CreateCpuBackend() { return std::unique_ptr<Backend>(new CpuBackend); }

}  // namespace tare::cpu
