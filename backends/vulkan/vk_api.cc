// The run-time loader of the Vulkan entry points (vk_api.h).
#include "backends/vulkan/vk_api.h"

#include <dlfcn.h>

#include <mutex>

namespace tare::vk {

const Api* LoadGlobal(std::string* why) {
  static Api api;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      error = std::string("cannot open the Vulkan loader libvulkan.so.1 (") + (e ? e : "?") +
              "): install libvulkan1 and a driver (mesa-vulkan-drivers for lavapipe)";
      return;
    }
    api.vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib, "vkGetInstanceProcAddr"));
    if (!api.vkGetInstanceProcAddr) {
      error = "libvulkan.so.1 has no vkGetInstanceProcAddr";
      return;
    }
    api.vkCreateInstance =
        reinterpret_cast<PFN_vkCreateInstance>(api.vkGetInstanceProcAddr(nullptr, "vkCreateInstance"));
    api.vkEnumerateInstanceVersion = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
        api.vkGetInstanceProcAddr(nullptr, "vkEnumerateInstanceVersion"));
    api.vkEnumerateInstanceLayerProperties = reinterpret_cast<PFN_vkEnumerateInstanceLayerProperties>(
        api.vkGetInstanceProcAddr(nullptr, "vkEnumerateInstanceLayerProperties"));
    if (!api.vkCreateInstance) error = "the Vulkan loader has no vkCreateInstance";
  });
  if (!error.empty()) {
    if (why) *why = error;
    return nullptr;
  }
  return &api;
}

bool LoadInstance(Api* api, VkInstance inst) {
  bool ok = true;
#define TARE_VK_LOAD(f)                                                                   \
  api->f = reinterpret_cast<PFN_##f>(api->vkGetInstanceProcAddr(inst, #f));              \
  ok = ok && api->f != nullptr;
  TARE_VK_INSTANCE_FNS(TARE_VK_LOAD)
#undef TARE_VK_LOAD
  return ok;
}

bool LoadDevice(Api* api, VkDevice dev) {
  bool ok = true;
#define TARE_VK_LOAD(f)                                                      \
  api->f = reinterpret_cast<PFN_##f>(api->vkGetDeviceProcAddr(dev, #f));    \
  ok = ok && api->f != nullptr;
  TARE_VK_DEVICE_FNS(TARE_VK_LOAD)
#undef TARE_VK_LOAD
  return ok;
}

const char* ResultName(VkResult r) {
  switch (r) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_FORMAT_NOT_SUPPORTED: return "VK_ERROR_FORMAT_NOT_SUPPORTED";
    case VK_ERROR_FRAGMENTED_POOL: return "VK_ERROR_FRAGMENTED_POOL";
    case VK_ERROR_OUT_OF_POOL_MEMORY: return "VK_ERROR_OUT_OF_POOL_MEMORY";
    default: return "VkResult error";
  }
}

}  // namespace tare::vk
