#!/usr/bin/python3
"""Exports the torchvision zoo of tests/models/zoo_check.py for the bit-identity manifest (issue 19).

The exports are too large to commit (ResNet-18 is 45 MB), so this regenerates them: the same
seeded random weights, randomized BatchNorm statistics and seeded inputs as zoo_check.py, ONNX
opset 13, into DIR/<model>/model.onnx + DIR/<model>/input.npy (the layout tare_ref_hashes reads
with --models zoo=DIR). The export is deterministic for one PyTorch version (Debian 12's); each
file's SHA-256 is checked against tests/bitid/zoo_exports.json, so a different PyTorch shows up
as "export differs", not as a platform difference in tare. Needs python3-torch and
python3-torchvision (platforms/debian/setup.sh --fixtures).

    /usr/bin/python3 tests/bitid/make_zoo.py DIR [--models a,b] [--size 64] [--write-sums]
Exit status 1 when an export's SHA-256 differs from zoo_exports.json (with --write-sums: records them).
"""

import argparse
import hashlib
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "models"))
import zoo_check  # noqa: E402  (tests/models/zoo_check.py: build() and the model list)

SUMS = os.path.join(HERE, "zoo_exports.json")


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    # vgg11_bn is left out by default: its classifier exports only at 224x224 (531 MB).
    ap.add_argument("--models", default=",".join(m for m in zoo_check.ALL_MODELS if m != "vgg11_bn"))
    ap.add_argument("--size", type=int, default=64, help="CNN input height/width (default 64; VGG needs 224)")
    ap.add_argument("--write-sums", action="store_true", help="record the exports' SHA-256 in zoo_exports.json")
    args = ap.parse_args()
    torch.set_num_threads(1)
    sums = json.load(open(SUMS)) if os.path.exists(SUMS) else {}
    bad = 0
    for name in args.models.split(","):
        d = os.path.join(args.dir, name)
        os.makedirs(d, exist_ok=True)
        model, x, _ = zoo_check.build(name, args.size)
        path = os.path.join(d, "model.onnx")
        with torch.no_grad():
            torch.onnx.export(model, (x,), path, input_names=["input"], output_names=["logits"], opset_version=13,
                              do_constant_folding=True, training=torch.onnx.TrainingMode.EVAL)
        np.save(os.path.join(d, "input.npy"), x.numpy())
        got = {"model.onnx": sha256(path), "input.npy": sha256(os.path.join(d, "input.npy")), "size": args.size}
        if args.write_sums:
            sums[name] = got
        elif name in sums and sums[name] != got:
            print(f"{name}: export differs from zoo_exports.json (another PyTorch or --size?)")
            bad += 1
        print(f"{name}: {os.path.getsize(path) / 1e6:.1f} MB")
    if args.write_sums:
        with open(SUMS, "w") as f:
            json.dump(sums, f, indent=1, sort_keys=True)
            f.write("\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
