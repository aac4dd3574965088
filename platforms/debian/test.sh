#!/usr/bin/env bash
# Installs what is needed, builds, and runs every test (ctest prints the summary last).
set -euo pipefail
cd "$(dirname "$0")/../.."
platforms/debian/build.sh
# Published models (in npm packages, not committed) for the model.silero_* and model.tflite_* tests.
bash tests/models/silero/fetch.sh build/corpus
bash tests/models/tflite/fetch.sh build/corpus
cd build
exec ctest --output-on-failure -j "$(nproc)"
