#!/usr/bin/env bash
# Installs what is needed, builds, and runs every test (ctest prints the summary last).
set -euo pipefail
cd "$(dirname "$0")/../.."
platforms/debian/build.sh
cd build
exec ctest --output-on-failure -j "$(nproc)"
