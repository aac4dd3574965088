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


# ---- IsInf / IsNaN / ReduceMax / ReduceMin on the types opset 20 adds (issue 20 item 1) -----------
# IsInf-20 and IsNaN-20 add bfloat16 (and the float8 types); ReduceMax-20 and ReduceMin-20 add bool
# (max is "any", min is "all"). Fixed values: no draw from the shared RNG.
sp = np.array([[1.5, np.inf, -np.inf], [np.nan, -0.0, 65504]], np.float32)
case("test_opset20_isinf_bf16", "IsInf", [("x", BF16(sp))], opset=20, out_types=[TensorProto.BOOL],
     ref=lambda x: np.isinf(x))
case("test_opset20_isinf_bf16_negative_only", "IsInf", [("x", BF16(sp))], opset=20, out_types=[TensorProto.BOOL],
     attrs=dict(detect_positive=0), ref=lambda x: np.isneginf(x))
case("test_opset20_isnan_bf16", "IsNaN", [("x", BF16(sp))], opset=20, out_types=[TensorProto.BOOL],
     ref=lambda x: np.isnan(x))
case("test_opset20_isnan_fp16", "IsNaN", [("x", sp.astype(np.float16))], opset=20, out_types=[TensorProto.BOOL],
     ref=lambda x: np.isnan(x))
case("test_opset20_isinf_fp16", "IsInf", [("x", sp.astype(np.float16))], opset=20, out_types=[TensorProto.BOOL],
     ref=lambda x: np.isinf(x))
bm = np.array([[True, False, False], [False, False, False], [True, True, True]])
case("test_opset20_reducemax_bool", "ReduceMax", [("x", bm)], opset=20, inits=[("axes", i64(1))],
     ref=lambda x: x.max(axis=1, keepdims=True))
case("test_opset20_reducemin_bool", "ReduceMin", [("x", bm)], opset=20, inits=[("axes", i64(1))], attrs=dict(keepdims=0),
     ref=lambda x: x.min(axis=1))
case("test_opset20_reducemax_bool_all", "ReduceMax", [("x", bm)], opset=20, attrs=dict(keepdims=0),
     ref=lambda x: np.array(x.max()))
case("test_opset20_reducemin_fp16", "ReduceMin", [("x", np.nan_to_num(sp, nan=-7.0).astype(np.float16))], opset=20, inits=[("axes", i64(0))],
     ref=lambda x: x.min(axis=0, keepdims=True))


# ---- float8 and int4 / uint4: Cast-19/21, QuantizeLinear / DequantizeLinear-21 (issue 20 item 1) --
# The graphs take and give float32 (onnxruntime-node has no float8 / int4 tensors): each case casts
# or quantizes into the narrow type and back. The numpy float8 model below is written from the
# format definitions and the Cast-19 rounding/saturation tables: every code is decoded, and a value
# rounds to the nearest code value (ties to the even code), with one more grid step above the
# largest finite value standing for overflow. One departure from the tables: with saturate, +-inf
# gives +-the largest value for the FNUZ types too (the table says NaN), as ONNX's own reference
# (numpy_helper.saturate_cast: np.clip, then astype) and ONNX Runtime both do.
from make_cases import Raw  # noqa: E402

F8_FORMATS = {  # TensorProto code: (exponent bits, mantissa bits, bias, fnuz, has inf)
    17: (4, 3, 7, False, False), 18: (4, 3, 8, True, False), 19: (5, 2, 15, False, True), 20: (5, 2, 16, True, False)}
F8_NAMES = {17: "e4m3fn", 18: "e4m3fnuz", 19: "e5m2", 20: "e5m2fnuz"}


def f8_decode(code, c):
    eb, mb, bias, fnuz, has_inf = F8_FORMATS[code]
    c = int(c)
    if fnuz and c == 0x80:
        return np.nan
    sign = -1.0 if c & 0x80 else 1.0
    e, m = (c >> mb) & ((1 << eb) - 1), c & ((1 << mb) - 1)
    if not fnuz and e == (1 << eb) - 1:
        if has_inf:
            return sign * np.inf if m == 0 else np.nan
        if m == (1 << mb) - 1:
            return np.nan
    if e == 0:
        return sign * m * 2.0 ** (1 - bias - mb)
    return sign * (1 + m / 2.0 ** mb) * 2.0 ** (e - bias)


def f8_round(code, x, saturate=True):
    """float8 value of each x (as float64), per the Cast-19 tables."""
    eb, mb, bias, fnuz, has_inf = F8_FORMATS[code]
    pos = [(f8_decode(code, c), c) for c in range(0x80)]
    pos = sorted((v, c) for v, c in pos if np.isfinite(v))
    vmax, cmax = pos[-1]
    step = vmax - pos[-2][0]
    grid = pos + [(vmax + step, cmax + 1)]  # the first value past the largest: overflow
    out = []
    for v in np.asarray(x, np.float64).ravel():
        if np.isnan(v):
            out.append(np.nan)
            continue
        s = -1.0 if np.signbit(v) else 1.0
        a = abs(v)
        if np.isinf(a):
            over = True
        else:
            dist = [abs(a - g) for g, _ in grid]
            best = min(dist)
            near = [grid[i] for i, d in enumerate(dist) if d == best]
            g, c = near[0] if len(near) == 1 else [n for n in near if n[1] % 2 == 0][0]
            over = c == cmax + 1
        if over:
            if saturate:
                out.append(s * vmax)
            else:
                out.append(s * np.inf if has_inf else np.nan)
            continue
        out.append(0.0 if g == 0 and fnuz else s * g)
    return np.array(out).reshape(np.shape(x))


f8x = np.array([[0.0, -0.0, 1.0, -1.5, 0.3, 3.1415927, -200.0, 250.0],
                [300.0, 460.0, 465.0, 1e5, -7e4, np.inf, -np.inf, 1e-3],
                [2 ** -9, 3 * 2 ** -10, 2 ** -17, 0.0625 * 1.0625, 5.5, -100.3, 57344.0, 61440.0]], np.float32)
# ONNX Runtime differs in one case: E5M2 without saturate, 61440 (the tie between 57344, the
# largest value, and 65536) rounds to even, past the largest value: the table says +inf; ORT gives
# NaN (cases/ort_differences.txt).
for code, fname in F8_NAMES.items():
    for sat in (1, 0):
        case("test_opset19_cast_float8%s_sat%d" % (fname, sat), "Cast", [("x", f8x)], opset=19, out_types=[F32],
             nodes=[helper.make_node("Cast", ["x"], ["q"], to=code, saturate=sat),
                    helper.make_node("Cast", ["q"], ["y"], to=F32)],
             ref=lambda x, code=code, sat=sat: f8_round(code, x, bool(sat)).astype(np.float32),
             expect="spec" if (code, sat) == (19, 0) else "ort")
