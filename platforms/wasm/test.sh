#!/usr/bin/env bash
# Tests the WebAssembly module under node (issue 19, docs/PLATFORMS.md): builds it
# (platforms/wasm/build.sh) unless SKIP_BUILD=1, has the native build (build/, made by
# platforms/debian/build.sh when absent: the converters do not run in WebAssembly) write every
# case of the bit-identity manifests as .tare + .npy (tests/bitid/ref_hashes.cc --export: the
# model fixtures, the MediaPipe models fetched into build/corpus, the ONNX conformance cases, and
# the zoo exports when build/zoo has them), then runs platforms/wasm/test.js: every case on ref
# and ref64 under node, each output bit-identical to tests/bitid/ref.json and ref64.json.
# Ends with "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/../.."
[[ ${SKIP_BUILD:-} == 1 ]] || platforms/wasm/build.sh
[[ -x build/tests/tare_ref_hashes ]] || platforms/debian/build.sh
bash tests/models/tflite/fetch.sh build/corpus > /dev/null
W=build-wasm/models; rm -rf "$W"; mkdir -p "$W"
# Every case of the manifests that the native build can write as .tare + .npy inputs (the export
# also checks them natively against tests/bitid/ref.json), and ref64's native outputs, so that a
# difference is measured in ULP.
src=(--models fixture=tests/models --models zoo=build/zoo --tflite tests/models/tflite --corpus build/corpus
     --conformance /usr/share/libonnx-testdata/data)
build/tests/tare_ref_hashes --check tests/bitid/ref.json --backend ref "${src[@]}" --export "$W/cases" | tail -2
build/tests/tare_ref_hashes --check tests/bitid/ref64.json --backend ref64 "${src[@]}" --dump "$W/dump/ref64" > /dev/null || true
# Two one-node models with data-dependent shapes for test.js's 32-bit limit checks.
/usr/bin/python3 - "$W" <<'PY'
import sys
import onnx
from onnx import TensorProto, helper
w = sys.argv[1]
g = helper.make_graph([helper.make_node("ConstantOfShape", ["shape"], ["y"])], "cos",
                      [helper.make_tensor_value_info("shape", TensorProto.INT64, [1])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{w}/constant_of_shape.onnx")
g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N"])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N"])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{w}/relu_dynamic.onnx")
PY
for m in constant_of_shape relu_dynamic; do build/tare convert "$W/$m.onnx" -o "$W/$m.tare" > /dev/null; done
node platforms/wasm/test.js "$W/cases/cases.json" tests/bitid build-wasm/platforms/wasm "$W/dump"
