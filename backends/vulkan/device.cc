// The process's Vulkan device (device.h).
#include "backends/vulkan/device.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tare::vk {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

const char* TypeName(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
  }
}

/// Preference of a device type when none is named: lower is better.
int Rank(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
  }
}

/// Validation messages (TARE_VULKAN_VALIDATION=1): errors counted, the first kept.
std::mutex g_validation_mu;
int g_validation_errors = 0;
std::string g_first_validation_error;

VKAPI_ATTR VkBool32 VKAPI_CALL OnValidation(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                            VkDebugUtilsMessageTypeFlagsEXT, const VkDebugUtilsMessengerCallbackDataEXT* data,
                                            void*) {
  if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
    std::lock_guard<std::mutex> lock(g_validation_mu);
    std::fprintf(stderr, "vulkan validation: %s\n", data->pMessage);
    if (g_validation_errors++ == 0) g_first_validation_error = data->pMessage;
  }
  return VK_FALSE;
}

Status VkError(const char* what, VkResult r) {
  return Status::Error(r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY ? StatusCode::kLimit
                                                                                             : StatusCode::kUnspecified,
                       std::string("vulkan: ") + what + " failed: " + ResultName(r));
}

}  // namespace

Result<Device*> Device::Get() {
  static Device* device = nullptr;
  static Status error;
  static std::once_flag once;
  std::call_once(once, [] {
    Device* d = new Device();
    Status st = d->Init();
    if (st.ok()) {
      device = d;
    } else if (d->inst_) {
      // The instance is kept, as after a successful start: destroying it makes the loader unload
      // the driver, and lavapipe's own small leaks (platforms/debian/lsan.supp) then come from an
      // unloaded library that no suppression can name.
      error = st;
      static Device* kept = d;
      (void)kept;
    } else {
      error = st;
      d->Release();
      delete d;
    }
  });
  if (!device) return error;
  return device;
}

void Device::Release() {
  if (dev_) {
    if (fence_) api_.vkDestroyFence(dev_, fence_, nullptr);
    if (cmd_pool_) api_.vkDestroyCommandPool(dev_, cmd_pool_, nullptr);
    if (cache_) api_.vkDestroyPipelineCache(dev_, cache_, nullptr);
    if (layout_) api_.vkDestroyPipelineLayout(dev_, layout_, nullptr);
    if (set_layout_) api_.vkDestroyDescriptorSetLayout(dev_, set_layout_, nullptr);
    api_.vkDestroyDevice(dev_, nullptr);
  }
  if (messenger_) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        api_.vkGetInstanceProcAddr(inst_, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy) destroy(inst_, messenger_, nullptr);
  }
  if (inst_ && api_.vkDestroyInstance) api_.vkDestroyInstance(inst_, nullptr);
}

