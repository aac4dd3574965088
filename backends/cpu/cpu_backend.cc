// The cpu backend: claims nodes (Supports), compiles partitions (Compile) node by node through
// the Compiler, which tracks layouts and private buffers (compiler.h). One thread pool per backend
// instance, created at the first Compile with SessionOptions::threads.
#include "backends/cpu/cpu_backend.h"

#include "backends/cpu/isa.h"
#include "backends/cpu/ops.h"

namespace tare::cpu {

const std::vector<OpImpl>& CpuOps() {
  static const std::vector<OpImpl> ops = TableOf<Compiler>({
      {{"Conv"}, SupportsConv, CompileConv},
      {{"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"}, SupportsPool, CompilePool},
      {{"Relu", "Clip", "LeakyRelu", "Sigmoid", "HardSwish", "HardSigmoid", "Identity", "Dropout", "Sqrt", "Erf", "Tanh",
        "Exp", "Log"}, SupportsUnary, CompileUnary},
      {{"BatchNormalization"}, SupportsBatchNorm, CompileBatchNorm},
      {{"Add", "Sub", "Mul", "Div", "Pow"}, SupportsBinary, CompileBinary},
      {{"Where"}, SupportsWhere, CompileWhere},
      {{"Einsum"}, SupportsEinsum, CompileEinsum},
      {{"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"}, SupportsReduce, CompileReduce},
      {{"Gemm", "MatMul"}, SupportsGemm, CompileGemm},
      {{"Softmax", "LogSoftmax"}, SupportsSoftmax, CompileSoftmax},
      {{"Flatten", "Reshape", "Squeeze", "Unsqueeze"}, SupportsReshape, CompileReshape},
      {{"Concat"}, AllInputsF32, CompileConcat},
      {{"Transpose"}, SupportsTranspose, CompileTranspose},
      {{"Pad"}, SupportsPad, CompilePad},
      {{"Slice"}, SupportsSlice, CompileSlice},
      {{"Gather"}, SupportsGather, CompileGather},
      {{"Split"}, SupportsSplit, CompileSplit},
      {{"LayerNormalization"}, SupportsLayerNormalization, CompileLayerNorm},
      {{"LSTM", "GRU"}, SupportsRnn, CompileRnn},
  });
  return ops;
}

namespace {

/// Whether the data tensors of n are float32 as the fast paths assume: its first present output and its
/// first input, and every input of the elementwise ops and Concat (other inputs are attributes-like:
/// shapes, pads, bounds; or checked float32 by shape inference: weights of Conv and Gemm).
bool FloatData(const Node& n, const std::vector<Tensor>& slots) {
  auto f32 = [&](int v) { return v >= 0 && slots[v].dtype == DType::kFloat32 && slots[v].is_tensor(); };
  if (n.op == "Where" && n.domain.empty())  // a bool condition, float32 X and Y
    return f32(n.outputs[0]) && n.inputs.size() == 3 && n.inputs[0] >= 0 && slots[n.inputs[0]].dtype == DType::kBool &&
           slots[n.inputs[0]].is_tensor() && f32(n.inputs[1]) && f32(n.inputs[2]);
  if (!f32(FirstOutput(n)) || !f32(n.inputs[0])) return false;
  const bool all = n.op == "Add" || n.op == "Sub" || n.op == "Mul" || n.op == "Div" || n.op == "Pow" || n.op == "Concat";
  for (int v : n.inputs)
    if (all && !f32(v)) return false;
  return true;
}

class CpuBackend : public TableBackend<Compiler> {
 public:
  CpuBackend() : TableBackend<Compiler>(CpuOps()) { (void)CpuIsa(); }  // TARE_CPU_ISA read (and checked) now
  std::string name() const override { return "cpu"; }

  Result<std::unique_ptr<Executable>> Compile(const Graph& graph, const Partition& part, const std::vector<Tensor>& slots,
                                              const SessionOptions& options) override {
    TARE_RETURN_IF_ERROR(XnnInit());
    if (!pool_) pool_ = std::make_shared<ThreadPool>(options.threads);
    // float16 nodes: computed in float32 by the same kernels (WidePartition). XNNPACK 2022's f16
    // operators are not used: on x86 they round the accumulator to float16 after every step
    // (docs/NUMERICS.md "float16 and bfloat16").
    TARE_ASSIGN_OR_RETURN(std::unique_ptr<Executable> wide,
                          CompileWidened(graph, part, slots, [&](const Graph& g, const Partition& p, const std::vector<Tensor>& s) {
                            return Compile(g, p, s, options);
                          }));
    if (wide) return wide;
    Compiler c(graph, part, slots, Info(graph), pool_.get());
    for (size_t p = 0; p < part.nodes.size(); ++p) {
      if (c.Absorbed(p)) continue;
      c.Begin(p);
      const Node& n = graph.nodes[part.nodes[p]];
      const OpImpl* op = Find(n);
      if (n.op == "Cast" && n.domain.empty() && n.has(kCastRoundTo) && FloatData(n, slots)) {
        TARE_RETURN_IF_ERROR(CompileRoundTo(c, n));
        continue;
      }
      if (op && FloatData(n, slots)) {
        TARE_ASSIGN_OR_RETURN(bool fused, TryFusions(c, n));
        if (!fused) TARE_RETURN_IF_ERROR(op->compile(c, n));
      } else {
        TARE_RETURN_IF_ERROR(c.CompileRef(n));
      }
    }
    return c.Finish(pool_);
  }

 private:
  std::shared_ptr<ThreadPool> pool_;
};

}  // namespace

std::unique_ptr<Backend> CreateCpuBackend() { return std::unique_ptr<Backend>(new CpuBackend); }

}  // namespace tare::cpu
