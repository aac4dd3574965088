#!/usr/bin/python3
"""The float truth of the quantized models here, in numpy float64, for ctest model.tflite_quant.float_truth
(tare's ref64 runs a quantized model as the real-valued function its integers approximate).

    /usr/bin/python3 tests/models/tflite_quant/float_truth.py [--check]

Everything is read from the .tflite files (weights, biases, scales, zero points). The float truth:
- QUANTIZE and DEQUANTIZE are the identity: the float32 input goes in unrounded;
- CONV_2D (3x3, SAME, stride 1, fused RELU): weights (w - zero point) * scale (per output channel for
  int8, per tensor for uint8), bias b * input scale * weight scale of its channel (the scale TFLite's
  integer kernels give the int32 bias), relu(conv + bias), no rounding or clamping to the code range;
- FULLY_CONNECTED: the NHWC conv output flattened, times the dequantized weights, plus the bias
  dequantized by (conv output scale * weight scale).
Writes <model>/float_truth/output.npy (the model output [1, 6]) and <model>/float_truth/conv.npy
(the conv output, NHWC [1, 5, 7, 4]), float64, and float_truth.json (the manifest tare_tflite_check
reads with --manifest). --check compares with the committed files instead and exits 1 on a difference.
"""

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "models", "tflite_ops"))
import make_fixtures as mf  # noqa: E402  (the .tflite reader)
sys.path.insert(0, HERE)
import check_reference  # noqa: E402  (its Tensor.quantization reader)


def quant_params(path):
    """Per tensor: (scales as float64 arrays, zero points as int64 arrays), or None (check_reference's reader)."""
    return [None if q is None else (np.array(q[0], dtype=np.float64), np.array(q[1], dtype=np.int64))
            for q in check_reference.quant_params(path)]


def truth(name):
    path = os.path.join(HERE, name + ".tflite")
    tensors, _, _, ops = mf.read_tflite(path)
    qp = quant_params(path)
    if [op[0] for op in ops] != [114, 3, 9, 6]:
        raise SystemExit("%s: expected QUANTIZE, CONV_2D, FULLY_CONNECTED, DEQUANTIZE" % name)
    x = np.load(os.path.join(HERE, name, "input_0.npy")).astype(np.float64)[0]  # [H, W, C]
    H, W, _ = x.shape
    _, (xi, wi, bi), (ci,), _ = ops[1]
    sx = qp[xi][0][0]
    ws, wz = qp[wi]
    w = tensors[wi][2].astype(np.float64)  # [O, KH, KW, I]
    co, k = w.shape[0], w.shape[1]
    scale = ws if len(ws) > 1 else np.full(co, ws[0])
    zero = wz if len(wz) > 1 else np.full(co, wz[0])
    w_real = (w - zero[:, None, None, None]) * scale[:, None, None, None]
    b_real = tensors[bi][2].astype(np.float64) * sx * scale
    xp = np.pad(x, ((k // 2, k // 2), (k // 2, k // 2), (0, 0)))
    conv = np.zeros((H, W, co))
    for o in range(co):
        for h in range(H):
            for v in range(W):
                conv[h, v, o] = (xp[h:h + k, v:v + k] * w_real[o]).sum() + b_real[o]
    conv = np.maximum(conv, 0)
    _, (fxi, fi, fbi), _, _ = ops[2]
    sc = qp[fxi][0][0]
    (fs,), (fz,) = qp[fi]
    fw = (tensors[fi][2].astype(np.float64) - fz) * fs  # [units, K]
    fb = tensors[fbi][2].astype(np.float64) * sc * fs
    y = fw @ conv.reshape(-1) + fb
    return y.reshape(1, -1), conv.reshape(1, H, W, co), tensors[ci][0]


def main():
    check = "--check" in sys.argv[1:]
    manifest = {"reference": "numpy float64: tests/models/tflite_quant/float_truth.py", "models": {}}
    bad = 0
    for name in ("conv_fc_int8", "conv_fc_uint8"):
        y, conv, conv_name = truth(name)
        d = os.path.join(HERE, name, "float_truth")
        files = {"output.npy": y, "conv.npy": conv}
        for f, v in files.items():
            p = os.path.join(d, f)
            if check:
                ok = os.path.exists(p) and np.array_equal(np.load(p), v)
                bad += not ok
                print("%s %s/float_truth/%s" % ("same" if ok else "DIFFERS", name, f))
            else:
                os.makedirs(d, exist_ok=True)
                np.save(p, v)
        manifest["models"][name] = {
            "file": name + ".tflite",
            "covers": "float truth (dequantized weights, no requantization) of " + name,
            "inputs": [{"name": "input", "shape": [1, 5, 7, 3], "file": name + "/input_0.npy"}],
            "outputs": [{"index": 0, "name": "output", "shape": list(y.shape), "file": name + "/float_truth/output.npy",
                         "maxAbs": float(np.abs(y).max())}],
            # The NHWC conv output: the converter names it "<TFLite name>/nhwc" (the FC reads NHWC).
            "intermediates": [{"name": conv_name + "/nhwc", "shape": list(conv.shape), "file": name + "/float_truth/conv.npy",
                               "maxAbs": float(np.abs(conv).max())}],
        }
    if not check:
        with open(os.path.join(HERE, "float_truth.json"), "w") as f:
            json.dump(manifest, f, indent=1)
            f.write("\n")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
