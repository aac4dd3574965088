// A test-only backend with a planted kernel error: it runs the reference kernels node by node and
// adds 1e-3 to every float32 output element of each node `perturbed` selects, right after it ran
// (Fault::kPerturb), or, for tare fuzz's isolation test, crashes (SIGSEGV) or hangs there.
// Register it with RegisterBackend (backends/backend.h) under `name`. Used by compare's bisection
// tests (one node by name) and tare fuzz's planted-bug test (one op at one attribute value).
#pragma once
#include <csignal>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace tare::test {

/// What a selected node does wrong.
enum class Fault { kPerturb, kCrash, kHang };

class PerturbExecutable : public Executable {
 public:
  Status Run(std::vector<Tensor>& slots) override {
    for (size_t i = 0; i < steps_.size(); ++i) {
      TARE_RETURN_IF_ERROR(steps_[i]->Run(slots));
      if (perturbed_[i] < 0) continue;
      if (fault_ == Fault::kCrash) std::raise(SIGSEGV);
      if (fault_ == Fault::kHang)
        for (;;) pause();
      Tensor& t = slots[static_cast<size_t>(perturbed_[i])];
      if (t.dtype == DType::kFloat32)
        for (int64_t e = 0; e < t.numel(); ++e) t.as<float>()[e] += 1e-3f;
    }
    return Status::Ok();
  }
  std::vector<std::unique_ptr<Executable>> steps_;  // one per node
  std::vector<int> perturbed_;                      // per node: the value to perturb, or -1
  Fault fault_ = Fault::kPerturb;
};

class PerturbBackend : public Backend {
 public:
  /// `claims`: the ops it takes (empty: every op ref takes); `perturbed`: the nodes it gets wrong.
  PerturbBackend(std::string name, std::vector<std::string> claims, std::function<bool(const Node&)> perturbed,
                 Fault fault = Fault::kPerturb)
      : name_(std::move(name)), claims_(std::move(claims)), perturbed_(std::move(perturbed)), fault_(fault),
        ref_(std::move(CreateBackend("ref")).value()) {}
  std::string name() const override { return name_; }
  DType float_storage() const override { return DType::kFloat32; }
  bool Supports(const Node& n, const Graph& g) const override { return Claims(n.op) && ref_->Supports(n, g); }
  bool ClaimsOp(const std::string& d, const std::string& op) const override { return Claims(op) && ref_->ClaimsOp(d, op); }
  Result<std::unique_ptr<Executable>> Compile(const Graph& g, const Partition& part, const std::vector<Tensor>& slots,
                                              const SessionOptions& options) override {
    auto ex = std::make_unique<PerturbExecutable>();
    ex->fault_ = fault_;
    for (int n : part.nodes) {
      Partition one;
      one.nodes = {n};
      one.live_out = g.nodes[static_cast<size_t>(n)].outputs;
      TARE_ASSIGN_OR_RETURN(std::unique_ptr<Executable> step, ref_->Compile(g, one, slots, options));
      ex->steps_.push_back(std::move(step));
      const Node& node = g.nodes[static_cast<size_t>(n)];
      ex->perturbed_.push_back(perturbed_(node) ? node.outputs[0] : -1);
    }
    return std::unique_ptr<Executable>(std::move(ex));
  }

 private:
  bool Claims(const std::string& op) const {
    if (claims_.empty()) return true;
    for (const std::string& c : claims_)
      if (c == op) return true;
    return false;
  }
  std::string name_;
  std::vector<std::string> claims_;
  std::function<bool(const Node&)> perturbed_;
  Fault fault_;
  std::unique_ptr<Backend> ref_;
};

}  // namespace tare::test
