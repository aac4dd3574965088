// BatchNormalization-15 in inference mode, per channel c of an N C ... tensor, in the reference's
// order: y = ((x - mean) / sqrt(var + eps)) * scale + B, with (mean, den, scale, B) per channel in W.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer W { vec4 w[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P { uint n; uint C; uint inner; } p;
void main() {
  for (uint i = gl_GlobalInvocationID.x; i < p.n; i += GRID_STRIDE) {
    vec4 k = w[(i / p.inner) % p.C];
    float v = (x[i] - k.x) / k.y;
    v = v * k.z;
    y[i] = act(v + k.w);
  }
}
