// The backends built into this binary: CreateBackend / AvailableBackends (backends/backend.h).
#include "backends/backend.h"

#include <algorithm>
#include <map>

#ifdef TARE_WITH_CPU
#include "backends/cpu/cpu_backend.h"
#endif
#ifdef TARE_WITH_ONEDNN
#include "backends/onednn/onednn_backend.h"
#endif
#ifdef TARE_WITH_VULKAN
#include "backends/vulkan/vulkan_backend.h"
#endif

namespace tare {

/// Defined in backends/ref/ref_backend.cc: `ref` (kFloat32) or `ref64` (kFloat64).
std::unique_ptr<Backend> CreateRefBackend(DType compute);

std::vector<std::string> AvailableBackends() {
  std::vector<std::string> names = {"ref64", "ref"};
#ifdef TARE_WITH_CPU
  names.push_back("cpu");
#endif
#ifdef TARE_WITH_ONEDNN
  names.push_back("onednn");
#endif
#ifdef TARE_WITH_VULKAN
  names.push_back("vulkan");
#endif
  return names;
}

namespace {
std::map<std::string, std::function<std::unique_ptr<Backend>()>>& Registered() {
  static std::map<std::string, std::function<std::unique_ptr<Backend>()>> r;
  return r;
}
}  // namespace

Status RegisterBackend(const std::string& name, std::function<std::unique_ptr<Backend>()> factory) {
  if (name.empty() || !factory) return Status::Error(StatusCode::kInvalidArgument, "a registered backend needs a name and a factory");
  const std::vector<std::string> built = AvailableBackends();
  if (std::find(built.begin(), built.end(), name) != built.end() || name == "cpu" || name == "onednn" || name == "vulkan" ||
      Registered().count(name))
    return Status::Error(StatusCode::kInvalidArgument, "backend '" + name + "' already exists");
  Registered()[name] = std::move(factory);
  return Status::Ok();
}

Result<std::unique_ptr<Backend>> CreateBackend(const std::string& name) {
  if (auto it = Registered().find(name); it != Registered().end()) return it->second();
  if (name == "ref") return CreateRefBackend(DType::kFloat32);
  if (name == "ref64") return CreateRefBackend(DType::kFloat64);
#ifdef TARE_WITH_CPU
  if (name == "cpu") return cpu::CreateCpuBackend();
#endif
#ifdef TARE_WITH_ONEDNN
  if (name == "onednn") return onednn::CreateOnednnBackend();
#endif
#ifdef TARE_WITH_VULKAN
  if (name == "vulkan") return vk::CreateVulkanBackend();
#endif
  std::string avail;
  for (const std::string& b : AvailableBackends()) avail += (avail.empty() ? "" : ", ") + b;
  if (name == "cpu" || name == "onednn" || name == "vulkan")
    return Status::Error("backend '" + name + "' is not built into this binary (available: " + avail + ")");
  return Status::Error("unknown backend '" + name + "' (available: " + avail + ")");
}

}  // namespace tare
