// ReduceSum / ReduceMean / ReduceMax / ReduceMin-13 (rank <= 6): one invocation per output element;
// the kept axes locate its first input element (kd: kept dims, ks: their input strides), the
// reduced ones (rd, rs) are visited in row-major order from acc = 0 (Sum, Mean: then / count) or
// the first element (Max, Min; NaN propagates).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
layout(constant_id = 3) const uint OP = 0;  // 0 Sum, 1 Mean, 2 Max, 3 Min
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P { uint n; uint rank; uint count; uint kd[6]; uint ks[6]; uint rd[6]; uint rs[6]; } p;
void main() {
  for (uint i = gl_GlobalInvocationID.x; i < p.n; i += GRID_STRIDE) {
    uint rem = i, base = 0u;
    for (int k = int(p.rank) - 1; k >= 0; --k) {
      base += (rem % p.kd[k]) * p.ks[k];
      rem /= p.kd[k];
    }
    float acc = (OP >= 2u) ? x[base] : 0.0;
    for (uint j = 0u; j < p.count; ++j) {
      uint r = j, off = base;
      for (int k = int(p.rank) - 1; k >= 0; --k) {
        off += (r % p.rd[k]) * p.rs[k];
        r /= p.rd[k];
      }
      const float v = x[off];
      if (OP < 2u) acc = acc + v;
      else if (OP == 2u) { if (!isnan(acc) && (v > acc || isnan(v))) acc = v; }
      else { if (!isnan(acc) && (v < acc || isnan(v))) acc = v; }
    }
    if (OP == 1u) acc = acc / float(p.count);
    y[i] = act(acc);
  }
}
