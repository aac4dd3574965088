"""The cases make_cases.py writes: one call of case() each. numpy references (ref=) are written from
each operator's ONNX spec text (the changelog entry named in the comment), not from tare."""
import numpy as np
from onnx import TensorProto, helper

from make_cases import BF16, RNG, case

F16, F32 = TensorProto.FLOAT16, TensorProto.FLOAT


def r(*shape, scale=1.0, dtype=np.float32):
    return (RNG.standard_normal(shape) * scale).astype(dtype)


def i64(*v):
    return np.array(v, dtype=np.int64)


# ---- float16 / bfloat16 compute (issue 20 item 2): each op computed in float, rounded once -------
def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


x16 = r(2, 3, 5, dtype=np.float16)
case("test_fp16_softmax", "Softmax", [("x", x16)], opset=13, attrs=dict(axis=-1),
     ref=lambda x: softmax(x.astype(np.float32)).astype(np.float16))
case("test_fp16_reduce_sum", "ReduceSum", [("x", x16)], opset=13, inits=[("axes", i64(1))], attrs=dict(keepdims=0),
     ref=lambda x: x.astype(np.float32).sum(axis=1).astype(np.float16))
# The sum passes 65504 on the way (60000 + 60000) and ends at 60000: a float accumulator stays finite.
big = np.array([[60000, 60000, -60000]], dtype=np.float16)
case("test_fp16_reduce_sum_no_overflow", "ReduceSum", [("x", big)], opset=13, inits=[("axes", i64(1))],
     ref=lambda x: x.astype(np.float32).sum(axis=1, keepdims=True).astype(np.float16))
# An output above 65504 is inf (65520 and up round to inf).
case("test_fp16_add_overflow", "Add", [("a", np.array([60000, 65504, -60000, 1], dtype=np.float16)),
                                       ("b", np.array([6000, 16, -6000, 2], dtype=np.float16))], opset=14,
     ref=lambda a, b: (a.astype(np.float32) + b.astype(np.float32)).astype(np.float16))
case("test_fp16_relu", "Relu", [("x", x16)], opset=14, ref=lambda x: np.maximum(x, 0))
case("test_fp16_sigmoid", "Sigmoid", [("x", x16)], opset=13,
     ref=lambda x: (1 / (1 + np.exp(-x.astype(np.float64)))).astype(np.float16))
case("test_fp16_tanh", "Tanh", [("x", x16)], opset=13, ref=lambda x: np.tanh(x.astype(np.float64)).astype(np.float16))
case("test_fp16_conv", "Conv", [("x", r(1, 3, 6, 6, dtype=np.float16))], opset=11,
     inits=[("w", r(4, 3, 3, 3, scale=0.3, dtype=np.float16)), ("b", r(4, dtype=np.float16))], attrs=dict(pads=[1, 1, 1, 1]))
case("test_fp16_matmul", "MatMul", [("a", r(2, 3, 16, dtype=np.float16)), ("b", r(16, 4, dtype=np.float16))], opset=13,
     ref=lambda a, b: (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16))
case("test_fp16_gemm", "Gemm", [("a", r(3, 8, dtype=np.float16))], opset=13,
     inits=[("b", r(5, 8, dtype=np.float16)), ("c", r(5, dtype=np.float16))], attrs=dict(transB=1))
case("test_fp16_layer_norm", "LayerNormalization", [("x", r(2, 4, 8, dtype=np.float16))], opset=17,
     inits=[("scale", r(8, dtype=np.float16)), ("bias", r(8, dtype=np.float16))], attrs=dict(axis=-1))
case("test_fp16_max_pool", "MaxPool", [("x", r(1, 2, 5, 5, dtype=np.float16))], opset=12,
     attrs=dict(kernel_shape=[2, 2], strides=[2, 2]))
case("test_fp16_avg_pool", "AveragePool", [("x", r(1, 2, 5, 5, dtype=np.float16))], opset=11,
     attrs=dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1]))
case("test_fp16_global_avg_pool", "GlobalAveragePool", [("x", r(1, 3, 4, 4, dtype=np.float16))], opset=13)
case("test_fp16_batchnorm", "BatchNormalization", [("x", r(1, 3, 4, 4, dtype=np.float16))], opset=15,
     inits=[("s", r(3, dtype=np.float16)), ("b", r(3, dtype=np.float16)), ("m", r(3, dtype=np.float16)),
            ("v", np.abs(r(3, dtype=np.float16)) + np.float16(0.5))])
case("test_fp16_erf", "Erf", [("x", x16)], opset=13)
case("test_fp16_sqrt", "Sqrt", [("x", np.abs(x16))], opset=13, ref=lambda x: np.sqrt(x.astype(np.float64)).astype(np.float16))
case("test_fp16_resize_linear", "Resize", [("x", r(1, 1, 3, 3, dtype=np.float16))], opset=13,
     inits=[("roi", np.zeros(0, np.float32)), ("scales", np.array([1, 1, 2, 2], np.float32))], attrs=dict(mode="linear"))
case("test_fp16_reduce_mean", "ReduceMean", [("x", x16)], opset=13, attrs=dict(axes=[2]),
     ref=lambda x: x.astype(np.float32).mean(axis=2, keepdims=True).astype(np.float16))
case("test_fp16_reduce_max", "ReduceMax", [("x", x16)], opset=13, attrs=dict(axes=[0], keepdims=0),
     ref=lambda x: x.max(axis=0))
