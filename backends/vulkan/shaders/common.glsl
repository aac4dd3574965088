// Shared by every shader: the activation epilogue selected by specialization constants 0-2
// (ACT, ACT_A, ACT_B; backends/vulkan/ops.h lists the kinds), and tare's own fp32 exp, so that
// transcendental ops do not depend on the driver's exp, whose precision Vulkan leaves at
// 3 + 2|x| ulp. No subgroup operations, no atomics: results do not depend on subgroup size.
// The helpers' variables are `precise` (SPIR-V NoContraction): without it a driver's compiler
// may reassociate or fuse their operations (Mesa's does), which undoes the two-part reductions.
layout(constant_id = 0) const uint ACT = 0;
layout(constant_id = 1) const float ACT_A = 0.0;
layout(constant_id = 2) const float ACT_B = 0.0;

const uint ACT_NONE = 0u, ACT_RELU = 1u, ACT_CLIP = 2u, ACT_LEAKY = 3u, ACT_SIGMOID = 4u, ACT_TANH = 5u,
           ACT_HARDSIGMOID = 6u, ACT_HARDSWISH = 7u, ACT_EXP = 8u, ACT_ABS = 9u, ACT_NEG = 10u, ACT_SQRT = 11u,
           ACT_SILU = 12u;

// exp(x) in fp32: n = round(x / ln 2), r = x - n ln2 in two parts (Cody-Waite; n * 0.693359375 is
// exact), exp(r) by its Taylor series to r^7 (|r| <= 0.35: truncation < 6e-9 relative), then
// scaled by 2^n in two steps so that results near the denormal range are not flushed early
// (about 1.5 eps relative; measured by tests/backends/vulkan_test.cc).
float tare_exp(float x) {
  if (isnan(x)) return x;
  if (x > 88.7228394) return uintBitsToFloat(0x7f800000u);
  if (x < -103.972084) return 0.0;
  precise float n = floor(x * 1.44269504 + 0.5);
  precise float r = x - n * 0.693359375;
  r = r - n * -2.12194440e-4;
  precise float p = 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  // 2^n as two exact powers of two built from their bits (n in [-150, 128]: each factor is
  // normal); not ldexp, which a driver may evaluate through its own exp2.
  int e = int(n);
  int e1 = e / 2;
  precise const float y = p * intBitsToFloat((e1 + 127) << 23) * intBitsToFloat((e - e1 + 127) << 23);
  return y;
}

// 2 atanh(t) for |t| <= 0.172 by its series to t^11 (truncation below 2e-11): log((1 + t) / (1 - t)).
float tare_2atanh(float t) {
  precise const float z = t * t;
  precise float p = 2.0 / 11.0;
  p = p * z + 2.0 / 9.0;
  p = p * z + 2.0 / 7.0;
  p = p * z + 2.0 / 5.0;
  p = p * z + 2.0 / 3.0;
  precise const float y = 2.0 * t + t * (z * p);
  return y;
}

// log(x) in fp32 for normal x > 0 (others: the builtin): x = m 2^e with m in [sqrt(1/2), sqrt(2)),
// log(m) = 2 atanh(t), t = (m - 1) / (m + 1), |t| <= 0.172 (tare_2atanh), plus e ln 2 in
// two parts. The builtin's precision near 1 is only absolute (2^-21), too coarse for LogSoftmax.
float tare_log(float x) {
  if (!(x >= 1.17549435e-38) || isinf(x)) return log(x);
  const int bits = floatBitsToInt(x);
  int e = ((bits >> 23) & 0xff) - 127;
  precise float m = intBitsToFloat((bits & 0x007fffff) | 0x3f800000);
  if (m > 1.41421356) {
    m = m * 0.5;
    e = e + 1;
  }
  precise const float lm = tare_2atanh((m - 1.0) / (m + 1.0));
  precise const float fe = float(e);
  precise const float y = fe * 0.693359375 + (fe * -2.12194440e-4 + lm);
  return y;
}

