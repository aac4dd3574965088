#!/usr/bin/env bash
# Regenerates every fixture in this folder from scratch: fetches the seven models (fetch.sh) and the two
# photos (sample2.jpg, sample6.jpg of the npm package @vladmandic/face-api@1.7.15, MIT), installs
# LiteRT.js (bench/peers: npm install --ignore-scripts) when it is missing, then runs make_fixtures.py,
# which cuts and scales the inputs, runs LiteRT.js on them (twice, in two processes, and requires
# bit-identical outputs) and rewrites <model>/input_0.npy, <model>/expected/ and manifest.json.
# Usage: bash tests/models/tflite/make_fixtures.sh [WORK]   (WORK, default build/tflite-fixtures: where
#        the models and photos are fetched). Needs npm, tar, sha256sum, node >= 18 and Debian's
#        /usr/bin/python3 with numpy and PIL. About a minute; exit status 1 with one line on error.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
work=${1:-$root/build/tflite-fixtures}
mkdir -p "$work/photos"
work=$(cd "$work" && pwd)

bash "$here/fetch.sh" "$work/models"

package=@vladmandic/face-api@1.7.15
declare -A sha=(
  [sample2.jpg]=7d2b60ae6f13bf30f422e04df87451081a02c83de469056f25afb44b7000c691
  [sample6.jpg]=9baad80f9d5e306fb9b8c0913d44445f1e95848df317530efb03d0934c57ba87
)
good() { [ -f "$work/photos/$1" ] && [ "$(sha256sum "$work/photos/$1" | cut -d' ' -f1)" = "${sha[$1]}" ]; }
if ! good sample2.jpg || ! good sample6.jpg; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  tgz=$(cd "$tmp" && npm pack --silent "$package" | tail -n 1)
  [ -f "$tmp/$tgz" ] || { echo "make_fixtures.sh: npm pack $package produced no tarball" >&2; exit 1; }
  for f in sample2.jpg sample6.jpg; do
    tar -xzf "$tmp/$tgz" -C "$tmp" "package/demo/$f"
    got=$(sha256sum "$tmp/package/demo/$f" | cut -d' ' -f1)
    if [ "$got" != "${sha[$f]}" ]; then
      echo "make_fixtures.sh: $f from $package has SHA-256 $got, expected ${sha[$f]}" >&2
      exit 1
    fi
    chmod 644 "$tmp/package/demo/$f"
    mv "$tmp/package/demo/$f" "$work/photos/$f"
  done
  echo "fetched sample2.jpg sample6.jpg into $work/photos"
fi

litert=$root/bench/peers/node_modules/@litertjs/core/package.json
if [ ! -f "$litert" ]; then (cd "$root/bench/peers" && npm install --ignore-scripts); fi
version=$(node -p "require('$litert').version")
[ "$version" = 2.5.3 ] || { echo "make_fixtures.sh: bench/peers has @litertjs/core $version, the fixtures are made with 2.5.3" >&2; exit 1; }

/usr/bin/python3 "$here/make_fixtures.py" --models "$work/models" --photos "$work/photos"
