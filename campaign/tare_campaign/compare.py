"""Per-model `tare compare` of every engine's outputs (issue 25: flips attributed, reports linked).

For each model with outputs from two engines or more, or from one and variants, `tare campaign
report` runs

    tare compare --model FILE --expect ENGINE=DIR ... (--dataset SPEC [--limit N] | --input NAME=FILE)
                 --json DIR/compare/<model>.json --html DIR/compare/<model>.html

on the model's file (ONNX, or any format tare reads, e.g. a .tflite), one --expect per engine (its outputs at its lowest thread count, copied
to DIR/compare/<model>/<engine>/<output name>.npy as tare compare reads them), then the model's
variants (other versions of the file, run by tare compare on ref64 and ref). On a data set
tare compare gives each run's accuracy and every top-1 flip between two runs with its attribution
(a model difference at a named node, or a framework computing difference and which side is
further from ref64: docs/COMPARE.md); on a model's own input, its verdicts per pair. Its text goes
to DIR/compare/<model>.txt.

    run(campaign, tasks, results, out, tare_exe, log) -> {model: {"text", "json", "html", "exit", "summary", "error"}}
    (tasks: tasks.expand(campaign))
"""

import os
import re
import shutil
import subprocess

from . import tasks as T


def _safe(name):
    """A tensor name as tare writes and reads its .npy (SafeName: each character outside
    [A-Za-z0-9._-] as '_')."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def _engine_outputs(tasks, m, results):
    """{engine: outputs result} for model m, each engine at its lowest thread count (expand order)."""
    got = {}
    for t in tasks:
        if t["kind"] == "outputs" and t["model"]["name"] == m["name"] and t["key"] in results:
            got.setdefault(t["engine"], results[t["key"]])
    return got


def _summary(text):
    """tare compare's accuracy lines, its flip lines with flips and its pairwise verdicts; the
    pairs without a flip as one line (a data set of 10 runs has 45 pairs)."""
    keep, zero = [], 0
    for ln in text.splitlines():
        if re.match(r"^flips .*: 0$", ln):
            zero += 1
        elif re.match(r"^(accuracy|flips|\S+ vs \S+:)", ln):
            keep.append(ln)
    if zero:
        keep.append(f"flips: 0 in each of the {zero} other pairs")
    return keep


def run(c, tasks, results, out, tare_exe, log=print):
    done = {}
    for m in c["models"]:
        engines = _engine_outputs(tasks, m, results)
        if not engines or (len(engines) < 2 and not m.get("variants")) or not m.get("file"):
            continue
        input_name, _, output_name = T.model_io(m["file"])
        out_file = _safe(output_name) + ".npy"
        base = os.path.join(out, "compare", m["name"])
        cmd = [tare_exe, "compare", "--model", m["file"]]
        for eng, res in engines.items():
            d = os.path.join(base, eng)
            os.makedirs(d, exist_ok=True)
            shutil.copyfile(os.path.join(out, res["outputs_file"]), os.path.join(d, out_file))
            cmd += ["--expect", f"{eng}={d}"]
        cmd += [x for v in m.get("variants", []) for x in ("--model", v)]
        src = m["inputs"]
        if src["kind"] in ("npy", "fashion-mnist"):
            cmd += ["--dataset", f"{src['kind']}:{src['dir']}"] + (["--limit", str(m["limit"])] if m["limit"] else [])
        else:
            cmd += ["--input", f"{input_name}={src['file']}"]
        paths = {k: os.path.join(out, "compare", f"{m['name']}.{k}") for k in ("txt", "json", "html")}
        cmd += ["--json", paths["json"], "--html", paths["html"]]
        log(f"tare compare on {m['name']}: {len(engines)} engines")
        p = subprocess.run(cmd, capture_output=True, text=True)
        with open(paths["txt"], "w") as f:
            f.write(p.stdout + p.stderr)
        summary = _summary(p.stdout)
        errors = [ln.strip() for ln in p.stderr.splitlines() if "error" in ln]
        done[m["name"]] = {"text": os.path.relpath(paths["txt"], out), "exit": p.returncode, "summary": summary,
                           "error": errors[0] if p.returncode and errors else None,
                           "json": os.path.relpath(paths["json"], out) if os.path.isfile(paths["json"]) else None,
                           "html": os.path.relpath(paths["html"], out) if os.path.isfile(paths["html"]) else None}
    return done
