// The vulkan backend: claims nodes from its op table (ops.cc) and compiles each partition through
// the Compiler (compiler.h) on the process's device.
#include "backends/vulkan/vulkan_backend.h"

#include "backends/vulkan/compiler.h"

namespace tare::vk {
namespace {

/// Whether the data tensors of n are float32 with elements: its first output and first input.
bool FloatData(const Compiler& c, const Node& n) { return c.F32(n.outputs[0]) && !n.inputs.empty() && c.F32(n.inputs[0]); }

class VulkanBackend : public TableBackend<Compiler> {
 public:
  explicit VulkanBackend(Device* dev) : TableBackend<Compiler>(VulkanOps()), dev_(dev) {}
  std::string name() const override { return "vulkan"; }
  std::string Declines(const Node& node, const Graph& graph) const override {
    return VulkanDeclines(node, graph, Info(graph));
  }

  Result<std::unique_ptr<Executable>> Compile(const Graph& graph, const Partition& part, const std::vector<Tensor>& slots,
                                              const SessionOptions& options) override {
    // float16 nodes: computed in float32 by the same shaders (WidePartition, docs/NUMERICS.md).
    TARE_ASSIGN_OR_RETURN(std::unique_ptr<Executable> wide,
                          CompileWidened(graph, part, slots, [&](const Graph& g, const Partition& p, const std::vector<Tensor>& s) {
                            return Compile(g, p, s, options);
                          }));
    if (wide) return wide;
    Compiler c(dev_, graph, part, slots, Info(graph));
    for (size_t p = 0; p < part.nodes.size(); ++p) {
      if (c.Absorbed(p)) continue;
      c.Begin(p);
      const Node& n = graph.nodes[part.nodes[p]];
      const OpImpl* op = Find(n);
      TARE_RETURN_IF_ERROR(op && FloatData(c, n) ? op->compile(c, n) : c.CompileRef(n));
    }
    return c.Finish();
  }

 private:
  Device* dev_;
};

}  // namespace

Result<std::unique_ptr<Backend>> CreateVulkanBackend() {
  TARE_ASSIGN_OR_RETURN(Device * dev, Device::Get());
  return std::unique_ptr<Backend>(new VulkanBackend(dev));
}

}  // namespace tare::vk
