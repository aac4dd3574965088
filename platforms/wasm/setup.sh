#!/usr/bin/env bash
# Installs what the WebAssembly build needs (issue 19, docs/PLATFORMS.md): the host packages of
# platforms/debian/setup.sh (flatc and FlatBuffers' headers, and the native build that converts
# the test models to .tare), and Debian's Emscripten 3.1.6 with node. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/../.."
platforms/debian/setup.sh
SUDO=""; [[ $(id -u) -eq 0 ]] || SUDO=sudo
if ! dpkg-query -W -f='${Status}' emscripten 2>/dev/null | grep -q "install ok installed"; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends emscripten
fi
command -v node > /dev/null || { echo "wasm setup: node is missing (apt-get install nodejs)"; exit 1; }
echo "wasm setup: emscripten $(dpkg-query -W -f='${Version}' emscripten), node $(node --version)"