case("test_fp16_cast_chain", "Cast", [("x", r(2, 3))], opset=13, out_types=[F32],
     nodes=[helper.make_node("Cast", ["x"], ["h"], to=F16), helper.make_node("Softmax", ["h"], ["s"]),
            helper.make_node("Cast", ["s"], ["y"], to=F32)],
     ref=lambda x: softmax(x.astype(np.float16).astype(np.float32)).astype(np.float16).astype(np.float32))
xb = BF16(r(2, 3, 5))
case("test_bf16_softmax", "Softmax", [("x", xb)], opset=13,
     ref=lambda x: BF16(softmax(x)).values)
case("test_bf16_matmul", "MatMul", [("a", BF16(r(2, 8))), ("b", BF16(r(8, 3)))], opset=13,
     ref=lambda a, b: BF16(a @ b).values)
case("test_bf16_reduce_mean", "ReduceMean", [("x", xb)], opset=13, attrs=dict(axes=[1]),
     ref=lambda x: BF16(x.mean(axis=1, keepdims=True)).values)


# ---- opsets 18 to 23 (issue 20 item 1) ------------------------------------------------------------
def erf(x):
    import math
    return np.vectorize(math.erf)(x)


x = r(2, 3, 4)
# Reduce*-18: axes as input 1 (ONNX Reduce*-18), noop_with_empty_axes.
for op, fn in [("ReduceMean", np.mean), ("ReduceMax", np.max), ("ReduceMin", np.min), ("ReduceProd", np.prod),
               ("ReduceSumSquare", lambda a, axis, keepdims: np.sum(a * a, axis=axis, keepdims=keepdims)),
               ("ReduceL1", lambda a, axis, keepdims: np.sum(np.abs(a), axis=axis, keepdims=keepdims)),
               ("ReduceL2", lambda a, axis, keepdims: np.sqrt(np.sum(a * a, axis=axis, keepdims=keepdims))),
               ("ReduceLogSumExp", lambda a, axis, keepdims: np.log(np.sum(np.exp(a), axis=axis, keepdims=keepdims)))]:
    case("test_opset18_%s_axes_input" % op.lower(), op, [("x", x)], opset=18, inits=[("axes", i64(0, 2))],
         ref=lambda a, fn=fn: fn(a, axis=(0, 2), keepdims=True))
case("test_opset18_reducelogsum_axes_input_keepdims0", "ReduceLogSum", [("x", np.abs(x) + 0.1)], opset=18,
     inits=[("axes", i64(-1))], attrs=dict(keepdims=0), ref=lambda a: np.log(np.sum(a, axis=-1)))
case("test_opset18_reducemean_noop_empty_axes", "ReduceMean", [("x", x)], opset=18,
     inits=[("axes", np.zeros(0, np.int64))], attrs=dict(noop_with_empty_axes=1), ref=lambda a: a)
case("test_opset18_reducemax_all_axes", "ReduceMax", [("x", x)], opset=18, attrs=dict(keepdims=0),
     ref=lambda a: np.max(a))
case("test_opset20_reducemax", "ReduceMax", [("x", x)], opset=20, inits=[("axes", i64(1))],
     ref=lambda a: np.max(a, axis=1, keepdims=True))
# Split-18 num_outputs: chunks of ceil(7 / 3) = 3, the last smaller.
case("test_opset18_split_num_outputs_uneven", "Split", [("x", r(7, 2))], opset=18, outputs=3,
     attrs=dict(axis=0, num_outputs=3), ref=lambda a: (a[0:3], a[3:6], a[6:7]))
case("test_opset18_split_num_outputs_even", "Split", [("x", r(2, 6))], opset=18, outputs=2,
     attrs=dict(axis=1, num_outputs=2), ref=lambda a: (a[:, :3], a[:, 3:]))
case("test_opset18_split_input", "Split", [("x", r(5, 2))], opset=18, outputs=2, inits=[("split", i64(2, 3))],
     ref=lambda a: (a[:2], a[2:]))
# Pad-18 axes input; Pad-19 wrap.
p = r(3, 4)
case("test_opset18_pad_axes", "Pad", [("x", p)], opset=18,
     inits=[("pads", i64(1, 2)), ("value", np.array(5, np.float32)), ("axes", i64(1))],
     ref=lambda a: np.pad(a, ((0, 0), (1, 2)), constant_values=5))
case("test_opset19_pad_wrap", "Pad", [("x", p)], opset=19, inits=[("pads", i64(1, 2, 2, 1))], attrs=dict(mode="wrap"),
     ref=lambda a: np.pad(a, ((1, 2), (2, 1)), mode="wrap"))
case("test_opset19_pad_reflect", "Pad", [("x", p)], opset=19, inits=[("pads", i64(0, 2, 0, 1))], attrs=dict(mode="reflect"),
     ref=lambda a: np.pad(a, ((0, 0), (2, 1)), mode="reflect"))
case("test_opset21_pad_edge_axes", "Pad", [("x", p)], opset=21, inits=[("pads", i64(2, 1)), ("axes", i64(0))],
     nodes=[helper.make_node("Pad", ["x", "pads", "", "axes"], ["y"], mode="edge")],
     ref=lambda a: np.pad(a, ((2, 1), (0, 0)), mode="edge"))
# Gelu-20, Mish-18.
g = r(3, 7, scale=2.0)
case("test_opset20_gelu", "Gelu", [("x", g)], opset=20, ref=lambda a: 0.5 * a * (1 + erf(a / np.sqrt(2))))
case("test_opset20_gelu_tanh", "Gelu", [("x", g)], opset=20, attrs=dict(approximate="tanh"),
     ref=lambda a: 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a ** 3))))
