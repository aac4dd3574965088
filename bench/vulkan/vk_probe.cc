// tare_vulkan_probe: says which Vulkan device the vulkan backend would use, as one JSON object on
// stdout (name, type, index, the limits that matter, unified memory, timestamps), and gates tests.
//
//   tare_vulkan_probe                 the JSON, exit 0; without a usable device "SKIP: <why>", exit 77
//   tare_vulkan_probe -- CMD ARG...   runs CMD when a device is usable (its exit status), else
//                                     prints the SKIP line and exits 77 (ctest's SKIP_RETURN_CODE)
// The device is chosen as the backend chooses it (TARE_VULKAN_DEVICE, else discrete > integrated
// > virtual > CPU; backends/vulkan/device.h).
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "backends/vulkan/device.h"

int main(int argc, char** argv) {
  tare::Result<tare::vk::Device*> d = tare::vk::Device::Get();
  if (!d.ok()) {
    std::printf("SKIP: %s\n", d.status().message().c_str());
    return 77;
  }
  if (argc > 2 && std::strcmp(argv[1], "--") == 0) {
    std::fflush(stdout);
    execvp(argv[2], argv + 2);
    std::fprintf(stderr, "tare_vulkan_probe: cannot run %s\n", argv[2]);
    return 1;
  }
  const tare::vk::Device& v = **d;
  const VkPhysicalDeviceLimits& l = v.limits();
  std::printf("{\"name\": \"%s\", \"type\": \"%s\", \"index\": %d, \"unified_memory\": %s, \"timestamps\": %s, "
              "\"timestamp_period_ns\": %g, \"max_storage_buffer_range\": %u, \"max_shared_memory\": %u, "
              "\"max_workgroup_invocations\": %u, \"max_workgroup_count\": [%u, %u, %u], \"max_push_constants\": %u, "
              "\"min_storage_buffer_offset_alignment\": %llu}\n",
              v.name().c_str(), v.type().c_str(), v.index(), v.unified_memory() ? "true" : "false",
              v.timestamps() ? "true" : "false", v.timestamp_period_ns(), l.maxStorageBufferRange,
              l.maxComputeSharedMemorySize, l.maxComputeWorkGroupInvocations, l.maxComputeWorkGroupCount[0],
              l.maxComputeWorkGroupCount[1], l.maxComputeWorkGroupCount[2], l.maxPushConstantsSize,
              static_cast<unsigned long long>(l.minStorageBufferOffsetAlignment));
  return 0;
}
