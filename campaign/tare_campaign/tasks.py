"""The campaign's tasks (issue 25): the grid expanded with stable keys, and how one task runs.

A task is a dict with a key that names it for good (the same campaign file gives the same keys,
so a rerun finds what is done):
    outputs/<model>/<engine>/t<threads>            the model's outputs on every item (one run)
    timing/<model>/<engine>/t<threads>/r<k>        repetition k of the timing (a fresh process)
where <engine> is "tare-<backends>", "ort", "torch", "tflite" or "tfjs" (the last two: outputs
only). run_task(task) returns the result as a JSON-able dict; it never writes the campaign's
results (the caller does, once per key).

Outputs: tare runs in process (the tare module, python/) on the items in batches of the model's
first input's leading dim; ONNX Runtime through bench/study/ort.js --run on each batch; PyTorch in
process on the model's module (bench/peers/models.py torch_module, torch.set_num_threads);
LiteRT.js and TF.js on the model's tflite / tfjs file (_js_outputs). Result:
top-1 per item, accuracy when there are labels, the outputs' file (.npy, float32 [N, classes]).
Timing: `tare bench --json`, bench/peers/ort_bench.js or bench/peers/torch_bench.py as a child
process; result: its latency figures (ms), its CPU time (s, os.wait4), CPU utilization (CPU time
over wall time) and peak RSS (bytes, VmHWM: _timed_child).
Benchmark models (a model's `bench`): prepare_bench exports them once, before any task.
"""

import gzip
import hashlib
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np

from .spec import TIMED_ENGINES

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def engine_name(run):
    return "tare-" + run["backends"].replace(",", "+") if run["engine"] == "tare" else run["engine"]


def expand(c):
    """The campaign's tasks in a fixed order: every outputs task, then every timing task."""
    tasks = []
    for m in c["models"]:
        for r in c["runs"]:
            for t in r["threads"]:
                base = {"model": m, "run": r, "threads": t, "engine": engine_name(r), "measure": c["measure"]}
                if c["measure"]["outputs"]:
                    tasks.append(dict(base, kind="outputs", rep=0, key=f"outputs/{m['name']}/{engine_name(r)}/t{t}"))
    for m in c["models"]:
        for r in c["runs"]:
            for t in r["threads"]:
                base = {"model": m, "run": r, "threads": t, "engine": engine_name(r), "measure": c["measure"]}
                if c["measure"]["latency"] and r["engine"] in TIMED_ENGINES:
                    for k in range(r["repetitions"]):
                        tasks.append(dict(base, kind="timing", rep=k, key=f"timing/{m['name']}/{engine_name(r)}/t{t}/r{k}"))
    return tasks


def key_file(key):
    """The file name of a key's result: '/' as '~' (names are letters, digits, '-', '_', '.', '+')."""
    return key.replace("/", "~") + ".json"


def _file_digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _engine_files(m, engine):
    """The files an engine reads for model m: the ONNX file; the .tflite; a TF.js model.json and
    the weight shards its manifest names."""
    if engine == "tflite":
        return [m["tflite"]]
    if engine != "tfjs":
        return [m["file"]]
    files = [m["tfjs"]]
    try:
        with open(m["tfjs"]) as fh:
            manifest = json.load(fh).get("weightsManifest", [])
        files += [os.path.join(os.path.dirname(m["tfjs"]), p) for group in manifest for p in group.get("paths", [])]
    except (OSError, ValueError, AttributeError, TypeError):
        pass  # the engine reports an unreadable model when it runs
    return [f for f in files if os.path.isfile(f)]


def task_hash(task, _cache={}):
    """What a task's result depends on: the bytes of the files its engine reads (_engine_files),
    the inputs, the engine settings, the thread count and (timing) iters, warmup and pin. A result
    whose recorded hash differs is stale: a rerun runs its task again."""
    m = task["model"]
    digests = []
    for f in _engine_files(m, task["run"]["engine"]):
        st = os.stat(f)
        ck = (f, st.st_size, st.st_mtime_ns)
        if ck not in _cache:
            _cache[ck] = _file_digest(f)
        digests.append(_cache[ck])
    what = {"model": digests, "inputs": m["inputs"], "limit": m["limit"], "engine": task["engine"],
            "backends": task["run"]["backends"], "threads": task["threads"], "kind": task["kind"]}
    if task["kind"] == "timing":
        what.update(iters=task["measure"]["iters"], warmup=task["measure"]["warmup"])
        pin = task["measure"].get("pin", {}).get(str(task["threads"]))
        if pin:
            what["pin"] = pin
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:16]