case("test_opset19_cast_float8e4m3fn_to_fp16", "Cast", [("x", f8x[:1])], opset=19, out_types=[F16],
     nodes=[helper.make_node("Cast", ["x"], ["q"], to=17), helper.make_node("Cast", ["q"], ["y"], to=F16)],
     ref=lambda x: f8_round(17, x).astype(np.float16))
i4 = np.array([[-9, -8, -1, 0, 7, 8, 15, 16, 23]], np.int32)
case("test_opset21_cast_int4_wrap", "Cast", [("x", i4)], opset=21, out_types=[TensorProto.INT32],
     nodes=[helper.make_node("Cast", ["x"], ["q"], to=22), helper.make_node("Cast", ["q"], ["y"], to=TensorProto.INT32)],
     ref=lambda x: (((x & 0xF) ^ 8) - 8).astype(np.int32))
case("test_opset21_cast_uint4_wrap", "Cast", [("x", i4)], opset=21, out_types=[TensorProto.INT32],
     nodes=[helper.make_node("Cast", ["x"], ["q"], to=21), helper.make_node("Cast", ["q"], ["y"], to=TensorProto.INT32)],
     ref=lambda x: (x & 0xF).astype(np.int32))
# float -> int4 truncates toward zero, as Cast does for every integer type (numpy astype); ONNX
# Runtime rounds to nearest, ties away from zero (cases/ort_differences.txt).
case("test_opset21_cast_float_int4", "Cast", [("x", np.array([[-7.9, -2.5, -0.4, 0.6, 3.99, 7.0]], np.float32))],
     opset=21, out_types=[F32], expect="spec",
     nodes=[helper.make_node("Cast", ["x"], ["q"], to=22), helper.make_node("Cast", ["q"], ["y"], to=F32)],
     ref=lambda x: np.trunc(x).astype(np.float32))


def quant_ref(x, scale, zp, lo, hi, axis=1, block=0):
    """QuantizeLinear-21 then DequantizeLinear-21 (integer types), from the spec's formulas."""
    s, z = np.asarray(scale, np.float32), np.asarray(zp, np.float64)
    if block:
        s, z = np.repeat(s, block, axis=axis), np.repeat(z, block, axis=axis)
        sl = [slice(None)] * x.ndim
        sl[axis] = slice(0, x.shape[axis])
        s, z = s[tuple(sl)], z[tuple(sl)]
    elif s.ndim == 1 and s.size > 1:
        shape = [1] * x.ndim
        shape[axis] = -1
        s, z = s.reshape(shape), z.reshape(shape)
    q = np.clip(np.round((x / s).astype(np.float32)) + z, lo, hi)
    return ((q - z).astype(np.float32) * s).astype(np.float32)


qx = r(2, 6, 3, scale=3.0)
qs1 = np.array(0.5, np.float32)
for zname, zp, lo, hi, signed in (("int4", -2, -8, 7, True), ("uint4", 5, 0, 15, False)):
    case("test_opset21_qdq_%s" % zname, "QuantizeLinear", [("x", qx)], opset=21, out_types=[F32],
         inits=[("s", qs1), ("z", Raw.int4(np.array(zp), signed))],
         nodes=[helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
                helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])],
         ref=lambda x, zp=zp, lo=lo, hi=hi: quant_ref(x, qs1, zp, lo, hi))
qsa = np.array([0.25, 0.5, 1.0, 0.75, 2.0, 0.3], np.float32)
qza = np.array([-1, 0, 3, -8, 7, 2])
case("test_opset21_qdq_int4_per_axis", "QuantizeLinear", [("x", qx)], opset=21, out_types=[F32],
     inits=[("s", qsa), ("z", Raw.int4(qza))],
     nodes=[helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], axis=1),
            helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], axis=1)],
     ref=lambda x: quant_ref(x, qsa, qza, -8, 7, axis=1))
qsb = (np.abs(r(2, 3, 3)) + 0.2).astype(np.float32)  # blocks of 2 along axis 1 (6 -> 3)
qzb = np.array([[[1, -2, 0], [3, 0, -1], [0, 0, 2]], [[-3, 1, 0], [0, 4, 0], [1, 1, -1]]])
case("test_opset21_qdq_int4_blocked", "QuantizeLinear", [("x", qx)], opset=21, out_types=[F32],
     inits=[("s", qsb), ("z", Raw.int4(qzb))],
     nodes=[helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], axis=1, block_size=2),
            helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], axis=1, block_size=2)],
     ref=lambda x: quant_ref(x, qsb, qzb, -8, 7, axis=1, block=2))
qsc = (np.abs(r(2, 6, 1)) + 0.2).astype(np.float32)  # one block covering the last axis (3 -> 1)
case("test_opset21_qdq_int8_blocked_last_axis", "QuantizeLinear", [("x", qx)], opset=21, out_types=[F32],
     inits=[("s", qsc), ("z", np.zeros((2, 6, 1), np.int8))],
     nodes=[helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], axis=-1, block_size=3),
            helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], axis=-1, block_size=3)],
     ref=lambda x: quant_ref(x, qsc, np.zeros((2, 6, 1)), -128, 127, axis=2, block=3))
case("test_opset21_qdq_output_dtype_int16", "QuantizeLinear", [("x", qx * 1000)], opset=21, out_types=[F32],
     inits=[("s", np.array(0.125, np.float32))],
     nodes=[helper.make_node("QuantizeLinear", ["x", "s"], ["q"], output_dtype=TensorProto.INT16),
            helper.make_node("DequantizeLinear", ["q", "s"], ["y"])],
     ref=lambda x: quant_ref(x, np.float32(0.125), 0, -32768, 32767))
case("test_opset21_qdq_uint16", "QuantizeLinear", [("x", qx * 1000)], opset=21, out_types=[F32],
     inits=[("s", np.array(0.25, np.float32)), ("z", np.array(30000, np.uint16))],
     nodes=[helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
            helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])],
     ref=lambda x: quant_ref(x, np.float32(0.25), 30000, 0, 65535))
