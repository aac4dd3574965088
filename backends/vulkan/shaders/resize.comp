// Resize-19 over the last two axes (rows, columns) of an N-d tensor, nearest or linear, from the
// reference's own per-axis taps (kernels/ref/resize_taps.h: computed on the host in double, so
// every index choice is the reference's): T holds 4 words per output row, then per output column:
// (index 0, index 1 or ~0u for one tap, weight 0, weight 1). Nearest gathers; linear evaluates the
// reference's passes in its order (FIRST_ROWS: the row pass first, else the column pass), each
// product and sum rounded as there: acc = w0 * v0, then acc + w1 * v1; an identity axis has no pass.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
layout(constant_id = 3) const uint LINEAR = 0;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer T { vec4 taps[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P { uint n; uint ih, iw, oh, ow; uint first_rows, rows_id, cols_id; } p;
// One pass along an axis over two values: w0 * a (+ w1 * b when there are two taps).
float Tap(vec4 t, float a, float b) {
  precise float acc = t.z * a;
  if (floatBitsToUint(t.y) != 0xffffffffu) acc = acc + t.w * b;
  return acc;
}
void main() {
  for (uint i = gl_GlobalInvocationID.x; i < p.n; i += GRID_STRIDE) {
    const uint c = i % p.ow, r = (i / p.ow) % p.oh, plane = i / (p.ow * p.oh);
    const vec4 tr = taps[r], tc = taps[p.oh + c];
    const uint r0 = floatBitsToUint(tr.x), c0 = floatBitsToUint(tc.x);
    const uint r1 = floatBitsToUint(tr.y) == 0xffffffffu ? r0 : floatBitsToUint(tr.y);
    const uint c1 = floatBitsToUint(tc.y) == 0xffffffffu ? c0 : floatBitsToUint(tc.y);
    const uint base = plane * p.ih * p.iw;
    if (LINEAR == 0u) {
      y[i] = x[base + r0 * p.iw + c0];
      continue;
    }
    const float x00 = x[base + r0 * p.iw + c0], x01 = x[base + r0 * p.iw + c1];
    const float x10 = x[base + r1 * p.iw + c0], x11 = x[base + r1 * p.iw + c1];
    float v;
    if (p.rows_id != 0u && p.cols_id != 0u) v = x00;
    else if (p.rows_id != 0u) v = Tap(tc, x00, x01);
    else if (p.cols_id != 0u) v = Tap(tr, x00, x10);
    else if (p.first_rows != 0u) v = Tap(tc, Tap(tr, x00, x10), Tap(tr, x01, x11));
    else v = Tap(tr, Tap(tc, x00, x01), Tap(tc, x10, x11));
    y[i] = v;
  }
}