def _read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def _bench_models():
    sys.path.insert(0, os.path.join(ROOT, "bench", "peers"))
    try:
        import models
    finally:
        sys.path.pop(0)
    return models


def prepare_bench(c, out, log=print):
    """Exports the campaign's benchmark models (bench/peers/models.py prepare: seeded weights, the
    same files as bench/run_peers.sh's) under out/bench, skipping what is there, and sets each such
    model's file and inputs (its own input, one batch). Returns "" or the first problem."""
    names = sorted({m["bench"] for m in c["models"] if m.get("bench")})
    if not names:
        return ""
    try:
        entries = {e["name"]: e for e in _bench_models().prepare(os.path.join(out, "bench"), names, None, log=log)}
    except Exception as e:  # the exporter's errors (torch, onnx) as one line
        return f"exporting the benchmark models {', '.join(names)}: {type(e).__name__}: {e}"
    for m in c["models"]:
        if m.get("bench"):
            e = entries[m["bench"]]
            if len(e["inputs"]) != 1:
                return f"models '{m['name']}': bench model {m['bench']!r} has {len(e['inputs'])} inputs (the campaign feeds one)"
            m["file"] = e["onnx"]
            if m["inputs"]["kind"] == "bench":
                m["inputs"] = {"kind": "batch", "file": e["inputs"][0][1]}
    return ""


def load_items(model):
    """(items float32 [N, ...], labels int64 [N] or None) of a model's data set."""
    src = model["inputs"]
    if src["kind"] == "batch":  # a benchmark model's own input: one batch, no labels
        x, y = np.load(src["file"]), None
        if x.dtype.kind != "f":
            raise ValueError(f"{src['file']} holds {x.dtype}, not floats")
        x = x.astype(np.float32)
    elif src["kind"] == "npy":
        x = np.load(os.path.join(src["dir"], "items.npy")).astype(np.float32)
        lp = os.path.join(src["dir"], "labels.npy")
        y = np.load(lp).astype(np.int64) if os.path.isfile(lp) else None
    else:
        x = (_read_idx(os.path.join(src["dir"], "t10k-images-idx3-ubyte.gz")).astype(np.float32) / np.float32(255.0))[:, None]
        y = _read_idx(os.path.join(src["dir"], "t10k-labels-idx1-ubyte.gz")).astype(np.int64)
    if model["limit"]:
        x, y = x[:model["limit"]], (y[:model["limit"]] if y is not None else None)
    return x, y


def failure_reason(stderr, code):
    """A failed tool's reason: its first line that says error (a node.js stack's first line), else
    its last line, without a leading 'tare: error:' of its own."""
    lines = [ln.strip() for ln in stderr.strip().splitlines() if ln.strip()]
    said = [ln for ln in lines if "rror" in ln] or lines[-1:] or [f"exit {code}"]
    return re.sub(r"^(tare|ort_bench|ort_run|torch_bench|tflite_run|tfjs_run)(\.js|\.py)?: (error: )?", "", said[0])


def check_data(c):
    """Checks every model's data set before any task runs: items.npy (or the images) readable as
    numbers, labels (when present) one per item, and the items splitting into the model's batch
    (its first input's leading dim). Benchmark models are checked once exported. Returns "" or the
    first problem, naming the model."""
    for m in c["models"]:
        if not m["file"]:
            continue  # a benchmark model not exported yet: checked again after prepare_bench
        try:
            x, y = load_items(m)
        except (OSError, ValueError, EOFError) as e:
            return f"models '{m['name']}': its inputs cannot be read: {e}"
        if y is not None and len(y) != len(x):
            return f"models '{m['name']}': {len(y)} labels for {len(x)} items"
        try:
            _, batch, _ = model_io(m["file"])
        except ValueError as e:
            return f"models '{m['name']}': {e}"
        if batch and len(x) % batch:
            return f"models '{m['name']}': {len(x)} items do not split into batches of the model's {batch}"
        for engine in sorted({r["engine"] for r in c["runs"]} & {"tflite", "tfjs"}):
            want, _, why = _js_layout(engine, m[engine], x.shape)
            if why:
                return f"models '{m['name']}': {why}"
            if engine == "tflite" and want and want[0] and len(x) % want[0]:
                return (f"models '{m['name']}': {len(x)} items do not split into the tflite file's batch of {want[0]}"
                        + (f" (limit = {m['limit']})" if m["limit"] else ""))
    return ""


