#!/usr/bin/env bash
# Bad input never crashes or hangs the CLI: it exits 1 with exactly one line on stderr.
# Usage: bad_inputs.sh TARE FIXTURE_DIR WORK_DIR ADVERSARIAL_TOOL
# Cases: empty, truncated (many lengths) and bit-flipped (many positions) .tare, .onnx and .tflite files,
# a missing input, an input of the wrong shape or dtype, an unknown backend, a missing file, and the
# adversarial models of tools/make_adversarial.cc (a dimension of 2^40, negative sizes, a cycle, a
# node reading a value produced after it, a 2^60-element tensor at run time), run and converted.
# An output that would replace an input file or write through a symbolic link is refused.
# A flipped bit in an ONNX or TFLite file's weight bytes cannot be detected (neither format has a
# checksum): such runs may succeed, so their flips must only exit 0 or 1, with one error line when 1.
set -u
TARE=$1; FIX=$2; WORK=$3; ADV=$4
rm -rf "$WORK"; mkdir -p "$WORK/adv"
pass=0; fail=0
expect_error() {  # expect_error NAME [ALLOW_SUCCESS] -- command...
  local name=$1 allow=$2; shift 3
  timeout 60 "$@" > "$WORK/out.txt" 2> "$WORK/err.txt"
  local rc=$? lines
  lines=$(wc -l < "$WORK/err.txt")
  if [[ $rc -eq 1 && $lines -eq 1 ]] || [[ $allow == yes && $rc -eq 0 ]]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $name: exit $rc, $lines stderr line(s): $(head -c 300 "$WORK/err.txt")"
  fi
}
"$TARE" convert "$FIX/model.onnx" -o "$WORK/good.tare" > /dev/null || { echo "cannot convert fixture"; exit 1; }
python3 - "$FIX/input.npy" "$WORK" <<'PY'
import sys, struct
src, work = sys.argv[1], sys.argv[2]
data = open(src, 'rb').read()
# Same header, one element fewer along the last axis: a wrong shape with consistent data.
hlen = struct.unpack('<H', data[8:10])[0]
hdr = data[10:10 + hlen].decode()
shape = hdr[hdr.index('(') + 1:hdr.index(')')]
dims = [int(d) for d in shape.split(',') if d.strip()]
dims[-1] -= 1
n = 1
for d in dims: n *= d
new_shape = '(' + ', '.join(map(str, dims)) + (',' if len(dims) == 1 else '') + ')'
h = hdr[:hdr.index('(')] + new_shape + hdr[hdr.index(')') + 1:]
h = h.rstrip(' \n'); pad = (64 - (10 + len(h) + 1) % 64) % 64; h = h + ' ' * pad + '\n'
esz = 4 if "'<f4'" in hdr else 8
open(work + '/wrong_shape.npy', 'wb').write(data[:8] + struct.pack('<H', len(h)) + h.encode() + data[10 + hlen:10 + hlen + n * esz])
# Right shape, wrong dtype (float64 instead of float32, or float32 instead of int64).
alt = hdr.replace("'<f4'", "'<f8'") if "'<f4'" in hdr else hdr.replace("'<i8'", "'<f4'")
payload_size = len(data) - 10 - hlen
new_size = payload_size * 2 if "'<f4'" in hdr else payload_size // 2
open(work + '/wrong_dtype.npy', 'wb').write(data[:10] + alt.encode() + b'\0' * new_size)
PY
: > "$WORK/empty.tare"; : > "$WORK/empty.onnx"; : > "$WORK/empty.tflite"
expect_error empty-tare no -- "$TARE" run "$WORK/empty.tare" --input "$FIX/input.npy" --output-dir "$WORK/o"
expect_error empty-onnx no -- "$TARE" run "$WORK/empty.onnx" --input "$FIX/input.npy" --output-dir "$WORK/o"
expect_error empty-tflite no -- "$TARE" run "$WORK/empty.tflite" --input "$FIX/input.npy" --output-dir "$WORK/o"
expect_error onnx-as-tflite no -- "$TARE" run "$FIX/model.onnx" --from tflite --input "$FIX/input.npy" --output-dir "$WORK/o"
expect_error missing-file no -- "$TARE" run "$WORK/nope.tare" --input "$FIX/input.npy" --output-dir "$WORK/o"
expect_error missing-input no -- "$TARE" run "$WORK/good.tare" --output-dir "$WORK/o"
expect_error extra-input no -- "$TARE" run "$WORK/good.tare" --input "$FIX/input.npy" --input "$FIX/input.npy" --output-dir "$WORK/o"
expect_error dir-input no -- "$TARE" run "$WORK/good.tare" --input "$WORK" --output-dir "$WORK/o"
expect_error device-input no -- "$TARE" run "$WORK/good.tare" --input /dev/zero --output-dir "$WORK/o"
expect_error wrong-shape no -- "$TARE" run "$WORK/good.tare" --input "$WORK/wrong_shape.npy" --output-dir "$WORK/o"
expect_error wrong-dtype no -- "$TARE" run "$WORK/good.tare" --input "$WORK/wrong_dtype.npy" --output-dir "$WORK/o"
expect_error bad-npy no -- "$TARE" run "$WORK/good.tare" --input "$WORK/empty.tare" --output-dir "$WORK/o"
expect_error bad-backend no -- "$TARE" run "$WORK/good.tare" --backend gpu9 --input "$FIX/input.npy" --output-dir "$WORK/o"
for ext in tare onnx tflite; do
  src=$WORK/good.$ext; [[ $ext == onnx ]] && src=$FIX/model.onnx; [[ $ext == tflite ]] && src=$FIX/tflite_twin/model.tflite
  size=$(stat -c %s "$src")
  allow=no; [[ $ext != tare ]] && allow=yes  # ONNX and TFLite files have no checksum
  for k in 1 2 3 5 8 13 21 34 55 89; do  # truncations spread over the file
    head -c $((size * k / 97)) "$src" > "$WORK/trunc.$ext"
    expect_error "truncated-$ext-$k" no -- "$TARE" run "$WORK/trunc.$ext" --input "$FIX/input.npy" --output-dir "$WORK/o"
  done
  for k in $(seq 0 24); do  # bit flips at 25 positions, denser near the start (headers, schema)
    pos=$(( (k * k * 7919) % size ))
    cp "$src" "$WORK/flip.$ext"
    byte=$(od -An -tu1 -j $pos -N1 "$src" | tr -d ' ')
    printf "$(printf '\\%03o' $((byte ^ 4)))" | dd of="$WORK/flip.$ext" bs=1 seek=$pos conv=notrunc status=none
    expect_error "flip-$ext-$pos" $allow -- "$TARE" run "$WORK/flip.$ext" --input "$FIX/input.npy" --output-dir "$WORK/o"
  done
