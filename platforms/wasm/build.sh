#!/usr/bin/env bash
# Builds tare's WebAssembly module into build-wasm/ (build-wasm/platforms/wasm/tare_wasm.js with
# tare.js beside it): the runtime layers, ref and ref64, the C API; no converters and no fast
# backends (docs/PLATFORMS.md). Log: build-wasm.log.
set -euo pipefail
cd "$(dirname "$0")/../.."
platforms/wasm/setup.sh
# Debian's emcc runs under the machine's node; a node from elsewhere (NodeSource) does not see
# Debian's node modules (acorn) without this.
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
B=build-wasm; LOG=build-wasm.log
emcmake cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTARE_WERROR=ON -DTARE_BUILD_TOOLS=OFF \
  -DTARE_BUILD_TESTS=OFF -DTARE_LINK_CHECKS=OFF -DTARE_WITH_CPU=OFF -DTARE_WITH_ONEDNN=OFF -DTARE_WITH_VULKAN=OFF "$@" \
  > "$LOG" 2>&1 || { cat "$LOG"; exit 1; }
cmake --build "$B" -j "$(nproc)" >> "$LOG" 2>&1 || { tail -50 "$LOG"; exit 1; }
echo "wasm build: ok ($B/platforms/wasm/tare_wasm.js; log in $LOG)"
