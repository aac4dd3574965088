#!/usr/bin/env bash
# Installs the Debian packages (setup.sh) and builds tare into build/ (Release, -Werror).
set -euo pipefail
cd "$(dirname "$0")/../.."
platforms/debian/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DTARE_WERROR=ON -DTARE_REQUIRE_CORPUS=ON > build.log 2>&1 || { cat build.log; exit 1; }
cmake --build build -j "$(nproc)" >> build.log 2>&1 || { tail -50 build.log; exit 1; }
echo "build: ok (log in build.log)"
