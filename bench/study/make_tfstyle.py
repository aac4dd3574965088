#!/usr/bin/python3
"""Writes OUT/tfstyle.onnx: the study's LeNet-5+BN with the same weights (OUT/weights.json, written
by bench/study/lenet5_bn.py), built by hand with onnx.helper in the style of a TensorFlow-to-ONNX
export: a genuinely different producer of the same function, for tare's layer alignment.

Usage:  /usr/bin/python3 bench/study/make_tfstyle.py OUT [--no-ort]

The graph (opset 13), as a Keras Sequential model converted by tf2onnx would look:
  input "x:0" float32 [unk__0,1,28,28] (the same NCHW input as OUT/lenet5_bn.onnx, so one input
  file feeds both models); for each of the two conv blocks (Keras names conv2d / conv2d_1,
  average_pooling2d / average_pooling2d_1):
      Conv without bias (".../Conv2D") -> Add of a [1,C,1,1] bias (".../BiasAdd")
      -> Transpose to NHWC (".../BiasAdd__nhwc") -> Relu in NHWC (".../Relu")
      -> Transpose back to NCHW (".../AvgPool__nchw") -> AveragePool 2x2 stride 2 (".../AvgPool")
  Reshape to [-1,400] of the NCHW tensor ("sequential/flatten/Reshape", so fc1's weight needs no
  permutation); dense layers as MatMul by the [in,out] kernel + Add of the bias (".../MatMul",
  ".../BiasAdd"); BatchNormalization (epsilon 1e-5, "sequential/batch_normalization/batchnorm");
  Relu ("sequential/activation/Relu", "sequential/dense_1/Relu"); output "Identity:0" [unk__0,10]
  = the logits, through an Identity node as tf2onnx ends its graphs. Initializers are named like
  TensorFlow's variable reads (".../Conv2D/ReadVariableOp:0").

Checks: onnx.checker (full check); a float64 numpy evaluation of this graph against PyTorch's
logits on OUT/input.npy (OUT/expected/logits.npy); and, unless --no-ort, ONNX Runtime
(bench/study/ort.js --run) on both OUT/lenet5_bn.onnx and OUT/tfstyle.onnx with OUT/input.npy:
the max abs logit difference must be < 1e-4 (it is printed).
"""

import argparse
import json
import os
import subprocess
import sys

import numpy as np
import onnx
import onnx.checker
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
TOL = 1e-4


def load_weights(path):
    with open(path) as f:
        w = json.load(f)
    return {k: np.array(v["data"], dtype=np.float32).reshape(v["shape"]) for k, v in w["tensors"].items()}, \
        w.get("eps", {}).get("bn1", 1e-5)


def build(w, eps):
    inits, nodes = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(op, name, inputs, **attrs):
        out = name + ":0"
        nodes.append(helper.make_node(op, inputs, [out], name=name, **attrs))
        return out

    x = "x:0"
    for conv, pool, key, pads in (("conv2d", "average_pooling2d", "conv1", [2, 2, 2, 2]),
                                  ("conv2d_1", "average_pooling2d_1", "conv2", [0, 0, 0, 0])):
        p = f"sequential/{conv}"
        kernel = w[f"{key}.weight"]
        x = node("Conv", f"{p}/Conv2D", [x, const(f"{p}/Conv2D/ReadVariableOp:0", kernel)],
                 kernel_shape=list(kernel.shape[2:]), strides=[1, 1], dilations=[1, 1], pads=pads)
        bias = w[f"{key}.bias"].reshape(1, -1, 1, 1)
        x = node("Add", f"{p}/BiasAdd", [x, const(f"{p}/BiasAdd/ReadVariableOp:0", bias)])
        x = node("Transpose", f"{p}/BiasAdd__nhwc", [x], perm=[0, 2, 3, 1])
        x = node("Relu", f"{p}/Relu", [x])
        q = f"sequential/{pool}"
        x = node("Transpose", f"{q}/AvgPool__nchw", [x], perm=[0, 3, 1, 2])
        x = node("AveragePool", f"{q}/AvgPool", [x], kernel_shape=[2, 2], strides=[2, 2])
    x = node("Reshape", "sequential/flatten/Reshape",
             [x, const("sequential/flatten/Const:0", np.array([-1, 400], dtype=np.int64))])

    def dense(x, layer, key):
        p = f"sequential/{layer}"
        x = node("MatMul", f"{p}/MatMul", [x, const(f"{p}/MatMul/ReadVariableOp:0", w[f"{key}.weight"].T)])
        return node("Add", f"{p}/BiasAdd", [x, const(f"{p}/BiasAdd/ReadVariableOp:0", w[f"{key}.bias"])])

    x = dense(x, "dense", "fc1")
    b = "sequential/batch_normalization/batchnorm"
    x = node("BatchNormalization", b,
             [x, const(f"{b}/mul/ReadVariableOp:0", w["bn1.weight"]),
              const(f"{b}/ReadVariableOp_2:0", w["bn1.bias"]),
              const(f"{b}/ReadVariableOp_1:0", w["bn1.running_mean"]),
              const(f"{b}/ReadVariableOp:0", w["bn1.running_var"])], epsilon=float(eps))
    x = node("Relu", "sequential/activation/Relu", [x])
    x = node("Relu", "sequential/dense_1/Relu", [dense(x, "dense_1", "fc2")])
    x = dense(x, "dense_2", "fc3")
    nodes.append(helper.make_node("Identity", [x], ["Identity:0"], name="Identity"))

    graph = helper.make_graph(
        nodes, "sequential",
        [helper.make_tensor_value_info("x:0", TensorProto.FLOAT, ["unk__0", 1, 28, 28])],
        [helper.make_tensor_value_info("Identity:0", TensorProto.FLOAT, ["unk__0", 10])],
        initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="tare bench/study/make_tfstyle.py",
                              producer_version="1",
                              doc_string="LeNet-5+BN written by hand in the style of a TensorFlow-to-ONNX "
                                         "export (not produced by TensorFlow or tf2onnx)")
    model.ir_version = 7  # what opset 13 exporters write
    return model


