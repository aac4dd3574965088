#!/usr/bin/env bash
# tare in a browser (docs/PLATFORMS.md): serves platforms/wasm/demo.html with the WebAssembly
# package (build-wasm/platforms/wasm), the LeNet-5 fixture converted to .tare and its input, over
# a local HTTP server, loads it in headless Chromium (Debian's `chromium`; installed here if
# missing), checks the page's text (every row's top class as PyTorch's) and writes a screenshot.
#   platforms/wasm/demo.sh [OUT_DIR]      default build-wasm/demo (screenshot: OUT_DIR/demo.png)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-build-wasm/demo}
[[ -f build-wasm/platforms/wasm/tare_wasm.js ]] || platforms/wasm/build.sh
[[ -x build/tare ]] || platforms/debian/build.sh
if ! command -v chromium > /dev/null; then
  SUDO=""; [[ $(id -u) -eq 0 ]] || SUDO=sudo
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium
fi
rm -rf "$OUT"; mkdir -p "$OUT"
cp build-wasm/platforms/wasm/tare_wasm.js build-wasm/platforms/wasm/tare.js platforms/wasm/demo.html "$OUT/"
build/tare convert tests/models/lenet5/model.onnx -o "$OUT/lenet5.tare" > /dev/null
cp tests/models/lenet5/input.npy "$OUT/input.npy"
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
/usr/bin/python3 -m http.server "$port" --bind 127.0.0.1 --directory "$OUT" > "$OUT/server.log" 2>&1 &
server=$!
trap 'kill $server 2> /dev/null' EXIT
sleep 1
url="http://127.0.0.1:$port/demo.html?model=lenet5.tare&input=input.npy"
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=15000 --window-size=900,420)
chromium "${flags[@]}" --dump-dom "$url" 2> /dev/null > "$OUT/dom.html"
chromium "${flags[@]}" --screenshot="$OUT/demo.png" "$url" 2> /dev/null > /dev/null
# PyTorch's top class per row of the fixture's expected logits: the page must show the same.
want=$(/usr/bin/python3 -c 'import numpy as np; print(" ".join(str(int(i)) for i in np.load("tests/models/lenet5/expected/logits.npy").argmax(-1)))')
got=$(/usr/bin/python3 - "$OUT/dom.html" <<'PY'
import re, sys
html = open(sys.argv[1]).read()
rows = re.findall(r"<tr><td>[^<]*</td><td>\d+</td><td>(\d+)</td>", html)
print(" ".join(rows))
PY
)
if grep -q "ran on ref" "$OUT/dom.html" && [[ -n $got && $got == "$want" ]]; then
  echo "demo: the page ran LeNet-5 in Chromium; top classes $got, as PyTorch's; screenshot $OUT/demo.png"
else
  echo "demo: FAILED: top classes '$got', PyTorch's '$want' (page text in $OUT/dom.html)"; exit 1
fi
