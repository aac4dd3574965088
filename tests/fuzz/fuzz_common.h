// Shared by the fuzz targets: run a converted or loaded model once on the reference backend, with
// tight session limits (16 MiB tensors, 64 MiB arena, 4096 control-flow body runs), on zero inputs of its declared shapes (unknown dims = 1); a model with
// TFLite's quantized ops runs on ref64 too (its float truth: runtime/passes/float_truth.h). Errors
// are fine; crashes, sanitizer reports, hangs and unbounded allocations are findings.
#pragma once
#include <memory>
#include <vector>

#include "format/model_file.h"
#include "runtime/exec/eval_node.h"
#include "runtime/passes/float_truth.h"
#include "runtime/session.h"

namespace tare::fuzz {

inline void RunOn(const std::shared_ptr<Model>& model, const char* backend) {
  std::shared_ptr<const Graph> graph(model, &model->graph);
  SessionOptions opts;
  opts.backends = {backend};
  opts.max_tensor_bytes = size_t(16) << 20;
  opts.max_arena_bytes = size_t(64) << 20;
  Result<std::unique_ptr<Session>> s = Session::Create(graph, opts);
  if (!s.ok()) return;
  std::vector<NamedTensor> inputs;
  for (int v : graph->inputs) {
    const Value& val = graph->values[v];
    if (val.kind != ValueKind::kTensor || val.dtype == DType::kUndefined || val.dtype == DType::kString) return;
    Shape shape = val.has_shape ? val.shape : Shape{};
    int64_t n = 1;
    for (int64_t& d : shape) {
      if (d < 0) d = 1;
      if (d > (int64_t(1) << 20)) return;
      n *= d;
      if (n > (int64_t(1) << 20)) return;
    }
    Result<Tensor> t = Tensor::Alloc(val.dtype, shape);
    if (!t.ok()) return;
    if (t->nbytes()) std::memset(t->data, 0, t->nbytes());
    inputs.push_back({val.name, std::move(t).value()});
  }
  std::vector<NamedTensor> outputs;
  // At most 4096 body runs of control flow per run (the default is 2^20): a TF1 while loop whose
  // condition never turns false ran 2^20 bodies in 4.5 min (release), 70+ s under ASan.
  const BodyRunLimitScope runs(4096);
  (void)(*s)->Run(inputs, &outputs);
}

inline void RunOnce(const std::shared_ptr<Model>& model) {
  RunOn(model, "ref");
  if (HasTfliteQuantOps(model->graph)) RunOn(model, "ref64");
}

}  // namespace tare::fuzz
