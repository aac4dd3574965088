// The vulkan partition compiler and its executable (compiler.h).
#include "backends/vulkan/compiler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "runtime/plan/arena.h"

namespace tare::vk {

std::vector<uint32_t> Activation::Spec(std::vector<uint32_t> more) const {
  uint32_t fa, fb;
  std::memcpy(&fa, &a, 4);
  std::memcpy(&fb, &b, 4);
  std::vector<uint32_t> s = {kind, fa, fb};
  s.insert(s.end(), more.begin(), more.end());
  return s;
}

/// A transfer between a value's slot and its device location through the staging buffer.
struct Transfer {
  int value;
  size_t staging = 0;  // offset in the staging buffer
};

/// Dispatches recorded into one command buffer, with the transfers around them.
struct Segment {
  int start = 0;  // the step of its uploads
  std::vector<Dispatch> dispatches;
  std::vector<Transfer> uploads, downloads;
  VkCommandBuffer cb = VK_NULL_HANDLE;
};

/// The program: segments and host steps in order (a host step runs after segment `after`).
struct Compiler::Program {
  std::vector<Segment> segments;
  struct HostStep {
    int after;  // index of the segment before it (-1: none)
    std::function<Status()> fn;
  };
  std::vector<HostStep> host;
  std::vector<std::vector<float>> weights;
  std::vector<int> roots;  // values owning an arena range
  bool open = false;       // the last segment takes more dispatches
};

namespace {

size_t AlignUp(size_t n, size_t a) { return (n + a - 1) / a * a; }

using Clock = std::chrono::steady_clock;
double Ms(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

/// A compiled partition (built by Compiler::Finish).
class VulkanExecutable : public Executable {
 public:
  friend class tare::vk::Compiler;
  VulkanExecutable(Device* dev) : dev_(dev) {}
  ~VulkanExecutable() override {
    const Api& a = dev_->api();
    for (Segment& s : segments_)
      if (s.cb) dev_->FreeCommandBuffer(s.cb);
    if (desc_pool_) a.vkDestroyDescriptorPool(dev_->dev(), desc_pool_, nullptr);
    if (queries_) a.vkDestroyQueryPool(dev_->dev(), queries_, nullptr);
    dev_->Destroy(&arena_);
    dev_->Destroy(&weights_);
    dev_->Destroy(&staging_);
    dev_->Destroy(&dummy_);
  }

  Status Run(std::vector<Tensor>& slots) override {
    size_t h = 0;
    for (; h < host_.size() && host_[h].after < 0; ++h) TARE_RETURN_IF_ERROR(host_[h].fn());
    for (size_t s = 0; s < segments_.size(); ++s) {
      TARE_RETURN_IF_ERROR(RunSegment(s, slots));
      for (; h < host_.size() && host_[h].after == int(s); ++h) {
        const Clock::time_point t0 = Clock::now();
        TARE_RETURN_IF_ERROR(host_[h].fn());
        host_ms_ += Ms(t0, Clock::now());
      }
    }
    for (; h < host_.size(); ++h) TARE_RETURN_IF_ERROR(host_[h].fn());
    return Status::Ok();
  }

  std::vector<std::string> Notes() const override { return notes_; }

  std::vector<std::pair<std::string, double>> Phases() const override {
    return {{"upload", upload_ms_}, {"dispatch", dispatch_ms_}, {"download", download_ms_}, {"host", host_ms_}};
  }

  Status RunSegment(size_t si, std::vector<Tensor>& slots) {
    Segment& s = segments_[si];
    const Api& a = dev_->api();
    const Clock::time_point t0 = Clock::now();
    // Zero-copy: the transfers' offsets are the arena's own (unified, coherent memory).
    char* st = static_cast<char*>(zero_copy_ ? arena_.mapped : staging_.mapped);
    for (const Transfer& t : s.uploads) std::memcpy(st + t.staging, slots[t.value].data, slots[t.value].nbytes());
    if (!staging_.coherent && !s.uploads.empty()) {
      VkMappedMemoryRange r{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, staging_.mem, 0, VK_WHOLE_SIZE};
      a.vkFlushMappedMemoryRanges(dev_->dev(), 1, &r);
    }
    const Clock::time_point t1 = Clock::now();
    TARE_RETURN_IF_ERROR(dev_->SubmitAndWait(s.cb));
    const Clock::time_point t2 = Clock::now();
    if (!staging_.coherent && !s.downloads.empty()) {
      VkMappedMemoryRange r{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, staging_.mem, 0, VK_WHOLE_SIZE};
      a.vkInvalidateMappedMemoryRanges(dev_->dev(), 1, &r);
    }
    for (const Transfer& t : s.downloads) std::memcpy(slots[t.value].data, st + t.staging, slots[t.value].nbytes());
    const Clock::time_point t3 = Clock::now();
    double gpu_up = 0, gpu_disp = Ms(t1, t2), gpu_down = 0;
    if (queries_) {
      uint64_t ts[4] = {0, 0, 0, 0};
      if (a.vkGetQueryPoolResults(dev_->dev(), queries_, uint32_t(4 * si), 4, sizeof(ts), ts, 8,
                                  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) == VK_SUCCESS) {
        const double ns = dev_->timestamp_period_ns() * 1e-6;
        gpu_up = double(ts[1] - ts[0]) * ns;
        gpu_disp = double(ts[2] - ts[1]) * ns;
        gpu_down = double(ts[3] - ts[2]) * ns;
      }
    }
    upload_ms_ += Ms(t0, t1) + gpu_up;
    dispatch_ms_ += gpu_disp;
    download_ms_ += Ms(t2, t3) + gpu_down;
    return Status::Ok();
  }

  Device* dev_;
  std::vector<Segment> segments_;
  struct HostStep {
    int after;
    std::function<Status()> fn;
  };
  std::vector<HostStep> host_;
  std::vector<std::string> notes_;
  Buffer arena_, weights_, staging_, dummy_;
  bool zero_copy_ = false;  // TARE_VULKAN_ZERO_COPY=1 on a device with unified memory
  VkDescriptorPool desc_pool_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  double upload_ms_ = 0, dispatch_ms_ = 0, download_ms_ = 0, host_ms_ = 0;
};

}  // namespace

Compiler::Compiler(Device* dev, const Graph& g, const Partition& part, const std::vector<Tensor>& slots,
                   const GraphInfo& info)
    : dev_(dev), g_(g), part_(part), slots_(slots), info_(info), prog_(new Program) {
  live_out_.assign(g.values.size(), 0);
  for (int v : part.live_out) live_out_[v] = 1;
  absorbed_.assign(part.nodes.size() + 1, 0);
  notes_.assign(part.nodes.size(), "");
  st_.assign(g.values.size(), ValueState());
  for (ValueState& s : st_) s.on_host = true;
  for (int ni : part.nodes)
    for (int v : g.nodes[ni].outputs)
      if (v >= 0) st_[v].on_host = false;
}

Compiler::~Compiler() = default;

bool Compiler::F32(int v) const {
  if (v < 0 || v >= int(slots_.size())) return false;
  const Tensor& t = slots_[v];
  if (t.dtype != DType::kFloat32 || !t.is_tensor() || t.shape.size() > 6) return false;
  for (int64_t d : t.shape)
    if (d <= 0) return false;
  return t.numel() <= (int64_t(1) << 31) && t.nbytes() <= size_t(dev_->limits().maxStorageBufferRange);
}

const Node* Compiler::NextSoleReader(int v) const {
  if (pos_ + 1 >= part_.nodes.size() || absorbed_[pos_ + 1] || live_out_[v] || info_.readers[v] != 1) return nullptr;
  const Node& n = NodeAt(pos_ + 1);
  for (int i : n.inputs)
    if (i == v) return &n;
  return nullptr;
}

void Compiler::AbsorbNext() {
  absorbed_[pos_ + 1] = 1;
  notes_[pos_ + 1] = "fused into " + NodeAt(start_).name;
  ++pos_;
}

bool Compiler::ActivationOf(const Node& n, Activation* act) const {
  if (!n.domain.empty() && n.domain != "ai.onnx") return false;
  if (n.outputs.empty() || n.inputs.empty() || !F32(n.outputs[0])) return false;
  for (size_t i = 1; i < n.outputs.size(); ++i)
    if (n.outputs[i] >= 0) return false;
  Activation a;
  const std::string& op = n.op;
  if (op == "Relu") a.kind = kActRelu;
  else if (op == "Sigmoid") a.kind = kActSigmoid;
  else if (op == "Tanh") a.kind = kActTanh;
  else if (op == "HardSwish") a.kind = kActHardSwish;
  else if (op == "Exp") a.kind = kActExp;
  else if (op == "Abs") a.kind = kActAbs;
  else if (op == "Neg") a.kind = kActNeg;
  else if (op == "Sqrt") a.kind = kActSqrt;
  else if (op == "LeakyRelu") {
    Result<float> al = n.GetFloat("alpha", 0.01f);
    if (!al.ok()) return false;
    a.kind = kActLeaky;
    a.a = *al;
  } else if (op == "HardSigmoid") {
    Result<float> al = n.GetFloat("alpha", 0.2f), be = n.GetFloat("beta", 0.5f);
    if (!al.ok() || !be.ok()) return false;
    a.kind = kActHardSigmoid;
    a.a = *al;
    a.b = *be;
  } else if (op == "Clip") {
    // Clip-13 bounds as inputs (known at plan time), or Clip-6 attributes min / max.
    a.kind = kActClip;
    a.a = -INFINITY;
    a.b = INFINITY;
    if (n.inputs.size() > 1 && n.inputs[1] >= 0) {
      if (!IsConst(n.inputs[1]) || slots_[n.inputs[1]].numel() != 1) return false;
      a.a = static_cast<float>(ReadDouble(slots_[n.inputs[1]], 0));
    }
    if (n.inputs.size() > 2 && n.inputs[2] >= 0) {
      if (!IsConst(n.inputs[2]) || slots_[n.inputs[2]].numel() != 1) return false;
      a.b = static_cast<float>(ReadDouble(slots_[n.inputs[2]], 0));
    }
    if (n.has("min") || n.has("max")) return false;
  } else {
    return false;
  }
  *act = a;
  return true;
}

const Node* Compiler::SiluAfter(int v, size_t at) const {
  if (at + 2 >= part_.nodes.size() || absorbed_[at + 1] || absorbed_[at + 2] || live_out_[v]) return nullptr;
  const Node& sig = NodeAt(at + 1);
  const Node& mul = NodeAt(at + 2);
  if (sig.op != "Sigmoid" || !sig.domain.empty() || sig.inputs.size() != 1 || sig.inputs[0] != v) return nullptr;
  const int s = sig.outputs[0];
  if (mul.op != "Mul" || !mul.domain.empty() || mul.inputs.size() != 2 || mul.has("broadcast") || live_out_[s]) return nullptr;
  if (!((mul.inputs[0] == v && mul.inputs[1] == s) || (mul.inputs[0] == s && mul.inputs[1] == v))) return nullptr;
  if (info_.readers[s] != 1 || info_.readers[v] != 2) return nullptr;
  if (!F32(mul.outputs[0]) || shape(mul.outputs[0]) != shape(v)) return nullptr;
  return &mul;
}

int Compiler::FuseActivation(int v, Activation* act) {
  if (const Node* mul = SiluAfter(v, pos_)) {
    act->kind = kActSilu;
    AbsorbNext();
    AbsorbNext();
    notes_[pos_ - 1] = notes_[pos_] = "fused into " + NodeAt(start_).name + " (SiLU)";
    return mul->outputs[0];
  }
  const Node* next = NextSoleReader(v);
  Activation a;
  if (!next || next->inputs[0] != v || !ActivationOf(*next, &a)) return v;
  *act = a;
  AbsorbNext();
  return next->outputs[0];
}

void Compiler::Touch(int v) {
  ValueState& s = st_[v];
  if (s.root >= 0) st_[s.root].last = std::max(st_[s.root].last, step_);
}

void Compiler::OpenSegment() {
  if (!prog_->open) {
    prog_->segments.emplace_back();
    prog_->segments.back().start = step_;
    prog_->open = true;
    ++step_;
  }
}

Bind Compiler::In(int v) {
  OpenSegment();
  ValueState& s = st_[v];
  if (s.on_device) {
    Touch(v);
    return s.weight >= 0 ? Bind{Bind::kWeight, s.weight} : Bind{Bind::kValue, v};
  }
  if (IsConst(v)) {
    const Tensor& t = slots_[v];
    std::vector<float> data(t.as<float>(), t.as<float>() + t.numel());
    Bind b = AddWeight(std::move(data));
    s.on_device = true;
    s.weight = b.id;
    return b;
  }
  // On the host only: uploaded at the start of this segment.
  s.on_device = true;
  s.root = v;
  s.first = prog_->segments.back().start;
  s.last = step_;
  prog_->segments.back().uploads.push_back({v});
  prog_->roots.push_back(v);
  return {Bind::kValue, v};
}

Bind Compiler::Out(int v) {
  OpenSegment();
  ValueState& s = st_[v];
  s.on_device = true;
  s.on_host = false;
  s.root = v;
  s.weight = -1;
  s.first = s.last = step_;
  prog_->roots.push_back(v);
  return {Bind::kValue, v};
}

void Compiler::Alias(int u, int v) {
  In(v);
  ValueState& s = st_[u];
  s = st_[v];
  s.on_host = false;
  s.on_device = true;
  Touch(u);
}

Bind Compiler::AddWeight(std::vector<float> data) {
  prog_->weights.push_back(std::move(data));
  return {Bind::kWeight, int(prog_->weights.size() - 1)};
}

void Compiler::Grid1D(Dispatch* d, uint64_t n) {
  d->groups[0] = uint32_t(std::min<uint64_t>(65535, std::max<uint64_t>(1, (n + 63) / 64)));
}

void Compiler::Add(Dispatch d) {
  OpenSegment();
  for (const Bind& b : d.bind)
    if (b.kind == Bind::kValue) Touch(b.id);
  prog_->segments.back().dispatches.push_back(std::move(d));
  ++step_;
}

Status Compiler::CompileRef(const Node& n) {
  // Inputs needed on the host: downloaded at the end of the segment before this step.
  std::vector<Tensor> ins, outs;
  for (int v : n.inputs) {
    ins.push_back(v >= 0 ? slots_[v] : Tensor());
    if (v < 0 || st_[v].on_host || prog_->segments.empty()) continue;
    prog_->segments.back().downloads.push_back({v});
    Touch(v);
    st_[v].on_host = true;
  }
  for (int v : n.outputs) {
    outs.push_back(v >= 0 ? slots_[v] : Tensor());
    if (v < 0) continue;
    st_[v] = ValueState();
    st_[v].on_host = true;
  }
  TARE_ASSIGN_OR_RETURN(std::function<Status()> fn, RefStep(n, ins, outs));
  prog_->host.push_back({int(prog_->segments.size()) - 1, std::move(fn)});
  prog_->open = false;
  ++step_;
  if (notes_[start_].empty()) notes_[start_] = "reference kernel (on the host, between dispatches)";
  return Status::Ok();
}

namespace {

/// A global barrier: writes of `src` stages visible to reads and writes of `dst` stages.
void Barrier(const Api& a, VkCommandBuffer cb, VkPipelineStageFlags src, VkAccessFlags src_access,
             VkPipelineStageFlags dst, VkAccessFlags dst_access) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = src_access;
  mb.dstAccessMask = dst_access;
  a.vkCmdPipelineBarrier(cb, src, dst, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

constexpr size_t kWeightRing = size_t(16) << 20;  // staging ring for weight uploads (bytes)

/// Copies `weights` into `dst` at offsets `woff` through a host-visible ring of at most
/// kWeightRing bytes, one submission per filled ring.
Status UploadWeights(Device& d, const std::vector<std::vector<float>>& weights, const std::vector<size_t>& woff,
                     const Buffer& dst) {
  size_t wbytes = 0;
  for (const std::vector<float>& w : weights) wbytes += w.size() * 4;
  if (wbytes == 0) return Status::Ok();
  const Api& a = d.api();
    TARE_ASSIGN_OR_RETURN(Buffer ring, d.CreateBuffer(std::min(wbytes, kWeightRing), true));
    TARE_ASSIGN_OR_RETURN(VkCommandBuffer cb, d.NewCommandBuffer());
    Status st;
    std::vector<VkBufferCopy> copies;
    size_t used = 0;
    auto flush = [&]() -> Status {
      if (copies.empty()) return Status::Ok();
      if (!ring.coherent) {
        VkMappedMemoryRange r{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, ring.mem, 0, VK_WHOLE_SIZE};
        a.vkFlushMappedMemoryRanges(d.dev(), 1, &r);
      }
      VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
      bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
      a.vkBeginCommandBuffer(cb, &bi);
      a.vkCmdCopyBuffer(cb, ring.buf, dst.buf, uint32_t(copies.size()), copies.data());
      Barrier(a, cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
              VK_ACCESS_SHADER_READ_BIT);
      a.vkEndCommandBuffer(cb);
      Status s = d.SubmitAndWait(cb);
      copies.clear();
      used = 0;
      return s;
    };
    for (size_t i = 0; i < weights.size() && st.ok(); ++i) {
      const char* src = reinterpret_cast<const char*>(weights[i].data());
      size_t left = weights[i].size() * 4, done = 0;
      while (left > 0 && st.ok()) {
        if (used == ring.bytes) st = flush();
        const size_t n = std::min(left, ring.bytes - used);
        std::memcpy(static_cast<char*>(ring.mapped) + used, src + done, n);
        copies.push_back({used, woff[i] + done, n});
        used += n;
        done += n;
        left -= n;
      }
    }
    if (st.ok()) st = flush();
    d.FreeCommandBuffer(cb);
    d.Destroy(&ring);
    TARE_RETURN_IF_ERROR(st);
    return Status::Ok();
}

/// Records segment s into its command buffer: timestamps q..q+3 (when the pool exists), the
/// uploads, the dispatches with one global barrier after each, the downloads. `info` resolves a
/// binding to its buffer range.
Status RecordSegment(Device& d, VulkanExecutable& ex, Segment& s, uint32_t q,
                     const std::function<VkDescriptorBufferInfo(const Bind&)>& info) {
  const Api& a = d.api();
  TARE_ASSIGN_OR_RETURN(s.cb, d.NewCommandBuffer());
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  a.vkBeginCommandBuffer(s.cb, &bi);
  if (ex.queries_) {
    a.vkCmdResetQueryPool(s.cb, ex.queries_, q, 4);
    a.vkCmdWriteTimestamp(s.cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, ex.queries_, q);
  }
  for (const Transfer& t : s.uploads) {
    const VkDescriptorBufferInfo r = info(Bind{Bind::kValue, t.value});
    const VkBufferCopy c{t.staging, r.offset, r.range};
    if (!ex.zero_copy_) a.vkCmdCopyBuffer(s.cb, ex.staging_.buf, ex.arena_.buf, 1, &c);
  }
  Barrier(a, s.cb, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  if (ex.queries_) a.vkCmdWriteTimestamp(s.cb, VK_PIPELINE_STAGE_TRANSFER_BIT, ex.queries_, q + 1);
  for (const Dispatch& dp : s.dispatches) {
    TARE_ASSIGN_OR_RETURN(VkPipeline pipe, d.Pipeline(dp.shader, dp.spec));
    VkDescriptorSetLayout layout = d.set_layout();
    VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = ex.desc_pool_;
    ai.descriptorSetCount = 1;
    ai.pSetLayouts = &layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    VkResult r = a.vkAllocateDescriptorSets(d.dev(), &ai, &set);
    if (r != VK_SUCCESS) return Status::Error(std::string("vulkan: vkAllocateDescriptorSets: ") + ResultName(r));
    VkDescriptorBufferInfo bufs[kBindings];
    VkWriteDescriptorSet w[kBindings];
    for (uint32_t i = 0; i < kBindings; ++i) {
      bufs[i] = info(dp.bind[i]);
      w[i] = VkWriteDescriptorSet{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      w[i].dstSet = set;
      w[i].dstBinding = i;
      w[i].descriptorCount = 1;
      w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      w[i].pBufferInfo = &bufs[i];
    }
    a.vkUpdateDescriptorSets(d.dev(), kBindings, w, 0, nullptr);
    a.vkCmdBindPipeline(s.cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
    a.vkCmdBindDescriptorSets(s.cb, VK_PIPELINE_BIND_POINT_COMPUTE, d.layout(), 0, 1, &set, 0, nullptr);
    std::vector<uint32_t> push = dp.push;
    push.resize(kPushBytes / 4, 0);
    a.vkCmdPushConstants(s.cb, d.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushBytes, push.data());
    a.vkCmdDispatch(s.cb, dp.groups[0], dp.groups[1], dp.groups[2]);
    Barrier(a, s.cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT);
  }
  if (ex.queries_) a.vkCmdWriteTimestamp(s.cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, ex.queries_, q + 2);
  for (const Transfer& t : s.downloads) {
    const VkDescriptorBufferInfo r = info(Bind{Bind::kValue, t.value});
    const VkBufferCopy c{r.offset, t.staging, r.range};
    if (!ex.zero_copy_) a.vkCmdCopyBuffer(s.cb, r.buffer, ex.staging_.buf, 1, &c);
  }
  Barrier(a, s.cb, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  if (ex.queries_) a.vkCmdWriteTimestamp(s.cb, VK_PIPELINE_STAGE_TRANSFER_BIT, ex.queries_, q + 3);
  VkResult r = a.vkEndCommandBuffer(s.cb);
  if (r != VK_SUCCESS) return Status::Error(std::string("vulkan: vkEndCommandBuffer: ") + ResultName(r));
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<Executable>> Compiler::Finish() {
  // Values read after the partition: downloaded at the end of the last segment.
  for (int v : part_.live_out) {
    if (st_[v].on_host || prog_->segments.empty()) continue;
    ++step_;
    prog_->segments.back().downloads.push_back({v});
    Touch(v);
    st_[v].on_host = true;
  }
  Device& d = *dev_;
  const Api& a = d.api();
  auto ex = std::make_unique<VulkanExecutable>(dev_);
  ex->notes_ = notes_;
  const size_t align = d.alignment();

  // The activation arena: every root's range, planned by lifetime.
  std::vector<BufferUse> uses;
  for (int v : prog_->roots) uses.push_back({AlignUp(slots_[v].nbytes(), align), st_[v].first, st_[v].last});
  const ArenaPlan plan = PlanArena(uses);
  std::vector<size_t> offset(g_.values.size(), 0);
  for (size_t i = 0; i < prog_->roots.size(); ++i) offset[prog_->roots[i]] = plan.offsets[i];
  // Zero-copy (an option, off by default and in CI): on unified memory the host reads and writes
  // the arena's mapping directly, with no staging buffer and no copy commands.
  const char* zc = std::getenv("TARE_VULKAN_ZERO_COPY");
  ex->zero_copy_ = zc && std::strcmp(zc, "1") == 0 && d.unified_memory();
  for (const Segment& s : prog_->segments)
    for (const Transfer& t : s.downloads) ex->zero_copy_ = ex->zero_copy_ && st_[t.value].weight < 0;
  TARE_ASSIGN_OR_RETURN(ex->arena_, d.CreateBuffer(std::max<size_t>(plan.arena_bytes, align), ex->zero_copy_, ex->zero_copy_));
  TARE_ASSIGN_OR_RETURN(ex->dummy_, d.CreateBuffer(align, false));

  // The weight buffer, filled through a bounded staging ring.
  std::vector<size_t> woff(prog_->weights.size());
  size_t wbytes = 0;
  for (size_t i = 0; i < prog_->weights.size(); ++i) {
    woff[i] = wbytes;
    wbytes += AlignUp(std::max<size_t>(4, prog_->weights[i].size() * 4), align);
  }
  TARE_ASSIGN_OR_RETURN(ex->weights_, d.CreateBuffer(std::max(wbytes, align), false));
  TARE_RETURN_IF_ERROR(UploadWeights(d, prog_->weights, woff, ex->weights_));
  prog_->weights.clear();

  // The boundary staging buffer: one range per transfer.
  size_t sbytes = 0;
  for (Segment& s : prog_->segments) {
    for (std::vector<Transfer>* list : {&s.uploads, &s.downloads})
      for (Transfer& t : *list)
        t.staging = ex->zero_copy_ ? offset[size_t(st_[t.value].root)]
                                   : std::exchange(sbytes, sbytes + AlignUp(slots_[t.value].nbytes(), align));
  }
  TARE_ASSIGN_OR_RETURN(ex->staging_, d.CreateBuffer(std::max(sbytes, align), true));

  // Descriptor sets (one per dispatch) and timestamp queries (four per segment).
  size_t ndisp = 0;
  for (const Segment& s : prog_->segments) ndisp += s.dispatches.size();
  if (ndisp) {
    VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, uint32_t(ndisp * kBindings)};
    VkDescriptorPoolCreateInfo pci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pci.maxSets = uint32_t(ndisp);
    pci.poolSizeCount = 1;
    pci.pPoolSizes = &ps;
    VkResult r = a.vkCreateDescriptorPool(d.dev(), &pci, nullptr, &ex->desc_pool_);
    if (r != VK_SUCCESS) return Status::Error(StatusCode::kLimit, std::string("vulkan: vkCreateDescriptorPool: ") + ResultName(r));
  }
  if (d.timestamps() && !prog_->segments.empty()) {
    VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = uint32_t(4 * prog_->segments.size());
    if (a.vkCreateQueryPool(d.dev(), &qi, nullptr, &ex->queries_) != VK_SUCCESS) ex->queries_ = VK_NULL_HANDLE;
  }

  // Where a binding points.
  auto info = [&](const Bind& b) -> VkDescriptorBufferInfo {
    if (b.kind == Bind::kValue) {
      const ValueState& s = st_[b.id];
      if (s.weight >= 0) return {ex->weights_.buf, woff[size_t(s.weight)], slots_[b.id].nbytes()};
      return {ex->arena_.buf, offset[size_t(s.root)], slots_[b.id].nbytes()};
    }
    if (b.kind == Bind::kWeight) {
      const size_t i = size_t(b.id);
      const size_t end = i + 1 < woff.size() ? woff[i + 1] : wbytes;
      return {ex->weights_.buf, woff[i], end - woff[i]};
    }
    return {ex->dummy_.buf, 0, align};
  };

  // Record each segment.
  for (size_t si = 0; si < prog_->segments.size(); ++si) {
    TARE_RETURN_IF_ERROR(RecordSegment(d, *ex, prog_->segments[si], uint32_t(4 * si), info));
  }
  ex->segments_ = std::move(prog_->segments);
  for (Program::HostStep& h : prog_->host) ex->host_.push_back({h.after, std::move(h.fn)});
  return std::unique_ptr<Executable>(std::move(ex));
}

}  // namespace tare::vk
