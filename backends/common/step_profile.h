// Per-step timing of a fast backend's partition (cpu: TARE_CPU_PROFILE, onednn:
// TARE_ONEDNN_PROFILE), a tool for performance work, off by default.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace tare {

/// On when the environment variable `env` is set at construction: the partition's Run adds each
/// step's wall time (Add, seconds) per run (NewRun); at destruction the per-run mean, the sum of
/// the per-step minima and, per step, its mean and minimum (ms), its share of the total and its
/// label are printed to stderr under "`backend` partition: ...". Off, it holds nothing and the
/// caller pays one branch per run and step.
class StepProfile {
 public:
  StepProfile(const char* env, std::string backend, std::vector<std::string> labels);
  ~StepProfile();
  StepProfile(const StepProfile&) = delete;
  StepProfile& operator=(const StepProfile&) = delete;
  bool on() const { return on_; }
  void NewRun() { ++runs_; }
  void Add(size_t step, double seconds);

 private:
  bool on_ = false;
  std::string backend_;
  std::vector<std::string> labels_;
  int runs_ = 0;
  std::vector<double> sum_, min_;
};

}  // namespace tare
