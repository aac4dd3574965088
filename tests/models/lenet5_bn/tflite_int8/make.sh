#!/usr/bin/env bash
# Regenerates the full-integer int8 TFLite twin of the committed LeNet-5-BN export and LiteRT.js's
# output on the committed input: model.tflite (tools/make_tflite_twin.cc --int8, batch 2), the
# post-training quantization TensorFlow Lite's converter writes with optimizations=[DEFAULT], a
# representative data set and float input and output: float NCHW input -> TRANSPOSE -> QUANTIZE ->
# int8 PAD / CONV_2D (per-channel symmetric int8 filters, int32 biases, Relu fused) / AVERAGE_POOL_2D
# / TRANSPOSE / RESHAPE / FULLY_CONNECTED (per-tensor symmetric int8 weights, int32 biases; the
# BatchNormalization after fc1 folded into fc1 in double, then its Relu fused) -> DEQUANTIZE ->
# float output "Identity"; activations asymmetric int8 from their min/max over the calibration set)
# and expected/Identity.npy (@litertjs/core 2.5.3 through bench/peers/tflite_run.js).
# Calibration set: the first 1000 Fashion-MNIST *training* images (pixels / 255, float32
# [1000,1,28,28]; the test images stay unseen), from /usr/share/datasets/fashion-mnist (Debian
# package dataset-fashion-mnist), written to a temporary CALIB.npy by /usr/bin/python3 with numpy.
# Usage: make.sh BUILD_DIR   (BUILD_DIR holds tare_make_tflite_twin; bench/peers needs
#        `npm install --ignore-scripts`).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: make.sh BUILD_DIR}
images=/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz
[ -f "$images" ] || { echo "make.sh: $images missing (apt-get install dataset-fashion-mnist)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 - "$images" "$tmp/calib.npy" <<'PY'
import gzip, sys
import numpy as np
with gzip.open(sys.argv[1]) as f:
    raw = f.read()
x = np.frombuffer(raw, np.uint8, offset=16).reshape(-1, 1, 28, 28)[:1000]
np.save(sys.argv[2], x.astype(np.float32) / np.float32(255))
PY
bash "$here/../../../../tools/make_tflite_twin.sh" "$here/.." "$build" 2 --int8 "$tmp/calib.npy"
