// y = act(x) elementwise (Relu, Clip, LeakyRelu, Sigmoid, Tanh, HardSigmoid, HardSwish, Exp, Abs,
// Neg, Sqrt; the kind is specialization constant ACT).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P { uint n; } p;
void main() {
  for (uint i = gl_GlobalInvocationID.x; i < p.n; i += GRID_STRIDE) y[i] = act(x[i]);
}