# An int4 initializer of an odd element count (the last byte half used), dequantized per axis.
w4 = np.array([[-8, -3, 0, 5, 7], [1, -1, 2, -2, 6], [3, 3, -7, 0, 4]])
ws4 = np.array([0.5, 0.25, 2.0], np.float32)
case("test_opset21_dequantize_int4_weight", "MatMul", [("x", r(2, 3))], opset=21, out_types=[F32],
     inits=[("w", Raw.int4(w4)), ("s", ws4)],
     nodes=[helper.make_node("DequantizeLinear", ["w", "s"], ["wf"], axis=0),
            helper.make_node("MatMul", ["x", "wf"], ["y"])],
     ref=lambda x: (x.astype(np.float64) @ (w4 * ws4[:, None].astype(np.float64))).astype(np.float32))
for code, fname in ((17, "e4m3fn"), (19, "e5m2")):
    fz = Raw(code, np.array(0.0), bytes([0]))
    case("test_opset21_qdq_float8%s" % fname, "QuantizeLinear", [("x", f8x)], opset=21, out_types=[F32],
         inits=[("s", np.array(2.0, np.float32)), ("z", fz)],
         nodes=[helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
                helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])],
         ref=lambda x, code=code: (f8_round(code, (x / np.float32(2.0)).astype(np.float32)).astype(np.float32)
                                   * np.float32(2.0)).astype(np.float32))
case("test_opset20_isnan_float8e4m3fn", "IsNaN", [("x", f8x)], opset=20, out_types=[TensorProto.BOOL],
     nodes=[helper.make_node("Cast", ["x"], ["q"], to=17, saturate=0), helper.make_node("IsNaN", ["q"], ["y"])],
     ref=lambda x: np.isnan(f8_round(17, x, False)))
case("test_opset20_isinf_float8e5m2", "IsInf", [("x", f8x[:2])], opset=20, out_types=[TensorProto.BOOL],
     nodes=[helper.make_node("Cast", ["x"], ["q"], to=19, saturate=0), helper.make_node("IsInf", ["q"], ["y"])],
     ref=lambda x: np.isinf(f8_round(19, x, False)))


# ---- Resize-18/19 forms (issue 20 item 1) ----
# Resize-18's antialias, axes and keep_aspect_ratio_policy and Resize-19's half_pixel_symmetric, with
# a numpy reference written from the changelog entries Resize-18 and Resize-19: each resized axis is
# one matrix of weights (output index x input index), applied axis by axis in float64. ONNX Runtime
# runs linear / cubic on 4-D inputs only when N and C are not resized: the cases are NCHW on H, W.
def keys_cubic(t, a):
    t = abs(t)
    if t <= 1:
        return ((a + 2) * t - (a + 3)) * t * t + 1
    if t < 2:
        return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
    return 0.0


def resize_axis_weights(n_in, n_out, s, width, mode, ctm, antialias, cubic_a, exclude_outside, roi):
    """Weights [n_out, n_in] of one axis: input length n_in, output n_out, scale s, fractional
    output length width = n_in * s (half_pixel_symmetric), roi (start, end) for tf_crop_and_resize."""
    w = np.zeros((n_out, n_in))
    for o in range(n_out):
        if ctm == "half_pixel":
            xo = (o + 0.5) / s - 0.5
        elif ctm == "half_pixel_symmetric":
            xo = n_in / 2 * (1 - n_out / width) + (o + 0.5) / s - 0.5
        elif ctm == "asymmetric":
            xo = o / s
        elif ctm == "tf_crop_and_resize":
            start, end = roi
            xo = (start * (n_in - 1) + o * (end - start) * (n_in - 1) / (n_out - 1) if n_out > 1
                  else 0.5 * (start + end) * (n_in - 1))
            if xo < 0 or xo > n_in - 1:
                w[o, :] = np.nan  # extrapolated: marked, replaced by extrapolation_value below
                continue
        else:
            raise ValueError(ctm)
        if mode == "nearest":  # round_prefer_floor
            w[o, min(max(int(np.ceil(xo - 0.5)), 0), n_in - 1)] = 1
            continue
        support = 1.0 if mode == "linear" else 2.0
        f = min(s, 1.0) if antialias else 1.0  # the kernel is stretched by 1/f
        taps = list(range(int(np.floor(xo - support / f)), int(np.ceil(xo + support / f)) + 1))
        kern = [max(0.0, 1 - abs(j - xo) * f) if mode == "linear" else keys_cubic((j - xo) * f, cubic_a) for j in taps]
        kern = np.array(kern)
        if exclude_outside:
            kern = np.where([0 <= j < n_in for j in taps], kern, 0.0)
        if antialias or exclude_outside:
            kern = kern / kern.sum()
        for j, k in zip(taps, kern):
            w[o, min(max(j, 0), n_in - 1)] += k
    return w


def resize_spec(x, scales=None, sizes=None, axes=None, roi=None, mode="linear", ctm="half_pixel", antialias=0,
                policy="stretch", cubic_a=-0.75, exclude_outside=0, extrapolation=0.0):
    r = x.ndim
    axes = list(range(r)) if axes is None else [a + r if a < 0 else a for a in axes]
    n_in = list(x.shape)
    scale, out, width = [1.0] * r, list(n_in), [float(n) for n in n_in]
    rois = [(0.0, 1.0)] * r
    if roi is not None:
        for i, d in enumerate(axes):
            rois[d] = (float(roi[i]), float(roi[len(axes) + i]))
    if scales is not None:
        for i, d in enumerate(axes):
            scale[d] = float(scales[i])
            out[d] = int(np.floor(np.float32(n_in[d]) * np.float32(scales[i])))
            width[d] = n_in[d] * scale[d]
    elif policy == "stretch":
        for i, d in enumerate(axes):
            out[d] = int(sizes[i])
            scale[d] = out[d] / n_in[d]
            width[d] = float(out[d])
    else:
        ratios = [sizes[i] / n_in[d] for i, d in enumerate(axes)]
        s = min(ratios) if policy == "not_larger" else max(ratios)
        for d in axes:
            scale[d], width[d], out[d] = s, s * n_in[d], int(np.floor(s * n_in[d] + 0.5))  # round_int: halves up
    y = x.astype(np.float64)
    for d in range(r):
        if out[d] == n_in[d] and scale[d] == 1.0 and rois[d] == (0.0, 1.0):
            continue
        w = resize_axis_weights(n_in[d], out[d], scale[d], width[d], mode, ctm, antialias, cubic_a, exclude_outside,
                                rois[d])
        y = np.moveaxis(np.tensordot(w, np.moveaxis(y, d, 0), axes=1), 0, d)
    y = np.where(np.isnan(y), extrapolation, y)
    return y.astype(x.dtype)


