#include "backends/common/step_profile.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace tare {

StepProfile::StepProfile(const char* env, std::string backend, std::vector<std::string> labels)
    : on_(std::getenv(env) != nullptr), backend_(std::move(backend)) {
  if (!on_) return;
  labels_ = std::move(labels);
  sum_.assign(labels_.size(), 0.0);
  min_.assign(labels_.size(), 1e30);
}

void StepProfile::Add(size_t step, double seconds) {
  sum_[step] += seconds;
  min_[step] = std::min(min_[step], seconds);
}

StepProfile::~StepProfile() {
  if (!on_ || runs_ == 0) return;
  double total = 0, total_min = 0;
  for (size_t i = 0; i < sum_.size(); ++i) total += sum_[i], total_min += min_[i];
  std::fprintf(stderr, "%s partition: %zu steps, %.3f ms per run (sum of minima %.3f ms) over %d runs\n", backend_.c_str(),
               sum_.size(), 1e3 * total / runs_, 1e3 * total_min, runs_);
  for (size_t i = 0; i < sum_.size(); ++i)
    std::fprintf(stderr, "  mean %8.3f ms  min %8.3f ms  %5.1f%%  step %zu  %s\n", 1e3 * sum_[i] / runs_, 1e3 * min_[i],
                 total > 0 ? 100 * sum_[i] / total : 0.0, i, labels_[i].c_str());
}

}  // namespace tare
