#!/usr/bin/python3
"""PyTorch's timing of one benchmark model, as one JSON line (the peer of `tare bench`).

    /usr/bin/python3 bench/peers/torch_bench.py NAME --input FILE [--input FILE ...]
                     [--threads N] [--iters K] [--warmup W] [--expected FILE]

NAME is a model of bench/peers/models.py that has a PyTorch module (the fixtures and the
torchvision models; not Silero). The inputs are .npy files in the module's argument order.
torch.set_num_threads(N), torch.set_num_interop_threads(1), eval mode, torch.no_grad().

Timing as `tare bench` (cli/bench.cc): load = building the module (and loading its weights);
the first call timed alone; W untimed calls; K calls timed each alone (time.perf_counter_ns around
the module call only). median (mean of the two middle values when K is even), p90 and p99 by
nearest rank, min, mean. With --expected, the max abs difference between the module's output and
that file (the output of the exported module) is reported as check_max_abs.
Errors: one line on stderr, exit 1.
"""

import argparse
import json
import math
import os
import sys
import time


def summarize(times):
    t = sorted(times)
    k = len(t)
    med = t[k // 2] if k % 2 else 0.5 * (t[k // 2 - 1] + t[k // 2])

    def rank(p):
        r = math.ceil(p * k / 100.0)
        return t[min(k, max(r, 1)) - 1]
    return {"median_ms": med, "p90_ms": rank(90), "p99_ms": rank(99), "min_ms": t[0], "mean_ms": sum(t) / k}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("name")
    ap.add_argument("--input", action="append", default=[], help=".npy, in the module's argument order")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--expected", help="the exported module's output (.npy)")
    args = ap.parse_args()
    if args.threads < 1 or args.iters < 1 or args.warmup < 0:
        sys.exit("torch_bench: error: --threads and --iters must be >= 1, --warmup >= 0")

    import numpy as np
    import torch
    torch.set_num_threads(args.threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import models

    inputs = [torch.from_numpy(np.load(p)) for p in args.input]
    t0 = time.perf_counter_ns()
    module = models.torch_module(args.name)
    load_ms = (time.perf_counter_ns() - t0) / 1e6
    times = []
    with torch.no_grad():
        a = time.perf_counter_ns()
        y = module(*inputs)
        first_ms = (time.perf_counter_ns() - a) / 1e6
        for _ in range(args.warmup):
            module(*inputs)
        for _ in range(args.iters):
            a = time.perf_counter_ns()
            module(*inputs)
            times.append((time.perf_counter_ns() - a) / 1e6)
    out = {"tool": "pytorch", "version": torch.__version__, "model": args.name, "threads": args.threads,
           "iters": args.iters, "warmup": args.warmup, "load_ms": load_ms, "first_run_ms": first_ms}
    out.update(summarize(times))
    out["times_ms"] = times
    if args.expected:
        exp = np.load(args.expected)
        got = y.numpy()
        out["check_max_abs"] = float(np.max(np.abs(got.astype(np.float64) - exp))) if got.shape == exp.shape else None
    print(json.dumps(out))


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except Exception as e:  # one line, as the other tools
        print(f"torch_bench: error: {type(e).__name__}: {e}".replace("\n", " "), file=sys.stderr)
        sys.exit(1)