case("test_opset20_gelu_fp16", "Gelu", [("x", g.astype(np.float16))], opset=20,
     ref=lambda a: (0.5 * a.astype(np.float64) * (1 + erf(a.astype(np.float64) / np.sqrt(2)))).astype(np.float16))
case("test_opset18_mish", "Mish", [("x", g)], opset=18, ref=lambda a: a * np.tanh(np.log1p(np.exp(a))))
case("test_opset22_mish", "Mish", [("x", g)], opset=22, ref=lambda a: a * np.tanh(np.log1p(np.exp(a))))
# Bitwise*-18.
ia = np.array([[3, -8, 127], [0, 5, -1]], np.int32)
ib = np.array([6, 1, -128], np.int32)
case("test_opset18_bitwise_and", "BitwiseAnd", [("a", ia), ("b", ib)], opset=18, ref=lambda a, b: a & b)
case("test_opset18_bitwise_or", "BitwiseOr", [("a", ia), ("b", ib)], opset=18, ref=lambda a, b: a | b)
case("test_opset18_bitwise_xor", "BitwiseXor", [("a", ia), ("b", ib)], opset=18, ref=lambda a, b: a ^ b)
case("test_opset18_bitwise_not", "BitwiseNot", [("a", ia)], opset=18, ref=lambda a: ~a)
ua = np.array([0, 1, 200, 255], np.uint8)
case("test_opset18_bitwise_not_uint8", "BitwiseNot", [("a", ua)], opset=18, ref=lambda a: ~a)
case("test_opset18_bitwise_and_int64", "BitwiseAnd", [("a", np.array([2**40 + 7, -3], np.int64)),
                                                      ("b", np.array([2**40 + 1, 12], np.int64))], opset=18,
     ref=lambda a, b: a & b)


