"""tare campaign (issue 25): the seed studies' experiments as one declarative run, on Dask.

    tare campaign run FILE --out DIR [--serial] [--scheduler ADDRESS] [--workers N]
    tare campaign report DIR [--no-compare]

`run` checks FILE whole (spec.py: one error line, nothing run), expands it into tasks with stable
keys (tasks.py) and runs those without a result under DIR/results (runner.py): on a Dask
LocalCluster of N worker processes (default 2) on this machine, on an existing Dask cluster with
--scheduler, or one after the other with --serial. `report` merges DIR/results into
DIR/report.json and DIR/report.html (report_html.py) and prints a table: per model, engine and
thread count the accuracy, the top-1 flips against the first engine's outputs, the median latency
over the repetitions, the CPU utilization and the peak RSS; and, for each model with two engines
or more, runs `tare compare` on their outputs (compare.py: accuracy and flips attributed on a
data set, linked from the page) unless --no-compare.
Exit status: 0; 1 when a task failed, the file is refused, or (report) a tare compare failed; 2
for bad arguments.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

from . import compare, report_html, runner, spec
from . import tasks as T


def _tare_exe():
    exe = os.environ.get("TARE_EXE")
    if exe:
        return exe
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(here, "build", "tare")


def cmd_run(a):
    try:
        import tare
        backends = tare.backends()
    except ImportError:
        backends = []
    try:
        c = spec.load(a.file, backends)
    except spec.CampaignError as e:
        print(f"tare campaign: error: {e}", file=sys.stderr)
        return 1
    why = T.check_data(c)
    if why:
        print(f"tare campaign: error: {a.file}: {why}", file=sys.stderr)
        return 1
    # Checked here for a run on this machine; on an existing cluster each worker reports its own.
    why = "" if a.scheduler else spec.engines_missing(c, T.ROOT)
    if why:
        print(f"tare campaign: error: {a.file}: {why}", file=sys.stderr)
        return 1
    for m in c["models"]:  # variants: loadable models (tare inspect reads any format tare takes)
        for v in m["variants"]:
            p = subprocess.run([_tare_exe(), "inspect", v], capture_output=True, text=True)
            if p.returncode != 0:
                why = T.failure_reason(p.stderr, p.returncode)
                print(f"tare campaign: error: {a.file}: models '{m['name']}': variant {v} cannot be read: {why}", file=sys.stderr)
                return 1
    missing = [] if a.scheduler else spec.pin_cpus_missing(c, os.sched_getaffinity(0))
    if missing:
        print(f"tare campaign: error: {a.file}: [measure].pin names CPUs {missing} that this process may not run on "
              f"(it may run on {sorted(os.sched_getaffinity(0))})", file=sys.stderr)
        return 1
    if not a.out:
        print("tare campaign: error: --out is empty", file=sys.stderr)
        return 1
    out = os.path.abspath(a.out)
    if os.path.exists(out) and not os.path.isdir(out):
        print(f"tare campaign: error: --out {a.out} exists and is not a folder", file=sys.stderr)
        return 1
    earlier = os.path.join(out, "campaign.json")
    if os.path.isfile(earlier):
        try:
            with open(earlier) as f:
                prev = json.load(f)
        except (OSError, ValueError):
            prev = {}
        if prev.get("name") != c["name"]:
            print(f"tare campaign: error: --out {a.out} holds campaign {prev.get('name')!r}, not {c['name']!r} "
                  "(results are resumed only into the folder of the same campaign)", file=sys.stderr)
            return 1
    elif os.path.isdir(out) and os.listdir(out):
        print(f"tare campaign: error: --out {a.out} is not empty and holds no campaign (nothing is overwritten)", file=sys.stderr)
        return 1
    try:
        os.makedirs(out, exist_ok=True)
        if not os.path.isfile(earlier):
            # Marks the folder as this campaign's before anything else is written into it (the
            # benchmark models' export), so that a run stopped early can be run again there.
            with open(earlier, "w") as f:
                json.dump(c, f, indent=1)
        why = T.prepare_bench(c, out, log=lambda m: print(m, flush=True)) or T.check_data(c)
        if why:
            print(f"tare campaign: error: {a.file}: {why}", file=sys.stderr)
            return 1
        ran, skipped, failures = runner.run(c, out, _tare_exe(), serial=a.serial, scheduler=a.scheduler,
                                            workers=a.workers, log=lambda m: print(m, flush=True))
    except BrokenPipeError:
        # stdout closed (e.g. `| head`): the results so far are kept.
        sys.stderr.write("tare campaign: error: the output pipe closed; the results so far are kept: run again to resume\n")
        return 1
    except OSError as e:
        print(f"tare campaign: error: --out {a.out}: {e.strerror or e}", file=sys.stderr)
        return 1
    except RuntimeError as e:
        print(f"tare campaign: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("tare campaign: interrupted; the results so far are kept: run again to resume", file=sys.stderr)
        return 130
    print(f"tare campaign: {ran} tasks run, {skipped} done before, {len(failures)} failed")
    return 1 if failures else 0


def report(out, tare_exe=None, log=print):
    """The merged results of DIR: {"campaign", "rows": [...], "flips", "compare"} (also written to
    DIR/report.json); with tare_exe, each model's engines through `tare compare` (compare.py)."""
    with open(os.path.join(out, "campaign.json")) as f:
        c = json.load(f)
    results = {}
    tasks = T.expand(c)
    grid = {t["key"] for t in tasks}
    d = os.path.join(out, "results")
    stale = 0
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if name.endswith(".json"):
            try:
                with open(os.path.join(d, name)) as f:
                    r = json.load(f)
                key = r["key"]
            except (OSError, ValueError, KeyError, TypeError) as e:
                raise spec.CampaignError(f"results/{name} cannot be read ({type(e).__name__}: {e})") from None
            if key in grid:
                results[key] = r
            else:
                stale += 1  # a result of an earlier version of the file, not in its grid now
    rows = []
    for m in c["models"]:
        ref_top1 = None
        for r in c["runs"]:
            eng = "tare-" + r["backends"].replace(",", "+") if r["engine"] == "tare" else r["engine"]
            for t in r["threads"]:
                o = results.get(f"outputs/{m['name']}/{eng}/t{t}")
                reps = [results[k] for k in sorted(results) if k.startswith(f"timing/{m['name']}/{eng}/t{t}/r")]
                row = {"model": m["name"], "engine": eng, "threads": t, "accuracy": o.get("accuracy") if o else None}
                if o:
                    if ref_top1 is None:
                        ref_top1, row["flips"] = o["top1"], 0
                    else:
                        row["flips"] = sum(1 for p, q in zip(o["top1"], ref_top1) if p != q)
                if reps:
                    row["median_ms"] = statistics.median(x["median_ms"] for x in reps)
                    row["cpu_utilization"] = statistics.median(x["cpu_utilization"] for x in reps)
                    row["peak_rss_mb"] = max(x["peak_rss_bytes"] for x in reps) / 2**20
                    row["repetitions"] = len(reps)
                rows.append(row)
    # Flip matrices: per model, top-1 disagreements between every pair of outputs tasks.
    flips = {}
    for m in c["models"]:
        order = [t["key"] for t in tasks if t["kind"] == "outputs" and t["model"]["name"] == m["name"] and t["key"] in results]
        outs = {k.split("/", 2)[2]: results[k]["top1"] for k in order}
        names = list(outs)
        flips[m["name"]] = {"runs": names, "matrix": [[sum(1 for p, q in zip(outs[a], outs[b]) if p != q) for b in names] for a in names]}
    rep = {"campaign": c["name"], "tasks_done": len(results), "tasks_total": len(grid), "results_not_in_grid": stale,
           "rows": rows, "flips": flips,
           "compare": compare.run(c, tasks, results, out, tare_exe, log) if tare_exe else {}}
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump(rep, f, indent=1)
    with open(os.path.join(out, "report.html"), "w") as f:
        f.write(report_html.page(rep))
    return rep


