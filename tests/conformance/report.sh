#!/usr/bin/env bash
# Prints the pass counts of the ONNX backend test suite per folder and backend as a Markdown table
# (docs/CONFORMANCE.md). Usage: tests/conformance/report.sh [BUILD_DIR]
set -eu
build=${1:-build}
echo "| folder | backend | passed | total | rate |"
echo "| --- | --- | --- | --- | --- |"
for backend in ref ref64; do
  "$build/tests/tare_conformance" --backend "$backend" 2>/dev/null |
    awk -v b="$backend" '/ on .*passed \(/ { split($4, pt, "/"); gsub(/[()]/, "", $6);
      printf "| %s | %s | %s | %s | %s |\n", $1, b, pt[1], pt[2], $6 }'
done
