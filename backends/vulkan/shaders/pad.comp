// Pad-19 (rank <= 6): output element c reads input element c - pads_begin; outside the input,
// MODE 0 (constant) writes `value`, MODE 1 (reflect) mirrors without repeating the edge, MODE 2
// (edge) repeats the edge.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
layout(constant_id = 3) const uint MODE = 0;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P { uint n; uint rank; float value; uint od[6]; uint id[6]; int pb[6]; } p;
void main() {
  for (uint i = gl_GlobalInvocationID.x; i < p.n; i += GRID_STRIDE) {
    uint rem = i, src = 0u, stride = 1u;
    bool inside = true;
    for (int k = int(p.rank) - 1; k >= 0; --k) {
      int c = int(rem % p.od[k]) - p.pb[k];
      rem /= p.od[k];
      const int n = int(p.id[k]);
      if (c < 0 || c >= n) {
        if (MODE == 0u) inside = false;
        else if (MODE == 2u) c = clamp(c, 0, n - 1);
        else if (n == 1) c = 0;
        else {
          const int period = 2 * (n - 1);
          c = c % period;
          if (c < 0) c += period;
          if (c >= n) c = period - c;
        }
      }
      src += uint(max(c, 0)) * stride;
      stride *= p.id[k];
    }
    y[i] = inside ? x[src] : p.value;
  }
}
