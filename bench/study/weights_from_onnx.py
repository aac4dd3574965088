#!/usr/bin/env python3
"""Writes OUT/weights.json (the format of bench/study/lenet5_bn.py) from the study's ONNX export.

usage: weights_from_onnx.py MODEL.onnx OUT

The PyTorch export keeps every parameter and BN running statistic as an initializer under its
state_dict name (conv1.weight, ..., bn1.running_var) and the BN epsilon as the node's attribute, so
bench/study/tfjs.js can rebuild the TF.js model from the committed fixture
tests/models/lenet5_bn/model.onnx without retraining: node bench/study/tfjs.js OUT --export-only.
"""
import json, os, sys

import numpy as np
import onnx
from onnx import numpy_helper


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    m = onnx.load(sys.argv[1])
    tensors = {}
    for t in m.graph.initializer:
        a = numpy_helper.to_array(t).astype(np.float32)
        tensors[t.name] = {"shape": list(a.shape), "data": [float(v) for v in a.ravel()]}
    eps = [a.f for n in m.graph.node if n.op_type == "BatchNormalization" for a in n.attribute if a.name == "epsilon"]
    os.makedirs(sys.argv[2], exist_ok=True)
    with open(os.path.join(sys.argv[2], "weights.json"), "w") as f:
        json.dump({"eps": {"bn1": float(eps[0]) if eps else 1e-5}, "tensors": tensors}, f)


main()
