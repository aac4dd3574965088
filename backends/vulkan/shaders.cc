// The embedded SPIR-V of backends/vulkan/shaders/*.comp (glslc -mfmt=num output, included as
// array initializers: 4-byte aligned words).
#include "backends/vulkan/shaders.h"

namespace tare::vk {
namespace {

const uint32_t kUnary[] = {
#include "unary.spv.inc"
};
const uint32_t kBinary[] = {
#include "binary.spv.inc"
};
const uint32_t kBatchNorm[] = {
#include "batchnorm.spv.inc"
};
const uint32_t kConv[] = {
#include "conv.spv.inc"
};
const uint32_t kConvTranspose[] = {
#include "conv_transpose.spv.inc"
};
const uint32_t kGemm[] = {
#include "gemm.spv.inc"
};
const uint32_t kPool[] = {
#include "pool.spv.inc"
};
const uint32_t kSoftmax[] = {
#include "softmax.spv.inc"
};
const uint32_t kCopy[] = {
#include "copy.spv.inc"
};
const uint32_t kPad[] = {
#include "pad.spv.inc"
};
const uint32_t kReduce[] = {
#include "reduce.spv.inc"
};
const uint32_t kResize[] = {
#include "resize.spv.inc"
};

}  // namespace

ShaderCode ShaderSpirv(ShaderId id) {
  switch (id) {
#define TARE_CASE(k) \
  case ShaderId::k: return {k, sizeof(k) / 4};
    TARE_CASE(kUnary)
    TARE_CASE(kBinary)
    TARE_CASE(kBatchNorm)
    TARE_CASE(kConv)
    TARE_CASE(kConvTranspose)
    TARE_CASE(kGemm)
    TARE_CASE(kPool)
    TARE_CASE(kSoftmax)
    TARE_CASE(kCopy)
    TARE_CASE(kPad)
    TARE_CASE(kReduce)
    TARE_CASE(kResize)
#undef TARE_CASE
  }
  return {nullptr, 0};
}

const char* ShaderName(ShaderId id) {
  switch (id) {
    case ShaderId::kUnary: return "unary";
    case ShaderId::kBinary: return "binary";
    case ShaderId::kBatchNorm: return "batchnorm";
    case ShaderId::kConv: return "conv";
    case ShaderId::kConvTranspose: return "conv_transpose";
    case ShaderId::kGemm: return "gemm";
    case ShaderId::kPool: return "pool";
    case ShaderId::kSoftmax: return "softmax";
    case ShaderId::kCopy: return "copy";
    case ShaderId::kPad: return "pad";
    case ShaderId::kReduce: return "reduce";
    case ShaderId::kResize: return "resize";
  }
  return "?";
}

}  // namespace tare::vk
