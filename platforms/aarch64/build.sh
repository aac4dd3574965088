#!/usr/bin/env bash
# Cross-compiles tare for aarch64 into build-aarch64/ (build-aarch64/tare, the tests), after
# platforms/aarch64/setup.sh. Release with -O2: GCC 12.2's aarch64 vectorizer crashes (an ICE in
# vect_transform_reduction) on a double max-reduction at -O3 (docs/PLATFORMS.md).
#   platforms/aarch64/build.sh [CMAKE_ARG ...]     log: build-aarch64.log
set -euo pipefail
cd "$(dirname "$0")/../.."
B=build-aarch64; LOG=build-aarch64.log
platforms/aarch64/setup.sh
cmake -S . -B "$B" -G Ninja -DCMAKE_TOOLCHAIN_FILE=platforms/aarch64/toolchain.cmake -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DTARE_WERROR=ON -DTARE_REQUIRE_CORPUS=ON "$@" > "$LOG" 2>&1 || { cat "$LOG"; exit 1; }
cmake --build "$B" -j "$(nproc)" >> "$LOG" 2>&1 || { tail -50 "$LOG"; exit 1; }
echo "aarch64 build: ok ($B/tare; log in $LOG)"