done
# Adversarial models: well-formed files describing impossible or hostile graphs.
"$ADV" "$FIX/model.onnx" "$WORK/adv" || { echo "FAIL: $ADV could not write the adversarial models"; exit 1; }
python3 - "$WORK/adv/x.npy" <<'PY'
import struct, sys
h = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 4), }"
h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\n'
open(sys.argv[1], 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode() + struct.pack('<4f', 1, -2, 3, -4))
PY
for m in dim_2p40 neg_dim cycle order huge_const neg_reshape; do
  expect_error "adversarial-$m.onnx" no -- "$TARE" run "$WORK/adv/$m.onnx" --input "$FIX/input.npy" --output-dir "$WORK/o"
done
for m in dim_2p40 neg_dim cycle order; do  # refused when converted, before any run
  expect_error "convert-$m.onnx" no -- "$TARE" convert "$WORK/adv/$m.onnx" -o "$WORK/adv/$m.converted.tare"
done
for m in cycle order huge_const; do
  expect_error "adversarial-$m.tare" no -- "$TARE" run "$WORK/adv/$m.tare" --input "x=$WORK/adv/x.npy" --output-dir "$WORK/o"
done
# Nothing the user gave is overwritten: an output named like an input file in the output folder,
# or one reached through a symbolic link, is refused before anything is written (the input and the
# link's target keep their bytes).
mkdir -p "$WORK/own" "$WORK/lnk"
"$TARE" run "$WORK/good.tare" --input "$FIX/input.npy" --output-dir "$WORK/own" > /dev/null
for f in "$WORK"/own/*.npy; do
  cp "$FIX/input.npy" "$f"
  expect_error "output-over-input" no -- "$TARE" run "$WORK/good.tare" --input "$f" --output-dir "$WORK/own"
  cmp -s "$FIX/input.npy" "$f" || { fail=$((fail + 1)); echo "FAIL output-over-input: the input file was changed"; }
  echo keep > "$WORK/target.txt"
  ln -sf "$WORK/target.txt" "$WORK/lnk/$(basename "$f")"
  expect_error "output-through-symlink" no -- "$TARE" run "$WORK/good.tare" --input "$FIX/input.npy" --output-dir "$WORK/lnk"
  [[ $(cat "$WORK/target.txt") == keep ]] || { fail=$((fail + 1)); echo "FAIL output-through-symlink: the link's target was changed"; }
  break
done
# A TF.js model (the study's LeNet-5 as TF.js saved it): tare convert refuses to write its output
# over the model's own shard (a hard link named .tare) or through a symbolic link; a truncated
# model.json and a short shard are one error each.
TJ=$FIX/../lenet5_bn/tfjs
mkdir -p "$WORK/tfjs" && cp "$TJ/model.json" "$TJ/group1-shard1of1.bin" "$WORK/tfjs/"
ln -f "$WORK/tfjs/group1-shard1of1.bin" "$WORK/tfjs/shard.tare"
expect_error "tfjs-convert-over-shard" no -- "$TARE" convert "$WORK/tfjs/model.json" -o "$WORK/tfjs/shard.tare"
cmp -s "$TJ/group1-shard1of1.bin" "$WORK/tfjs/group1-shard1of1.bin" || { fail=$((fail + 1)); echo "FAIL tfjs-convert-over-shard: the shard was changed"; }
echo keep > "$WORK/target.txt"
ln -sf "$WORK/target.txt" "$WORK/tfjs/link.tare"
expect_error "tfjs-convert-through-symlink" no -- "$TARE" convert "$WORK/tfjs/model.json" -o "$WORK/tfjs/link.tare"
[[ $(cat "$WORK/target.txt") == keep ]] || { fail=$((fail + 1)); echo "FAIL tfjs-convert-through-symlink: the link's target was changed"; }
head -c 1000 "$TJ/model.json" > "$WORK/tfjs/model.json"
expect_error "tfjs-truncated-json" no -- "$TARE" inspect "$WORK/tfjs/model.json"
cp "$TJ/model.json" "$WORK/tfjs/model.json" && head -c 1000 "$TJ/group1-shard1of1.bin" > "$WORK/tfjs/group1-shard1of1.bin"
expect_error "tfjs-short-shard" no -- "$TARE" inspect "$WORK/tfjs/model.json"
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
