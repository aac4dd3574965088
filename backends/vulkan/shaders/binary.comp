// y = act(a OP b) with NumPy broadcasting (ONNX Add/Sub/Mul/Div-14): the output's
// dims (rank <= 6) and each operand's element strides (0 on a broadcast axis).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
layout(constant_id = 3) const uint OP = 0;  // 0 Add, 1 Sub, 2 Mul, 3 Div
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P { uint n; uint rank; uint d[6]; uint sa[6]; uint sb[6]; } p;
void main() {
  for (uint i = gl_GlobalInvocationID.x; i < p.n; i += GRID_STRIDE) {
    uint rem = i, oa = 0u, ob = 0u;
    for (int k = int(p.rank) - 1; k >= 0; --k) {
      uint c = rem % p.d[k];
      rem /= p.d[k];
      oa += c * p.sa[k];
      ob += c * p.sb[k];
    }
    float u = a[oa], v = b[ob], r;
    if (OP == 0u) r = u + v;
    else if (OP == 1u) r = u - v;
    else if (OP == 2u) r = u * v;
    else r = u / v;
    y[i] = act(r);
  }
}
