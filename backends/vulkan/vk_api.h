// The Vulkan entry points the vulkan backend calls, loaded at run time: libvulkan.so.1 is opened
// with dlopen and every function is looked up through vkGetInstanceProcAddr / vkGetDeviceProcAddr,
// so tare has no link-time dependency on a Vulkan loader and "no Vulkan" is a run-time condition
// (CreateBackend("vulkan") fails with a message; every other backend runs).
#pragma once
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <string>

namespace tare::vk {

// Instance-level and device-level entry points (X-macro lists).
#define TARE_VK_INSTANCE_FNS(X)                 \
  X(vkDestroyInstance)                          \
  X(vkEnumeratePhysicalDevices)                 \
  X(vkGetPhysicalDeviceProperties)              \
  X(vkGetPhysicalDeviceQueueFamilyProperties)   \
  X(vkGetPhysicalDeviceMemoryProperties)        \
  X(vkCreateDevice)                             \
  X(vkGetDeviceProcAddr)

#define TARE_VK_DEVICE_FNS(X)      \
  X(vkDestroyDevice)               \
  X(vkGetDeviceQueue)              \
  X(vkCreateBuffer)                \
  X(vkDestroyBuffer)               \
  X(vkGetBufferMemoryRequirements) \
  X(vkAllocateMemory)              \
  X(vkFreeMemory)                  \
  X(vkBindBufferMemory)            \
  X(vkMapMemory)                   \
  X(vkUnmapMemory)                 \
  X(vkFlushMappedMemoryRanges)     \
  X(vkInvalidateMappedMemoryRanges) \
  X(vkCreateShaderModule)          \
  X(vkDestroyShaderModule)         \
  X(vkCreateDescriptorSetLayout)   \
  X(vkDestroyDescriptorSetLayout)  \
  X(vkCreatePipelineLayout)        \
  X(vkDestroyPipelineLayout)       \
  X(vkCreatePipelineCache)         \
  X(vkDestroyPipelineCache)        \
  X(vkCreateComputePipelines)      \
  X(vkDestroyPipeline)             \
  X(vkCreateDescriptorPool)        \
  X(vkDestroyDescriptorPool)       \
  X(vkAllocateDescriptorSets)      \
  X(vkUpdateDescriptorSets)        \
  X(vkCreateCommandPool)           \
  X(vkDestroyCommandPool)          \
  X(vkAllocateCommandBuffers)      \
  X(vkFreeCommandBuffers)          \
  X(vkBeginCommandBuffer)          \
  X(vkEndCommandBuffer)            \
  X(vkCmdBindPipeline)             \
  X(vkCmdBindDescriptorSets)       \
  X(vkCmdPushConstants)            \
  X(vkCmdDispatch)                 \
  X(vkCmdCopyBuffer)               \
  X(vkCmdFillBuffer)               \
  X(vkCmdPipelineBarrier)          \
  X(vkCmdWriteTimestamp)           \
  X(vkCmdResetQueryPool)           \
  X(vkCreateQueryPool)             \
  X(vkDestroyQueryPool)            \
  X(vkGetQueryPoolResults)         \
  X(vkCreateFence)                 \
  X(vkDestroyFence)                \
  X(vkResetFences)                 \
  X(vkWaitForFences)               \
  X(vkQueueSubmit)                 \
  X(vkDeviceWaitIdle)

/// The loaded entry points (null until Load succeeds).
struct Api {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  PFN_vkCreateInstance vkCreateInstance = nullptr;
  PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion = nullptr;
  PFN_vkEnumerateInstanceLayerProperties vkEnumerateInstanceLayerProperties = nullptr;
#define TARE_VK_DECL(f) PFN_##f f = nullptr;
  TARE_VK_INSTANCE_FNS(TARE_VK_DECL)
  TARE_VK_DEVICE_FNS(TARE_VK_DECL)
#undef TARE_VK_DECL
};

/// The process's entry points. Errors (as a message in *why, and a null return): libvulkan.so.1
/// cannot be opened or lacks vkGetInstanceProcAddr. Thread-safe; opened once.
const Api* LoadGlobal(std::string* why);
/// Loads the instance-level entry points of `inst` into `api`. False when one is missing.
bool LoadInstance(Api* api, VkInstance inst);
/// Loads the device-level entry points of `dev` into `api`. False when one is missing.
bool LoadDevice(Api* api, VkDevice dev);

/// "VK_ERROR_OUT_OF_DEVICE_MEMORY" etc. for a VkResult.
const char* ResultName(VkResult r);

}  // namespace tare::vk
