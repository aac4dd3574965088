#!/usr/bin/python3
"""Makes the TFLite fixtures in this folder: inputs cut from two photos, LiteRT.js's outputs, manifest.json.

    /usr/bin/python3 tests/models/tflite/make_fixtures.py --models DIR --photos DIR [--out DIR] [--only a,b]

make_fixtures.sh runs it after fetching what it needs: --models holds the seven .tflite files
(fetch.sh), --photos holds sample2.jpg and sample6.jpg of the npm package @vladmandic/face-api@1.7.15.
--out (default: this folder) receives, per model, <model>/input_0.npy, <model>/expected/<k>_<name>.npy
(output k) and <model>/expected/cut_<t>_<name>.npy (intermediate tensor t), then manifest.json.

Inputs: a crop of a photo (box in the photo's pixels, left, top, right, bottom; optionally turned by
180 degrees), resized to the model's input with PIL's Image.resize(LANCZOS), as NHWC float32 [1,H,W,3]
in RGB order, scaled as MediaPipe's graphs feed these models: face detection p / 127.5 - 1 (in [-1, 1]),
hand landmark and selfie segmentation p / 255 (in [0, 1]), for 8-bit pixels p, computed in float64 and
rounded once to float32.

Outputs: bench/peers/tflite_run.js (LiteRT.js, see its header) on input_0.npy; --repeat 2 checks that two
runs in one process are bit-identical, and each run is then repeated in a second process whose files must
be byte-identical to the first's. Intermediates: the tensors listed in CUTS, read by cutting the model
after the operator that writes them (tflite_run.js --outputs).
"""

import argparse
import filecmp
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
RUNNER = os.path.join(ROOT, "bench", "peers", "tflite_run.js")
MAX_FILE = 5 << 20
PHOTOS = {
    "package": "@vladmandic/face-api@1.7.15 (npm), licence MIT (package.json, LICENSE); photos by the package's author",
    "files": {"sample2.jpg": "package/demo/sample2.jpg, 1920x1367, SHA-256 7d2b60ae6f13bf30f422e04df87451081a02c83de469056f25afb44b7000c691",
              "sample6.jpg": "package/demo/sample6.jpg, 1920x1537, SHA-256 9baad80f9d5e306fb9b8c0913d44445f1e95848df317530efb03d0934c57ba87"},
}

# model: (photo, crop box, turn by 180 degrees, value range, what the crop shows)
INPUTS = {
    "face_detection_short_range": ("sample2.jpg", (1300, 60, 1780, 540), False, "-1,1",
                                   "one face, close up (the woman on the right)"),
    "face_detection_full_range": ("sample6.jpg", (190, 0, 1727, 1537), False, "-1,1",
                                  "four faces at group-photo distance"),
    "face_detection_full_range_sparse": ("sample6.jpg", (190, 0, 1727, 1537), False, "-1,1",
                                         "four faces at group-photo distance"),
    "hand_landmark_lite": ("sample2.jpg", (680, 910, 1080, 1310), True, "0,1",
                           "an open right hand resting on a knee, turned so the fingers point up"),
    "hand_landmark_full": ("sample2.jpg", (680, 910, 1080, 1310), True, "0,1",
                           "an open right hand resting on a knee, turned so the fingers point up"),
    "selfie_segmentation": ("sample2.jpg", (1150, 0, 1920, 770), False, "0,1",
                            "one person, head and shoulders, on a sofa"),
    "selfie_segmentation_landscape": ("sample2.jpg", (0, 0, 1920, 1080), False, "0,1",
                                      "three people on a sofa, upper bodies"),
}

# model: [(tensor indices read in one cut run, {tensor: what it is})]
CUTS = {
    "hand_landmark_lite": [((165, 163), {165: "pre-sigmoid of output 1 (Identity_1, hand presence)",
                                         163: "pre-sigmoid of output 2 (Identity_2, handedness)"})],
    "hand_landmark_full": [((163, 161), {163: "pre-sigmoid of output 1 (Identity_1, hand presence)",
                                         161: "pre-sigmoid of output 2 (Identity_2, handedness)"})],
    "selfie_segmentation": [((248,), {248: "pre-sigmoid of output 0: the output of Convolution2DTransposeBias (op 244)"}),
                            ((245,), {245: "the input of Convolution2DTransposeBias (op 244)"})],
    "selfie_segmentation_landscape": [((258,), {258: "pre-sigmoid of output 0: the output of Convolution2DTransposeBias (op 244)"}),
                                      ((255,), {255: "the input of Convolution2DTransposeBias (op 244)"})],
}


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def make_input(photo_dir, model, shape):
    photo, box, turn, value_range, _ = INPUTS[model]
    _, h, w, c = shape
    img = Image.open(os.path.join(photo_dir, photo)).convert("RGB").crop(box)
    if turn:
        img = img.transpose(Image.Transpose.ROTATE_180)
    pixels = np.asarray(img.resize((w, h), Image.Resampling.LANCZOS), dtype=np.float64)
    x = pixels / 127.5 - 1.0 if value_range == "-1,1" else pixels / 255.0
    return x.astype(np.float32).reshape(shape)


