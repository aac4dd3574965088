#include "backends/cpu/xnn_adapter.h"

#include <pthreadpool.h>
#include <xnnpack.h>

#include <cstring>
#include <mutex>
#include <new>
#include <string>

namespace tare::cpu {
namespace {

static_assert(kXnnExtraBytes == XNN_EXTRA_BYTES, "XNN_EXTRA_BYTES changed");

const char* StatusName(xnn_status s) {
  switch (s) {
    case xnn_status_success: return "success";
    case xnn_status_uninitialized: return "uninitialized";
    case xnn_status_invalid_parameter: return "invalid parameter";
    case xnn_status_invalid_state: return "invalid state";
    case xnn_status_unsupported_parameter: return "unsupported parameter";
    case xnn_status_unsupported_hardware: return "unsupported hardware";
    case xnn_status_out_of_memory: return "out of memory";
  }
  return "unknown status";
}

Status Check(xnn_status s, const char* fn) {
  if (s == xnn_status_success) return Status::Ok();
  return Status::Error(std::string("XNNPACK ") + fn + " failed: " + StatusName(s));
}

Result<XnnOp> Made(xnn_status s, xnn_operator_t op, const char* fn) {
  if (s != xnn_status_success) {
    if (op) xnn_delete_operator(op);
    return Check(s, fn);
  }
  return XnnOp(op);
}

}  // namespace

void XnnDeleter::operator()(xnn_operator* op) const {
  if (op) xnn_delete_operator(op);
}

Status XnnInit() {
  static xnn_status status = xnn_status_uninitialized;
  static std::once_flag once;
  std::call_once(once, [] { status = xnn_initialize(nullptr); });
  return Check(status, "xnn_initialize");
}

Result<XnnOp> CreateConv2d(const XnnConvDesc& d, const float* kernel, const float* bias, float lo, float hi) {
  xnn_operator_t op = nullptr;
  xnn_status s = xnn_create_convolution2d_nhwc_f32(d.pad_top, d.pad_right, d.pad_bottom, d.pad_left, d.kh, d.kw,
                                                   d.stride_h, d.stride_w, d.dil_h, d.dil_w, d.groups, d.group_in,
                                                   d.group_out, d.in_stride, d.out_stride, kernel, bias, lo, hi, 0, &op);
  return Made(s, op, "create_convolution2d_nhwc_f32");
}

Status SetupConv2d(xnn_operator* op, size_t n, size_t h, size_t w, const float* x, float* y, pthreadpool* pool) {
  return Check(xnn_setup_convolution2d_nhwc_f32(op, n, h, w, x, y, pool), "setup_convolution2d_nhwc_f32");
}

Result<XnnFc> CreateFullyConnected(size_t in_ch, size_t out_ch, const float* kernel, bool in_out_kernel,
                                   const float* bias, float lo, float hi, pthreadpool* pool) {
  XnnFc fc;
  fc.in_ch_ = fc.packed_in_ = in_ch;
  const bool threaded = pool != nullptr && pthreadpool_get_threads_count(pool) > 1;
  std::vector<float> padded;
  if (threaded && in_ch % kFcKMultiple != 0) {
    fc.packed_in_ = (in_ch / kFcKMultiple + 1) * kFcKMultiple;
    try {
      padded.assign(fc.packed_in_ * out_ch, 0.0f);
    } catch (const std::bad_alloc&) {
      return Status::Error("out of memory for the padded fully connected weights");
    }
    for (size_t i = 0; i < in_ch; ++i)
      for (size_t o = 0; o < out_ch; ++o) {
        if (in_out_kernel)
          padded[i * out_ch + o] = kernel[i * out_ch + o];
        else
          padded[o * fc.packed_in_ + i] = kernel[o * in_ch + i];
      }
    kernel = padded.data();
  }
  const size_t k = fc.packed_in_;
  xnn_operator_t op = nullptr;
  xnn_status s = xnn_create_fully_connected_nc_f32(k, out_ch, k, out_ch, kernel, bias, lo, hi,
                                                   in_out_kernel ? XNN_FLAG_TRANSPOSE_WEIGHTS : 0, &op);
  Result<XnnOp> made = Made(s, op, "create_fully_connected_nc_f32");
  if (!made.ok()) return made.status();
  fc.op_ = std::move(made).value();
  return fc;
}

Status SetupFullyConnected(XnnFc& fc, size_t batch, const float* x, float* y, pthreadpool* pool) {
  fc.x_ = x;
  fc.batch_ = batch;
  if (fc.padded()) {
    try {
      fc.x_pad_.assign(batch * fc.packed_in_ + kXnnExtraBytes / sizeof(float), 0.0f);
    } catch (const std::bad_alloc&) {
      return Status::Error("out of memory for the padded fully connected input");
    }
    x = fc.x_pad_.data();
  }
  return Check(xnn_setup_fully_connected_nc_f32(fc.op_.get(), batch, x, y, pool), "setup_fully_connected_nc_f32");
}

Status RunFullyConnected(const XnnFc& fc, pthreadpool* pool) {
  if (fc.padded()) {
    // The padding columns were zeroed at setup and are never written.
    float* dst = fc.x_pad_.data();
    for (size_t b = 0; b < fc.batch_; ++b)
      std::memcpy(dst + b * fc.packed_in_, fc.x_ + b * fc.in_ch_, fc.in_ch_ * sizeof(float));
  }
  return RunXnn(fc.op_.get(), pool);
}

Result<XnnOp> CreateUnary(XnnUnary kind) {
  xnn_operator_t op = nullptr;
  xnn_status s = xnn_status_invalid_parameter;
  switch (kind) {
    case XnnUnary::kSigmoid: s = xnn_create_sigmoid_nc_f32(1, 1, 1, 0, &op); break;
  }
  return Made(s, op, "create_unary_nc_f32");
}

Status SetupUnary(xnn_operator* op, XnnUnary kind, size_t count, const float* x, float* y, pthreadpool* pool) {
  switch (kind) {
    case XnnUnary::kSigmoid: return Check(xnn_setup_sigmoid_nc_f32(op, count, x, y, pool), "setup_sigmoid_nc_f32");
  }
  return Status::Error("unknown unary op");
}

Result<XnnOp> CreateConvert(bool to_half) {
  xnn_operator_t op = nullptr;
  const xnn_status s = to_half ? xnn_create_convert_nc_f32_f16(1, 1, 1, 0, &op) : xnn_create_convert_nc_f16_f32(1, 1, 1, 0, &op);
  return Made(s, op, to_half ? "create_convert_nc_f32_f16" : "create_convert_nc_f16_f32");
}

Status SetupConvert(xnn_operator* op, bool to_half, size_t count, const void* x, void* y, pthreadpool* pool) {
  if (to_half)
    return Check(xnn_setup_convert_nc_f32_f16(op, count, static_cast<const float*>(x), y, pool), "setup_convert_nc_f32_f16");
  return Check(xnn_setup_convert_nc_f16_f32(op, count, x, static_cast<float*>(y), pool), "setup_convert_nc_f16_f32");
}

Result<XnnOp> CreateSoftmax(size_t channels) {
  xnn_operator_t op = nullptr;
  xnn_status s = xnn_create_softmax_nc_f32(channels, channels, channels, 0, &op);
  return Made(s, op, "create_softmax_nc_f32");
}

Status SetupSoftmax(xnn_operator* op, size_t rows, const float* x, float* y, pthreadpool* pool) {
  return Check(xnn_setup_softmax_nc_f32(op, rows, x, y, pool), "setup_softmax_nc_f32");
}

Status RunXnn(xnn_operator* op, pthreadpool* pool) { return Check(xnn_run_operator(op, pool), "run_operator"); }

}  // namespace tare::cpu
