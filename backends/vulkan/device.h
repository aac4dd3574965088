// The Vulkan device the vulkan backend runs on (one per process, made at the first use): instance,
// physical device choice, one compute queue, memory types, buffers, the pipelines of the embedded
// shaders (an in-process cache keyed by shader and specialization constants) and submission.
//
// Device choice: TARE_VULKAN_DEVICE, when set, is an index into the instance's device list or a
// case-insensitive part of a device name ("llvmpipe", "NVIDIA"); otherwise a discrete GPU before an
// integrated one before a virtual one before a CPU implementation (lavapipe). Required: Vulkan 1.1
// and a queue family with compute. docs/VULKAN.md.
//
// TARE_VULKAN_VALIDATION=1 enables the Khronos validation layer with a debug messenger: every
// error it reports is printed and fails the next submission or compile (ValidationErrors).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "backends/vulkan/shaders.h"
#include "backends/vulkan/vk_api.h"
#include "runtime/status.h"

namespace tare::vk {

/// A buffer with its own memory. `mapped` is the host address of host-visible buffers (else null).
struct Buffer {
  VkBuffer buf = VK_NULL_HANDLE;
  VkDeviceMemory mem = VK_NULL_HANDLE;
  size_t bytes = 0;
  void* mapped = nullptr;
  bool coherent = true;
};

/// What a compute pipeline is made of: every shader binds kBindings storage buffers in set 0 and
/// reads up to kPushBytes of push constants, so one layout serves them all.
constexpr uint32_t kBindings = 4;
constexpr uint32_t kPushBytes = 128;

/// The process's Vulkan device.
class Device {
 public:
  /// The device, made at the first call (instance, choice, logical device, queue); later calls
  /// return the same one, or the same error. Errors (kUnsupported): no loader, no instance (e.g.
  /// VK_ERROR_INCOMPATIBLE_DRIVER: no driver), no device, TARE_VULKAN_DEVICE matching none, no
  /// compute queue, a device below Vulkan 1.1. Thread-safe.
  static Result<Device*> Get();

  const Api& api() const { return api_; }
  VkDevice dev() const { return dev_; }
  /// "llvmpipe (LLVM 15.0.6, 256 bits)", its type ("cpu", "discrete", ...) and index.
  const std::string& name() const { return name_; }
  const std::string& type() const { return type_; }
  int index() const { return index_; }
  const VkPhysicalDeviceLimits& limits() const { return limits_; }
  /// Whether some memory type is both device-local and host-visible (integrated GPUs, lavapipe).
  bool unified_memory() const { return uma_; }
  /// Nanoseconds per timestamp tick, and whether the compute queue writes timestamps.
  double timestamp_period_ns() const { return ts_period_; }
  bool timestamps() const { return ts_bits_ > 0; }
  /// Offsets of tensors bound as storage buffers are multiples of this (>= 256).
  size_t alignment() const { return align_; }

  /// A storage buffer of `bytes` (> 0): device-local (`host` false; usage storage + transfer) or
  /// host-visible and mapped (`host` true; preferring cached memory for read-back); `unified`
  /// (with `host`): memory both device-local and host-visible, mapped (the zero-copy arena).
  /// Errors (kLimit): out of device or host memory, over maxMemoryAllocationSize.
  Result<Buffer> CreateBuffer(size_t bytes, bool host, bool unified = false);
  void Destroy(Buffer* b);

  /// The pipeline of `shader` with specialization constants `spec` (constant_id i = spec[i]),
  /// made once per (shader, spec) and kept until the process ends. Errors: pipeline creation.
  Result<VkPipeline> Pipeline(ShaderId shader, const std::vector<uint32_t>& spec);
  VkPipelineLayout layout() const { return layout_; }
  VkDescriptorSetLayout set_layout() const { return set_layout_; }

  /// Errors the validation layer has reported so far (TARE_VULKAN_VALIDATION=1), and the first.
  int ValidationErrors(std::string* first) const;

  /// A primary command buffer from the device's pool (freed by FreeCommandBuffer).
  Result<VkCommandBuffer> NewCommandBuffer();
  void FreeCommandBuffer(VkCommandBuffer cb);
  /// Submits `cb` and waits for it (the queue is shared: one submission at a time). Errors: the
  /// device is lost, or it did not finish within 60 s.
  Status SubmitAndWait(VkCommandBuffer cb);

 private:
  Device() = default;
  Status Init();
  Status CreateLayouts();
  /// Destroys what Init made (after a failed Init; the device in use lives until the process ends).
  void Release();

  Api api_;
  VkInstance inst_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice phys_ = VK_NULL_HANDLE;
  VkDevice dev_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t family_ = 0;
  std::string name_, type_;
  int index_ = -1;
  VkPhysicalDeviceLimits limits_{};
  VkPhysicalDeviceMemoryProperties mem_{};
  bool uma_ = false;
  double ts_period_ = 1;
  uint32_t ts_bits_ = 0;
  size_t align_ = 256;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  VkCommandPool cmd_pool_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  std::mutex mu_;  // queue, command pool, fence, pipeline map
  std::map<std::pair<int, std::vector<uint32_t>>, VkPipeline> pipelines_;
  std::map<int, VkShaderModule> modules_;
};

}  // namespace tare::vk