def cmd_report(a):
    if not os.path.isfile(os.path.join(a.dir, "campaign.json")):
        print(f"tare campaign: error: {a.dir} holds no campaign (no campaign.json)", file=sys.stderr)
        return 1
    try:
        rep = report(a.dir, None if a.no_compare else _tare_exe(), log=lambda m: print(m, file=sys.stderr, flush=True))
    except spec.CampaignError as e:
        print(f"tare campaign: error: {a.dir}: {e}", file=sys.stderr)
        return 1
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"tare campaign: error: {a.dir}: its campaign.json or a result cannot be read ({type(e).__name__}: {e})", file=sys.stderr)
        return 1
    fmt = lambda v, p: "-" if v is None else f"{v:.{p}f}"  # noqa: E731
    print(f"campaign {rep['campaign']}: {rep['tasks_done']} of {rep['tasks_total']} task results"
          + (f" ({rep['results_not_in_grid']} results of tasks no longer in the file left out)" if rep["results_not_in_grid"] else ""))
    print("| model | engine | threads | accuracy | flips vs first | median ms | CPU util | peak RSS MB |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rep["rows"]:
        print(f"| {r['model']} | {r['engine']} | {r['threads']} | {fmt(r.get('accuracy'), 4)} | {r.get('flips', '-')} | "
              f"{fmt(r.get('median_ms'), 3)} | {fmt(r.get('cpu_utilization'), 2)} | {fmt(r.get('peak_rss_mb'), 1)} |")
    failed = 0
    for model, cmp in rep["compare"].items():
        print(f"\n{model}: tare compare (exit {cmp['exit']}), {cmp['html'] or cmp['text']}")
        for line in cmp["summary"]:
            print("  " + line)
        if cmp["exit"] != 0:
            failed += 1
            print(f"tare campaign: error: tare compare on {model} failed: {cmp.get('error') or 'see ' + cmp['text']}", file=sys.stderr)
    return 1 if failed else 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tare campaign", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run a campaign file's tasks (resumes: skips what DIR holds)")
    r.add_argument("file")
    r.add_argument("--out", required=True)
    how = r.add_mutually_exclusive_group()
    how.add_argument("--serial", action="store_true", help="no Dask: one task after the other in this process")
    how.add_argument("--scheduler", help="address of an existing Dask scheduler (default: a LocalCluster here)")
    how.add_argument("--workers", type=int, help="LocalCluster worker processes, 1 to 256 (default 2)")
    p = sub.add_parser("report", help="merge DIR's results into DIR/report.json and print the table")
    p.add_argument("dir")
    p.add_argument("--no-compare", action="store_true", help="no per-model `tare compare` of the engines' outputs")
    a = ap.parse_args(argv)
    if a.cmd == "run":
        if a.workers is not None and not 1 <= a.workers <= 256:
            ap.error("--workers must be in [1, 256]")
        a.workers = a.workers or 2
    return cmd_run(a) if a.cmd == "run" else cmd_report(a)


if __name__ == "__main__":
    sys.exit(main())