// log(1 + s) for s >= 0 without rounding 1 + s: 2 atanh(s / (2 + s)) (tare_2atanh) while
// 1 + s <= sqrt(2) (|t| <= 0.172), else tare_log(1 + s) (then log(1 + s) > 0.34, so the
// rounding of 1 + s costs at most 3 eps relative).
float tare_log1p(float s) {
  if (!(s <= 0.41421356)) return tare_log(1.0 + s);
  return tare_2atanh(s / (2.0 + s));
}

// a - b as a rounded difference d and its exact rounding error (TwoSum): a - b = d + err
// (err = 0 when d is infinite or NaN: x = -inf in a masked Softmax row).
float tare_sub(float a, float b, out float err) {
  precise const float d = a - b;
  precise const float bb = d - a;
  precise const float e = (a - (d - bb)) + (-b - bb);
  err = isinf(d) || isnan(d) ? 0.0 : e;  // inf - inf inside TwoSum would make it NaN
  return d;
}

// sigmoid(x) = 1 / (1 + exp(-x)), written with exp(-|x|) so nothing overflows.
float tare_sigmoid(float x) {
  if (isnan(x)) return x;
  precise float e = tare_exp(-abs(x));
  return x >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}

// tanh(x): an odd Taylor polynomial for |x| < 0.4 (terms to x^13), else E / (E + 2) with
// E = exp(2|x|) - 1, and 1 for |x| > 9 (tanh(9) rounds to 1 in fp32).
float tare_tanh(float x) {
  if (isnan(x)) return x;
  precise float a = abs(x), t;
  if (a < 0.4) {
    precise float z = a * a;
    precise float p = 21844.0 / 6081075.0;
    p = p * z - 1382.0 / 155925.0;
    p = p * z + 62.0 / 2835.0;
    p = p * z - 17.0 / 315.0;
    p = p * z + 2.0 / 15.0;
    p = p * z - 1.0 / 3.0;
    t = a + a * (z * p);
  } else if (a > 9.0) {
    t = 1.0;
  } else {
    precise float E = tare_exp(2.0 * a) - 1.0;
    t = E / (E + 2.0);
  }
  return x < 0.0 ? -t : t;
}

// The activation epilogue, in the reference kernels' operation order (kernels/ref/unary.cc), each
// operation rounded as there (`precise`: no fused multiply-add).
float act(float v) {
  // Relu and Clip keep NaN (the reference's rule: np.maximum(x, 0); Min(max, Max(x, min)), so
  // min > max gives max).
  if (ACT == ACT_RELU) return (v > 0.0 || isnan(v)) ? v : 0.0;
  if (ACT == ACT_CLIP) return v < ACT_A ? min(ACT_A, ACT_B) : (v > ACT_B ? ACT_B : v);
  if (ACT == ACT_LEAKY) return v < 0.0 ? ACT_A * v : v;
  if (ACT == ACT_SIGMOID) return tare_sigmoid(v);
  if (ACT == ACT_TANH) return tare_tanh(v);
  if (ACT == ACT_HARDSIGMOID) {
    precise float s = ACT_A * v;
    s = s + ACT_B;
    return s < 0.0 ? 0.0 : (s > 1.0 ? 1.0 : s);
  }
  if (ACT == ACT_HARDSWISH) {
    precise float s = v / 6.0;
    s = s + 0.5;
    s = s < 0.0 ? 0.0 : (s > 1.0 ? 1.0 : s);
    return v * s;
  }
  if (ACT == ACT_EXP) return tare_exp(v);
  if (ACT == ACT_ABS) return v < 0.0 ? -v : v;
  if (ACT == ACT_NEG) return -v;
  if (ACT == ACT_SQRT) return sqrt(v);
  if (ACT == ACT_SILU) {  // Mul(x, Sigmoid(x)), as exporters write SiLU / Swish
    precise float s = tare_sigmoid(v);
    s = v * s;
    return s;
  }
  return v;
}

// The invocations of a 1-D dispatch step through [0, n) by the grid's size, so any n is covered
// with at most 65535 workgroups.
#define GRID_STRIDE (gl_NumWorkGroups.x * gl_WorkGroupSize.x)
