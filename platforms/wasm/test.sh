#!/usr/bin/env bash
# Tests the WebAssembly module under node (issue 19, docs/PLATFORMS.md): builds it
# (platforms/wasm/build.sh) unless SKIP_BUILD=1, converts the model fixtures (tests/models/*) and
# the seven MediaPipe models (fetched into build/corpus) to .tare with the native tare (build/tare;
# built by platforms/debian/build.sh when absent: the converters do not run in WebAssembly), then
# runs platforms/wasm/test.js: every case on ref and ref64, each output bit-identical to the
# manifests of tests/bitid/. Ends with "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/../.."
[[ ${SKIP_BUILD:-} == 1 ]] || platforms/wasm/build.sh
[[ -x build/tare ]] || platforms/debian/build.sh
bash tests/models/tflite/fetch.sh build/corpus > /dev/null
W=build-wasm/models; rm -rf "$W"; mkdir -p "$W"
cases="["
for d in tests/models/*/; do
  n=$(basename "$d")
  [[ -f $d/model.onnx && -f $d/input.npy ]] || continue
  build/tare convert "$d/model.onnx" -o "$W/$n.tare" > /dev/null
  cases+="{\"name\": \"fixture/$n\", \"tare\": \"$W/$n.tare\", \"inputs\": [{\"npy\": \"$d/input.npy\"}]},"
done
cases+=$(/usr/bin/python3 - "$W" <<'PY'
import json, subprocess, sys
w = sys.argv[1]
m = json.load(open("tests/models/tflite/manifest.json"))["models"]
out = []
for name, spec in sorted(m.items()):
    subprocess.run(["build/tare", "convert", "build/corpus/" + spec["file"], "-o", f"{w}/{name}.tare"], check=True,
                   stdout=subprocess.DEVNULL)
    out.append(json.dumps({"name": "mediapipe/" + name, "tare": f"{w}/{name}.tare",
                           "inputs": [{"name": i["name"], "npy": "tests/models/tflite/" + i["file"]} for i in spec["inputs"]]}))
print(",".join(out))
PY
)
echo "$cases]" > "$W/cases.json"
# The native outputs of the same cases, so that a difference is measured in ULP.
for b in ref ref64; do
  build/tests/tare_ref_hashes --check tests/bitid/$b.json --backend $b --models fixture=tests/models \
    --tflite tests/models/tflite --corpus build/corpus --filter / --dump "$W/dump/$b" > /dev/null || true
done
node platforms/wasm/test.js "$W/cases.json" tests/bitid build-wasm/platforms/wasm "$W/dump"
