#!/usr/bin/env bash
# Installs what is needed, builds, and runs every test (ctest prints the summary last).
set -euo pipefail
cd "$(dirname "$0")/../.."
platforms/debian/build.sh
# Published models (in npm packages, not committed) for the model.silero_*, model.tflite_* and
# model.tfjs_corpus.* tests.
bash tests/models/silero/fetch.sh build/corpus
bash tests/models/tflite/fetch.sh build/corpus
bash tests/models/tfjs/fetch.sh build/corpus
# The peers tare compare --peer runs (onnxruntime-node, LiteRT.js, TF.js) for cli.compare_peer.
[ -d bench/peers/node_modules/onnxruntime-node ] ||
  (cd bench/peers && npm install --ignore-scripts --no-audit --no-fund --loglevel=error)
# The vulkan tests run on lavapipe (Mesa's Vulkan on the CPU) unless VK_ICD_FILENAMES already names
# a driver; without any Vulkan driver they report skipped. LP_NUM_THREADS=1 is set per test.
lvp=/usr/share/vulkan/icd.d/lvp_icd.$(uname -m).json
if [[ -z ${VK_ICD_FILENAMES:-} && -f $lvp ]]; then export VK_ICD_FILENAMES=$lvp; fi
cd build
exec ctest --output-on-failure -j "$(nproc)"
