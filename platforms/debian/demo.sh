#!/usr/bin/env bash
# The main job on a model shipped in the repo: LeNet-5 trained in PyTorch on Fashion-MNIST,
# exported to ONNX. Converts it to .tare, runs it on ref64, ref and cpu, checks tare's outputs
# against PyTorch's own outputs on the same two test images, then lets `tare compare` judge PyTorch
# against tare's backends layer by layer (verdict, kernel noise floor, HTML report).
set -euo pipefail
cd "$(dirname "$0")/../.."
platforms/debian/build.sh
m=tests/models/lenet5
out=${TMPDIR:-/tmp}/tare-demo
rm -rf "$out" && mkdir -p "$out"
set -x
build/tare convert $m/model.onnx -o "$out/lenet5.tare"
build/tare inspect "$out/lenet5.tare"
for backend in ref64 ref cpu; do
  build/tare run "$out/lenet5.tare" --backend $backend --input $m/input.npy --output-dir "$out/$backend"
  build/tests/tare_check_outputs "$out/$backend" $m/expected
done
build/tare compare --model $m/model.onnx --expect pytorch=$m/expected --backends ref64,ref,cpu --input $m/input.npy \
  --html "$out/report.html" --json "$out/report.json"
