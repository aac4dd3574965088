#!/usr/bin/env bash
# Installs the Debian packages (setup.sh) and builds tare (Release, -Werror).
#   platforms/debian/build.sh                       into build/ (log: build.log)
#   platforms/debian/build.sh DIR [CMAKE_ARG ...]   into DIR with extra configure arguments (log: DIR.log),
#                                                   e.g. cpu_matrix.sh --full's emulated build
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}; shift $(( $# > 0 ? 1 : 0 ))
LOG=build.log; [[ $B == build ]] || LOG=$B.log
platforms/debian/setup.sh
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTARE_WERROR=ON -DTARE_REQUIRE_CORPUS=ON "$@" > "$LOG" 2>&1 || { cat "$LOG"; exit 1; }
cmake --build "$B" -j "$(nproc)" >> "$LOG" 2>&1 || { tail -50 "$LOG"; exit 1; }
echo "build: ok (log in $LOG)"
