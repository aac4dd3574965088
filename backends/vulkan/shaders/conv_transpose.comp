// ConvTranspose-11 (NCHW, 1 to 3 spatial dims padded to 3), gathered: one invocation per output
// element (n, m, o...) sums x[n, c, i...] * w[c, m', t...] over the group's input channels c and
// the taps t with o = i * s + t * d - pb for an input position i, in (c, t) lexicographic order
// (the reference's order), then adds the bias. W is [C][M/group][k0][k1][k2] as in ONNX.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
layout(constant_id = 3) const uint HAS_BIAS = 0;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer W { float w[]; };
layout(std430, binding = 2) readonly buffer Bias { float bias[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P {
  uint n, Cg, Mg, M;
  uint in0, in1, in2, out0, out1, out2;
  uint k0, k1, k2, s0, s1, s2;
  uint d0, d1, d2;
  int pb0, pb1, pb2;
} p;
// The input index i with i * s + t * d - pb == o, or -1.
int Src(uint o, uint t, uint s, uint d, int pb, uint n) {
  const int q = int(o) + pb - int(t * d);
  if (q < 0 || q % int(s) != 0) return -1;
  const int i = q / int(s);
  return i < int(n) ? i : -1;
}
void main() {
  for (uint idx = gl_GlobalInvocationID.x; idx < p.n; idx += GRID_STRIDE) {
    uint r = idx;
    const uint o2 = r % p.out2; r /= p.out2;
    const uint o1 = r % p.out1; r /= p.out1;
    const uint o0 = r % p.out0; r /= p.out0;
    const uint m = r % p.M;
    const uint b = r / p.M;
    const uint g = m / p.Mg, mg = m % p.Mg;
    const uint plane = p.in0 * p.in1 * p.in2;
    const uint ksz = p.k0 * p.k1 * p.k2;
    const uint C = p.Cg * (p.M / p.Mg);
    float acc = 0.0;
    for (uint c = 0u; c < p.Cg; ++c) {
      const uint ci = g * p.Cg + c;
      const uint xc = (b * C + ci) * plane;
      const uint wc = (ci * p.Mg + mg) * ksz;
      for (uint t0 = 0u; t0 < p.k0; ++t0) {
        const int i0 = Src(o0, t0, p.s0, p.d0, p.pb0, p.in0);
        if (i0 < 0) continue;
        for (uint t1 = 0u; t1 < p.k1; ++t1) {
          const int i1 = Src(o1, t1, p.s1, p.d1, p.pb1, p.in1);
          if (i1 < 0) continue;
          for (uint t2 = 0u; t2 < p.k2; ++t2) {
            const int i2 = Src(o2, t2, p.s2, p.d2, p.pb2, p.in2);
            if (i2 < 0) continue;
            acc += x[xc + (uint(i0) * p.in1 + uint(i1)) * p.in2 + uint(i2)] * w[wc + (t0 * p.k1 + t1) * p.k2 + t2];
          }
        }
      }
    }
    if (HAS_BIAS != 0u) acc += bias[m];
    y[idx] = act(acc);
  }
}
