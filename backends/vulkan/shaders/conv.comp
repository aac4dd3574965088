// Conv-11, direct (NCHW, 1 to 3 spatial dims padded to 3): one invocation per output element
// (n, m, o0, o1, o2) sums x * w over the group's input channels and the kernel taps inside the
// input, in (channel, tap) lexicographic order, then adds the bias and applies the epilogue.
// W is OIHW as in ONNX: [M][C/group][k0][k1][k2].
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
void main() {
  for (uint i = gl_GlobalInvocationID.x; i < p.n; i += GRID_STRIDE) {
    uint r = i;
    const uint o2 = r % p.out2; r /= p.out2;
    const uint o1 = r % p.out1; r /= p.out1;
    const uint o0 = r % p.out0; r /= p.out0;
    const uint m = r % p.M;
    const uint b = r / p.M;
    const uint g = m / p.Mg;
    const uint plane = p.in0 * p.in1 * p.in2;
    const uint ksz = p.k0 * p.k1 * p.k2;
    float acc = 0.0;
    for (uint c = 0u; c < p.Cg; ++c) {
      const uint xc = (b * (p.Cg * (p.M / p.Mg)) + g * p.Cg + c) * plane;
      const uint wc = (m * p.Cg + c) * ksz;
      for (uint t0 = 0u; t0 < p.k0; ++t0) {
        const int i0 = int(o0 * p.s0 + t0 * p.d0) - p.pb0;
        if (i0 < 0 || i0 >= int(p.in0)) continue;
        for (uint t1 = 0u; t1 < p.k1; ++t1) {
          const int i1 = int(o1 * p.s1 + t1 * p.d1) - p.pb1;
          if (i1 < 0 || i1 >= int(p.in1)) continue;
          const uint xrow = xc + (uint(i0) * p.in1 + uint(i1)) * p.in2;
          const uint wrow = wc + (t0 * p.k1 + t1) * p.k2;
          for (uint t2 = 0u; t2 < p.k2; ++t2) {
            const int i2 = int(o2 * p.s2 + t2 * p.d2) - p.pb2;
            if (i2 < 0 || i2 >= int(p.in2)) continue;
            acc += x[xrow + uint(i2)] * w[wrow + t2];
          }
        }
      }
    }
    if (HAS_BIAS != 0u) acc += bias[m];
    y[i] = act(acc);
  }
}