# GroupNormalization-18 (scale, bias per group) and -21 (per channel).
def group_norm(xx, scale, bias, groups, eps=1e-5, per_group=False):
    n, c = xx.shape[:2]
    g = xx.reshape(n, groups, -1).astype(np.float64)
    y = ((g - g.mean(axis=2, keepdims=True)) / np.sqrt(g.var(axis=2, keepdims=True) + eps)).reshape(xx.shape)
    shape = (1, c) + (1,) * (xx.ndim - 2)
    if per_group:
        scale = np.repeat(scale, c // groups)
        bias = np.repeat(bias, c // groups)
    return (y * scale.reshape(shape) + bias.reshape(shape)).astype(np.float32)


gx = r(2, 6, 3, 3)
gs, gb = r(3), r(3)
cs, cb = r(6), r(6)
case("test_opset18_group_norm", "GroupNormalization", [("x", gx), ("scale", gs), ("bias", gb)], opset=18,
     attrs=dict(num_groups=3, epsilon=1e-3), ref=lambda a, s, b: group_norm(a, s, b, 3, 1e-3, per_group=True))
case("test_opset21_group_norm", "GroupNormalization", [("x", gx), ("scale", cs), ("bias", cb)], opset=21,
     attrs=dict(num_groups=2), ref=lambda a, s, b: group_norm(a, s, b, 2))
case("test_opset21_group_norm_fp16", "GroupNormalization",
     [("x", gx.astype(np.float16)), ("scale", cs.astype(np.float16)), ("bias", cb.astype(np.float16))], opset=21,
     attrs=dict(num_groups=3))


# RMSNormalization-23.
def rms_norm(xx, scale, axis=-1, eps=1e-5):
    axes = tuple(range(axis % xx.ndim, xx.ndim))
    ms = np.mean(xx.astype(np.float64) ** 2, axis=axes, keepdims=True)
    return (xx / np.sqrt(ms + eps) * scale).astype(np.float32)


rx = r(2, 3, 8)
case("test_opset23_rms_norm", "RMSNormalization", [("x", rx), ("scale", r(8))], opset=23,
     ref=lambda a, s: rms_norm(a, s))
case("test_opset23_rms_norm_axis1", "RMSNormalization", [("x", rx), ("scale", r(3, 8))], opset=23,
     attrs=dict(axis=1, epsilon=1e-3), ref=lambda a, s: rms_norm(a, s, 1, 1e-3))
case("test_opset23_layer_norm", "LayerNormalization", [("x", rx), ("scale", r(8)), ("b", r(8))], opset=23)
# AveragePool-19 dilations.
case("test_opset19_average_pool_dilations", "AveragePool", [("x", r(1, 1, 6, 6))], opset=19,
     attrs=dict(kernel_shape=[2, 2], dilations=[2, 2]))
# ScatterElements-18 / ScatterND-18 reductions max and min.
sd = r(3, 3)
si = np.array([[1, 0, 2], [0, 2, 1]], np.int64)
su = r(2, 3)
for red in ("max", "min"):
    case("test_opset18_scatter_elements_%s" % red, "ScatterElements", [("data", sd), ("indices", si), ("updates", su)],
         opset=18, attrs=dict(axis=0, reduction=red))
    case("test_opset18_scatter_nd_%s" % red, "ScatterND",
         [("data", sd), ("indices", np.array([[0], [2], [0]], np.int64)), ("updates", r(3, 3))], opset=18,
         attrs=dict(reduction=red))
# DFT-20: the axis as input 2.
# (a complex signal: a real one's DFT has imaginary parts that are exactly 0, where float32 noise
# exceeds the suite's atol)
case("test_opset20_dft_axis_input", "DFT", [("x", r(2, 8, 2))], opset=20,
     inits=[("len", np.array(8, np.int64)), ("axis", np.array(1, np.int64))],
     ref=lambda a: (lambda f: np.stack([f.real, f.imag], -1).astype(np.float32))(np.fft.fft(a[..., 0] + 1j * a[..., 1], axis=1)))
case("test_opset20_dft_default_axis", "DFT", [("x", r(2, 8, 2))], opset=20,
     ref=lambda a: (lambda f: np.stack([f.real, f.imag], -1).astype(np.float32))(np.fft.fft(a[..., 0] + 1j * a[..., 1], axis=1)))
# GridSample-20 mode names.
gsx = r(1, 2, 4, 4)
gsg = RNG.uniform(-1.1, 1.1, (1, 3, 3, 2)).astype(np.float32)
for mode in ("linear", "nearest", "cubic"):
    case("test_opset20_grid_sample_%s" % mode, "GridSample", [("x", gsx), ("grid", gsg)], opset=20,
         attrs=dict(mode=mode, align_corners=0))
# Cast-19 / CastLike-19 with saturate (it only applies to float8 targets).
case("test_opset19_cast_saturate", "Cast", [("x", r(2, 3))], opset=19, attrs=dict(to=F16, saturate=1), out_types=[F16],
     ref=lambda a: a.astype(np.float16))
case("test_opset21_castlike", "CastLike", [("x", r(2, 3)), ("like", np.zeros(1, np.float16))], opset=21, out_types=[F16],
     ref=lambda a, b: a.astype(np.float16))
# Ops with type-only revisions at 21 to 23: their opset-23 models convert and run.
case("test_opset23_reshape_transpose", "Reshape", [("x", r(2, 3, 4))], opset=23, out_types=[F32],
     nodes=[helper.make_node("Reshape", ["x", "shape"], ["t"]), helper.make_node("Transpose", ["t"], ["y"], perm=[1, 0])],
     inits=[("shape", i64(6, 4))], ref=lambda a: a.reshape(6, 4).T)
case("test_opset22_conv", "Conv", [("x", r(1, 2, 5, 5))], opset=22, inits=[("w", r(3, 2, 3, 3)), ("b", r(3))],
     attrs=dict(strides=[2, 2]))
case("test_opset23_flatten_squeeze", "Flatten", [("x", r(1, 3, 1, 2))], opset=23, out_types=[F32],
     nodes=[helper.make_node("Squeeze", ["x", "ax"], ["s"]), helper.make_node("Flatten", ["s"], ["y"], axis=1)],
     inits=[("ax", i64(2))], ref=lambda a: a.reshape(1, 6))


# ---- NaN and inf (issue 20 item 4) -----------------------------------------------------------------
# Expected outputs from the spec's numpy (expect="spec"), which PyTorch 1.13 matches: NaN propagates
# through Relu, Clip, Max/Min, pooling and the reductions; ArgMax/ArgMin take the first NaN as the
# extreme (np.argmax, torch.argmax); inf follows IEEE 754. Where ONNX Runtime differs, make_cases.py
# lists it in cases/ort_differences.txt. docs/NUMERICS.md has the per-op table.
NAN, INF = np.nan, np.inf
xn = r(2, 3, 8)
xn[0, 0, [1, 5]] = NAN
xn[0, 1, 2] = INF
xn[0, 2, 3] = -INF
xn[1, 0, 0] = NAN
xn[1, 0, 7] = INF
xn[1, 1, [0, 4]] = [INF, -INF]
xn[1, 2, :] = -INF


def spec(name, op, inputs, ref, **kw):
    case(name, op, inputs, ref=ref, expect="spec", **kw)


spec("test_nan_relu", "Relu", [("x", xn)], lambda x: np.maximum(x, 0), opset=14)
spec("test_nan_leaky_relu", "LeakyRelu", [("x", xn)], lambda x: np.where(x < 0, 0.1 * x, x).astype(np.float32),
     opset=16, attrs=dict(alpha=0.1))
spec("test_nan_clip", "Clip", [("x", xn)], lambda x: np.clip(x, 0, 6), opset=13,
     inits=[("lo", np.array(0, np.float32)), ("hi", np.array(6, np.float32))])
# An absent max is unbounded, as onnx.reference (np.clip(x, min, None)) and torch.clamp have it: +inf
# stays inf. Clip-13's text says numeric_limits::max(), which ONNX Runtime follows (3.4028235e38);
# docs/NUMERICS.md. min > max gives max everywhere (Min(max, Max(x, min)), Clip-13's text).
spec("test_nan_clip_unbounded", "Clip", [("x", xn)], lambda x: np.clip(x, -1, None), opset=13,
     inits=[("lo", np.array(-1, np.float32))])
spec("test_clip_min_above_max", "Clip", [("x", xn)], lambda x: np.minimum(np.float32(-2), np.maximum(x, np.float32(1))),
     opset=13, inits=[("lo", np.array(1, np.float32)), ("hi", np.array(-2, np.float32))])
yn = r(2, 3, 8)
yn[0, 0, [1, 2]] = [1.0, NAN]
yn[1, 1, 0] = -INF
spec("test_nan_max", "Max", [("a", xn), ("b", yn)], lambda a, b: np.maximum(a, b), opset=13)
spec("test_nan_min", "Min", [("a", xn), ("b", yn)], lambda a, b: np.minimum(a, b), opset=13)
spec("test_nan_max_three", "Max", [("a", xn), ("b", yn), ("c", r(8))],
     lambda a, b, c: np.maximum(np.maximum(a, b), c), opset=13)
spec("test_nan_sigmoid", "Sigmoid", [("x", xn)], lambda x: (1 / (1 + np.exp(-x.astype(np.float64)))).astype(np.float32),
     opset=13)
spec("test_nan_tanh", "Tanh", [("x", xn)], lambda x: np.tanh(x), opset=13)
spec("test_nan_exp", "Exp", [("x", xn)], lambda x: np.exp(x), opset=13)
spec("test_nan_softmax", "Softmax", [("x", xn)], lambda x: softmax(x.astype(np.float64)).astype(np.float32),
     opset=13, attrs=dict(axis=-1))
for red, f in (("ReduceMax", np.max), ("ReduceMin", np.min), ("ReduceSum", np.sum), ("ReduceMean", np.mean)):
    spec("test_nan_%s" % red.lower(), red, [("x", xn)],
         lambda x, f=f: f(x.astype(np.float64), axis=2, keepdims=True).astype(np.float32), opset=18,
         inits=[("axes", i64(2))])
spec("test_nan_argmax", "ArgMax", [("x", xn)], lambda x: np.argmax(x, axis=2)[..., None].astype(np.int64),
     opset=13, attrs=dict(axis=2), out_types=[TensorProto.INT64])
spec("test_nan_argmin", "ArgMin", [("x", xn)], lambda x: np.argmin(x, axis=2)[..., None].astype(np.int64),
     opset=13, attrs=dict(axis=2), out_types=[TensorProto.INT64])

# Pooling on NCHW [1,2,6,6]: a NaN and infs in channel 0, channel 1 all -inf in one window.
pn = r(1, 2, 6, 6)
pn[0, 0, 1, 1] = NAN
pn[0, 0, 3, 4] = INF
pn[0, 0, 5, 0] = -INF
pn[0, 1, 0:2, 0:2] = -INF
pn[0, 1, 4, 4] = NAN


def pool2d(x, k, s, pad, f, fill):
    """NCHW pooling of window k, stride s, symmetric pads `pad` filled with `fill`; f reduces a window."""
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)), constant_values=fill)
    oh = (xp.shape[2] - k) // s + 1
    ow = (xp.shape[3] - k) // s + 1
    y = np.empty(x.shape[:2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            y[:, :, i, j] = f(xp[:, :, i * s:i * s + k, j * s:j * s + k], axis=(2, 3))
    return y.astype(np.float32)


spec("test_nan_max_pool", "MaxPool", [("x", pn)], lambda x: pool2d(x, 2, 2, 0, np.max, 0), opset=12,
     attrs=dict(kernel_shape=[2, 2], strides=[2, 2]))
spec("test_nan_max_pool_pads", "MaxPool", [("x", pn)], lambda x: pool2d(x, 3, 1, 1, np.max, -INF), opset=12,
     attrs=dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1]))
