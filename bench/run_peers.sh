#!/usr/bin/env bash
# tare vs ONNX Runtime vs PyTorch, side by side (issue 5; docs/PERFORMANCE.md).
# Usage: bench/run_peers.sh OUT [--threads 1,2] [--rounds R] [--backend B] [--iters K] [--warmup W]
#                           [--models a,b,...] [--build DIR] [--no-torch] [--no-ort] [--pin T:CPUS/...]
#                           [--silero-dir DIR] [--timeout S]
# OUT receives the exported torchvision models, the inputs, table.md and results.json; the table is
# also printed. Everything is done by bench/run_peers.py (its docstring lists what it needs).
set -euo pipefail
if [ $# -lt 1 ] || [[ "$1" == -* ]]; then
  echo "usage: $0 OUT [--threads 1,2] [--rounds R] [--backend B] [--iters K] [--warmup W] [--models a,b] [--build DIR] [--no-torch] [--no-ort] [--pin T:CPUS/...] [--silero-dir DIR] [--timeout S]" >&2
  exit 2
fi
exec /usr/bin/python3 "$(dirname "$0")/run_peers.py" "$@"