Status Device::Init() {
  std::string why;
  const Api* global = LoadGlobal(&why);
  if (!global) return Status::Error(StatusCode::kUnsupported, "vulkan: " + why);
  api_ = *global;
  uint32_t version = VK_API_VERSION_1_0;
  if (api_.vkEnumerateInstanceVersion) api_.vkEnumerateInstanceVersion(&version);
  if (version < VK_API_VERSION_1_1)
    return Status::Error(StatusCode::kUnsupported, "vulkan: the loader supports only Vulkan 1.0 (1.1 needed)");
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "tare";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  const char* layer = "VK_LAYER_KHRONOS_validation";
  const char* ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  const char* val = std::getenv("TARE_VULKAN_VALIDATION");
  const bool validate = val && *val && std::strcmp(val, "0") != 0;
  if (validate) {
    ici.enabledLayerCount = 1;
    ici.ppEnabledLayerNames = &layer;
    ici.enabledExtensionCount = 1;
    ici.ppEnabledExtensionNames = &ext;
  }
  VkResult r = api_.vkCreateInstance(&ici, nullptr, &inst_);
  if (validate && r != VK_SUCCESS)
    return Status::Error(StatusCode::kUnsupported, std::string("vulkan: TARE_VULKAN_VALIDATION is set but the instance "
                                                               "cannot enable VK_LAYER_KHRONOS_validation (") +
                                                       ResultName(r) + "): install vulkan-validationlayers");
  if (r != VK_SUCCESS)
    return Status::Error(StatusCode::kUnsupported,
                         std::string("vulkan: no Vulkan instance (vkCreateInstance: ") + ResultName(r) +
                             (r == VK_ERROR_INCOMPATIBLE_DRIVER ? ": no Vulkan driver is installed)" : ")"));
  if (!LoadInstance(&api_, inst_))
    return Status::Error(StatusCode::kUnsupported, "vulkan: the instance lacks a Vulkan 1.0 entry point");
  if (validate) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        api_.vkGetInstanceProcAddr(inst_, "vkCreateDebugUtilsMessengerEXT"));
    VkDebugUtilsMessengerCreateInfoEXT mi{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mi.pfnUserCallback = OnValidation;
    if (!create || create(inst_, &mi, nullptr, &messenger_) != VK_SUCCESS)
      return Status::Error(StatusCode::kUnsupported, "vulkan: cannot create the validation layer's debug messenger");
  }
  uint32_t count = 0;
  api_.vkEnumeratePhysicalDevices(inst_, &count, nullptr);
  std::vector<VkPhysicalDevice> phys(count);
  if (count) api_.vkEnumeratePhysicalDevices(inst_, &count, phys.data());
  if (phys.empty()) return Status::Error(StatusCode::kUnsupported, "vulkan: the instance lists no device");
  std::vector<VkPhysicalDeviceProperties> props(phys.size());
  for (size_t i = 0; i < phys.size(); ++i) api_.vkGetPhysicalDeviceProperties(phys[i], &props[i]);
  int pick = -1;
  if (const char* want = std::getenv("TARE_VULKAN_DEVICE"); want && *want) {
    const std::string w = want;
    if (std::all_of(w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      // An index: compared digit by digit against the count, so no value overflows.
      const std::string digits = w.substr(std::min(w.find_first_not_of('0'), w.size() - 1));
      const std::string count = std::to_string(phys.size());
      if (digits.size() > count.size() || (digits.size() == count.size() && digits >= count))
        return Status::Error(StatusCode::kUnsupported, "vulkan: TARE_VULKAN_DEVICE=" + w + " but the instance lists " +
                                                           count + " device(s), numbered from 0");
      pick = std::stoi(digits);
    } else {
      for (size_t i = 0; i < phys.size() && pick < 0; ++i)
        if (Lower(props[i].deviceName).find(Lower(w)) != std::string::npos) pick = int(i);
      if (pick < 0) {
        std::string names;
        for (const auto& p : props) names += std::string(names.empty() ? "" : ", ") + p.deviceName;
        return Status::Error(StatusCode::kUnsupported,
                             "vulkan: TARE_VULKAN_DEVICE=" + w + " matches no device (" + names + ")");
      }
    }
  } else {
    for (size_t i = 0; i < phys.size(); ++i)
      if (props[i].apiVersion >= VK_API_VERSION_1_1 &&
          (pick < 0 || Rank(props[i].deviceType) < Rank(props[size_t(pick)].deviceType)))
        pick = int(i);
    if (pick < 0) return Status::Error(StatusCode::kUnsupported, "vulkan: no device supports Vulkan 1.1");
  }
  const VkPhysicalDeviceProperties& p = props[size_t(pick)];
  if (p.apiVersion < VK_API_VERSION_1_1)
    return Status::Error(StatusCode::kUnsupported, std::string("vulkan: ") + p.deviceName + " supports only Vulkan 1.0");
  phys_ = phys[size_t(pick)];
  index_ = pick;
  name_ = p.deviceName;
  type_ = TypeName(p.deviceType);
  limits_ = p.limits;
  ts_period_ = p.limits.timestampPeriod;
  align_ = std::max<size_t>(256, size_t(p.limits.minStorageBufferOffsetAlignment));

  uint32_t nq = 0;
  api_.vkGetPhysicalDeviceQueueFamilyProperties(phys_, &nq, nullptr);
  std::vector<VkQueueFamilyProperties> qf(nq);
  api_.vkGetPhysicalDeviceQueueFamilyProperties(phys_, &nq, qf.data());
  int fam = -1;
  for (uint32_t i = 0; i < nq; ++i)  // a compute-only family first (dedicated compute queues)
    if ((qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && !(qf[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) && fam < 0) fam = int(i);
  for (uint32_t i = 0; i < nq; ++i)
    if ((qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && fam < 0) fam = int(i);
  if (fam < 0) return Status::Error(StatusCode::kUnsupported, "vulkan: " + name_ + " has no compute queue");
  family_ = uint32_t(fam);
  ts_bits_ = qf[family_].timestampValidBits;

  api_.vkGetPhysicalDeviceMemoryProperties(phys_, &mem_);
  for (uint32_t i = 0; i < mem_.memoryTypeCount; ++i) {
    const VkMemoryPropertyFlags f = mem_.memoryTypes[i].propertyFlags;
    if ((f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) && (f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) uma_ = true;
  }

  const float prio = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = family_;
  qci.queueCount = 1;
  qci.pQueuePriorities = &prio;
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  r = api_.vkCreateDevice(phys_, &dci, nullptr, &dev_);
  if (r != VK_SUCCESS) return Status::Error(StatusCode::kUnsupported, "vulkan: vkCreateDevice failed on " + name_ + ": " + ResultName(r));
  if (!LoadDevice(&api_, dev_)) return Status::Error(StatusCode::kUnsupported, "vulkan: the device lacks a Vulkan 1.0 entry point");
  api_.vkGetDeviceQueue(dev_, family_, 0, &queue_);
  return CreateLayouts();
}

Status Device::CreateLayouts() {
  VkDescriptorSetLayoutBinding b[kBindings];
  for (uint32_t i = 0; i < kBindings; ++i) {
    b[i] = VkDescriptorSetLayoutBinding{};
    b[i].binding = i;
    b[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    b[i].descriptorCount = 1;
    b[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo dl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dl.bindingCount = kBindings;
  dl.pBindings = b;
  VkResult r = api_.vkCreateDescriptorSetLayout(dev_, &dl, nullptr, &set_layout_);
  if (r != VK_SUCCESS) return VkError("vkCreateDescriptorSetLayout", r);
  VkPushConstantRange pc{VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushBytes};
  VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pl.setLayoutCount = 1;
  pl.pSetLayouts = &set_layout_;
  pl.pushConstantRangeCount = 1;
  pl.pPushConstantRanges = &pc;
  r = api_.vkCreatePipelineLayout(dev_, &pl, nullptr, &layout_);
  if (r != VK_SUCCESS) return VkError("vkCreatePipelineLayout", r);
  VkPipelineCacheCreateInfo pcc{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  r = api_.vkCreatePipelineCache(dev_, &pcc, nullptr, &cache_);
  if (r != VK_SUCCESS) return VkError("vkCreatePipelineCache", r);
  VkCommandPoolCreateInfo cp{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cp.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  cp.queueFamilyIndex = family_;
  r = api_.vkCreateCommandPool(dev_, &cp, nullptr, &cmd_pool_);
  if (r != VK_SUCCESS) return VkError("vkCreateCommandPool", r);
  VkFenceCreateInfo fc{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  r = api_.vkCreateFence(dev_, &fc, nullptr, &fence_);
  if (r != VK_SUCCESS) return VkError("vkCreateFence", r);
  return Status::Ok();
}

int Device::ValidationErrors(std::string* first) const {
  std::lock_guard<std::mutex> lock(g_validation_mu);
  if (first) *first = g_first_validation_error;
  return g_validation_errors;
}

Result<Buffer> Device::CreateBuffer(size_t bytes, bool host, bool unified) {
  Buffer b;
  b.bytes = bytes;
  if (bytes == 0) bytes = 4;
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = bytes;
  bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult r = api_.vkCreateBuffer(dev_, &bi, nullptr, &b.buf);
  if (r != VK_SUCCESS) return VkError("vkCreateBuffer", r);
  VkMemoryRequirements req;
  api_.vkGetBufferMemoryRequirements(dev_, b.buf, &req);
  // Memory type: host buffers want HOST_VISIBLE (cached preferred, coherent preferred); device
  // buffers want DEVICE_LOCAL (not host-visible preferred, so a discrete GPU uses its VRAM).
  int best = -1, best_score = -1;
  for (uint32_t i = 0; i < mem_.memoryTypeCount; ++i) {
    if (!(req.memoryTypeBits & (1u << i))) continue;
    const VkMemoryPropertyFlags f = mem_.memoryTypes[i].propertyFlags;
    int score;
    if (host) {
      if (!(f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) continue;
      if (unified && !((f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) && (f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT))) continue;
      score = 1 + ((f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) ? 2 : 0) + ((f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) ? 4 : 0);
    } else {
      if (!(f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) continue;
      score = (f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) ? 1 : 2;
    }
    if (score > best_score) {
      best = int(i);
      best_score = score;
    }
  }
  if (best < 0) {
    api_.vkDestroyBuffer(dev_, b.buf, nullptr);
    return Status::Error(StatusCode::kUnsupported, "vulkan: no suitable memory type for a buffer");
  }
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = uint32_t(best);
  r = api_.vkAllocateMemory(dev_, &ai, nullptr, &b.mem);
  if (r != VK_SUCCESS) {
    api_.vkDestroyBuffer(dev_, b.buf, nullptr);
    return Status::Error(StatusCode::kLimit, "vulkan: cannot allocate " + std::to_string(bytes) + " bytes of " +
                                                 (host ? "host-visible" : "device") + " memory: " + ResultName(r));
  }
  api_.vkBindBufferMemory(dev_, b.buf, b.mem, 0);
  if (host) {
    b.coherent = (mem_.memoryTypes[best].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
    r = api_.vkMapMemory(dev_, b.mem, 0, VK_WHOLE_SIZE, 0, &b.mapped);
    if (r != VK_SUCCESS) {
      Destroy(&b);
      return VkError("vkMapMemory", r);
    }
  }
  return b;
}

void Device::Destroy(Buffer* b) {
  if (b->mapped) api_.vkUnmapMemory(dev_, b->mem);
  if (b->buf) api_.vkDestroyBuffer(dev_, b->buf, nullptr);
  if (b->mem) api_.vkFreeMemory(dev_, b->mem, nullptr);
  *b = Buffer();
}

Result<VkPipeline> Device::Pipeline(ShaderId shader, const std::vector<uint32_t>& spec) {
  std::lock_guard<std::mutex> lock(mu_);
  auto key = std::make_pair(int(shader), spec);
  auto it = pipelines_.find(key);
  if (it != pipelines_.end()) return it->second;
  VkShaderModule& mod = modules_[int(shader)];
  if (!mod) {
    const ShaderCode code = ShaderSpirv(shader);
    VkShaderModuleCreateInfo ci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    ci.codeSize = code.words * 4;
    ci.pCode = code.data;
    VkResult r = api_.vkCreateShaderModule(dev_, &ci, nullptr, &mod);
    if (r != VK_SUCCESS) return VkError("vkCreateShaderModule", r);
  }
  std::vector<VkSpecializationMapEntry> entries(spec.size());
  for (size_t i = 0; i < spec.size(); ++i) entries[i] = {uint32_t(i), uint32_t(4 * i), 4};
  VkSpecializationInfo si{uint32_t(spec.size()), entries.data(), spec.size() * 4, spec.data()};
  VkComputePipelineCreateInfo pci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  pci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pci.stage.module = mod;
  pci.stage.pName = "main";
  pci.stage.pSpecializationInfo = spec.empty() ? nullptr : &si;
  pci.layout = layout_;
  VkPipeline pipe = VK_NULL_HANDLE;
  VkResult r = api_.vkCreateComputePipelines(dev_, cache_, 1, &pci, nullptr, &pipe);
  if (r != VK_SUCCESS) return VkError((std::string("vkCreateComputePipelines (") + ShaderName(shader) + ")").c_str(), r);
  pipelines_[key] = pipe;
  return pipe;
}

Result<VkCommandBuffer> Device::NewCommandBuffer() {
  std::lock_guard<std::mutex> lock(mu_);
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = cmd_pool_;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  VkResult r = api_.vkAllocateCommandBuffers(dev_, &ai, &cb);
  if (r != VK_SUCCESS) return VkError("vkAllocateCommandBuffers", r);
  return cb;
}

void Device::FreeCommandBuffer(VkCommandBuffer cb) {
  std::lock_guard<std::mutex> lock(mu_);
  api_.vkFreeCommandBuffers(dev_, cmd_pool_, 1, &cb);
}

Status Device::SubmitAndWait(VkCommandBuffer cb) {
  std::lock_guard<std::mutex> lock(mu_);
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb;
  VkResult r = api_.vkQueueSubmit(queue_, 1, &si, fence_);
  if (r != VK_SUCCESS) return VkError("vkQueueSubmit", r);
  r = api_.vkWaitForFences(dev_, 1, &fence_, VK_TRUE, uint64_t(60) * 1000000000ull);
  api_.vkResetFences(dev_, 1, &fence_);
  if (r == VK_TIMEOUT) return Status::Error("vulkan: a submission did not finish within 60 s");
  if (r != VK_SUCCESS) return VkError("vkWaitForFences", r);
  std::string first;
  if (const int n = ValidationErrors(&first))
    return Status::Error(StatusCode::kInternal, "vulkan: the validation layer reported " + std::to_string(n) +
                                                    " error(s); the first: " + first);
  return Status::Ok();
}

}  // namespace tare::vk
