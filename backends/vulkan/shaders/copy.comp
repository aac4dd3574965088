// Strided copy of an N-d region (rank <= 6): element c (row-major over d) goes from
// src[src_off + sum c_k * ss_k] to dst[dst_off + sum c_k * ds_k]. Transpose (permuted source
// strides), Concat (each input into its part of the output) and Slice-like moves use it.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P { uint n; uint rank; uint src_off; uint dst_off; uint d[6]; uint ss[6]; uint ds[6]; } p;
void main() {
  for (uint i = gl_GlobalInvocationID.x; i < p.n; i += GRID_STRIDE) {
    uint rem = i, so = p.src_off, dof = p.dst_off;
    for (int k = int(p.rank) - 1; k >= 0; --k) {
      const uint c = rem % p.d[k];
      rem /= p.d[k];
      so += c * p.ss[k];
      dof += c * p.ds[k];
    }
    y[dof] = act(x[so]);
  }
}
