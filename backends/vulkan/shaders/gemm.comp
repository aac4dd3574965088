// Batched GEMM tiled in shared memory: Y[b][m][n] = act(alpha * sum_k A[b](m, k) * B[b](k, n)
// + beta * C(m, n)), with A(m, k) at a[(b % agroups) * sab + m * sam + k * sak], B(k, n) at
// b[b * sbb + k * sbk + n * sbn] (strides express transA / transB, a shared B with sbb = 0, and
// the 1x1 convolution as W [M x C] times X[b] [C x HW]) and the bias C(m, n) at
// c[(b % agroups) * scb + m * scm + n * scn] (0 strides broadcast it). Y is dense [batch][M][N].
// IM2COL (a 2-D convolution as an implicit GEMM): B(k, n) is the input pixel under tap
// k = (c, t0, t1) of output pixel n = (o0, o1), 0 in the padding; batch b = image * groups + group,
// so A and the bias step by group (agroups = groups) and B by the group's input channels.
// A 16 x 16 workgroup computes a 64 x 64 tile of Y, 4 x 4 outputs per invocation, stepping K by
// 16 through 2 x 4 KiB of shared memory; loads outside the matrices read 0 (masked, so every
// invocation reaches each barrier). Each output accumulates its K products in increasing k (for a
// convolution: channel, kernel row, kernel column, the reference's order).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 16, local_size_y = 16) in;
#include "common.glsl"
layout(constant_id = 3) const uint HAS_BIAS = 0;
layout(constant_id = 4) const uint IM2COL = 0;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float bm[]; };
layout(std430, binding = 2) readonly buffer Cb { float cb[]; };
layout(std430, binding = 3) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P {
  uint M, N, K;
  uint sam, sak, sab;
  uint sbk, sbn, sbb;
  uint scm, scn;
  float alpha, beta;
  uint agroups, scb;
  uint in_h, in_w, out_w, kh, kw, s0, s1, d0, d1;
  int pb0, pb1;
} p;
// B(k, n) of the implicit GEMM: the input pixel under tap k of output pixel n, or 0.
float Im2col(uint bbase, uint k, uint n) {
  const uint taps = p.kh * p.kw;
  const uint c = k / taps, t = k % taps;
  const int i0 = int((n / p.out_w) * p.s0 + (t / p.kw) * p.d0) - p.pb0;
  const int i1 = int((n % p.out_w) * p.s1 + (t % p.kw) * p.d1) - p.pb1;
  if (i0 < 0 || i0 >= int(p.in_h) || i1 < 0 || i1 >= int(p.in_w)) return 0.0;
  return bm[bbase + (c * p.in_h + uint(i0)) * p.in_w + uint(i1)];
}
shared float As[16][64];
shared float Bs[16][64];
void main() {
  const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  const uint tid = ty * 16u + tx;
  const uint batch = gl_WorkGroupID.z;
  const uint m0 = gl_WorkGroupID.y * 64u, n0 = gl_WorkGroupID.x * 64u;
  const uint grp = batch % p.agroups;
  const uint abase = grp * p.sab, bbase = batch * p.sbb, cbase = grp * p.scb;
  float acc[4][4];
  for (uint i = 0u; i < 4u; ++i)
    for (uint j = 0u; j < 4u; ++j) acc[i][j] = 0.0;
  for (uint k0 = 0u; k0 < p.K; k0 += 16u) {
    // 256 invocations load 16 x 64 elements of each operand, 4 each.
    for (uint l = 0u; l < 4u; ++l) {
      const uint e = tid + l * 256u;  // 0..1023
      const uint kk = e / 64u, mm = e % 64u;
      const uint gm = m0 + mm, gk = k0 + kk, gn = n0 + mm;
      As[kk][mm] = (gm < p.M && gk < p.K) ? a[abase + gm * p.sam + gk * p.sak] : 0.0;
      if (IM2COL != 0u) Bs[kk][mm] = (gn < p.N && gk < p.K) ? Im2col(bbase, gk, gn) : 0.0;
      else Bs[kk][mm] = (gn < p.N && gk < p.K) ? bm[bbase + gk * p.sbk + gn * p.sbn] : 0.0;
    }
    barrier();
    for (uint kk = 0u; kk < 16u; ++kk) {
      float av[4], bv[4];
      for (uint i = 0u; i < 4u; ++i) av[i] = As[kk][ty * 4u + i];
      for (uint j = 0u; j < 4u; ++j) bv[j] = Bs[kk][tx * 4u + j];
      for (uint i = 0u; i < 4u; ++i)
        for (uint j = 0u; j < 4u; ++j) acc[i][j] += av[i] * bv[j];
    }
    barrier();
  }
  for (uint i = 0u; i < 4u; ++i) {
    const uint m = m0 + ty * 4u + i;
    if (m >= p.M) continue;
    for (uint j = 0u; j < 4u; ++j) {
      const uint n = n0 + tx * 4u + j;
      if (n >= p.N) continue;
      float v = p.alpha == 1.0 ? acc[i][j] : p.alpha * acc[i][j];
      if (HAS_BIAS != 0u) {
        const float c = cb[cbase + m * p.scm + n * p.scn];
        v += p.beta == 1.0 ? c : p.beta * c;
      }
      y[(batch * p.M + m) * p.N + n] = act(v);
    }
  }
}
