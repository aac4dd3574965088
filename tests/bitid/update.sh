#!/usr/bin/env bash
# Rewrites tests/bitid/ref.json and ref64.json from this machine's build (do it on x86-64, after a
# change to a kernel that changes ref's bits on purpose), keeping their "about" and
# "known_differences". Needs build/ (platforms/debian/build.sh), the MediaPipe corpus in
# build/corpus (tests/models/tflite/fetch.sh build/corpus) and the zoo exports
# (tests/bitid/make_zoo.py build/zoo, which needs PyTorch: platforms/debian/setup.sh --fixtures).
set -euo pipefail
cd "$(dirname "$0")/../.."
for b in ref ref64; do
  build/tests/tare_ref_hashes --write tests/bitid/$b.json --backend $b --models fixture=tests/models --models zoo=build/zoo \
    --tflite tests/models/tflite --corpus build/corpus --conformance /usr/share/libonnx-testdata/data
done
