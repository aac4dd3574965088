#!/usr/bin/env bash
# Installs what is needed, builds, and runs every test (ctest prints the summary last).
set -euo pipefail
cd "$(dirname "$0")/../.."
platforms/debian/build.sh
# The Silero VAD models (published in an npm package, not committed) for the model.silero_* tests.
bash tests/models/silero/fetch.sh build/corpus
cd build
exec ctest --output-on-failure -j "$(nproc)"
