#!/usr/bin/env bash
# Regenerates the TFLite twin of the committed LeNet-5-BN export (the study's network, docs/STUDY.md)
# and LiteRT.js's output on the committed input: model.tflite (tools/make_tflite_twin.cc from
# model.onnx's weights, batch 2: NHWC, OHWI filters, PAD + VALID ops, the BatchNormalization after
# fc1 as MUL by gamma / sqrt(var + eps) and ADD of beta - mean * that, in float32, as TensorFlow's
# converter writes an unfused Keras BatchNormalization) and expected/Identity.npy (@litertjs/core
# 2.5.3 through bench/peers/tflite_run.js; within rel L2 1.6e-7 of PyTorch's expected/logits.npy).
# Example (a) of tare campaign runs it (bench/campaigns/frameworks_lenet5_bn.toml).
# Usage: make.sh BUILD_DIR   (BUILD_DIR holds tare_make_tflite_twin; bench/peers needs
#        `npm install --ignore-scripts`).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec bash "$here/../../../../tools/make_tflite_twin.sh" "$here/.." "${1:?usage: make.sh BUILD_DIR}" 2
