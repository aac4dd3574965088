// MaxPool-12 / AveragePool-19 / GlobalAveragePool-1 / GlobalMaxPool-1 (NCHW, 1 to 3 spatial dims
// padded to 3), one invocation per output element, in the reference's order
// (kernels/ref/pool.cc): taps p = o * s - b + t * d inside the input, visited in row-major window
// order; max keeps the first of equal values and propagates NaN; average adds the taps from 0 and
// divides once by their count, or by the taps inside [-b, in + e) with count_include_pad.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
layout(constant_id = 3) const uint IS_MAX = 0;
layout(constant_id = 4) const uint COUNT_PAD = 0;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P {
  uint n;
  uint in0, in1, in2, out0, out1, out2;
  uint k0, k1, k2, s0, s1, s2;
  uint d0, d1, d2;
  int b0, b1, b2, e0, e1, e2;
} p;
// Taps of window o on one axis: [first, last] in tap index, and the count inside the padding.
void Range(uint o, uint s, uint d, uint k, int b, int e, uint n, out int lo, out int hi, out int padded) {
  lo = int(k); hi = -1; padded = 0;
  for (int t = 0; t < int(k); ++t) {
    const int q = int(o * s) - b + t * int(d);
    if (q >= 0 && q < int(n)) { lo = min(lo, t); hi = max(hi, t); }
    if (q >= -b && q < int(n) + e) padded++;
  }
}
void main() {
  for (uint i = gl_GlobalInvocationID.x; i < p.n; i += GRID_STRIDE) {
    uint r = i;
    const uint o2 = r % p.out2; r /= p.out2;
    const uint o1 = r % p.out1; r /= p.out1;
    const uint o0 = r % p.out0; r /= p.out0;
    const uint base = r * p.in0 * p.in1 * p.in2;
    int l0, h0, c0, l1, h1, c1, l2, h2, c2;
    Range(o0, p.s0, p.d0, p.k0, p.b0, p.e0, p.in0, l0, h0, c0);
    Range(o1, p.s1, p.d1, p.k1, p.b1, p.e1, p.in1, l1, h1, c1);
    Range(o2, p.s2, p.d2, p.k2, p.b2, p.e2, p.in2, l2, h2, c2);
    float acc = 0.0;
    bool first = true;
    int count = 0;
    for (int t0 = l0; t0 <= h0; ++t0) {
      const int q0 = int(o0 * p.s0) - p.b0 + t0 * int(p.d0);
      for (int t1 = l1; t1 <= h1; ++t1) {
        const int q1 = int(o1 * p.s1) - p.b1 + t1 * int(p.d1);
        for (int t2 = l2; t2 <= h2; ++t2) {
          const int q2 = int(o2 * p.s2) - p.b2 + t2 * int(p.d2);
          const float v = x[base + (uint(q0) * p.in1 + uint(q1)) * p.in2 + uint(q2)];
          if (IS_MAX != 0u) {
            if (first) acc = v;
            else if (!isnan(acc) && (v > acc || isnan(v))) acc = v;
            first = false;
          } else {
            acc = acc + v;
            count++;
          }
        }
      }
    }
    if (IS_MAX == 0u) acc = acc / float(COUNT_PAD != 0u ? c0 * c1 * c2 : count);
    y[i] = act(acc);
  }
}