def _model_batch(graph):
    """The leading dim of the model's first input, or 0 when it is not a fixed size."""
    dims = graph.input[0].type.tensor_type.shape.dim
    return dims[0].dim_value if dims and dims[0].dim_value > 0 else 0


def model_io(path):
    """(first input's name, its leading dim or 0 when not a fixed size, first output's name) of a
    model file: an ONNX file (.onnx) read with onnx; any other format tare reads (a .tflite, a TF.js
    model.json, a .tare) through the tare module. Raises ValueError naming the file's problem."""
    if path.endswith(".onnx"):
        import onnx
        try:
            g = onnx.load(path, load_external_data=False).graph
        except Exception as e:  # onnx raises DecodeError and others
            raise ValueError(f"{path} is not an ONNX model ({type(e).__name__}: {e})") from None
        if not g.input or not g.output:
            raise ValueError("the model has no inputs" if not g.input else "the model has no outputs")
        return g.input[0].name, _model_batch(g), g.output[0].name
    import tare  # the tare module (python/): built next to the CLI
    try:
        s = tare.Session(path, backends="ref")
    except tare.Error as e:
        raise ValueError(f"{path} cannot be read by tare ({e})") from None
    if not s.inputs or not s.outputs:
        raise ValueError("the model has no inputs" if not s.inputs else "the model has no outputs")
    first = s.inputs[0]
    batch = first.shape[0] if first.shape and isinstance(first.shape[0], int) and first.shape[0] > 0 else 0
    return first.name, batch, s.outputs[0].name


def _batches(x, batch):
    if batch < 1 or len(x) % batch:
        raise RuntimeError(f"{len(x)} items do not split into batches of the model's {batch}")
    return [x[i:i + batch] for i in range(0, len(x), batch)]


def _outputs(task, out_dir):
    import tare  # the tare module (python/): built next to the CLI
    m, r = task["model"], task["run"]
    x, y = load_items(m)
    if r["engine"] == "tare":
        s = tare.Session(m["file"], backends=r["backends"], threads=task["threads"])
        first = s.inputs[0]
        batch = first.shape[0] if first.shape and isinstance(first.shape[0], int) and first.shape[0] > 0 else len(x)
        outs = [np.asarray(s.run({first.name: b})[s.outputs[0].name], dtype=np.float32) for b in _batches(x, batch)]
    elif r["engine"] == "torch":
        import torch
        torch.set_num_threads(task["threads"])
        module = _bench_models().torch_module(m["bench"])
        with torch.no_grad():
            outs = [module(torch.from_numpy(np.ascontiguousarray(x))).numpy().astype(np.float32)]
    elif r["engine"] in ("tflite", "tfjs"):
        _, transpose, why = _js_layout(r["engine"], m[r["engine"]], x.shape)
        if why:
            raise RuntimeError(why)
        chunk = len(x) if r["engine"] == "tflite" else 1000  # TF.js: bounded memory per process
        outs = [_js_outputs(r["engine"], m[r["engine"]], x[i:i + chunk], transpose) for i in range(0, len(x), chunk)]
    else:
        batch = model_io(m["file"])[1] or len(x)
        outs = []
        with tempfile.TemporaryDirectory() as tmp:
            for i, b in enumerate(_batches(x, batch)):
                src, dst = os.path.join(tmp, f"in{i}.npy"), os.path.join(tmp, f"out{i}.npy")
                np.save(src, b)
                p = subprocess.run(["node", os.path.join(ROOT, "bench", "study", "ort.js"), "--run", m["file"], src, dst],
                                   capture_output=True, text=True)
                if p.returncode != 0:
                    raise RuntimeError("ort.js: " + failure_reason(p.stderr, p.returncode))
                outs.append(np.load(dst).astype(np.float32))
    logits = np.concatenate(outs).reshape(len(x), -1)
    os.makedirs(out_dir, exist_ok=True)
    f = os.path.join(out_dir, key_file(task["key"])[:-5] + ".npy")
    np.save(f, logits)
    top1 = logits.argmax(axis=1)
    res = {"items": int(len(x)), "top1": top1.tolist(), "outputs_file": os.path.relpath(f, os.path.dirname(out_dir))}
    if y is not None:
        res["accuracy"] = float((top1 == y).mean())
    return res


