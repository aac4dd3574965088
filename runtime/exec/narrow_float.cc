#include "runtime/exec/narrow_float.h"

#include <cmath>
#include <cstring>
#include <memory>

namespace tare {

uint16_t RoundToNarrow(double x, DType narrow) {
  const bool half = narrow == DType::kFloat16;
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return static_cast<uint16_t>(sign | (half ? 0x7e00 : 0x7fc0));
  const uint16_t inf = static_cast<uint16_t>(sign | (half ? 0x7c00 : 0x7f80));
  const double a = std::fabs(x);
  if (std::isinf(a)) return inf;
  // The quantum of the narrow type at a's binade (the subnormal quantum below the normal range):
  // a / q is exact (a power-of-two scaling) and nearbyint rounds it to even once.
  const int mant_bits = half ? 10 : 7, emin = half ? -14 : -126;
  int e = 0;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1): the leading bit is 2^(e-1)
  const double q = std::ldexp(1.0, std::max(e - 1, emin) - mant_bits);
  const double r = std::nearbyint(a / q) * q;
  const double max_finite = half ? 65504.0 : 3.3895313892515355e38;
  if (r > max_finite) return inf;
  // r is exactly representable in the narrow type, hence in float: the encodings below are exact.
  const float rf = static_cast<float>(r);
  if (half) return static_cast<uint16_t>(sign | FloatToHalf(rf));
  uint32_t bits;
  std::memcpy(&bits, &rf, 4);
  return static_cast<uint16_t>(sign | (bits >> 16));
}

namespace {

bool AnyNarrow(const std::vector<ValueInfo>& in) {
  for (const ValueInfo& v : in)
    if (v.present && v.kind == ValueKind::kTensor && IsNarrowFloat(v.dtype)) return true;
  return false;
}

DType FirstNarrow(const std::vector<ValueInfo>& in) {
  for (const ValueInfo& v : in)
    if (v.present && v.kind == ValueKind::kTensor && IsNarrowFloat(v.dtype)) return v.dtype;
  return DType::kUndefined;
}

// Outputs that stay float32 when the op is computed in float: LayerNormalization's Mean and
// InvStdDev are of the stash type (float32 with stash_type = 1, its default; ONNX
// LayerNormalization-17), not of X's type.
bool KeepsFloat32(const Node& node, size_t out) {
  if (node.op == "LayerNormalization" && out > 0) {
    auto it = node.attrs.find("stash_type");
    return it == node.attrs.end() || it->second.i == 1;
  }
  return false;
}

}  // namespace

Result<std::vector<ValueInfo>> InferInFloat(const OpSpec& spec, const Node& node, const std::vector<ValueInfo>& in,
                                            const Status& native_error) {
  if (!AnyNarrow(in)) return native_error;
  const DType narrow = FirstNarrow(in);
  std::vector<ValueInfo> wide = in;
  std::vector<Tensor> widened(in.size());
  for (size_t i = 0; i < wide.size(); ++i) {
    if (!wide[i].present || wide[i].kind != ValueKind::kTensor || !IsNarrowFloat(wide[i].dtype)) continue;
    wide[i].dtype = DType::kFloat32;
    if (wide[i].value) {
      TARE_ASSIGN_OR_RETURN(widened[i], ConvertTensor(*wide[i].value, DType::kFloat32));
      wide[i].value = &widened[i];
    }
  }
  InferContext ctx{node, std::move(wide), std::vector<ValueInfo>(node.outputs.size())};
  TARE_RETURN_IF_ERROR(spec.infer(ctx));
  for (size_t i = 0; i < ctx.out.size(); ++i)
    if (ctx.out[i].present && ctx.out[i].dtype == DType::kFloat32 && !KeepsFloat32(node, i)) ctx.out[i].dtype = narrow;
  return ctx.out;
}

KernelFn ComputeNarrowInFloat(const OpSpec& spec, const Node& node, KernelFn inner, DType compute) {
  auto held = std::make_shared<Node>(node);
  const OpSpec* sp = &spec;
  return [held, sp, inner = std::move(inner), compute](const std::vector<const Tensor*>& in,
                                                       const std::vector<Tensor*>& out) -> Status {
    bool narrow_in = false;
    for (const Tensor* t : in) narrow_in = narrow_in || (t && t->kind == ValueKind::kTensor && IsNarrowFloat(t->dtype));
    if (!narrow_in) return inner(in, out);
    std::vector<ValueInfo> infos(in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      if (!in[i]) continue;
      infos[i].present = true;
      infos[i].dtype = in[i]->dtype;
      infos[i].shape = in[i]->shape;
      infos[i].value = in[i];
      infos[i].kind = in[i]->kind;
    }
    {
      // Computed natively when the op's inference takes the narrow type (so does its kernel).
      InferContext ctx{*held, infos, std::vector<ValueInfo>(held->outputs.size())};
      if (sp->infer(ctx).ok()) return inner(in, out);
    }
    std::vector<Tensor> wide_in(in.size());
    std::vector<const Tensor*> in_ptrs = in;
    for (size_t i = 0; i < in.size(); ++i) {
      if (!in[i] || in[i]->kind != ValueKind::kTensor || !IsNarrowFloat(in[i]->dtype)) continue;
      TARE_ASSIGN_OR_RETURN(wide_in[i], ConvertTensor(*in[i], compute));
      in_ptrs[i] = &wide_in[i];
    }
    std::vector<Tensor> wide_out(out.size());
    std::vector<Tensor*> out_ptrs = out;
    for (size_t i = 0; i < out.size(); ++i) {
      if (!out[i] || !IsNarrowFloat(out[i]->dtype)) continue;
      const bool preallocated = out[i]->data != nullptr || out[i]->numel() == 0;
      if (preallocated) {
        TARE_ASSIGN_OR_RETURN(wide_out[i], Tensor::Alloc(compute, out[i]->shape));
      } else {  // the kernel allocates this output itself
        wide_out[i].kind = out[i]->kind;
        wide_out[i].dtype = compute;
      }
      out_ptrs[i] = &wide_out[i];
    }
    TARE_RETURN_IF_ERROR(inner(in_ptrs, out_ptrs));
    for (size_t i = 0; i < out.size(); ++i) {
      if (out_ptrs[i] == out[i] || !out_ptrs[i]) continue;
      const Tensor& w = wide_out[i];
      Tensor& o = *out[i];
      if (o.shape != w.shape || (!o.data && w.numel() != 0)) {
        const DType narrow = o.dtype;
        TARE_ASSIGN_OR_RETURN(o, Tensor::Alloc(narrow, w.shape));
      }
      uint16_t* dst = o.as<uint16_t>();
      const int64_t n = w.numel();
      if (compute == DType::kFloat32 && o.dtype == DType::kFloat16) {
        for (int64_t k = 0; k < n; ++k) dst[k] = FloatToHalf(w.as<float>()[k]);
      } else if (compute == DType::kFloat32) {
        for (int64_t k = 0; k < n; ++k) dst[k] = RoundToNarrow(w.as<float>()[k], o.dtype);
      } else {
        for (int64_t k = 0; k < n; ++k) dst[k] = RoundToNarrow(w.as<double>()[k], o.dtype);
      }
    }
    return Status::Ok();
  };
}

}  // namespace tare