def resize_case(name, x, scales=None, sizes=None, roi=None, opset=18, **attrs):
    spec_kw = dict(mode=attrs.get("mode", "nearest"), ctm=attrs.get("coordinate_transformation_mode", "half_pixel"),
                   antialias=attrs.get("antialias", 0), policy=attrs.get("keep_aspect_ratio_policy", "stretch"),
                   cubic_a=attrs.get("cubic_coeff_a", -0.75), exclude_outside=attrs.get("exclude_outside", 0),
                   axes=attrs.get("axes"))
    f32 = np.float32
    inits = [("roi", np.array(roi if roi is not None else [], f32)),
             ("scales", np.array(scales if scales is not None else [], f32))]
    if sizes is not None:
        inits.append(("sizes", np.array(sizes, np.int64)))
    case(name, "Resize", [("x", x)], opset=opset, inits=inits, attrs=attrs,
         ref=lambda x: resize_spec(x, scales=scales, sizes=sizes, roi=roi, **spec_kw))


resize_case("test_opset18_resize_antialias_linear_downscale_scales", r(1, 2, 8, 10), scales=[1, 1, 0.5, 0.6],
            mode="linear", antialias=1)
resize_case("test_opset18_resize_antialias_linear_downscale_sizes", r(1, 1, 7, 9), sizes=[1, 1, 3, 4],
            mode="linear", antialias=1)
resize_case("test_opset18_resize_antialias_cubic_downscale", r(1, 2, 9, 8), scales=[1, 1, 0.4, 0.55],
            mode="cubic", antialias=1)
resize_case("test_opset18_resize_antialias_cubic_downscale_exclude_outside", r(1, 1, 7, 8), sizes=[1, 1, 3, 3],
            mode="cubic", antialias=1, exclude_outside=1)
# H shrinks (the kernel widens), W grows (antialias has no effect there).
resize_case("test_opset18_resize_antialias_linear_down_and_up", r(1, 1, 6, 5), scales=[1, 1, 0.5, 1.6],
            mode="linear", antialias=1)
resize_case("test_opset18_resize_antialias_cubic_down_and_up", r(1, 1, 7, 4), sizes=[1, 1, 3, 7],
            mode="cubic", antialias=1)
# One scale for H and W: min (not_larger) or max (not_smaller) of 4/6 and 7/8.
resize_case("test_opset18_resize_keep_aspect_not_larger", r(1, 2, 6, 8), sizes=[4, 7], mode="linear",
            axes=[2, 3], keep_aspect_ratio_policy="not_larger")
resize_case("test_opset18_resize_keep_aspect_not_smaller", r(1, 2, 6, 8), sizes=[4, 7], mode="linear",
            axes=[2, 3], keep_aspect_ratio_policy="not_smaller")
# Without axes every axis takes part: max(1/1, 1/1, 8/5, 8/3) scales N and C too (1 -> round(2.67) = 3).
resize_case("test_opset18_resize_keep_aspect_not_smaller_nearest", r(1, 1, 5, 3), sizes=[1, 1, 8, 8],
            keep_aspect_ratio_policy="not_smaller")
resize_case("test_opset18_resize_axes_scales", r(1, 2, 4, 5), scales=[2, 1.5], mode="linear", axes=[2, 3])
resize_case("test_opset18_resize_axes_negative_sizes", r(2, 3, 5), sizes=[8], mode="linear", axes=[-1])
resize_case("test_opset18_resize_axes_crop_and_resize", r(1, 1, 5, 6), sizes=[3, 4], roi=[0.2, -0.1, 0.9, 0.8],
            mode="linear", axes=[2, 3], coordinate_transformation_mode="tf_crop_and_resize")
resize_case("test_opset19_resize_half_pixel_symmetric_linear_up", r(1, 1, 4, 5), scales=[1, 1, 1.7, 2.3], opset=19,
            mode="linear", coordinate_transformation_mode="half_pixel_symmetric")
resize_case("test_opset19_resize_half_pixel_symmetric_linear_down", r(1, 1, 7, 9), scales=[1, 1, 0.6, 0.7],
            opset=19, mode="linear", coordinate_transformation_mode="half_pixel_symmetric")
resize_case("test_opset19_resize_half_pixel_symmetric_keep_aspect", r(1, 1, 5, 7), sizes=[3, 3], opset=19,
            mode="linear", axes=[2, 3], keep_aspect_ratio_policy="not_larger",
            coordinate_transformation_mode="half_pixel_symmetric")
resize_case("test_opset18_resize_antialias_linear_downscale_fp16", r(1, 1, 6, 8, dtype=np.float16),
            sizes=[1, 1, 3, 5], mode="linear", antialias=1)