def evaluate(model, x):
    """A float64 evaluation of exactly the ops make_tfstyle writes (an independent check)."""
    env = {"x:0": x.astype(np.float64)}
    for t in model.graph.initializer:
        a = numpy_helper.to_array(t)
        env[t.name] = a if a.dtype == np.int64 else a.astype(np.float64)
    for n in model.graph.node:
        at = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        i = [env[v] for v in n.input]
        if n.op_type == "Conv":
            xi, k = i
            pt, pl, pb, pr = at["pads"][0], at["pads"][1], at["pads"][2], at["pads"][3]
            xp = np.pad(xi, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
            kh, kw = k.shape[2:]
            oh, ow = xp.shape[2] - kh + 1, xp.shape[3] - kw + 1
            y = np.zeros((xi.shape[0], k.shape[0], oh, ow))
            for dy in range(kh):
                for dx in range(kw):
                    y += np.einsum("nchw,oc->nohw", xp[:, :, dy:dy + oh, dx:dx + ow], k[:, :, dy, dx])
        elif n.op_type == "Add":
            y = i[0] + i[1]
        elif n.op_type == "Transpose":
            y = np.transpose(i[0], at["perm"])
        elif n.op_type == "Relu":
            y = np.maximum(i[0], 0)
        elif n.op_type == "AveragePool":
            a = i[0]
            y = a.reshape(a.shape[0], a.shape[1], a.shape[2] // 2, 2, a.shape[3] // 2, 2).mean(axis=(3, 5))
        elif n.op_type == "Reshape":
            y = i[0].reshape(i[1])
        elif n.op_type == "MatMul":
            y = i[0] @ i[1]
        elif n.op_type == "BatchNormalization":
            xi, g, b, m, v = i
            y = (xi - m) / np.sqrt(v + at["epsilon"]) * g + b
        elif n.op_type == "Identity":
            y = i[0]
        else:
            raise RuntimeError(f"evaluate: no {n.op_type}")
        env[n.output[0]] = y
    return env[model.graph.output[0].name]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--no-ort", action="store_true", help="skip the ONNX Runtime comparison")
    args = ap.parse_args()
    out = args.out
    w, eps = load_weights(os.path.join(out, "weights.json"))
    model = build(w, eps)
    onnx.checker.check_model(model, full_check=True)
    path = os.path.join(out, "tfstyle.onnx")
    onnx.save(model, path)
    print(f"[tfstyle] {path}: {len(model.graph.node)} nodes, "
          f"{' '.join(n.op_type for n in model.graph.node)}", flush=True)

    x = np.load(os.path.join(out, "input.npy"))
    expected = np.load(os.path.join(out, "expected", "logits.npy"))
    y64 = evaluate(model, x)
    d_np = float(np.abs(y64 - expected).max())
    print(f"[tfstyle] numpy float64 evaluation vs PyTorch on input.npy: max abs diff {d_np:.3g}", flush=True)
    ok = d_np < TOL
    if not args.no_ort:
        check = os.path.join(out, "check")
        os.makedirs(check, exist_ok=True)
        res = {}
        for name in ("lenet5_bn", "tfstyle"):
            dst = os.path.join(check, f"ort_{name}.npy")
            subprocess.run(["node", os.path.join(HERE, "ort.js"), "--run", os.path.join(out, f"{name}.onnx"),
                            os.path.join(out, "input.npy"), dst], check=True)
            res[name] = np.load(dst)
        d_ort = float(np.abs(res["lenet5_bn"] - res["tfstyle"]).max())
        print(f"[tfstyle] ONNX Runtime, tfstyle.onnx vs lenet5_bn.onnx on input.npy: max abs diff {d_ort:.3g}",
              flush=True)
        ok = ok and d_ort < TOL
    if not ok:
        sys.exit(f"[tfstyle] the hand-written graph differs from the export by {TOL:g} or more")


if __name__ == "__main__":
    main()
