// The `cpu` backend: XNNPACK operators plus the backend's own loops, pthreadpool threads.
// Float32 only; whatever it does not claim runs on `ref` (docs/ARCHITECTURE.md, "cpu backend").
#pragma once
#include <memory>

#include "backends/backend.h"

namespace tare::cpu {
std::unique_ptr<Backend> CreateCpuBackend();
}  // namespace tare::cpu