# ---- Col2Im-18, CenterCropPad-18, LpPool-18/11/2 (issue 20 item 1) --------------------------------
def col2im_ref(image, block, dilations=None, pads=None, strides=None):
    """Col2Im-18 (spec text): column blocks [N, C*prod(block), L] summed back into [N, C, *image]."""
    n = len(image)
    d = dilations or [1] * n
    s = strides or [1] * n
    p = pads or [0] * (2 * n)
    nblk = [(image[i] + p[i] + p[n + i] - (d[i] * (block[i] - 1) + 1)) // s[i] + 1 for i in range(n)]

    def f(x):
        N, cb, L = x.shape
        C = cb // int(np.prod(block))
        assert L == int(np.prod(nblk))
        xr = x.astype(np.float64).reshape((N, C) + tuple(block) + tuple(nblk))
        y = np.zeros((N, C) + tuple(image))
        for k in np.ndindex(*block):
            for l in np.ndindex(*nblk):
                pos = [l[i] * s[i] - p[i] + k[i] * d[i] for i in range(n)]
                if all(0 <= pos[i] < image[i] for i in range(n)):
                    y[(slice(None), slice(None)) + tuple(pos)] += xr[(slice(None), slice(None)) + k + l]
        return y.astype(x.dtype)
    return f


def col2im_case(name, x, image, block, **attrs):
    case(name, "Col2Im", [("x", x)], opset=18, inits=[("image_shape", i64(*image)), ("block_shape", i64(*block))],
         attrs=attrs, ref=col2im_ref(image, block, attrs.get("dilations"), attrs.get("pads"), attrs.get("strides")))


col2im_case("test_opset18_col2im_2d", r(2, 12, 9), [4, 5], [2, 3])
col2im_case("test_opset18_col2im_pads_strides_dilations", r(1, 4, 9), [6, 7], [2, 2],
            dilations=[2, 1], pads=[1, 0, 1, 2], strides=[2, 3])
col2im_case("test_opset18_col2im_3d", r(1, 16, 12), [3, 4, 3], [2, 2, 2])
col2im_case("test_opset18_col2im_1d_strides", r(2, 6, 3), [7], [3], strides=[2])
col2im_case("test_opset18_col2im_fp16", r(1, 6, 9, dtype=np.float16), [4, 5], [2, 3])


def center_crop_pad_ref(shape, axes=None):
    """CenterCropPad-18 (spec text): crop start rounded down; padding split with the odd pixel at the end."""
    def f(x):
        ax = range(x.ndim) if axes is None else [a % x.ndim for a in axes]
        y = x
        for a, t in zip(ax, shape):
            dim = y.shape[a]
            if t < dim:
                st = (dim - t) // 2
                y = np.take(y, np.arange(st, st + t), axis=a)
            elif t > dim:
                widths = [(0, 0)] * y.ndim
                widths[a] = ((t - dim) // 2, t - dim - (t - dim) // 2)
                y = np.pad(y, widths)
        return y
    return f


def center_crop_pad_case(name, x, shape, axes=None, shape_dtype=np.int64):
    case(name, "CenterCropPad", [("x", x)], opset=18, inits=[("shape", np.array(shape, dtype=shape_dtype))],
         attrs={} if axes is None else dict(axes=axes), ref=center_crop_pad_ref(shape, axes))


center_crop_pad_case("test_opset18_center_crop_pad_crop", r(6, 7, 3), [4, 4, 3])
center_crop_pad_case("test_opset18_center_crop_pad_pad", r(3, 2, 2), [6, 5, 2])
center_crop_pad_case("test_opset18_center_crop_pad_crop_and_pad", r(7, 3, 4), [4, 6, 4])
center_crop_pad_case("test_opset18_center_crop_pad_axes_negative", r(3, 8, 5), [8, 5], axes=[-1, 1])
center_crop_pad_case("test_opset18_center_crop_pad_odd", r(2, 9), [5, 4])
center_crop_pad_case("test_opset18_center_crop_pad_int32", (r(4, 5) * 100).astype(np.int32), [3, 7])
# An int32 `shape` (Tind allows it); ONNX Runtime's expansion of the function body refuses it.
center_crop_pad_case("test_opset18_center_crop_pad_shape_int32", r(5, 4), [2, 6], shape_dtype=np.int32)


def lp_pool_ref(kernel, p=2, strides=None, pads=None, dilations=None, ceil_mode=0, auto_pad="NOTSET"):
    """LpPool-18 (spec text): (sum over the window of |x|^p) ^ (1/p), padding contributing zeros."""
    n = len(kernel)
    s = strides or [1] * n
    d = dilations or [1] * n
    pd = pads or [0] * (2 * n)

    def f(x):
        xd = np.abs(x.astype(np.float64))
        geo = []
        for i in range(n):
            D, ek = x.shape[2 + i], (kernel[i] - 1) * d[i] + 1
            if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
                o = -(-D // s[i])
                total = max(0, (o - 1) * s[i] + ek - D)
                b = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
            elif auto_pad == "VALID":
                o, b = (D - ek) // s[i] + 1, 0
            else:
                span = D + pd[i] + pd[n + i] - ek
                o, b = (-(-span // s[i]) if ceil_mode else span // s[i]) + 1, pd[i]
            geo.append((o, b))
        y = np.zeros(x.shape[:2] + tuple(o for o, _ in geo))
        for out in np.ndindex(*[o for o, _ in geo]):
            acc = np.zeros(x.shape[:2])
            for j in np.ndindex(*kernel):
                pos = [out[i] * s[i] - geo[i][1] + j[i] * d[i] for i in range(n)]
                if all(0 <= pos[i] < x.shape[2 + i] for i in range(n)):
                    acc += xd[(slice(None), slice(None)) + tuple(pos)] ** p
            y[(slice(None), slice(None)) + out] = acc ** (1.0 / p)
        return y.astype(x.dtype)
    return f


def lp_pool_case(name, x, kernel, opset=18, **attrs):
    ref_attrs = {k: v for k, v in attrs.items() if k in ("p", "strides", "pads", "dilations", "ceil_mode", "auto_pad")}
    case(name, "LpPool", [("x", x)], opset=opset, attrs=dict(kernel_shape=kernel, **attrs),
         ref=lp_pool_ref(kernel, **ref_attrs))


lp_pool_case("test_opset18_lp_pool_2d_default", r(1, 2, 5, 5), [3, 3])
lp_pool_case("test_opset18_lp_pool_p1", r(1, 2, 6, 6), [2, 2], strides=[2, 2], p=1)
lp_pool_case("test_opset18_lp_pool_p3_pads", r(1, 2, 5, 5), [3, 3], pads=[1, 1, 1, 1], p=3)
lp_pool_case("test_opset18_lp_pool_ceil_mode", r(1, 2, 6, 7), [3, 3], strides=[2, 2], ceil_mode=1)
lp_pool_case("test_opset18_lp_pool_dilations", r(1, 2, 7, 7), [2, 2], dilations=[2, 3])
lp_pool_case("test_opset18_lp_pool_same_upper", r(1, 2, 5, 6), [3, 2], strides=[2, 2], auto_pad="SAME_UPPER")
lp_pool_case("test_opset18_lp_pool_1d", r(2, 3, 9), [3], strides=[2])
lp_pool_case("test_opset18_lp_pool_3d", r(1, 2, 4, 4, 4), [2, 2, 2])
lp_pool_case("test_opset18_lp_pool_fp16", r(1, 2, 5, 5, dtype=np.float16), [2, 2], p=2)
lp_pool_case("test_opset11_lp_pool", r(1, 2, 5, 5), [2, 3], opset=11, strides=[1, 2], pads=[0, 1, 1, 0], p=2)
lp_pool_case("test_opset2_lp_pool", r(1, 2, 4, 4), [2, 2], opset=2, p=1)


# ---- GridSample-20 N-D, AffineGrid-20, DeformConv-19 (issue 20 item 1) -----------------------------
# numpy references from the changelog entries GridSample-20, AffineGrid-20 and DeformConv-19 (with
# PyTorch's conventions, which GridSample-20 names: padding applied to the sampling point for
# linear and nearest, round half to even for nearest).
def gs_unnormalize(g, size, align):
    return (g + 1) / 2 * (size - 1) if align else ((g + 1) * size - 1) / 2


def gs_reflect(v, twice_lo, twice_hi):
    if twice_lo == twice_hi:
        return 0.0
    lo, span = twice_lo / 2, (twice_hi - twice_lo) / 2
    v = abs(v - lo)
    flips, extra = np.floor(v / span), np.fmod(v, span)
    return extra + lo if flips % 2 == 0 else span - extra + lo


def gs_pad(v, size, pad, align):
    if pad == "border":
        return min(max(v, 0.0), size - 1.0)
    if pad == "reflection":
        v = gs_reflect(v, 0, 2.0 * (size - 1)) if align else gs_reflect(v, -1, 2.0 * size - 1)
        return min(max(v, 0.0), size - 1.0)
    return v


def grid_sample_nd(x, grid, mode="linear", pad="zeros", align=0):
    """N-linear or nearest GridSample of x [N, C, D1..Dr] at grid [N, O1..Or, r] (innermost axis first)."""
    x64, g64 = x.astype(np.float64), grid.astype(np.float64)
    n, c, sp = x.shape[0], x.shape[1], x.shape[2:]
    r = len(sp)
    out_sp = grid.shape[1:-1]
    y = np.zeros((n, c) + out_sp)
    for b in range(n):
        for o in np.ndindex(*out_sp):
            pos = [gs_pad(gs_unnormalize(g64[(b,) + o + (r - 1 - a,)], sp[a], align), sp[a], pad, align)
                   for a in range(r)]  # pos[a]: pixel coordinate along spatial axis a
            if mode == "nearest":
                idx = [int(np.rint(p)) for p in pos]
                if all(0 <= i < s for i, s in zip(idx, sp)):
                    y[(b, slice(None)) + o] = x64[(b, slice(None)) + tuple(idx)]
                continue
            lo = [int(np.floor(p)) for p in pos]
            for corner in np.ndindex(*([2] * r)):
                idx = [l + k for l, k in zip(lo, corner)]
                if not all(0 <= i < s for i, s in zip(idx, sp)):
                    continue
                wt = np.prod([(p - l) if k else (l + 1 - p) for p, l, k in zip(pos, lo, corner)])
                y[(b, slice(None)) + o] += wt * x64[(b, slice(None)) + tuple(idx)]
    return y.astype(x.dtype)


gx5 = r(2, 2, 3, 4, 5)
gg5 = RNG.uniform(-1.3, 1.3, (2, 2, 3, 4, 3)).astype(np.float32)
gg5_far = RNG.uniform(-3.2, 3.2, (2, 2, 3, 4, 3)).astype(np.float32)
for mode in ("linear", "nearest"):
    for pad in ("zeros", "border", "reflection"):
        for align in (0, 1):
            g = gg5_far if pad == "reflection" else gg5
            case("test_opset20_grid_sample_5d_%s_%s_align%d" % (mode, pad, align), "GridSample",
                 [("x", gx5), ("grid", g)], opset=20, attrs=dict(mode=mode, padding_mode=pad, align_corners=align),
                 ref=lambda x, g, mode=mode, pad=pad, align=align: grid_sample_nd(x, g, mode, pad, align))
case("test_opset20_grid_sample_5d_fp16", "GridSample", [("x", gx5.astype(np.float16)), ("grid", gg5.astype(np.float16))],
     opset=20, attrs=dict(mode="linear", padding_mode="border", align_corners=0),
     ref=lambda x, g: grid_sample_nd(x.astype(np.float32), g.astype(np.float32), "linear", "border", 0).astype(np.float16))
# 4-D with the -20 names and the attributes the -16 cases of the ONNX suite leave out together.
gx4 = r(1, 2, 5, 6)
gg4 = RNG.uniform(-1.4, 1.4, (1, 4, 3, 2)).astype(np.float32)
case("test_opset20_grid_sample_4d_linear_reflection_align1", "GridSample", [("x", gx4), ("grid", gg4)], opset=20,
     attrs=dict(mode="linear", padding_mode="reflection", align_corners=1),
     ref=lambda x, g: grid_sample_nd(x, g, "linear", "reflection", 1))
case("test_opset20_grid_sample_4d_cubic_border_align1", "GridSample", [("x", gx4), ("grid", gg4)], opset=20,
     attrs=dict(mode="cubic", padding_mode="border", align_corners=1))


def affine_base(size, align):
    i = np.arange(size, dtype=np.float64)
    if align:
        return np.full(1, -1.0) if size == 1 else -1 + 2 * i / (size - 1)
    return (2 * i + 1 - size) / size


def affine_grid(theta, size, align):
    """grid[n, (d,) h, w] = theta[n] @ (x_w, y_h, (z_d,) 1)."""
    sp = [int(s) for s in size[2:]]
    axes = [affine_base(s, align) for s in sp]  # outermost first
    mesh = np.meshgrid(*axes, indexing="ij")
    pts = np.stack([m for m in reversed(mesh)] + [np.ones(sp)], axis=-1)  # (..., x, y, (z,) 1)
    return np.einsum("nkj,...j->n...k", theta.astype(np.float64), pts).astype(theta.dtype)


th2 = (np.eye(2, 3) + 0.2 * r(3, 2, 3)).astype(np.float32)
th3 = (np.eye(3, 4) + 0.2 * r(2, 3, 4)).astype(np.float32)
for align in (0, 1):
    case("test_opset20_affine_grid_2d_align%d" % align, "AffineGrid", [("theta", th2)], opset=20,
         inits=[("size", i64(3, 2, 4, 5))], attrs=dict(align_corners=align),
         ref=lambda t, align=align: affine_grid(t, (3, 2, 4, 5), align))
    case("test_opset20_affine_grid_3d_align%d" % align, "AffineGrid", [("theta", th3)], opset=20,
         inits=[("size", i64(2, 1, 3, 4, 5))], attrs=dict(align_corners=align),
         ref=lambda t, align=align: affine_grid(t, (2, 1, 3, 4, 5), align))
# theta in multiples of 1/8 and sizes 4 and 8: every product and sum is exact in float16, so ONNX
# Runtime's float16 arithmetic and tare's float computation (rounded once) give the same values.
case("test_opset20_affine_grid_fp16", "AffineGrid", [("theta", (np.round(th2 * 8) / 8).astype(np.float16))], opset=20,
     inits=[("size", i64(3, 2, 4, 8))], attrs=dict(align_corners=0),
     ref=lambda t: affine_grid(t.astype(np.float32), (3, 2, 4, 8), 0).astype(np.float16))
# A spatial transformer: AffineGrid -> GridSample (2-D and 3-D).
stx2 = r(3, 2, 5, 6)
case("test_opset20_affine_grid_to_grid_sample_2d", "AffineGrid", [("theta", th2), ("x", stx2)], opset=20, out_types=[F32],
     inits=[("size", i64(3, 2, 4, 5))],
     nodes=[helper.make_node("AffineGrid", ["theta", "size"], ["g"], align_corners=0),
            helper.make_node("GridSample", ["x", "g"], ["y"], mode="linear", padding_mode="zeros", align_corners=0)],
     ref=lambda t, x: grid_sample_nd(x, affine_grid(t, (3, 2, 4, 5), 0), "linear", "zeros", 0))
stx3 = r(2, 2, 3, 4, 4)
case("test_opset20_affine_grid_to_grid_sample_3d", "AffineGrid", [("theta", th3), ("x", stx3)], opset=20, out_types=[F32],
     inits=[("size", i64(2, 2, 3, 3, 4))],
     nodes=[helper.make_node("AffineGrid", ["theta", "size"], ["g"], align_corners=1),
            helper.make_node("GridSample", ["x", "g"], ["y"], mode="linear", padding_mode="border", align_corners=1)],
     ref=lambda t, x: grid_sample_nd(x, affine_grid(t, (2, 2, 3, 3, 4), 1), "linear", "border", 1))


def bilinear_zero(img, ph, pw):
    h, w = img.shape
    h0, w0 = int(np.floor(ph)), int(np.floor(pw))
    v = 0.0
    for hh, wh in ((h0, h0 + 1 - ph), (h0 + 1, ph - h0)):
        for ww, wv in ((w0, w0 + 1 - pw), (w0 + 1, pw - w0)):
            if 0 <= hh < h and 0 <= ww < w:
                v += wh * wv * img[hh, ww]
    return v


def deform_conv(x, w, off, b=None, mask=None, strides=(1, 1), pads=(0, 0, 0, 0), dil=(1, 1), group=1, og=1):
    """DeformConv-19 in double: bilinear samples (zero outside) at the offset kernel taps."""
    x64, w64, off64 = x.astype(np.float64), w.astype(np.float64), off.astype(np.float64)
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    oh = (h + pads[0] + pads[2] - ((kh - 1) * dil[0] + 1)) // strides[0] + 1
    ow = (wd + pads[1] + pads[3] - ((kw - 1) * dil[1] + 1)) // strides[1] + 1
    off64 = off64.reshape(n, og, kh, kw, 2, oh, ow)
    mk = np.ones((n, og, kh, kw, oh, ow)) if mask is None else mask.astype(np.float64).reshape(n, og, kh, kw, oh, ow)
    cols = np.zeros((n, c, kh, kw, oh, ow))
    for bi, ci, i, j, p, q in np.ndindex(n, c, kh, kw, oh, ow):
        g = ci // (c // og)
        ph = p * strides[0] - pads[0] + i * dil[0] + off64[bi, g, i, j, 0, p, q]
        pw = q * strides[1] - pads[1] + j * dil[1] + off64[bi, g, i, j, 1, p, q]
        cols[bi, ci, i, j, p, q] = bilinear_zero(x64[bi, ci], ph, pw) * mk[bi, g, i, j, p, q]
    y = np.zeros((n, m, oh, ow))
    mg = m // group
    for mi in range(m):
        gi = mi // mg
        y[:, mi] = np.einsum("nckl...,ckl->n...", cols[:, gi * cg:(gi + 1) * cg], w64[mi])
    if b is not None:
        y += b.astype(np.float64)[None, :, None, None]
    return y.astype(x.dtype)


dx = r(1, 4, 5, 6)
dw = r(3, 4, 3, 3, scale=0.5)
db = r(3)
zero_off = np.zeros((1, 18, 3, 4), np.float32)
case("test_opset19_deform_conv_zero_offset", "DeformConv", [("x", dx), ("w", dw), ("offset", zero_off)], opset=19,
     attrs=dict(kernel_shape=[3, 3]), ref=lambda x, w, o: conv2d(x, w, np.zeros(3), 0).astype(np.float32))
doff = r(1, 18, 3, 4, scale=1.5)
case("test_opset19_deform_conv_offsets", "DeformConv", [("x", dx), ("w", dw), ("offset", doff)], opset=19,
     ref=lambda x, w, o: deform_conv(x, w, o))
dmask = RNG.uniform(0, 1, (1, 9, 3, 4)).astype(np.float32)
case("test_opset19_deform_conv_mask", "DeformConv", [("x", dx), ("w", dw), ("offset", doff), ("mask", dmask)],
     opset=19, nodes=[helper.make_node("DeformConv", ["x", "w", "offset", "", "mask"], ["y"])],
     ref=lambda x, w, o, mk: deform_conv(x, w, o, mask=mk))
case("test_opset19_deform_conv_bias", "DeformConv", [("x", dx), ("w", dw), ("offset", doff), ("b", db)], opset=19,
     ref=lambda x, w, o, b: deform_conv(x, w, o, b))
case("test_opset19_deform_conv_bias_mask", "DeformConv",
     [("x", dx), ("w", dw), ("offset", doff), ("b", db), ("mask", dmask)], opset=19,
     ref=lambda x, w, o, b, mk: deform_conv(x, w, o, b, mk))
dw_g2 = r(4, 2, 3, 3, scale=0.5)
case("test_opset19_deform_conv_group2", "DeformConv", [("x", dx), ("w", dw_g2), ("offset", doff)], opset=19,
     attrs=dict(group=2), ref=lambda x, w, o: deform_conv(x, w, o, group=2))
doff2 = r(1, 36, 3, 4, scale=1.5)
dmask2 = RNG.uniform(0, 1, (1, 18, 3, 4)).astype(np.float32)
case("test_opset19_deform_conv_offset_group2", "DeformConv", [("x", dx), ("w", dw), ("offset", doff2), ("b", db),
                                                              ("mask", dmask2)], opset=19,
     attrs=dict(offset_group=2), ref=lambda x, w, o, b, mk: deform_conv(x, w, o, b, mk, og=2))
dx2 = r(2, 4, 7, 8)
dw2 = r(4, 2, 2, 3, scale=0.5)
doff3 = r(2, 2 * 6 * 2, 4, 3, scale=1.0)
case("test_opset19_deform_conv_strides_pads_dilations", "DeformConv", [("x", dx2), ("w", dw2), ("offset", doff3)],
     opset=19, attrs=dict(strides=[2, 3], pads=[1, 2, 2, 0], dilations=[2, 1], group=2, offset_group=2),
     ref=lambda x, w, o: deform_conv(x, w, o, strides=(2, 3), pads=(1, 2, 2, 0), dil=(2, 1), group=2, og=2))
case("test_opset19_deform_conv_fp16", "DeformConv",
     [("x", dx.astype(np.float16)), ("w", dw.astype(np.float16)), ("offset", doff.astype(np.float16)),
      ("b", db.astype(np.float16)), ("mask", dmask.astype(np.float16))], opset=19,
     ref=lambda x, w, o, b, mk: deform_conv(x.astype(np.float32), w.astype(np.float32), o.astype(np.float32),
                                            b.astype(np.float32), mk.astype(np.float32)).astype(np.float16))
# GridSample-20's text includes N-cubic ("The cubic mode also includes N-cubic interpolation modes"):
# 4 taps per axis, Keys kernel A = -0.75, the padding applied to each tap as in the 4-D bicubic form.


def keys_cubic_taps(t, a=-0.75):
    def near(d):
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def grid_sample_cubic_nd(x, grid, pad="zeros", align=0):
    x64, g64 = x.astype(np.float64), grid.astype(np.float64)
    n, sp = x.shape[0], x.shape[2:]
    r = len(sp)
    out_sp = grid.shape[1:-1]
    y = np.zeros((n, x.shape[1]) + out_sp)
    for b in range(n):
        for o in np.ndindex(*out_sp):
            pos = [gs_unnormalize(g64[(b,) + o + (r - 1 - a,)], sp[a], align) for a in range(r)]
            lo = [np.floor(p) for p in pos]
            wts = [keys_cubic_taps(p - l) for p, l in zip(pos, lo)]
            for taps in np.ndindex(*([4] * r)):
                idx = [gs_pad(l - 1 + k, s, pad, align) for l, k, s in zip(lo, taps, sp)]
                if not all(0 <= i < s for i, s in zip(idx, sp)):
                    continue
                wt = np.prod([w[k] for w, k in zip(wts, taps)])
                y[(b, slice(None)) + o] += wt * x64[(b, slice(None)) + tuple(int(i) for i in idx)]
    return y.astype(x.dtype)


for pad, align in (("zeros", 0), ("border", 1), ("reflection", 0)):
    case("test_opset20_grid_sample_5d_cubic_%s_align%d" % (pad, align), "GridSample", [("x", gx5), ("grid", gg5)],
         opset=20, attrs=dict(mode="cubic", padding_mode=pad, align_corners=align),
         ref=lambda x, g, pad=pad, align=align: grid_sample_cubic_nd(x, g, pad, align))


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

# ---- NaN through blocked layouts (issue 20 item 4, the onednn guard) ----------------------------------
# A NaN made inside the graph (by a Conv of an input that holds one) reaches a MaxPool and a Relu that
# read the Conv's output in the layout its primitive chose (oneDNN: channel-blocked for 16 channels),
# and a Softmax after a Flatten: each guarded step must scan the blocked buffer and reorder it back.
bx = r(1, 4, 6, 6)
bx[0, 1, 2, 3] = NAN
bx[0, 3, 5, 5] = INF
bw, bbias = r(16, 4, 3, 3, scale=0.3), r(16)
spec("test_nan_conv_blocked_max_pool_relu", "Conv", [("x", bx)],
     lambda x: np.maximum(pool2d(conv2d(x, bw, bbias, 1).astype(np.float32), 2, 2, 0, np.max, 0), 0), opset=13,
     inits=[("w", bw), ("b", bbias)],
     nodes=[helper.make_node("Conv", ["x", "w", "b"], ["t"], pads=[1, 1, 1, 1]),
            helper.make_node("MaxPool", ["t"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
            helper.make_node("Relu", ["p"], ["y"])])

# ---- bfloat16 on the fast backends (issue 20 item 2: WidePartition) ----------------------------------
# Each bfloat16 op is computed in float32 and its output rounded once to nearest even. The Add's sums
# lie 3/4, 1/4 and exactly 1/2 of a bfloat16 ULP above a bfloat16 value (ties go to even), so a
# truncating rounding fails the case. ONNX Runtime (onnxruntime-node) has no bfloat16 tensors: the
# expected values come from numpy (BF16 rounds to nearest even).
q = 2.0 ** -7  # the bfloat16 ULP at [1, 2)
ba = BF16(np.array([1.0, 1.0, 1.0, 1.0 + q, -1.0, 3.0], np.float32))
bb = BF16(np.array([0.75 * q, 0.25 * q, 0.5 * q, 0.5 * q, -0.75 * q, 1.5 * q], np.float32))
case("test_bf16_add_rounding", "Add", [("a", ba), ("b", bb)], opset=14,
     ref=lambda a, b: BF16(a.astype(np.float32) + b.astype(np.float32)).values)
bcx, bcw, bcb = BF16(r(1, 3, 6, 6)), BF16(r(8, 3, 3, 3, scale=0.3)), BF16(r(8))
case("test_bf16_conv_relu", "Conv", [("x", bcx)], opset=13, inits=[("w", bcw), ("b", bcb)],
     nodes=[helper.make_node("Conv", ["x", "w", "b"], ["t"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["t"], ["y"])],
     ref=lambda x: BF16(np.maximum(BF16(conv2d(x, bcw.values, bcb.values, 1).astype(np.float32)).values, 0)).values)
case("test_bf16_max_pool", "MaxPool", [("x", BF16(r(1, 2, 6, 6)))], opset=12,
     attrs=dict(kernel_shape=[2, 2], strides=[2, 2]), ref=lambda x: BF16(pool2d(x, 2, 2, 0, np.max, 0)).values)
bgw, bgb = BF16(r(5, 8)), BF16(r(5))
case("test_bf16_gemm", "Gemm", [("a", BF16(r(3, 8)))], opset=13, inits=[("w", bgw), ("c", bgb)], attrs=dict(transB=1),
     ref=lambda a: BF16(a.astype(np.float32) @ bgw.values.T + bgb.values).values)
