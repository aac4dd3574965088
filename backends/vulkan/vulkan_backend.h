// The vulkan backend (issue 18): GLSL compute shaders on any Vulkan 1.1 device (a GPU, or Mesa's
// lavapipe on the CPU), behind the same Backend interface as cpu and onednn. Built when
// TARE_WITH_VULKAN is defined (CMake option TARE_WITH_VULKAN, ON when the Vulkan headers and
// glslc are found); the loader is opened at run time. docs/VULKAN.md.
#pragma once
#include <memory>

#include "backends/backend.h"

namespace tare::vk {

/// The backend on the process's Vulkan device (device.h). Errors (kUnsupported): no Vulkan
/// loader, driver or device; the message says which.
Result<std::unique_ptr<Backend>> CreateVulkanBackend();

}  // namespace tare::vk
