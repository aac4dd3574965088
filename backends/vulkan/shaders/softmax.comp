// Softmax-13 / LogSoftmax-13 over one axis: the tensor as [outer][K][inner], one invocation per
// (outer, inner) row: the maximum, then the sum of exp(x - max) in increasing index, then
// y = exp(x - max) / sum (LogSoftmax: y = (x - max) - log(sum)), with tare's own exp and log
// (shaders/common.glsl) and the rounding of x - max compensated.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
layout(constant_id = 3) const uint LOG = 0;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P { uint rows; uint K; uint inner; } p;
void main() {
  for (uint row = gl_GlobalInvocationID.x; row < p.rows; row += GRID_STRIDE) {
    const uint base = (row / p.inner) * p.K * p.inner + row % p.inner;
    float mx = x[base];
    uint imax = 0u;
    for (uint k = 1u; k < p.K; ++k) {
      const float v = x[base + k * p.inner];
      if (v > mx || (isnan(v) && !isnan(mx))) {
        mx = v;
        imax = k;
      }
    }
    // A +inf maximum: x - max is NaN at the maximum (inf - inf), so the row is NaN, as the spec's
    // numpy (exp(x - max) / sum) and PyTorch have it.
    if (isinf(mx) && mx > 0.0) {
      for (uint k = 0u; k < p.K; ++k) y[base + k * p.inner] = uintBitsToFloat(0x7fc00000u);
      continue;
    }
    // exp(x - max) with the rounding of x - max corrected to first order: exp(d + err) ~
    // exp(d) (1 + err); without it the relative error grows as |x - max| eps. The sum leaves out
    // the maximum's term (exactly 1): sum = 1 + rest, and log(sum) = log1p(rest) keeps
    // LogSoftmax's relative accuracy where log(sum) is near 0.
    precise float rest = 0.0;
    for (uint k = 0u; k < p.K; ++k) {
      if (k == imax) continue;
      float err;
      const float d = tare_sub(x[base + k * p.inner], mx, err);
      precise const float e = tare_exp(d);
      precise const float c = e + e * err;
      rest += c;
    }
    precise const float sum = 1.0 + rest;
    const float ls = LOG != 0u ? tare_log1p(rest) : 0.0;
    for (uint k = 0u; k < p.K; ++k) {
      float err;
      const float d = tare_sub(x[base + k * p.inner], mx, err);
      precise float r;
      if (LOG != 0u) {
        r = (d - ls) + err;
      } else {
        precise const float e = tare_exp(d);
        r = (e + e * err) / sum;
      }
      y[base + k * p.inner] = r;
    }
  }
}
