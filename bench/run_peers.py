#!/usr/bin/python3
"""tare vs ONNX Runtime vs PyTorch, side by side in one run (issue 5). Called by bench/run_peers.sh.

    bench/run_peers.sh OUT [--threads 1,2] [--rounds R] [--backend ref] [--iters K] [--warmup W]
                           [--models a,b,...] [--build DIR] [--no-torch] [--no-ort] [--pin 1:1/2:0-1]

For every thread count and model it runs, in each of R rounds, `tare bench --json`,
bench/peers/ort_bench.js and bench/peers/torch_bench.py (the order rotates from round to round),
each as a fresh process with K timed runs after W warm-up runs, so that machine noise hits all of
them alike. Each tool's latency is the median over the rounds of its per-round median. It prints
(and writes to OUT/table.md, with every measurement in OUT/results.json) a markdown table:
model, threads, tare backend, tare ms, ORT ms, PyTorch ms, tare/ORT, tare/PyTorch, tare GFLOP/s,
% of peak (tare GFLOP/s over threads x the one-core peak that bench/peak_flops.cc measures),
then the geometric mean of tare/ORT per thread count over the models where both ran.

Needs: BUILD/tare (default build/), /usr/bin/python3 with numpy, torch, torchvision and onnx
(platforms/debian/setup.sh --fixtures), node with onnxruntime-node in bench/peers/node_modules
(cd bench/peers && npm install --ignore-scripts), the Silero models in build/corpus
(tests/models/silero/fetch.sh BUILD/corpus, or --silero-dir; skipped when absent), a C++ compiler for
bench/peak_flops.cc when BUILD/bench/tare_peak_flops is not built.
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "peers"))
import models  # noqa: E402


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run_json(cmd, timeout, cwd=ROOT):
    """Runs cmd; returns (parsed JSON of the last stdout line or None, error text or None)."""
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout}s"
    except OSError as e:
        return None, str(e)
    if p.returncode != 0:
        err = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
        return None, err
    lines = [ln for ln in p.stdout.strip().splitlines() if ln.strip()]
    try:
        return json.loads(lines[-1]), None
    except (IndexError, json.JSONDecodeError) as e:
        return None, f"no JSON output ({e})"


def peak_binary(build, out):
    built = os.path.join(build, "bench", "tare_peak_flops")
    if os.path.exists(built):
        return built
    exe = os.path.join(out, "peak_flops")
    cxx = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++")
    if not cxx:
        raise SystemExit("run_peers: error: no C++ compiler to build bench/peak_flops.cc")
    subprocess.run([cxx, "-O2", "-std=c++17", "-pthread", os.path.join(HERE, "peak_flops.cc"), "-o", exe], check=True)
    return exe


def median(values):
    v = sorted(values)
    k = len(v)
    return None if k == 0 else (v[k // 2] if k % 2 else 0.5 * (v[k // 2 - 1] + v[k // 2]))


def fmt(v, digits=2):
    if v is None:
        return "—"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.{digits}f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--backend", default="ref", help="tare's --backend (default ref; cpu once issue 5 lands)")
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--models", default=",".join(models.DEFAULT_MODELS))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--silero-dir", help="folder of the Silero VAD models (default BUILD/corpus)")
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--no-ort", action="store_true")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per tool invocation")
    ap.add_argument("--pin", default="",
                    help="run every tool at T threads under `taskset -c CPUS`, given as T:CPUS pairs "
                         "joined by '/', e.g. '1:1/2:0-1' (default: no pinning)")
    args = ap.parse_args()
    try:
        threads = [int(t) for t in args.threads.split(",") if t]
    except ValueError:
        raise SystemExit(f"run_peers: error: --threads must be a comma-separated list of integers, got {args.threads!r}")
    if not threads or min(threads) < 1 or args.rounds < 1 or args.iters < 1 or args.warmup < 0:
        raise SystemExit("run_peers: error: --threads and --rounds and --iters must be >= 1, --warmup >= 0")
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    build = os.path.abspath(args.build)
    tare = os.path.join(build, "tare")
    if not os.path.exists(tare):
        raise SystemExit(f"run_peers: error: {tare} not found (build first, or give --build DIR)")
    node = shutil.which("node")
    if not args.no_ort and not node:
        raise SystemExit("run_peers: error: node not found (apt-get install nodejs npm), or pass --no-ort")
    if not args.no_ort and not os.path.isdir(os.path.join(HERE, "peers", "node_modules", "onnxruntime-node")) \
            and not os.environ.get("NODE_PATH"):
        raise SystemExit("run_peers: error: onnxruntime-node is missing: cd bench/peers && npm install --ignore-scripts")

    log("preparing models ...")
    manifest = models.prepare(out, [m for m in args.models.split(",") if m],
                              args.silero_dir or os.path.join(build, "corpus"), log=log)
    peak_exe = peak_binary(build, out)
    # The peak at T threads is T x the one-thread (per-core) peak: a T-thread measurement is also
    # made and reported, but on a shared machine it varies with the load more than the model runs do.
    peaks = {}
    for t in sorted(set([1] + threads)):
        res, err = run_json([peak_exe, "--threads", str(t), "--json"], 300)
        if err:
            raise SystemExit(f"run_peers: error: peak_flops: {err}")
        peaks[t] = res
        log(f"peak fp32 measured at {t} thread(s): {res['gflops_total']:.1f} GFLOP/s ({res['gflops_per_core']:.1f} per core, {res['isa']})")
    per_core = peaks[1]["gflops_per_core"]

    common = ["--iters", str(args.iters), "--warmup", str(args.warmup)]
    # Pinning: on a VM whose vCPUs run at different speeds (on the 2-vCPU VM of docs/PERFORMANCE.md
    # one vCPU runs every tool about 40% slower than the other), an unpinned process lands on
    # either, and the ratios of one run are noise; pinned, every tool runs on the same vCPUs.
    pins = dict(pair.split(":", 1) for pair in args.pin.split("/") if pair)
    results = []
    for t in threads:
        pin = ["taskset", "-c", pins[str(t)]] if str(t) in pins else []
        for m in manifest:
            tools = {"tare": [tare, "bench", m["onnx"], "--backend", args.backend, "--threads", str(t)] + common
                     + sum([["--input", f"{n}={p}"] for n, p in m["inputs"]], []) + ["--json", os.path.join(out, "tare.json")]}
            if not args.no_ort:
                tools["ort"] = [node, os.path.join(HERE, "peers", "ort_bench.js"), m["onnx"], "--threads", str(t)] + common \
                    + sum([["--input", f"{n}={p}"] for n, p in m["inputs"]], [])
            if m["torch"] and not args.no_torch:
                tools["torch"] = ["/usr/bin/python3", os.path.join(HERE, "peers", "torch_bench.py"), m["name"],
                                  "--threads", str(t)] + common + sum([["--input", p] for _, p in m["inputs"]], []) \
                    + (["--expected", m["expected"]] if m["expected"] else [])
            tools = {n: pin + cmd for n, cmd in tools.items()}
            names = list(tools)
            per = {n: [] for n in names}
            errors = {}
            for r in range(args.rounds):
                order = names[r % len(names):] + names[:r % len(names)]
                for n in order:
                    if n in errors:
                        continue
                    t0 = time.time()
                    if n == "tare":
                        try:
                            p = subprocess.run(tools[n], cwd=ROOT, capture_output=True, text=True, timeout=args.timeout)
                        except subprocess.TimeoutExpired:
                            p = subprocess.CompletedProcess(tools[n], 1, "", f"timed out after {args.timeout}s")
                        if p.returncode != 0:
                            errors[n] = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
                            res = None
                        else:
                            with open(os.path.join(out, "tare.json")) as f:
                                res = json.load(f)
                    else:
                        res, err = run_json(tools[n], args.timeout)
                        if err:
                            errors[n] = err
                    if res:
                        per[n].append(res)
                    log(f"  {m['name']} t={t} round {r + 1}/{args.rounds} {n}: "
                        + (f"median {res['median_ms']:.3f} ms" if res else f"FAILED: {errors[n]}")
                        + f" ({time.time() - t0:.1f}s)")
            row = {"model": m["name"], "threads": t, "backend": args.backend, "errors": errors, "runs": per}
            for n in ("tare", "ort", "torch"):
                row[n + "_ms"] = median([x["median_ms"] for x in per.get(n, [])])
            tare_runs = per.get("tare", [])
            flops = tare_runs[0].get("flops") if tare_runs else None
            uncounted = tare_runs[0].get("flops_uncounted_body_nodes", 0) if tare_runs else 0
            row["flops"] = flops if (flops and not uncounted) else None
            row["tare_gflops"] = row["flops"] / (row["tare_ms"] * 1e6) if row["flops"] and row["tare_ms"] else None
            row["peak_pct"] = 100 * row["tare_gflops"] / (per_core * t) if row["tare_gflops"] else None
            row["tare_over_ort"] = row["tare_ms"] / row["ort_ms"] if row["tare_ms"] and row["ort_ms"] else None
            row["tare_over_torch"] = row["tare_ms"] / row["torch_ms"] if row["tare_ms"] and row["torch_ms"] else None
            results.append(row)

    lines = ["| model | threads | tare backend | tare ms | ORT ms | PyTorch ms | tare/ORT | tare/PyTorch | tare GFLOP/s | % of peak |",
             "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in results:
        ratio = lambda v: "—" if v is None else f"{v:.2f}"  # noqa: E731
        lines.append(f"| {r['model']} | {r['threads']} | {r['backend']} | {fmt(r['tare_ms'])} | {fmt(r['ort_ms'])} | "
                     f"{fmt(r['torch_ms'])} | {ratio(r['tare_over_ort'])} | {ratio(r['tare_over_torch'])} | "
                     f"{fmt(r['tare_gflops'])} | {fmt(r['peak_pct'], 1)} |")
    lines.append("")
    geo = {}
    for t in threads:
        ratios = [r["tare_over_ort"] for r in results if r["threads"] == t and r["tare_over_ort"]]
        geo[t] = math.exp(sum(math.log(x) for x in ratios) / len(ratios)) if ratios else None
        lines.append(f"geometric mean of tare/ORT at {t} thread(s): "
                     + (f"{geo[t]:.2f} over {len(ratios)} model(s)" if geo[t] else "—"))
    lines.append("")
    lines.append(f"peak fp32 (bench/peak_flops.cc, {peaks[1]['isa']}): {per_core:.1f} GFLOP/s per core; % of peak is "
                 "tare GFLOP/s over threads x that" + "".join(
                     f"; measured with {t} threads at once: {peaks[t]['gflops_per_core']:.1f} per core" for t in threads if t > 1))
    failed = [(r["model"], r["threads"], n, e) for r in results for n, e in r["errors"].items()]
    for mname, t, n, e in failed:
        lines.append(f"failed: {mname} at {t} thread(s), {n}: {e}")
    lines.append(f"rounds {args.rounds}, {args.iters} timed runs after {args.warmup} warm-up per round; "
                 "each cell is the median over the rounds of the per-round medians; GFLOP/s counts 2 x MACs of "
                 "Conv/ConvTranspose/Gemm/MatMul/LSTM/GRU/RNN (— where some are inside control flow)")
    table = "\n".join(lines)
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write(table + "\n")
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"peaks": peaks, "geomean_tare_over_ort": geo, "rows": results, "args": vars(args)}, f, indent=1)
    print(table)


if __name__ == "__main__":
    main()
