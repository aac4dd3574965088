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

/// A fully connected operator: y[b, :] = clamp(W x[b, :] + bias) over `batch` rows of in_ch
/// contiguous floats (x) and out_ch contiguous floats (y). Made by CreateFullyConnected, bound by
/// SetupFullyConnected, run by RunFullyConnected; movable, not copyable.
///
/// Route around a fault of Debian's XNNPACK snapshot (docs/FINDINGS.md, F1): its fully connected
/// operator packs the weights with K rounded up to kr * sr (4 for the "s4" GEMM kernels it picks
/// on AMD Zen 1 / Hygon Dhyana CPUs without AVX-512) but steps through them with K unrounded, so
/// when a pool of two or more threads splits the output columns, every tile but the first reads
/// the wrong weights (XNNPACK fixed it upstream in May 2022). When the operator will run on such a
/// pool and in_ch is not a multiple of kFcKMultiple, the weights are packed with zero rows up to
/// the next multiple, and every run first copies x into a private buffer whose rows are
/// zero-padded to that width (the extra terms are 0 * 0, so the results are those of the unpadded
/// product). On one thread XNNPACK computes a single column tile, which it gets right.
class XnnFc {
 public:
  XnnFc() = default;
  /// The XNNPACK operator (nullptr before CreateFullyConnected).
  xnn_operator* op() const { return op_.get(); }
  /// True when runs copy x into the zero-padded buffer (see above).
  bool padded() const { return packed_in_ != in_ch_; }

 private:
  friend Result<XnnFc> CreateFullyConnected(size_t, size_t, const float*, bool, const float*, float, float,
                                            pthreadpool*);
  friend Status SetupFullyConnected(XnnFc&, size_t, const float*, float*, pthreadpool*);
  friend Status RunFullyConnected(const XnnFc&, pthreadpool*);
  XnnOp op_;
  size_t in_ch_ = 0, packed_in_ = 0, batch_ = 0;
  const float* x_ = nullptr;
  // batch rows of packed_in_ floats, then kXnnExtraBytes of slack; each run writes the first
  // in_ch_ floats of every row (the scratch of a const run).
  mutable std::vector<float> x_pad_;
};

/// Every f32 GEMM kernel configuration of the snapshot has kr = 1 and sr = 1 or 4.
constexpr size_t kFcKMultiple = 4;

/// Makes the operator and packs the weights. Kernel [out][in], or [in][out] when in_out_kernel;
/// bias [out] (may be null); `pool` is the pool it will be set up and run with (nullptr: one
/// thread), which decides the padding above. Errors: XNNPACK's status, out of memory.
Result<XnnFc> CreateFullyConnected(size_t in_ch, size_t out_ch, const float* kernel, bool in_out_kernel,
                                   const float* bias, float lo, float hi, pthreadpool* pool);
/// Binds `batch` rows of x and y (fixed until the next setup); allocates the padded copy of x.
Status SetupFullyConnected(XnnFc& fc, size_t batch, const float* x, float* y, pthreadpool* pool);
/// Computes y from the current contents of x.
Status RunFullyConnected(const XnnFc& fc, pthreadpool* pool);

/// Elementwise unary op over `count` contiguous floats.
enum class XnnUnary { kSigmoid };
Result<XnnOp> CreateUnary(XnnUnary kind);
Status SetupUnary(xnn_operator* op, XnnUnary kind, size_t count, const float* x, float* y, pthreadpool* pool);

/// float32 <-> float16 (IEEE binary16 bit patterns, round to nearest even, beyond 65504 inf) of
/// `count` contiguous elements.
Result<XnnOp> CreateConvert(bool to_half);
Status SetupConvert(xnn_operator* op, bool to_half, size_t count, const void* x, void* y, pthreadpool* pool);

/// Softmax over rows of `channels` contiguous floats.
Result<XnnOp> CreateSoftmax(size_t channels);
Status SetupSoftmax(xnn_operator* op, size_t rows, const float* x, float* y, pthreadpool* pool);

/// Runs a set-up operator.
Status RunXnn(xnn_operator* op, pthreadpool* pool);

}  // namespace tare::cpu
