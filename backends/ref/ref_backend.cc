// The reference backends: `ref` (float) and `ref64` (double) run the kernels of kernels/ref.
// Single-threaded by design (docs/ARCHITECTURE.md, the numerics contract). CreateBackend is in backends/registry.cc.
#include "backends/backend.h"
#include "runtime/exec/ref_kernel.h"
#include "runtime/ops/op.h"

namespace tare {
namespace {

class RefExecutable : public Executable {
 public:
  struct Step {
    const Node* node;
    KernelFn kernel;
  };
  explicit RefExecutable(std::vector<Step> steps) : steps_(std::move(steps)) {}

  Status Run(std::vector<Tensor>& slots) override {
    for (Step& s : steps_) {
      in_.assign(s.node->inputs.size(), nullptr);
      out_.assign(s.node->outputs.size(), nullptr);
      for (size_t i = 0; i < in_.size(); ++i)
        if (s.node->inputs[i] >= 0) in_[i] = &slots[s.node->inputs[i]];
      for (size_t i = 0; i < out_.size(); ++i)
        if (s.node->outputs[i] >= 0) out_[i] = &slots[s.node->outputs[i]];
      TARE_RETURN_IF_ERROR(s.kernel(in_, out_).With(s.node->Where()));
    }
    return Status::Ok();
  }

 private:
  std::vector<Step> steps_;
  std::vector<const Tensor*> in_;
  std::vector<Tensor*> out_;
};

class RefBackend : public Backend {
 public:
  explicit RefBackend(DType compute) : compute_(compute) {}
  std::string name() const override { return compute_ == DType::kFloat64 ? "ref64" : "ref"; }
  DType float_storage() const override { return compute_; }
  bool Supports(const Node& node, const Graph&) const override {
    return FindOp(node) != nullptr;
  }
  Result<std::unique_ptr<Executable>> Compile(const Graph& graph, const Partition& part, const std::vector<Tensor>&,
                                              const SessionOptions&) override {
    std::vector<RefExecutable::Step> steps;
    for (int i : part.nodes) {
      const Node& n = graph.nodes[i];
      TARE_ASSIGN_OR_RETURN(KernelFn k, MakeRefKernel(n, compute_));
      steps.push_back({&n, std::move(k)});
    }
    return std::unique_ptr<Executable>(new RefExecutable(std::move(steps)));
  }

 private:
  DType compute_;
};

}  // namespace

std::unique_ptr<Backend> CreateRefBackend(DType compute) { return std::unique_ptr<Backend>(new RefBackend(compute)); }

}  // namespace tare
