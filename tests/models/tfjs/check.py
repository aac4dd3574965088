#!/usr/bin/env python3
"""Checks tare's outputs of a TF.js model against TF.js's own (bench/peers/tfjs_run.js).

usage: check.py TARE MODEL.json PEER_DIR BACKEND [BACKEND ...] [--tol-rel 1e-4] [--tol-abs 1e-5]

PEER_DIR holds tfjs_run.js's result.json, inputs and outputs. tare runs the model on the same inputs
on each backend; every output must be within rel L2 <= tol-rel or max abs <= tol-abs of TF.js's
(the bar of docs/TFJS.md). Prints one line per backend and output; exits 1 on a failure.
"""
import json, os, re, subprocess, sys, tempfile
import numpy as np


def safe(name):
    """tare's SafeName (format/npy.h): the file name of an output."""
    s = re.sub(r"[^A-Za-z0-9._-]", "_", name or "output")
    return "_" if s in (".", "..") else s


def main():
    args = sys.argv[1:]
    tol_rel, tol_abs = 1e-4, 1e-5
    if "--tol-rel" in args:
        i = args.index("--tol-rel"); tol_rel = float(args[i + 1]); del args[i:i + 2]
    if "--tol-abs" in args:
        i = args.index("--tol-abs"); tol_abs = float(args[i + 1]); del args[i:i + 2]
    tare, model, peer, backends = args[0], args[1], args[2], args[3:]
    res = json.load(open(os.path.join(peer, "result.json")))
    ok = True
    for be in backends:
        with tempfile.TemporaryDirectory() as out:
            cmd = [tare, "run", model, "--backend", be, "--output-dir", out]
            for r in res["inputs"]:
                cmd += ["--input", re.sub(r":0$", "", r["name"]) + "=" + os.path.join(peer, r["file"])]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode:
                print(f"{be}: tare run failed: {p.stderr.strip()}"); ok = False; continue
            files = sorted(os.listdir(out))
            for k, o in enumerate(res["outputs"]):
                want = np.load(os.path.join(peer, o["file"])).astype(np.float64)
                name = re.sub(r":0$", "", o["name"])
                path = os.path.join(out, safe(name) + ".npy")
                if not os.path.exists(path):
                    path = None
                if not path:
                    print(f"{be}: output '{name}' missing (have {files})"); ok = False; continue
                got = np.load(path).astype(np.float64)
                if got.shape != want.shape:
                    print(f"{be}: {name}: shape {got.shape} vs TF.js {want.shape}"); ok = False; continue
                diff = np.abs(got - want)
                mx = float(diff.max()) if diff.size else 0.0
                rel = float(np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30))
                good = rel <= tol_rel or mx <= tol_abs
                ok &= good
                print(f"{be}: {name} {list(want.shape)}: rel L2 {rel:.3e}, max abs {mx:.3e} {'ok' if good else 'FAIL'}")
    sys.exit(0 if ok else 1)


main()
