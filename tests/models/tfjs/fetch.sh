#!/usr/bin/env bash
# Fetches the published TF.js models the model.tfjs_corpus.* tests convert (not committed: 50 MB):
#   nsfwjs 4.3.0 (MIT): MobileNetV2 and InceptionV3 layers models, a MobileNetV2 graph model, every
#     weight uint8-quantized; shipped as JS modules (model.min.js, group1-shard*.min.js holding the
#     JSON and base64 shards), written back here as model.json and binary shards;
#   @vladmandic/human 3.3.6 (MIT): its 11 graph models (models/<name>.json + <name>.bin; float32,
#     float16- and uint8-quantized weights).
# Usage: fetch.sh DEST -> DEST/tfjs/nsfwjs_<model>/model.json + shards, DEST/tfjs/human/<name>.json + .bin
# Needs npm and node (Debian: nodejs npm), tar, sha256sum. Idempotent (a stamp file per package);
# each tarball is checked against the SHA-256 below; exit status 1 with one line otherwise.
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: $0 DEST" >&2; exit 2; fi
dest=$1/tfjs
declare -A sha=(
  [nsfwjs@4.3.0]=4496790efc9bdc6f3e85a826a8e482c1fa1e9db4b3d18c095e98cc0c73cfb12f
  [@vladmandic/human@3.3.6]=425e9c51dbbca0c8934362b170cb0d54c2529c11c654b3c03092b16e9d6ad3f7
)
mkdir -p "$dest"
todo=()
for p in "nsfwjs@4.3.0" "@vladmandic/human@3.3.6"; do
  stamp="$dest/.$(echo "$p" | tr '/@' '__').done"
  [ -f "$stamp" ] || todo+=("$p")
done
if [ ${#todo[@]} -eq 0 ]; then echo "tfjs models already in $dest"; exit 0; fi
command -v npm >/dev/null || { echo "fetch.sh: npm not found (apt-get install nodejs npm)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for p in "${todo[@]}"; do
  (cd "$tmp" && npm pack --silent "$p" >/dev/null 2>"$tmp/npm.log") || { echo "fetch.sh: npm pack $p failed: $(tail -1 "$tmp/npm.log")" >&2; exit 1; }
  tgz=$(ls "$tmp"/*.tgz)
  got=$(sha256sum "$tgz" | cut -d' ' -f1)
  [ "$got" = "${sha[$p]}" ] || { echo "fetch.sh: $p has SHA-256 $got, expected ${sha[$p]}" >&2; exit 1; }
  mkdir -p "$tmp/x" && tar xzf "$tgz" -C "$tmp/x" && rm "$tgz"
  if [[ $p == nsfwjs* ]]; then
    # model.min.js exports the model.json object, each shard module a base64 string.
    node - "$tmp/x/package/dist/models" "$dest" <<'JS'
const fs = require('fs'); const path = require('path');
const [mdir, out] = process.argv.slice(2);
for (const name of fs.readdirSync(mdir).filter((d) => fs.statSync(path.join(mdir, d)).isDirectory())) {
  const d = path.join(mdir, name); const od = path.join(out, `nsfwjs_${name}`);
  fs.mkdirSync(od, { recursive: true });
  const m = require(path.resolve(d, 'model.min.js')); const j = m.default || m;
  for (const g of j.weightsManifest) g.paths = g.paths.map((p) => {
    const base = path.basename(p).replace(/\.bin$/, '');
    const s = require(path.resolve(d, `${base}.min.js`));
    fs.writeFileSync(path.join(od, base), Buffer.from(typeof s === 'string' ? s : s.default, 'base64'));
    return base;
  });
  fs.writeFileSync(path.join(od, 'model.json'), JSON.stringify(j));
}
JS
  else
    mkdir -p "$dest/human" && cp "$tmp"/x/package/models/*.json "$tmp"/x/package/models/*.bin "$dest/human/" && rm -f "$dest/human/models.json"
  fi
  rm -rf "$tmp/x"
  touch "$dest/.$(echo "$p" | tr '/@' '__').done"
done
echo "fetched ${todo[*]} into $dest"
