#!/usr/bin/env bash
# Fetches the two published Silero VAD models (MIT licence, exported from PyTorch) that
# tests/models/silero_check.cc runs: they ship inside the npm package @ricky0123/vad-web@0.0.31.
# Usage: fetch.sh DEST   -> DEST/silero_vad_legacy.onnx, DEST/silero_vad_v5.onnx
# Needs npm (Debian: nodejs npm), tar and sha256sum. Idempotent: when both files are already in
# DEST with the expected SHA-256 it does nothing (no network). Each fetched model is checked
# against the SHA-256 below before it is moved into DEST; exit status 1 with one line otherwise.
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: $0 DEST" >&2; exit 2; fi
package=@ricky0123/vad-web@0.0.31
declare -A sha=(
  [silero_vad_legacy.onnx]=a35ebf52fd3ce5f1469b2a36158dba761bc47b973ea3382b3186ca15b1f5af28
  [silero_vad_v5.onnx]=2623a2953f6ff3d2c1e61740c6cdb7168133479b267dfef114a4a3cc5bdd788f
)
dest=$1
mkdir -p "$dest"
good() { [ -f "$dest/$1" ] && [ "$(sha256sum "$dest/$1" | cut -d' ' -f1)" = "${sha[$1]}" ]; }
missing=()
for f in "${!sha[@]}"; do good "$f" || missing+=("$f"); done
if [ ${#missing[@]} -eq 0 ]; then echo "silero models already in $dest"; exit 0; fi
command -v npm >/dev/null || { echo "fetch.sh: npm not found (apt-get install nodejs npm)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tgz=$(cd "$tmp" && npm pack --silent "$package" | tail -n 1)
[ -f "$tmp/$tgz" ] || { echo "fetch.sh: npm pack $package produced no tarball" >&2; exit 1; }
for f in "${missing[@]}"; do
  tar -xzf "$tmp/$tgz" -C "$tmp" "package/dist/$f"
  got=$(sha256sum "$tmp/package/dist/$f" | cut -d' ' -f1)
  if [ "$got" != "${sha[$f]}" ]; then
    echo "fetch.sh: $f from $package has SHA-256 $got, expected ${sha[$f]}" >&2
    exit 1
  fi
  chmod 644 "$tmp/package/dist/$f"
  mv "$tmp/package/dist/$f" "$dest/$f"
done
echo "fetched ${missing[*]} into $dest"
