// The compute shaders of the vulkan backend (backends/vulkan/shaders/*.comp), compiled by glslc at
// build time (-O --target-env=vulkan1.1) and embedded as SPIR-V words.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tare::vk {

enum class ShaderId { kUnary, kBinary, kBatchNorm, kConv, kConvTranspose, kGemm, kPool, kSoftmax, kCopy, kPad, kReduce, kResize };

/// SPIR-V words of a shader.
struct ShaderCode {
  const uint32_t* data;
  size_t words;
};
ShaderCode ShaderSpirv(ShaderId id);
/// The shader's file name without extension ("conv"), for messages and notes.
const char* ShaderName(ShaderId id);

}  // namespace tare::vk
