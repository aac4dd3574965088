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

m = onnx.load(SRC)
for n in m.graph.node:
    if n.name == "/pool2/AveragePool":
        for a in n.attribute:
            if a.name == "pads":
                a.ints[:] = [1, 1, 0, 0]
onnx.save(m, os.path.join(HERE, "pool2_pads_altered.onnx"))

m = onnx.load(SRC)
names = {}
for n in m.graph.node:
    for o in n.output:
        names[o] = "t%d" % len(names)
    n.name = "n%d" % len(names)
for n in m.graph.node:
    n.input[:] = [names.get(x, x) for x in n.input]
    n.output[:] = [names.get(x, x) for x in n.output]
for o in m.graph.output:
    o.name = names.get(o.name, o.name)
onnx.save(m, os.path.join(HERE, "renamed.onnx"))

def renamed(m):
    names = {}
    for n in m.graph.node:
        for o in n.output:
            names[o] = "v%d" % len(names)
        n.name = "op%d" % len(names)
    for n in m.graph.node:
        n.input[:] = [names.get(x, x) for x in n.input]
        n.output[:] = [names.get(x, x) for x in n.output]
    for o in m.graph.output:
        o.name = names.get(o.name, o.name)
    return m


m = onnx.load(os.path.join(HERE, "pool2_pads_altered.onnx"))
m = onnx.version_converter.convert_version(m, 13)
onnx.save(renamed(m), os.path.join(HERE, "opset13_renamed_pool2_altered.onnx"))