spec("test_nan_avg_pool", "AveragePool", [("x", pn)], lambda x: pool2d(x, 2, 2, 0, np.mean, 0), opset=11,
     attrs=dict(kernel_shape=[2, 2], strides=[2, 2]))
spec("test_nan_global_max_pool", "GlobalMaxPool", [("x", pn)], lambda x: x.max(axis=(2, 3), keepdims=True), opset=13)
spec("test_nan_global_avg_pool", "GlobalAveragePool", [("x", pn)],
     lambda x: x.astype(np.float64).mean(axis=(2, 3), keepdims=True).astype(np.float32), opset=13)
spec("test_nan_fp16_relu", "Relu", [("x", xn.astype(np.float16))], lambda x: np.maximum(x, 0), opset=14)
spec("test_nan_fp16_max_pool", "MaxPool", [("x", pn.astype(np.float16))],
     lambda x: pool2d(x, 2, 2, 0, np.max, 0).astype(np.float16), opset=12, attrs=dict(kernel_shape=[2, 2], strides=[2, 2]))


# A convolution or Gemm followed by Relu or Clip, which fast backends fuse into one kernel: a NaN
# input reaches every output whose window holds it, and the activation must keep it.
def conv2d(x, w, b, pad):
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    kh, kw = w.shape[2], w.shape[3]
    oh, ow = xp.shape[2] - kh + 1, xp.shape[3] - kw + 1
    y = np.empty((x.shape[0], w.shape[0], oh, ow))
    for i in range(oh):
        for j in range(ow):
            y[:, :, i, j] = np.einsum("nchw,ochw->no", xp[:, :, i:i + kh, j:j + kw], w.astype(np.float64))
    return y + b.astype(np.float64)[None, :, None, None]


cw, cb = r(4, 2, 3, 3, scale=0.5), r(4)
for act, node, f in (("relu", helper.make_node("Relu", ["t"], ["y"]), lambda t: np.maximum(t, 0)),
                     ("clip", helper.make_node("Clip", ["t", "lo", "hi"], ["y"]), lambda t: np.clip(t, 0, 6))):
    inits = [("w", cw), ("b", cb)] + ([("lo", np.array(0, np.float32)), ("hi", np.array(6, np.float32))]
                                      if act == "clip" else [])
    spec("test_nan_conv_%s" % act, "Conv", [("x", pn)], lambda x, f=f: f(conv2d(x, cw, cb, 1)).astype(np.float32),
         opset=13, inits=inits, nodes=[helper.make_node("Conv", ["x", "w", "b"], ["t"], pads=[1, 1, 1, 1]), node])
gx = r(4, 16)
gx[1, 3] = NAN
gx[2, 5] = INF
gw, gb = r(8, 16), r(8)
spec("test_nan_gemm_relu", "Gemm", [("a", gx)],
     lambda a: np.maximum(a.astype(np.float64) @ gw.T.astype(np.float64) + gb, 0).astype(np.float32), opset=13,
     inits=[("w", gw), ("b", gb)],
     nodes=[helper.make_node("Gemm", ["a", "w", "b"], ["t"], transB=1), helper.make_node("Relu", ["t"], ["y"])])
