#!/usr/bin/python3
"""Recomputes the quantized models here with TFLite's reference integer arithmetic, in Python integers,
and compares with LiteRT.js's committed outputs (expected/0_output.npy) and, for conv_fc_uint8, with
LiteRT.js's uint8 CONV_2D output (bench/peers/tflite_run.js --outputs, when node and bench/peers's
node_modules are there).

    /usr/bin/python3 tests/models/tflite_quant/check_reference.py

Everything (weights, biases, scales, zero points) is read from the .tflite files. Semantics, as in
TFLite's reference kernels (written from their documented behaviour, for checking the fixtures):
- QUANTIZE: q = clamp(round_half_away(x / scale) + zero_point), x / scale in float32.
- CONV_2D (SAME, stride 1, 3x3) and FULLY_CONNECTED: acc = bias + sum (x_q - x_zp) * (w_q - w_zp) in
  int32; effective scale m = in_scale * w_scale / out_scale (per channel for int8 CONV_2D: float64
  products of the float32 scales; per tensor: the float32 product in_scale * w_scale, then / out_scale
  in float64); m = q * 2^e with q in [0.5, 1) -> multiplier round_half_away(q * 2^31) (2^30 and e + 1
  when it reaches 2^31); y = RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(acc * 2^max(e, 0),
  multiplier), max(-e, 0)) + out_zp, clamped to the type's range (fused RELU: from out_zp).
- DEQUANTIZE: float32(scale * (q - zero_point)).
Prints one line per model; exit status 1 when a value differs.
"""

import json
import math
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "models", "tflite_ops"))
import make_fixtures as mf  # noqa: E402  (the .tflite reader)

f32 = np.float32


def round_half_away(v):
    return int(math.floor(v + 0.5)) if v >= 0 else -int(math.floor(-v + 0.5))


def quantize_multiplier(m):
    if m == 0:
        return 0, 0
    q, e = math.frexp(m)
    fixed = round_half_away(q * (1 << 31))
    if fixed == 1 << 31:
        fixed //= 2
        e += 1
    return fixed, e


def srdhm(a, b):  # SaturatingRoundingDoublingHighMul (no saturation case arises here)
    ab = a * b
    v = ab + ((1 << 30) if ab >= 0 else 1 - (1 << 30))
    return abs(v) // (1 << 31) * (1 if v >= 0 else -1)  # C++ division truncates toward zero


def rdbp(x, e):  # RoundingDivideByPOT
    mask = (1 << e) - 1
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> e) + (1 if (x & mask) > threshold else 0)


def requantize(acc, m):
    mult, e = quantize_multiplier(m)
    return rdbp(srdhm(acc * (1 << max(e, 0)), mult), max(-e, 0))


def quant_params(path):
    """Per tensor: (scales as float32, zero points) read from Tensor.quantization."""
    with open(path, "rb") as f:
        b = f.read()
    model = mf.Table(b, struct.unpack_from("<I", b, 0)[0])
    out = []
    for t in model.tables(2)[0].tables(0):
        q = t.table(4)
        if q is None:
            out.append(None)
            continue
        s_start, s_n = q.vec(2)
        z_start, z_n = q.vec(3)
        out.append(([f32(v) for v in struct.unpack_from("<%df" % s_n, b, s_start)],
                    list(struct.unpack_from("<%dq" % z_n, b, z_start))))
    return out


def check(name):
    path = os.path.join(HERE, name + ".tflite")
    tensors, _, _, ops = mf.read_tflite(path)
    qp = quant_params(path)
    codes = [op[0] for op in ops]
    if codes != [114, 3, 9, 6]:
        raise SystemExit("%s: expected QUANTIZE, CONV_2D, FULLY_CONNECTED, DEQUANTIZE" % name)
    u8 = name.endswith("uint8")
    lo, hi = (0, 255) if u8 else (-128, 127)
    x = np.load(os.path.join(HERE, name, "input_0.npy"))[0]
    H, W, C = x.shape
    (sx,), (zx,) = qp[ops[0][2][0]]
    xq = np.vectorize(lambda v: min(hi, max(lo, round_half_away(float(f32(v) / sx)) + zx)))(x).astype(np.int64)
    _, (xi, wi, bi), (ci,), _ = ops[1]
    w, b = tensors[wi][2].astype(np.int64), tensors[bi][2].astype(np.int64)
    ws, wz = qp[wi]
    (sc,), (zc,) = qp[ci]
    co, k = w.shape[0], w.shape[1]
    conv = np.zeros((H, W, co), dtype=np.int64)
    xp = np.pad(xq - zx, ((k // 2, k // 2), (k // 2, k // 2), (0, 0)))
    for o in range(co):
        c = o if len(ws) > 1 else 0
        m = float(sx) * float(ws[c]) / float(sc) if len(ws) > 1 else float(f32(sx * ws[0])) / float(sc)
        for h in range(H):
            for v in range(W):
                acc = int(((xp[h:h + k, v:v + k] * (w[o] - wz[c])).sum())) + int(b[o])
                conv[h, v, o] = min(hi, max(zc, requantize(acc, m) + zc))  # fused RELU
    _, (_, fi, fbi), (yi,), _ = ops[2]
    fw, fb = tensors[fi][2].astype(np.int64), tensors[fbi][2].astype(np.int64)
    (fs,), (fz,) = qp[fi]
    (so,), (zo,) = qp[yi]
    m = float(f32(sc * fs)) / float(so)
    flat = conv.reshape(-1) - zc
    yq = [min(hi, max(lo, requantize(int((flat * (fw[u] - fz)).sum()) + int(fb[u]), m) + zo)) for u in range(fw.shape[0])]
    y = np.array([f32(so) * f32(q - zo) for q in yq], dtype=np.float32)
    e = np.load(os.path.join(HERE, name, "expected", "0_output.npy")).reshape(-1)
    bad = int((y != e).sum())
    line = "%s: output codes %s, %d of %d values differ from LiteRT.js" % (name, yq, bad, y.size)
    if u8 and os.path.isdir(os.path.join(ROOT, "bench", "peers", "node_modules")):
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run(["node", os.path.join(ROOT, "bench", "peers", "tflite_run.js"), path,
                                os.path.join(HERE, name, "input_0.npy"), "--outputs", str(ci), "--out", tmp],
                               capture_output=True, text=True)
            if r.returncode == 0:
                cut = np.load(os.path.join(tmp, "cut_%d_%s.npy" % (ci, mf.safe(tensors[ci][0])))).reshape(conv.shape)
                diff = int((cut != conv).sum())
                bad += diff
                line += "; uint8 CONV_2D output: %d of %d codes differ" % (diff, conv.size)
    print(line)
    return bad == 0


if __name__ == "__main__":
    ok = [check(n) for n in ("conv_fc_int8", "conv_fc_uint8")]
    sys.exit(0 if all(ok) else 1)