def _js_input_shape(engine, model_file):
    """The first input's shape a .tflite (tflite_run.js --inspect) or a TF.js layers model.json
    (its first layer's batch_input_shape) declares, or None (then items go as they are). Raises
    ValueError with LiteRT.js's message when it cannot read the .tflite."""
    if engine == "tflite":
        p = subprocess.run(["node", os.path.join(ROOT, "bench", "peers", "tflite_run.js"), model_file, "--inspect"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise ValueError("LiteRT.js cannot read it: " + failure_reason(p.stderr, p.returncode))
    try:
        if engine == "tflite":
            return json.loads(p.stdout)["inputs"][0]["shape"]
        with open(model_file) as fh:
            layers = json.load(fh)["modelTopology"]["config"]["layers"]
        cfg = layers[0]["config"]
        return cfg.get("batch_input_shape") or cfg.get("batchInputShape")
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None


def _js_layout(engine, model_file, items_shape):
    """(the file's input shape or None, whether NCHW items go in transposed to NHWC, "" or why the
    items do not fit): items fit as they are, or as the NHWC transpose of NCHW items; a file whose
    shape cannot be read takes them as they are (its engine then says what is wrong)."""
    try:
        want = _js_input_shape(engine, model_file)
    except ValueError as e:
        return None, False, f"its {engine} file {model_file}: {e}"
    if not want or len(want) != len(items_shape):
        return want, False, ""
    item = list(items_shape[1:])
    if list(want[1:]) == item:
        return want, False, ""
    if len(item) == 3 and list(want[1:]) == [item[1], item[2], item[0]]:
        return want, True, ""
    return want, False, f"its {engine} file takes items of shape {list(want[1:])}, the data set's are {item}"


def _js_outputs(engine, model_file, x, transpose):
    """The first output of LiteRT.js (bench/peers/tflite_run.js --batches: the .tflite's fixed batch
    in turn) or TF.js (bench/peers/tfjs_run.js, one call) on items x, float32 [N, ...]; NCHW items
    transposed to NHWC first when `transpose` (_js_layout)."""
    x = np.ascontiguousarray(x.transpose(0, 2, 3, 1) if transpose else x, dtype=np.float32)
    peers = os.path.join(ROOT, "bench", "peers")
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "items.npy"), os.path.join(tmp, "out")
        np.save(src, x)
        if engine == "tflite":
            cmd = ["node", os.path.join(peers, "tflite_run.js"), model_file, src, "--out", out, "--batches"]
        else:
            cmd = ["node", os.path.join(peers, "tfjs_run.js"), model_file, "--out", out, src]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{os.path.basename(cmd[1])}: " + failure_reason(p.stderr, p.returncode))
        first = [f for f in os.listdir(out) if f.startswith("0_") or f == "output_0.npy"]
        if len(first) != 1:
            raise RuntimeError(f"{os.path.basename(cmd[1])} wrote no single first output in {sorted(os.listdir(out))}")
        return np.load(os.path.join(out, first[0])).astype(np.float32)


def _hwm(pid):
    """The process's peak resident set (VmHWM, bytes) since its exec, or 0."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _child_env():
    """The environment for a timed child: this process's, less what a Dask nanny put there for its
    worker (distributed.nanny.pre-spawn-environ: MALLOC_TRIM_THRESHOLD_=65536 and OMP, MKL and
    OPENBLAS_NUM_THREADS=1), when this is a Dask worker and a variable still has the nanny's
    value. With MALLOC_TRIM_THRESHOLD_ inherited, PyTorch's ResNet-18 took 289 ms a run instead
    of 33 (its allocations handed back to the system and faulted in again on every call)."""
    env = dict(os.environ)
    try:
        from distributed import get_worker
        get_worker()
        import dask
        injected = dask.config.get("distributed.nanny.pre-spawn-environ", {}) or {}
    except (ImportError, ValueError):  # not in a Dask worker
        return env
    for k, v in injected.items():
        if env.get(k) == str(v):
            del env[k]
    return env


def _timed_child(cmd, env=None):
    """Runs cmd (in environment env, else this process's); returns (returncode, stdout, stderr, wall
    s, CPU s, peak RSS bytes). CPU time from os.wait4's resource usage. Peak RSS: /proc/PID/status
    VmHWM, polled every 10 ms (a high-water mark, so its last value holds the peak up to then):
    ru_maxrss would count the forked copy of this (larger) process before the exec."""
    with tempfile.TemporaryFile("w+") as so, tempfile.TemporaryFile("w+") as se:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=so, stderr=se, text=True, env=env)
        peak = 0
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid == p.pid:
                break
            peak = max(peak, _hwm(p.pid))
            time.sleep(0.01)
        wall = time.monotonic() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        so.seek(0)
        se.seek(0)
        return p.returncode, so.read(), se.read(), wall, ru.ru_utime + ru.ru_stime, peak


def run_task(task, out_dir, tare_exe):
    """Runs one task; returns its result (JSON-able). Outputs tasks write their .npy under out_dir."""
    t0 = time.time()
    res = {"key": task["key"], "task_hash": task_hash(task), "kind": task["kind"], "model": task["model"]["name"], "engine": task["engine"],
           "threads": task["threads"], "rep": task["rep"], "host": socket.gethostname(), "pid": os.getpid()}
    if task["kind"] == "outputs":
        res.update(_outputs(task, out_dir))
    else:
        res.update(timing(task, tare_exe))
    res["seconds"] = time.time() - t0
    return res


def timing(task, tare_exe):
    """A timing task's figures: the tool's latency (ms), and the child's wall and CPU time (s), CPU
    utilization and peak RSS (bytes)."""
    m, r, meas = task["model"], task["run"], task["measure"]
    x, _ = load_items(m)
    input_name, batch, _ = model_io(m["file"])
    batch = batch or 1
    with tempfile.TemporaryDirectory() as tmp:
        inp = os.path.join(tmp, "input.npy")
        np.save(inp, x[:batch])
        counts = ["--threads", str(task["threads"]), "--iters", str(meas["iters"]), "--warmup", str(meas["warmup"])]
        common = counts + ["--input", f"{input_name}={inp}"]
        js = os.path.join(tmp, "bench.json")
        if r["engine"] == "tare":
            cmd = [tare_exe, "bench", m["file"], "--backend", r["backends"]] + common + ["--json", js]
        elif r["engine"] == "torch":
            cmd = [sys.executable, os.path.join(ROOT, "bench", "peers", "torch_bench.py"), m["bench"], "--input", inp] + counts
        else:
            cmd = ["node", os.path.join(ROOT, "bench", "peers", "ort_bench.js"), m["file"]] + common
        pin = meas.get("pin", {}).get(str(task["threads"]))
        code, out, err, wall, cpu, rss = _timed_child((["taskset", "-c", pin] if pin else []) + cmd, env=_child_env())
        if code != 0:  # taskset's own failure (CPUs this machine lacks) is on stderr too
            raise RuntimeError(f"{os.path.basename(cmd[0] if r['engine'] == 'tare' else cmd[1])}: " + failure_reason(err, code))
        if r["engine"] == "tare":
            with open(js) as f:
                b = json.load(f)
        else:
            b = json.loads([ln for ln in out.splitlines() if ln.strip()][-1])
    keep = ("median_ms", "p90_ms", "p99_ms", "min_ms", "mean_ms", "load_ms", "first_run_ms")
    res = {k: b[k] for k in keep if k in b}
    res.update({"process_wall_s": wall, "process_cpu_s": cpu, "cpu_utilization": cpu / wall if wall > 0 else None,
                "peak_rss_bytes": rss, "pinned_to": pin or None})
    return res