spec("test_nan_conv", "Conv", [("x", pn)], lambda x: conv2d(x, cw, cb, 1).astype(np.float32), opset=13,
     inits=[("w", cw), ("b", cb)], attrs=dict(pads=[1, 1, 1, 1]))
spec("test_nan_gemm", "Gemm", [("a", gx)],
     lambda a: (a.astype(np.float64) @ gw.T.astype(np.float64) + gb).astype(np.float32), opset=13,
     inits=[("w", gw), ("b", gb)], attrs=dict(transB=1))
# Wide enough for the cpu backend's own AVX-512 convolution (64 output channels, K = 8*3*3), with
# the residual Add and the Relu it fuses; NaN and inf in the input and in the residual.
wx = r(1, 8, 5, 5)
wx[0, 2, 1, 3] = NAN
wx[0, 5, 4, 0] = INF
wres = r(1, 64, 5, 5)
wres[0, 7, 2, 2] = NAN
ww, wb = r(64, 8, 3, 3, scale=0.3), r(64)
spec("test_nan_conv_residual_relu", "Conv", [("x", wx), ("res", wres)],
     lambda x, res: np.maximum(conv2d(x, ww, wb, 1).astype(np.float32) + res, 0), opset=13,
     inits=[("w", ww), ("b", wb)],
     nodes=[helper.make_node("Conv", ["x", "w", "b"], ["t"], pads=[1, 1, 1, 1]),
            helper.make_node("Add", ["t", "res"], ["u"]), helper.make_node("Relu", ["u"], ["y"])])
c1x = r(2, 3, 7)
c1x[1, 0, 3] = NAN
c1w, c1b = r(4, 3, 3), r(4)
spec("test_nan_conv1d", "Conv", [("x", c1x)],
     lambda x: conv2d(x[:, :, None, :], c1w[:, :, None, :], c1b, 0)[:, :, 0, :].astype(np.float32), opset=13,
     inits=[("w", c1w), ("b", c1b)])


