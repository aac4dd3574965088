#!/usr/bin/python3
"""Acceptance check: torchvision CNNs and RNN text models, PyTorch vs. the tare CLI.

For each model and each ONNX opset: build it with random weights (weights=None, seeded),
randomize every BatchNorm's running statistics and affine parameters (seeded) so that no BN is
an identity, switch to eval mode, export to ONNX, run PyTorch on a seeded input, then

    TARE convert model.onnx -o model.tare
    TARE run model.tare --backend B --input input.npy --output-dir OUT

and compare OUT/<output name>.npy with PyTorch's output. One table row per
(model, opset, backend): relative L2 error ||y - y_torch|| / ||y_torch||, max abs error, whether
the argmax (per batch row) agrees, the wall time of `tare run`, and PASS if rel L2 <= 1e-4 and
the argmaxes agree. Exit status 1 if any row fails (2 for usage errors).

Not run in CI (it takes minutes). Examples:
    /usr/bin/python3 tests/models/zoo_check.py
    /usr/bin/python3 tests/models/zoo_check.py --models resnet18,lstm_text --opsets 13 --backends ref
    /usr/bin/python3 tests/models/zoo_check.py --markdown > zoo.md
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
import zlib

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from make_fixtures import TextRNN, randomize_batchnorm  # noqa: E402  (same directory)

BASE_SEED = 1234
REL_L2_TOL = 1e-4

CNNS = {
    "squeezenet1_1": {},
    "resnet18": {},
    "vgg11_bn": {},
    "mobilenet_v2": {},
    "mobilenet_v3_small": {},
    "shufflenet_v2_x0_5": {},
    "googlenet": {"aux_logits": False, "init_weights": True},
    "efficientnet_b0": {},
    "regnet_x_400mf": {},
    "mnasnet0_5": {},
    "densenet121": {},
}
TEXT = {"lstm_text": "lstm", "gru_text": "gru"}
TEXT_SHAPE = (2, 32)   # batch, sequence length of int64 token ids (vocab 1000)
ALL_MODELS = list(CNNS) + list(TEXT)


def model_seed(name):
    """Per-model seed, independent of which other models are selected."""
    return BASE_SEED + zlib.crc32(name.encode()) % 100000


def cnn_input_size(name, size):
    """(size actually used, note). VGG ends in AdaptiveAvgPool2d((7, 7)) after 5 stride-2 pools;
    PyTorch's ONNX exporter only handles it when the 7x7 output divides the feature map, i.e.
    when the input size is a multiple of 224."""
    if name.startswith("vgg") and (size // 32) % 7 != 0:
        used = 224 * max(1, round(size / 224))
        return used, f"input {used}x{used}: AdaptiveAvgPool2d(7) exports only for size % 224 == 0"
    return size, ""


def build(name, size):
    """Return (model in eval mode, input tensor, note) for one zoo entry."""
    import torchvision

    seed = model_seed(name)
    torch.manual_seed(seed)
    note = ""
    if name in CNNS:
        model = getattr(torchvision.models, name)(weights=None, **CNNS[name])
        size, note = cnn_input_size(name, size)
        x = torch.randn(1, 3, size, size, generator=torch.Generator().manual_seed(seed + 1))
    else:
        model = TextRNN(TEXT[name], vocab=1000, embed=32, hidden=48, layers=2)
        x = torch.randint(0, 1000, TEXT_SHAPE, generator=torch.Generator().manual_seed(seed + 1))
    randomize_batchnorm(model, torch.Generator().manual_seed(seed + 2))
    model.eval()
    return model, x, note


def sanitize(name):
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def one_line(text, limit=110, first=False):
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    line = (lines[0] if first else lines[-1]) if lines else ""
    return line if len(line) <= limit else line[:limit - 3] + "..."


def tare_error(what, proc):
    msg = one_line(proc.stderr) or one_line(proc.stdout) or "(no output)"
    return f"{what} rc={proc.returncode}: {msg}"


def run_cmd(cmd, timeout):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(cmd, 124, e.stdout or "", f"timed out after {timeout}s")
    except OSError as e:
        return subprocess.CompletedProcess(cmd, 127, "", str(e))


def compare(y, ref):
    """(rel_l2, max_abs, argmax_equal, note) between tare's output y and PyTorch's ref."""
    y = np.asarray(y, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if y.shape != ref.shape:
        if y.size == ref.size:
            note = f"shape {list(y.shape)} != {list(ref.shape)} (compared flattened)"
            y = y.reshape(ref.shape)
        else:
            return None, None, False, f"shape {list(y.shape)} != {list(ref.shape)}"
    else:
        note = ""
    if not np.all(np.isfinite(y)):
        return float("nan"), float("nan"), False, (note + " non-finite values").strip()
    denom = np.linalg.norm(ref)
    diff = np.linalg.norm(y - ref)
    rel = diff / denom if denom > 0 else diff
    max_abs = float(np.max(np.abs(y - ref))) if y.size else 0.0
    flat = lambda a: a.reshape(-1, a.shape[-1]) if a.ndim >= 2 else a.reshape(1, -1)  # noqa: E731
    arg_eq = bool(np.array_equal(flat(y).argmax(-1), flat(ref).argmax(-1)))
    if not arg_eq and ref.shape[-1] > 1:
        top2 = np.sort(flat(ref), axis=-1)[:, -2:]
        note = (note + f" torch top-2 gap {float(np.min(top2[:, 1] - top2[:, 0])):.2e}").strip()
    return float(rel), max_abs, arg_eq, note


COLUMNS = ["model", "opset", "backend", "rel_l2", "max_abs", "argmax", "run_s", "result", "note"]


def fmt_row(r):
    def num(v, f):
        return "-" if v is None else format(v, f)
    return [r["model"], str(r["opset"]), r["backend"], num(r["rel_l2"], ".2e"), num(r["max_abs"], ".2e"),
            "-" if r["argmax"] is None else ("yes" if r["argmax"] else "NO"), num(r["run_s"], ".3f"),
            "PASS" if r["ok"] else "FAIL", r["note"]]


WIDTHS = [20, 5, 7, 9, 9, 6, 8, 6, 0]


def text_line(cells):
    return "  ".join(c.ljust(w) if w else c for c, w in zip(cells, WIDTHS)).rstrip()


def markdown_table(rows):
    out = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join("---" for _ in COLUMNS) + "|"]
    for r in rows:
        cells = [c.replace("|", "\\|") for c in fmt_row(r)]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def check_model(name, args, work_root, emit):
    import onnx

    t0 = time.time()
    try:
        model, x, size_note = build(name, args.size)
        with torch.no_grad():
            ref = model(x)
        if isinstance(ref, (tuple, list)):
            ref = ref[0]
        ref = ref.numpy()
    except Exception as e:  # a torchvision/torch problem, not tare's
        for opset in args.opsets:
            for b in args.backends:
                emit(dict(model=name, opset=opset, backend=b, rel_l2=None, max_abs=None, argmax=None,
                          run_s=None, ok=False, note=f"torch build/run failed: {one_line(str(e), first=True)}"))
        return
    log(args, f"[{name}] built and ran in PyTorch ({time.time() - t0:.1f}s), input {list(x.shape)}, "
              f"output {list(ref.shape)}")

    for opset in args.opsets:
        d = os.path.join(work_root, f"{name}.opset{opset}")
        os.makedirs(d, exist_ok=True)
        onnx_path = os.path.join(d, "model.onnx")
        tare_path = os.path.join(d, "model.tare")
        in_path = os.path.join(d, "input.npy")
        np.save(in_path, x.numpy())
        os.makedirs(os.path.join(d, "expected"), exist_ok=True)

        def fail_all(note):
            for b in args.backends:
                emit(dict(model=name, opset=opset, backend=b, rel_l2=None, max_abs=None, argmax=None,
                          run_s=None, ok=False, note=note))

        t1 = time.time()
        try:
            with torch.no_grad():
                torch.onnx.export(model, (x,), onnx_path, input_names=["input"], output_names=["logits"],
                                  opset_version=opset, do_constant_folding=True,
                                  training=torch.onnx.TrainingMode.EVAL)
            m = onnx.load(onnx_path)
            onnx.checker.check_model(m)
            out_name = m.graph.output[0].name
        except Exception as e:
            fail_all(f"export failed: {one_line(str(e), first=True)}")
            continue
        np.save(os.path.join(d, "expected", sanitize(out_name) + ".npy"), ref)
        log(args, f"[{name}] opset {opset}: exported ({time.time() - t1:.1f}s, "
                  f"{os.path.getsize(onnx_path) / 1e6:.1f} MB, {len(m.graph.node)} nodes)")

        proc = run_cmd([args.tare, "convert", onnx_path, "-o", tare_path], args.timeout)
        if proc.returncode != 0:
            fail_all(tare_error("convert", proc))
            continue

        for b in args.backends:
            out_dir = os.path.join(d, f"out.{b}")
            shutil.rmtree(out_dir, ignore_errors=True)
            os.makedirs(out_dir)
            t2 = time.time()
            proc = run_cmd([args.tare, "run", tare_path, "--backend", b, "--input", in_path,
                            "--output-dir", out_dir], args.timeout)
            run_s = time.time() - t2
            row = dict(model=name, opset=opset, backend=b, rel_l2=None, max_abs=None, argmax=None,
                       run_s=run_s, ok=False, note="")
            if proc.returncode != 0:
                row["note"] = tare_error("run", proc)
                emit(row)
                continue
            out_file = os.path.join(out_dir, sanitize(out_name) + ".npy")
            try:
                y = np.load(out_file)
            except Exception as e:
                row["note"] = f"cannot read {os.path.basename(out_file)}: {one_line(str(e), first=True)}"
                emit(row)
                continue
            rel, max_abs, arg_eq, note = compare(y, ref)
            row.update(rel_l2=rel, max_abs=max_abs, argmax=arg_eq, note="; ".join(v for v in (note, size_note) if v),
                       ok=rel is not None and rel <= REL_L2_TOL and arg_eq)
            emit(row)
        if not args.keep:
            shutil.rmtree(d, ignore_errors=True)  # vgg11_bn alone is 0.5 GB per opset


def log(args, msg):
    if not args.quiet:
        print(msg, file=sys.stderr, flush=True)


def parse_list(s):
    return [v.strip() for v in s.split(",") if v.strip()]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tare", default=os.path.join(REPO, "build", "tare"), help="tare CLI (default: build/tare)")
    ap.add_argument("--models", default=",".join(ALL_MODELS), help="comma-separated (default: all): "
                    + ",".join(ALL_MODELS))
    ap.add_argument("--opsets", default="11,12,13", help="comma-separated ONNX opsets (default 11,12,13)")
    ap.add_argument("--backends", default="ref,ref64", help="comma-separated tare backends (default ref,ref64)")
    ap.add_argument("--size", type=int, default=128, help="CNN input height/width (default 128)")
    ap.add_argument("--keep", metavar="DIR", help="keep exported models, inputs and outputs in DIR")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown (at the end)")
    ap.add_argument("--timeout", type=int, default=900, help="seconds allowed per tare command (default 900)")
    ap.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")
    ap.add_argument("--quiet", action="store_true", help="no progress messages on stderr")
    args = ap.parse_args()

    args.models = parse_list(args.models)
    unknown = [m for m in args.models if m not in ALL_MODELS]
    if unknown:
        ap.error(f"unknown model(s) {', '.join(unknown)}; choose from {', '.join(ALL_MODELS)}")
    try:
        args.opsets = [int(v) for v in parse_list(args.opsets)]
    except ValueError:
        ap.error("--opsets takes comma-separated integers")
    args.backends = parse_list(args.backends)
    if not args.models or not args.opsets or not args.backends:
        ap.error("--models, --opsets and --backends must not be empty")
    if os.sep in args.tare or (os.altsep and os.altsep in args.tare):
        args.tare = os.path.abspath(args.tare)
    else:
        args.tare = shutil.which(args.tare) or os.path.abspath(args.tare)
    if not os.path.isfile(args.tare):
        log(args, f"warning: tare CLI {args.tare} not found; every row will fail")

    torch.set_num_threads(args.threads)
    # The exporter's UserWarnings (RNN batch size, prim::Constant shape inference) are noise here.
    warnings.filterwarnings("ignore", category=UserWarning)
    try:
        torch.use_deterministic_algorithms(True)
    except Exception:
        pass

    rows = []

    def emit(row):
        rows.append(row)
        if not args.markdown:
            print(text_line(fmt_row(row)), flush=True)

    if not args.markdown:
        print(text_line(COLUMNS), flush=True)
    t0 = time.time()
    tmp = None
    if args.keep:
        work_root = os.path.abspath(args.keep)
        os.makedirs(work_root, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="tare_zoo_")
        work_root = tmp.name
    try:
        for name in args.models:
            check_model(name, args, work_root, emit)
    finally:
        if tmp is not None:
            tmp.cleanup()

    failed = [r for r in rows if not r["ok"]]
    if args.markdown:
        print(markdown_table(rows))
        print()
    summary = (f"{len(rows) - len(failed)}/{len(rows)} rows passed (rel L2 <= {REL_L2_TOL:g} and argmax equal)"
               f" in {time.time() - t0:.0f}s; tare: {args.tare}")
    print(summary if not args.markdown else summary.replace("<=", "&le;"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
