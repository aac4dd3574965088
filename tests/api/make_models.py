"""Writes the tiny ONNX models of the C API tests (tests/api/c_api_test.cc), with onnx's helper:
  unsupported_op.onnx  one node of an op no converter knows (com.example FooBar)
  gather.onnx          Gather(data = 4 constants, indices = int64 input "i"): an index >= 4 fails at run time
  relu.onnx            one Relu on float32 [1, 16] (the per-run overhead benchmark, bench/c_api_overhead.cc)
Run: /usr/bin/python3 tests/api/make_models.py tests/api"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
g = helper.make_graph([helper.make_node("FooBar", ["x"], ["y"], domain="com.example")], "unsupported",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.example", 1)])
m.ir_version = 8
onnx.save(m, f"{out}/unsupported_op.onnx")

data = helper.make_tensor("data", TensorProto.FLOAT, [4], np.array([1, 2, 3, 4], np.float32))
g = helper.make_graph([helper.make_node("Gather", ["data", "i"], ["y"])], "gather",
                      [helper.make_tensor_value_info("i", TensorProto.INT64, [2])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])], initializer=[data])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
m.ir_version = 8
onnx.checker.check_model(m)
onnx.save(m, f"{out}/gather.onnx")

g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
m.ir_version = 8
onnx.checker.check_model(m)
onnx.save(m, f"{out}/relu.onnx")