# ---- RotaryEmbedding-23 and Attention-23 (issue 20 item 1) ------------------------------------------
# numpy references written from the RotaryEmbedding-23 and Attention-23 text of ONNX's changelog, in
# float64 and rounded once to the case's type.
def rotary_ref(x, cos, sin, pos=None, interleaved=0, rot_dim=0, num_heads=0):
    """RotaryEmbedding-23: X (B, H, S, D) or (B, S, H*D); caches (B, S, R/2), or (P, R/2) read at pos."""
    dt = x.dtype
    x = x.astype(np.float64)
    if x.ndim == 4:
        xs = x.transpose(0, 2, 1, 3)  # (B, S, H, D)
    else:
        xs = x.reshape(x.shape[0], x.shape[1], num_heads, x.shape[2] // num_heads)
    rd = rot_dim or xs.shape[3]
    c, s = cos.astype(np.float64), sin.astype(np.float64)
    if pos is not None:
        c, s = c[pos], s[pos]  # (B, S, R/2)
    c, s = c[:, :, None, :], s[:, :, None, :]
    first = np.arange(0, rd, 2) if interleaved else np.arange(rd // 2)
    second = first + 1 if interleaved else first + rd // 2
    out = xs.copy()
    a, b = xs[..., first], xs[..., second]
    out[..., first] = c * a - s * b
    out[..., second] = s * a + c * b
    out = out.transpose(0, 2, 1, 3) if x.ndim == 4 else out.reshape(x.shape)
    return out.astype(dt)


def rotary_caches(rows, cols, lead=()):
    ang = r(*(lead + (rows, cols)))
    return np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)


rx4 = r(2, 3, 4, 8)
rc, rs = rotary_caches(4, 4, (2,))
case("test_opset23_rotary_embedding_4d", "RotaryEmbedding", [("x", rx4), ("cos", rc), ("sin", rs)], opset=23,
     ref=lambda x, c, s: rotary_ref(x, c, s))
rpc, rps = rotary_caches(10, 4)
rpos = RNG.integers(0, 10, size=(2, 4)).astype(np.int64)
case("test_opset23_rotary_embedding_4d_interleaved_pos", "RotaryEmbedding",
     [("x", rx4), ("cos", rpc), ("sin", rps), ("pos", rpos)], opset=23, attrs=dict(interleaved=1),
     ref=lambda x, c, s, p: rotary_ref(x, c, s, p, interleaved=1))
case("test_opset23_rotary_embedding_4d_pos", "RotaryEmbedding",
     [("x", rx4), ("cos", rpc), ("sin", rps), ("pos", rpos)], opset=23,
     ref=lambda x, c, s, p: rotary_ref(x, c, s, p))
rx3 = r(2, 4, 3 * 8)
case("test_opset23_rotary_embedding_3d_pos", "RotaryEmbedding",
     [("x", rx3), ("cos", rpc), ("sin", rps), ("pos", rpos)], opset=23, attrs=dict(num_heads=3),
     ref=lambda x, c, s, p: rotary_ref(x, c, s, p, num_heads=3))
case("test_opset23_rotary_embedding_3d_interleaved", "RotaryEmbedding", [("x", rx3), ("cos", rc), ("sin", rs)],
     opset=23, attrs=dict(num_heads=3, interleaved=1),
     ref=lambda x, c, s: rotary_ref(x, c, s, interleaved=1, num_heads=3))
# Partial rotation: the first rotary_embedding_dim = 4 of each head's 8 values rotate, the rest pass.
rqc, rqs = rotary_caches(10, 2)
case("test_opset23_rotary_embedding_partial_pos", "RotaryEmbedding",
     [("x", rx4), ("cos", rqc), ("sin", rqs), ("pos", rpos)], opset=23, attrs=dict(rotary_embedding_dim=4),
     ref=lambda x, c, s, p: rotary_ref(x, c, s, p, rot_dim=4))
rqc3, rqs3 = rotary_caches(4, 2, (2,))
case("test_opset23_rotary_embedding_partial_3d_interleaved", "RotaryEmbedding",
     [("x", rx3), ("cos", rqc3), ("sin", rqs3)], opset=23, attrs=dict(rotary_embedding_dim=4, num_heads=3, interleaved=1),
     ref=lambda x, c, s: rotary_ref(x, c, s, interleaved=1, rot_dim=4, num_heads=3))
case("test_opset23_rotary_embedding_fp16", "RotaryEmbedding",
     [("x", rx4.astype(np.float16)), ("cos", rpc.astype(np.float16)), ("sin", rps.astype(np.float16)), ("pos", rpos)],
     opset=23, ref=lambda x, c, s, p: rotary_ref(x, c, s, p))


def attention_ref(q, k, v, mask=None, past_k=None, past_v=None, causal=0, q_heads=0, kv_heads=0, scale=None,
                  softcap=0.0, qk_mode=None, present=False):
    """Attention-23 in float64: returns (Y[, present_key, present_value][, qk_matmul_output])."""
    dt = q.dtype
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    three_d = q.ndim == 3

    def heads(a, h):
        return a.reshape(a.shape[0], a.shape[1], h, a.shape[2] // h).transpose(0, 2, 1, 3)

    if three_d:
        q, k, v = heads(q, q_heads), heads(k, kv_heads), heads(v, kv_heads)
    past = 0
    if past_k is not None:
        past = past_k.shape[2]
        k = np.concatenate([past_k.astype(np.float64), k], axis=2)
        v = np.concatenate([past_v.astype(np.float64), v], axis=2)
    b, hq, sq, d = q.shape
    total = k.shape[2]
    rep = hq // k.shape[1]
    kr, vr = np.repeat(k, rep, axis=1), np.repeat(v, rep, axis=1)  # query head h reads kv head h // rep
    s = 1 / np.sqrt(d) if scale is None else scale
    qk = (q @ kr.transpose(0, 1, 3, 2)) * s
    capped = softcap * np.tanh(qk / softcap) if softcap > 0 else qk
    bias = np.zeros((sq, total))
    if causal:  # query i sees key j iff j <= i + past_sequence_length
        bias = np.where(np.arange(total)[None, :] <= np.arange(sq)[:, None] + past, 0.0, -np.inf)
    if mask is not None:
        bias = bias + (np.where(mask, 0.0, -np.inf) if mask.dtype == np.bool_ else mask.astype(np.float64))
    bias = np.broadcast_to(bias, (b, hq, sq, total))
    z = capped + bias
    dead = np.all(np.isneginf(bias), axis=-1, keepdims=True)  # a fully masked row gives zeros
    zm = np.where(dead, 0.0, z)
    e = np.exp(zm - zm.max(axis=-1, keepdims=True))
    p = np.where(dead, 0.0, e / e.sum(axis=-1, keepdims=True))
    y = p @ vr
    if three_d:
        y = y.transpose(0, 2, 1, 3).reshape(b, sq, -1)
    out = [y.astype(dt)]
    if present:
        out += [k.astype(dt), v.astype(dt)]
    if qk_mode is not None:
        out.append([qk, capped, z, p][qk_mode].astype(dt))
    return out[0] if len(out) == 1 else out


def attn_node(ins, outs, **attrs):
    return [helper.make_node("Attention", ins, outs, **attrs)]


aq, ak, av = r(2, 3, 4, 8), r(2, 3, 6, 8), r(2, 3, 6, 5)
case("test_opset23_attention_4d", "Attention", [("q", aq), ("k", ak), ("v", av)], opset=23,
     ref=lambda q, k, v: attention_ref(q, k, v))
case("test_opset23_attention_4d_scale", "Attention", [("q", aq), ("k", ak), ("v", av)], opset=23,
     attrs=dict(scale=0.2), ref=lambda q, k, v: attention_ref(q, k, v, scale=0.2))
a3q, a3k, a3v = r(2, 4, 3 * 8), r(2, 6, 3 * 8), r(2, 6, 3 * 5)
case("test_opset23_attention_3d_heads", "Attention", [("q", a3q), ("k", a3k), ("v", a3v)], opset=23,
     attrs=dict(q_num_heads=3, kv_num_heads=3), ref=lambda q, k, v: attention_ref(q, k, v, q_heads=3, kv_heads=3))
asq = r(2, 3, 6, 8)
case("test_opset23_attention_causal", "Attention", [("q", asq), ("k", ak), ("v", av)], opset=23,
     attrs=dict(is_causal=1), ref=lambda q, k, v: attention_ref(q, k, v, causal=1))
# S_q = 4 < S_kv = 6 without a cache: past_sequence_length is 0, so query i sees keys 0..i.
case("test_opset23_attention_causal_cross", "Attention", [("q", aq), ("k", ak), ("v", av)], opset=23,
     attrs=dict(is_causal=1), ref=lambda q, k, v: attention_ref(q, k, v, causal=1))
# KV cache: 5 cached keys, 2 new ones, 2 queries; query i sees keys 0..i+5; present = past ++ new.
apk, apv = r(2, 3, 5, 8), r(2, 3, 5, 5)
acq, ack, acv = r(2, 3, 2, 8), r(2, 3, 2, 8), r(2, 3, 2, 5)
case("test_opset23_attention_causal_past", "Attention",
     [("q", acq), ("k", ack), ("v", acv), ("past_k", apk), ("past_v", apv)], opset=23,
     outputs=["y", "present_k", "present_v"],
     nodes=attn_node(["q", "k", "v", "", "past_k", "past_v"], ["y", "present_k", "present_v"], is_causal=1),
     ref=lambda q, k, v, pk, pv: attention_ref(q, k, v, None, pk, pv, causal=1, present=True))
# Boolean mask (S_q, total) broadcast over batch and heads; query row 2 sees no key: a zero row.
abm = RNG.random((4, 6)) < 0.7
abm[:, 0] = True
abm[2, :] = False
case("test_opset23_attention_bool_mask", "Attention", [("q", aq), ("k", ak), ("v", av), ("m", abm)], opset=23,
     ref=lambda q, k, v, m: attention_ref(q, k, v, m))
afm = r(2, 1, 4, 6)
afm[1, 0, 3, 2] = -np.inf
case("test_opset23_attention_float_mask", "Attention", [("q", aq), ("k", ak), ("v", av), ("m", afm)], opset=23,
     ref=lambda q, k, v, m: attention_ref(q, k, v, m))
# Causal and a boolean mask together: the allowed sets intersect.
acm = RNG.random((2, 1, 6, 6)) < 0.6
acm[..., 0] = True
case("test_opset23_attention_causal_bool_mask", "Attention", [("q", asq), ("k", ak), ("v", av), ("m", acm)],
     opset=23, attrs=dict(is_causal=1), ref=lambda q, k, v, m: attention_ref(q, k, v, m, causal=1))
# Group-query attention: 4 query heads share 2 kv heads (query head h reads kv head h // 2).
agq, agk, agv = r(2, 4, 3, 8), r(2, 2, 5, 8), r(2, 2, 5, 8)
case("test_opset23_attention_gqa", "Attention", [("q", agq), ("k", agk), ("v", agv)], opset=23,
     ref=lambda q, k, v: attention_ref(q, k, v))
ag3q, ag3k, ag3v = r(1, 3, 4 * 6), r(1, 5, 2 * 6), r(1, 5, 2 * 4)
case("test_opset23_attention_gqa_3d_causal", "Attention", [("q", ag3q), ("k", ag3k), ("v", ag3v)], opset=23,
     attrs=dict(q_num_heads=4, kv_num_heads=2, is_causal=1),
     ref=lambda q, k, v: attention_ref(q, k, v, q_heads=4, kv_heads=2, causal=1))
case("test_opset23_attention_softcap", "Attention", [("q", aq * 3), ("k", ak), ("v", av)], opset=23,
     attrs=dict(softcap=2.5), ref=lambda q, k, v: attention_ref(q, k, v, softcap=2.5))
# Past and present without causal, with a float mask over the total length (5 + 2 keys).
apm = r(1, 3, 2, 7)
case("test_opset23_attention_past_present_mask", "Attention",
     [("q", acq), ("k", ack), ("v", acv), ("m", apm), ("past_k", apk), ("past_v", apv)], opset=23,
     outputs=["y", "present_k", "present_v"],
     ref=lambda q, k, v, m, pk, pv: attention_ref(q, k, v, m, pk, pv, present=True))
# qk_matmul_output, modes 0..3 (softcap and a float mask, so that each mode differs).
for mode in range(4):
    attrs = dict(softcap=3.0, qk_matmul_output_mode=mode) if mode else dict(softcap=3.0)
    case("test_opset23_attention_qk_matmul_output_mode%d" % mode, "Attention",
         [("q", aq), ("k", ak), ("v", av), ("m", afm)], opset=23, outputs=["y", "qk"],
         nodes=attn_node(["q", "k", "v", "m"], ["y", "", "", "qk"], **attrs),
         ref=lambda q, k, v, m, mode=mode: attention_ref(q, k, v, m, softcap=3.0, qk_mode=mode))
# Mode 3 with the fully masked boolean row: its probabilities are a zero row too.
case("test_opset23_attention_qk_matmul_output_mode3_bool_mask", "Attention",
     [("q", aq), ("k", ak), ("v", av), ("m", abm)], opset=23, outputs=["y", "qk"],
     nodes=attn_node(["q", "k", "v", "m"], ["y", "", "", "qk"], qk_matmul_output_mode=3),
     ref=lambda q, k, v, m: attention_ref(q, k, v, m, qk_mode=3))
# float16: tare computes the op in float from the widened inputs and rounds Y once (narrow_float.h);
# ONNX Runtime's CPU kernel rounds the scores and probabilities to float16 on the way (up to 8 ULP
# apart on these data, more near zero), so the numpy reference (float64, rounded once) gives the
# expected outputs and ONNX Runtime's differences are listed in cases/ort_differences.txt.
case("test_opset23_attention_fp16", "Attention",
     [("q", asq.astype(np.float16)), ("k", ak.astype(np.float16)), ("v", av.astype(np.float16))], opset=23,
     attrs=dict(is_causal=1), ref=lambda q, k, v: attention_ref(q, k, v, causal=1), expect="spec")
case("test_opset23_attention_fp16_softmax_precision", "Attention",
     [("q", agq.astype(np.float16)), ("k", agk.astype(np.float16)), ("v", agv.astype(np.float16)),
      ("m", afm[:1, :, :3, :5].astype(np.float16))], opset=23,
     attrs=dict(softmax_precision=TensorProto.FLOAT), ref=lambda q, k, v, m: attention_ref(q, k, v, m), expect="spec")
