#!/usr/bin/env python3
"""One-node ONNX Gemm and MatMul models, y = x[M,K] @ W[K,N] with W an initializer, run with
`tare run --backend cpu` at 1 and 2 threads over M in {1,2,3,5,8}, K in {1,7,16,33,70},
N in {1,5,8,17,40}, checked against numpy (float64) within the ops' error budget
(ONNX Gemm-13 / MatMul-13: |y - y64| <= (K + 2) * 2^-24 * sum_k |x[i,k] W[k,j]|, `tare ops`).

Regression test for issue 26 (docs/FINDINGS.md, F1): on AMD Zen 1 CPUs Debian's XNNPACK computed
wrong columns at 2 threads for N in {17, 40}. Run it natively (ctest cli.gemm_threads) and under
an emulated CPU (platforms/debian/cpu_matrix.sh):

  gemm_threads.py TARE WORK_DIR [--emulator "qemu-x86_64 -cpu EPYC"] [--backend cpu]

Prints one line per failing case and a closing line "N passed, N failed"; exit status 1 on any
failure. Models are generated with the onnx package; nothing is compared against tare itself.
"""
import argparse
import os
import shlex
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

MS = (1, 2, 3, 5, 8)
KS = (1, 7, 16, 33, 70)
NS = (1, 5, 8, 17, 40)
EPS32 = 2.0 ** -24


def make_model(op, m, k, n, w, bias):
    """A one-node model: Gemm(x, W[, C]) (transA = transB = 0, alpha = beta = 1) or MatMul(x, W)."""
    inits = [numpy_helper.from_array(w, "W")]
    inputs = ["x", "W"]
    if bias is not None:
        inits.append(numpy_helper.from_array(bias, "C"))
        inputs.append("C")
    node = helper.make_node(op, inputs, ["y"], name=f"{op.lower()}_{m}x{k}x{n}")
    graph = helper.make_graph(
        [node], f"{op}_{m}x{k}x{n}",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tare")
    ap.add_argument("work")
    ap.add_argument("--emulator", default="", help="command prefix, e.g. 'qemu-x86_64 -cpu EPYC'")
    ap.add_argument("--backend", default="cpu")
    args = ap.parse_args()
    import shutil
    for exe in [args.tare] + shlex.split(args.emulator)[:1]:
        if not (os.access(exe, os.X_OK) or shutil.which(exe)):
            print(f"gemm_threads: {exe} is not an executable", file=sys.stderr)
            return 1
    os.makedirs(args.work, exist_ok=True)
    rng = np.random.default_rng(26)
    runner = shlex.split(args.emulator) + [args.tare]
    passed = failed = 0
    for op in ("Gemm", "MatMul"):
        for m in MS:
            for k in KS:
                for n in NS:
                    x = rng.standard_normal((m, k)).astype(np.float32)
                    w = rng.standard_normal((k, n)).astype(np.float32)
                    bias = rng.standard_normal((n,)).astype(np.float32) if op == "Gemm" and n % 2 else None
                    want = x.astype(np.float64) @ w.astype(np.float64)
                    scale = np.abs(x.astype(np.float64)) @ np.abs(w.astype(np.float64))
                    if bias is not None:
                        want += bias.astype(np.float64)
                        scale += np.abs(bias.astype(np.float64))
                    tol = (k + 2) * EPS32 * scale
                    case = f"{op}_{m}x{k}x{n}"
                    model = os.path.join(args.work, case + ".onnx")
                    xin = os.path.join(args.work, case + "_x.npy")
                    onnx.save(make_model(op, m, k, n, w, bias), model)
                    np.save(xin, x)
                    for threads in (1, 2):
                        out = os.path.join(args.work, f"{case}_t{threads}")
                        cmd = runner + ["run", model, "--backend", args.backend, "--threads", str(threads),
                                        "--input", f"x={xin}", "--output-dir", out]
                        r = subprocess.run(cmd, capture_output=True, text=True)
                        if r.returncode != 0:
                            print(f"FAIL {case} threads {threads}: exit {r.returncode}: {r.stderr.strip()}")
                            failed += 1
                            continue
                        got = np.load(os.path.join(out, "y.npy")).astype(np.float64)
                        if got.shape != want.shape:
                            print(f"FAIL {case} threads {threads}: shape {got.shape}, want {want.shape}")
                            failed += 1
                            continue
                        err = np.abs(got - want)
                        if not np.all(err <= tol):
                            worst = np.unravel_index(np.argmax(err - tol), err.shape)
                            print(f"FAIL {case} threads {threads}: max abs error {err.max():.3g}, at"
                                  f" {tuple(int(i) for i in worst)} {err[worst]:.3g} > tolerance {tol[worst]:.3g}")
                            failed += 1
                        else:
                            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
