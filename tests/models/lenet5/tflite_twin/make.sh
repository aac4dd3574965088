#!/usr/bin/env bash
# Regenerates the TFLite twin of the committed LeNet-5 ONNX export and LiteRT.js's output on the
# committed input: model.tflite (written by tools/make_tflite_twin.cc from model.onnx's weights:
# NHWC, OHWI filters, PAD + VALID ops, TensorFlow-like tensor names) and expected/Identity.npy
# (@litertjs/core 2.5.3 through bench/peers/tflite_run.js; its logits are within rel L2 1e-7 of
# PyTorch's expected/logits.npy).
# Usage: make.sh BUILD_DIR   (BUILD_DIR holds tare_make_tflite_twin; bench/peers needs
#        `npm install --ignore-scripts`).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec bash "$here/../../../../tools/make_tflite_twin.sh" "$here/.." "${1:?usage: make.sh BUILD_DIR}"