def run(model_path, input_path, out_dir, outputs=None):
    cmd = ["node", RUNNER, model_path, input_path, "--out", out_dir, "--repeat", "2"]
    if outputs:
        cmd += ["--outputs", ",".join(str(t) for t in outputs)]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
    if res.returncode != 0:
        sys.exit("make_fixtures: " + (res.stderr.strip().splitlines() or ["tflite_run.js failed"])[-1])
    result = json.loads(res.stdout)
    for o in result["outputs"]:
        if o["nonFinite"]:
            sys.exit(f"make_fixtures: {o['file']} has {o['nonFinite']} non-finite values")
    return result


def run_checked(model_path, input_path, out_dir, outputs=None):
    """Runs twice, in two processes; the second run's files must equal the first's byte for byte."""
    first = run(model_path, input_path, out_dir, outputs)
    with tempfile.TemporaryDirectory() as tmp:
        second = run(model_path, input_path, tmp, outputs)
        for a, b in zip(first["outputs"], second["outputs"]):
            if not filecmp.cmp(a["file"], b["file"], shallow=False):
                sys.exit(f"make_fixtures: {a['file']} differs between two processes")
    return first


def rel(path, out):
    return os.path.relpath(path, out).replace(os.sep, "/")


def summary(entry):
    return {k: entry[k] for k in ("min", "max", "maxAbs")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", required=True)
    ap.add_argument("--photos", required=True)
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    only = [n for n in args.only.split(",") if n]
    for n in only:
        if n not in INPUTS:
            sys.exit(f"make_fixtures: unknown model {n} (known: {', '.join(INPUTS)})")
    names = [n for n in INPUTS if not only or n in only]
    manifest_path = os.path.join(args.out, "manifest.json")
    manifest = {"models": {}}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
    for name in names:
        model_path = os.path.join(args.models, name + ".tflite")
        inspect = subprocess.run(["node", RUNNER, model_path, "--inspect"], stdout=subprocess.PIPE, text=True, check=True)
        inputs = json.loads(inspect.stdout)["inputs"]
        assert len(inputs) == 1, name
        dest = os.path.join(args.out, name)
        expected = os.path.join(dest, "expected")
        os.makedirs(expected, exist_ok=True)
        for f in os.listdir(expected):
            os.remove(os.path.join(expected, f))
        input_path = os.path.join(dest, "input_0.npy")
        np.save(input_path, make_input(args.photos, name, inputs[0]["shape"]))
        full = run_checked(model_path, input_path, expected)
        photo, box, turn, value_range, what = INPUTS[name]
        entry = {
            "file": name + ".tflite",
            "sha256": full["sha256"],
            "inputs": [{"name": i["name"], "shape": i["shape"], "file": rel(i["file"], args.out),
                        "source": f"{photo} crop {list(box)}" + (" turned 180 degrees" if turn else "") + f": {what}",
                        "range": [float(v) for v in value_range.split(",")]} for i in full["inputs"]],
            "outputs": [{"index": o["index"], "name": o["name"], "shape": o["shape"], "file": rel(o["file"], args.out),
                         **summary(o)} for o in full["outputs"]],
            "intermediates": [],
        }
        for tensors, what in CUTS.get(name, []):
            cut = run_checked(model_path, input_path, expected, tensors)
            for o in cut["outputs"]:
                entry["intermediates"].append({"tensor": o["tensor"], "name": o["name"], "shape": o["shape"],
                                               "file": rel(o["file"], args.out), "what": what[o["tensor"]],
                                               "cut_after_operators": cut["cut"], **summary(o)})
        manifest["models"][name] = entry
        for f in [input_path] + [os.path.join(expected, f) for f in os.listdir(expected)]:
            if os.path.getsize(f) >= MAX_FILE:
                sys.exit(f"make_fixtures: {f} is {os.path.getsize(f)} bytes, over 5 MB")
        print(f"{name}: " + ", ".join(f"{o['name']} [{o['min']:.4g}, {o['max']:.4g}]"
                                      for o in entry["outputs"] + entry["intermediates"]))
    manifest = {
        "litert": {"package": "@litertjs/core@" + full["version"], "build": full["build"], "runner": "bench/peers/tflite_run.js"},
        "photos": PHOTOS,
        "models": dict(sorted(manifest["models"].items())),
    }
    text = json.dumps(manifest, indent=1)
    text = re.sub(r"\[\s+([-+0-9.eE, \n]+?)\s+\]", lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)  # [1, 2, 3] on one line
    with open(manifest_path, "w") as f:
        f.write(text + "\n")
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(args.out) for f in fs if f.endswith(".npy"))
    print(f"fixtures: {total / 1e6:.2f} MB of .npy under {args.out}")


if __name__ == "__main__":
    main()
