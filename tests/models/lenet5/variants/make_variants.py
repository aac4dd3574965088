#!/usr/bin/python3
"""Writes the two LeNet-5 variants `tare compare` is tested on (tests/cli/compare.sh), from the
committed export tests/models/lenet5/model.onnx:
  renamed.onnx             every node and tensor renamed (as another exporter would): same function
  pool2_pads_altered.onnx  /pool2/AveragePool pads [0,0,0,0] -> [1,1,0,0] (same output shape): the
                           models differ exactly at that layer
  opset13_renamed_pool2_altered.onnx  the altered model upgraded from opset 11 to 13 by ONNX's own
                           version converter (another tool), every tensor renamed: alignment must
                           go by structure across opsets
Usage: /usr/bin/python3 tests/models/lenet5/variants/make_variants.py (needs python3-onnx)."""
import os

import onnx
import onnx.version_converter

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "model.onnx")


def renamed(m, tensor_prefix, node_prefix):
    """Renames every node and tensor, as another exporter would."""
    names = {}
    for n in m.graph.node:
        for o in n.output:
            names[o] = "%s%d" % (tensor_prefix, len(names))
        n.name = "%s%d" % (node_prefix, len(names))
    for n in m.graph.node:
        n.input[:] = [names.get(x, x) for x in n.input]
        n.output[:] = [names.get(x, x) for x in n.output]
    for o in m.graph.output:
        o.name = names.get(o.name, o.name)
    return m


altered = onnx.load(SRC)
for n in altered.graph.node:
    if n.name == "/pool2/AveragePool":
        for a in n.attribute:
            if a.name == "pads":
                a.ints[:] = [1, 1, 0, 0]
onnx.save(altered, os.path.join(HERE, "pool2_pads_altered.onnx"))
onnx.save(renamed(onnx.load(SRC), "t", "n"), os.path.join(HERE, "renamed.onnx"))
upgraded = onnx.version_converter.convert_version(altered, 13)
onnx.save(renamed(upgraded, "v", "op"), os.path.join(HERE, "opset13_renamed_pool2_altered.onnx"))
