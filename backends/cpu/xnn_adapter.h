// The one file that calls XNNPACK (Debian's 2022-02 snapshot: create(...) packs weights,
// setup(op, shapes, pointers, pool) binds buffers, run(op, pool) computes; there are no caches,
// no reshape). An XNNPACK upgrade touches only xnn_adapter.{h,cc}.
// Buffers given to setup must have kXnnExtraBytes of readable memory past their end (XNNPACK's
// vector kernels over-read, never use, a few bytes). Errors are plain messages; callers prefix
// the node (node.Where()).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/status.h"

struct xnn_operator;
struct pthreadpool;

namespace tare::cpu {

/// XNN_EXTRA_BYTES of this snapshot.
constexpr size_t kXnnExtraBytes = 16;

struct XnnDeleter {
  void operator()(xnn_operator* op) const;
};
using XnnOp = std::unique_ptr<xnn_operator, XnnDeleter>;

/// Initializes XNNPACK once per process (thread-safe). Error when this CPU is not supported.
Status XnnInit();

/// 2-D convolution, NHWC. Kernel layout [groups][group_out][kh][kw][group_in]; bias [groups*group_out]
/// (may be null); the output is clamped to [lo, hi].
struct XnnConvDesc {
  uint32_t pad_top = 0, pad_right = 0, pad_bottom = 0, pad_left = 0;
  uint32_t kh = 1, kw = 1, stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1, groups = 1;
  size_t group_in = 1, group_out = 1, in_stride = 1, out_stride = 1;
};
Result<XnnOp> CreateConv2d(const XnnConvDesc& d, const float* kernel, const float* bias, float lo, float hi);
Status SetupConv2d(xnn_operator* op, size_t n, size_t h, size_t w, const float* x, float* y, pthreadpool* pool);

/// y[b, :] = clamp(W x[b, :] + bias). Kernel [out][in], or [in][out] when in_out_kernel.
Result<XnnOp> CreateFullyConnected(size_t in_ch, size_t out_ch, const float* kernel, bool in_out_kernel,
                                   const float* bias, float lo, float hi);
Status SetupFullyConnected(xnn_operator* op, size_t batch, const float* x, float* y, pthreadpool* pool);

/// Pooling, NHWC. Max pooling skips padding; average pooling divides by the number of in-input taps
/// when any padding is given (count_include_pad = 0), by kh*kw otherwise.
struct XnnPoolDesc {
  uint32_t pad_top = 0, pad_right = 0, pad_bottom = 0, pad_left = 0;
  uint32_t kh = 1, kw = 1, stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  size_t channels = 1;
};
Result<XnnOp> CreateMaxPool2d(const XnnPoolDesc& d, float lo, float hi);
Result<XnnOp> CreateAvgPool2d(const XnnPoolDesc& d, float lo, float hi);
Status SetupPool2d(xnn_operator* op, bool is_max, size_t n, size_t h, size_t w, const float* x, float* y,
                   pthreadpool* pool);
/// Mean over `width` pixels of `channels` channels, NWC.
Result<XnnOp> CreateGlobalAvgPool(size_t channels, float lo, float hi);
Status SetupGlobalAvgPool(xnn_operator* op, size_t batch, size_t width, const float* x, float* y, pthreadpool* pool);

/// Elementwise unary op over `count` contiguous floats.
enum class XnnUnary { kSigmoid };
Result<XnnOp> CreateUnary(XnnUnary kind);
Status SetupUnary(xnn_operator* op, XnnUnary kind, size_t count, const float* x, float* y, pthreadpool* pool);

/// Softmax over rows of `channels` contiguous floats.
Result<XnnOp> CreateSoftmax(size_t channels);
Status SetupSoftmax(xnn_operator* op, size_t rows, const float* x, float* y, pthreadpool* pool);

/// Runs a set-up operator.
Status RunXnn(xnn_operator* op, pthreadpool* pool);

}  // namespace tare::cpu
