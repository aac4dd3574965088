"""The campaign file (issue 25): TOML, read with tomllib, checked whole before any task starts.

    name = "engines-x-threads"            # the campaign's name (letters, digits, - _ .)

    [[models]]                             # one table per model
    name = "lenet5"
    file = "../../tests/models/lenet5/model.onnx"   # relative to the campaign file; ONNX, or any
                                           # model file tare reads (.tflite, TF.js model.json,
                                           # .tare) for engines tare, tflite and tfjs
    inputs = "npy:../../tests/models/lenet5/dataset"
    # or, instead of file and inputs, a benchmark model that bench/peers/models.py exports (seeded
    # weights; into OUT/bench/ before the first task) with its input, and whose PyTorch module
    # engine "torch" runs: one float input (resnet18, mobilenet_v2, squeezenet1_1,
    # efficientnet_b0, convnext_tiny, vit_b_16, resnet20, vgg16, lenet5)
    bench = "resnet18"
    # the same network exported by other frameworks, for engines "tflite" and "tfjs" (optional):
    tflite = "../../tests/models/lenet5_bn/tflite_twin/model.tflite"   # a .tflite file
    tfjs = "../../tests/models/lenet5_bn/tfjs/model.json"              # a TF.js model.json
    # optional: other versions of the model (altered exports, another producer's graph): no task
    # runs them; the report's tare compare runs them beside the file on ref64 and ref, so that
    # flips between the model and a variant are attributed to the node where they differ
    variants = ["../../tests/models/lenet5_bn/variants/altered_pool.onnx"]
        # npy:DIR           DIR/items.npy: N items stacked on axis 0 (the model's first input),
        #                   DIR/labels.npy (optional): N int class labels
        # fashion-mnist:DIR the t10k images of DIR/t10k-images-idx3-ubyte.gz (pixels / 255,
        #                   float32 [N,1,28,28]) and their labels; "fashion-mnist:" alone: Debian's
        #                   /usr/share/datasets/fashion-mnist
    limit = 1000                           # optional: the first `limit` items only

    [[runs]]                               # one table per engine configuration
    engine = "tare"                        # "tare" (the tare module, `tare bench`), "ort" (ONNX
                                           # Runtime), "torch" (PyTorch; models given by bench),
                                           # "tflite" (LiteRT.js on each model's tflite file) or
                                           # "tfjs" (TF.js on each model's tfjs file); tflite and
                                           # tfjs give outputs only (no timing tasks)
    backends = "cpu"                       # tare only: a priority list as tare's --backend takes
    threads = [1, 2]                       # each thread count is its own run
    repetitions = 3                        # timing repetitions (each a fresh process)

    [measure]
    outputs = true                         # the outputs on every item: top-1, accuracy, flips
    latency = true                         # timing tasks: latency percentiles, CPU time, peak RSS
    iters = 20                             # timed runs per timing task
    warmup = 3                             # untimed runs before them
    pin = "1:1/2:0-1"                      # optional: THREADS:CPUS pairs joined by '/' (as
                                           # bench/run_peers.sh --pin): a timed process with that
                                           # many threads runs under `taskset -c CPUS`

A bench model may also take inputs (a data set for its PyTorch module and export). Items are
float32, stacked on axis 0, in the layout of the model file's first input; a TFLite or TF.js file
whose input is the NHWC transpose of an NCHW item gets the items transposed.

Errors (CampaignError, one line naming the file and the key): unknown keys at any level, missing
or mistyped values, a model file or data set that does not exist, an engine or tare backend that
does not exist here, duplicate model names, a benchmark model that is not one of bench/peers/
models.py's single-float-input ones, engine "torch" with a model given by file, engine "ort" with a model
whose file is not .onnx, engine "tflite" or "tfjs" with a model that has no such file.
"""

import os
import re
import tomllib

ENGINES = ("tare", "ort", "torch", "tflite", "tfjs")
# Engines with a timing tool: the others give outputs only.
TIMED_ENGINES = ("tare", "ort", "torch")
# bench/peers/models.py models with one float input (the campaign feeds the first input only).
BENCH_MODELS = ("lenet5", "lenet5_bn", "resnet20", "vgg16", "resnet18", "mobilenet_v2", "squeezenet1_1",
                "efficientnet_b0", "convnext_tiny", "vit_b_16")

_TOP = {"name", "models", "runs", "measure"}
_MODEL = {"name", "file", "inputs", "limit", "bench", "tflite", "tfjs", "variants"}
_RUN = {"engine", "backends", "threads", "repetitions"}
_MEASURE = {"outputs", "latency", "iters", "warmup", "pin"}
_PIN = re.compile(r"^[0-9]+:[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$")
_NAME = re.compile(r"^(?!\.+$)[A-Za-z0-9_.-]+$")  # not "." or "..": names become folder names


class CampaignError(Exception):
    """A campaign file that cannot be run: the message names the file and the key."""


def _keys(table, allowed, where, path):
    for k in table:
        if k not in allowed:
            raise CampaignError(f"{path}: unknown key '{k}' in {where} (allowed: {', '.join(sorted(allowed))})")


def _get(table, key, kind, where, path, default=None, required=True):
    if key not in table:
        if required:
            raise CampaignError(f"{path}: {where} has no '{key}'")
        return default
    v = table[key]
    if kind is int and (isinstance(v, bool) or not isinstance(v, int)):
        raise CampaignError(f"{path}: {where}.{key} must be an integer, not {v!r}")
    if kind is not int and not isinstance(v, kind):
        what = {str: "a string", list: "a list", bool: "true or false", dict: "a table"}.get(kind, kind.__name__)
        raise CampaignError(f"{path}: {where}.{key} must be {what}, not {v!r}")
    return v


def _inputs(spec, base, where, path):
    kind, _, rest = spec.partition(":")
    if kind == "npy":
        d = os.path.normpath(os.path.join(base, rest))
        if not os.path.isfile(os.path.join(d, "items.npy")):
            raise CampaignError(f"{path}: {where}.inputs: no items.npy in {d}")
        return {"kind": "npy", "dir": d}
    if kind == "fashion-mnist":
        d = os.path.normpath(os.path.join(base, rest)) if rest else "/usr/share/datasets/fashion-mnist"
        if not os.path.isfile(os.path.join(d, "t10k-images-idx3-ubyte.gz")):
            raise CampaignError(f"{path}: {where}.inputs: no t10k-images-idx3-ubyte.gz in {d} (Debian: apt-get install dataset-fashion-mnist)")
        return {"kind": "fashion-mnist", "dir": d}
    raise CampaignError(f"{path}: {where}.inputs must be 'npy:DIR' or 'fashion-mnist:[DIR]', not {spec!r}")


def _cpus(cpus):
    """A taskset CPU list ("0-1,3") as the set of CPUs it names, or None when a range runs backwards."""
    named = set()
    for r in cpus.split(","):
        a, _, b = r.partition("-")
        if b and int(a) > int(b):
            return None
        named.update(range(int(a), int(b or a) + 1))
    return named


def _pin(pin, path):
    """[measure].pin as {threads (str, as JSON keeps keys): CPU list}: THREADS:CPUS pairs joined by
    '/', each thread count once and >= 1, CPU ranges a-b with a <= b."""
    bad = f"{path}: [measure].pin must be THREADS:CPUS pairs joined by '/', e.g. '1:1/2:0-1', not {pin!r}"
    out = {}
    for p in (x for x in pin.split("/") if x):
        if not _PIN.match(p):
            raise CampaignError(bad)
        t, cpus = p.split(":", 1)
        if int(t) < 1 or _cpus(cpus) is None:
            raise CampaignError(bad)
        if str(int(t)) in out:
            raise CampaignError(f"{path}: [measure].pin names {int(t)} threads twice")
        out[str(int(t))] = cpus
    return out


# What each peer engine needs on the machine that runs it, and where it comes from.
_ENGINE_NEEDS = {
    "torch": (None, "PyTorch (python3-torch: bash platforms/debian/setup.sh --fixtures)"),
    "ort": ("onnxruntime-node", "ONNX Runtime (cd bench/peers && npm install --ignore-scripts)"),
    "tflite": ("@litertjs/core", "LiteRT.js (cd bench/peers && npm install --ignore-scripts)"),
    "tfjs": ("@tensorflow/tfjs", "TF.js (cd bench/peers && npm install --ignore-scripts)"),
}


def engines_missing(c, root):
    """The first engine of the campaign that this machine cannot run, as a message, or "": engine
    torch needs the torch module, the others their npm package in root/bench/peers/node_modules."""
    import importlib.util
    for r in c["runs"]:
        need = _ENGINE_NEEDS.get(r["engine"])
        if not need:
            continue
        pkg, what = need
        ok = importlib.util.find_spec("torch") is not None if pkg is None else \
            os.path.isdir(os.path.join(root, "bench", "peers", "node_modules", pkg))
        if not ok:
            return f"engine {r['engine']!r} needs {what}"
    return ""


def pin_cpus_missing(c, cpus_here):
    """The CPUs [measure].pin names that are not in cpus_here (this process's affinity set), as a
    sorted list; a run on this machine checks it before any task."""
    named = set().union(*(_cpus(cpus) for cpus in c["measure"]["pin"].values()))
    return sorted(named - set(cpus_here))


def _model_file(v, suffixes, what, base, where, path):
    """The absolute path of file `v` (relative to the campaign file): a string ending in one of
    `suffixes` (`what` names them) that exists."""
    if not isinstance(v, str):
        raise CampaignError(f"{path}: {where} must be a string ({what}), not {v!r}")
    f = os.path.normpath(os.path.join(base, v))
    if not f.endswith(suffixes):
        raise CampaignError(f"{path}: {where} must be {what}, not {f}")
    if not os.path.isfile(f):
        raise CampaignError(f"{path}: {where}: no such file {f}")
    return f


def load(path, available_backends):
    """Reads and checks the campaign file at `path`; returns a plain dict (paths made absolute).
    `available_backends`: the tare backends this build has (tare.backends())."""
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except OSError as e:
        raise CampaignError(f"{path}: cannot read: {e.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise CampaignError(f"{path}: not valid TOML: {e}") from None
    base = os.path.dirname(os.path.abspath(path))
    _keys(doc, _TOP, "the file", path)
    name = _get(doc, "name", str, "the file", path)
    if not _NAME.match(name):
        raise CampaignError(f"{path}: name {name!r} must be letters, digits, '-', '_' or '.'")
    models = _get(doc, "models", list, "the file", path)
    if not models:
        raise CampaignError(f"{path}: no [[models]]")
    out_models, seen = [], set()
    for i, m in enumerate(models):
        where = f"models[{i}]"
        if not isinstance(m, dict):
            raise CampaignError(f"{path}: {where} must be a table")
        _keys(m, _MODEL, where, path)
        mname = _get(m, "name", str, where, path)
        if not _NAME.match(mname):
            raise CampaignError(f"{path}: {where}.name {mname!r} must be letters, digits, '-', '_' or '.'")
        if mname in seen:
            raise CampaignError(f"{path}: {where}.name {mname!r} names a model a second time")
        seen.add(mname)
        limit = _get(m, "limit", int, where, path, required=False)
        if limit is not None and limit < 1:
            raise CampaignError(f"{path}: {where}.limit must be >= 1")
        others = {}
        for k, suffix in (("tflite", ".tflite"), ("tfjs", ".json")):
            v = _get(m, k, str, where, path, required=False)
            if v is not None:
                others[k] = _model_file(v, (suffix,), f"a {suffix} file", base, f"{where}.{k}", path)
        variants = _get(m, "variants", list, where, path, default=[], required=False)
        others["variants"] = [_model_file(v, (".onnx", ".tflite", ".json", ".tare"), "a model file (.onnx, .tflite, TF.js .json or .tare)",
                                          base, f"{where}.variants[{j}]", path) for j, v in enumerate(variants)]
        bench = _get(m, "bench", str, where, path, required=False)
        if bench is not None:
            if "file" in m:
                raise CampaignError(f"{path}: {where} gives bench and file: a benchmark model brings its own")
            if bench not in BENCH_MODELS:
                raise CampaignError(f"{path}: {where}.bench {bench!r} is not one of {', '.join(BENCH_MODELS)}")
            # The file (and the inputs when not given) are known once exported (tasks.prepare_bench).
            inputs = _inputs(_get(m, "inputs", str, where, path), base, where, path) if "inputs" in m else {"kind": "bench"}
            out_models.append({"name": mname, "bench": bench, "file": None, "inputs": inputs, "limit": limit, **others})
            continue
        f = os.path.normpath(os.path.join(base, _get(m, "file", str, where, path)))
        if not os.path.isfile(f):
            raise CampaignError(f"{path}: {where}.file: no such file {f}")
        out_models.append({"name": mname, "bench": None, "file": f, "inputs": _inputs(_get(m, "inputs", str, where, path), base, where, path),
                           "limit": limit, **others})
    runs = _get(doc, "runs", list, "the file", path)
    if not runs:
        raise CampaignError(f"{path}: no [[runs]]")
    out_runs = []
    for i, r in enumerate(runs):
        where = f"runs[{i}]"
        if not isinstance(r, dict):
            raise CampaignError(f"{path}: {where} must be a table")
        _keys(r, _RUN, where, path)
        engine = _get(r, "engine", str, where, path)
        if engine not in ENGINES:
            raise CampaignError(f"{path}: {where}.engine {engine!r} is not one of {', '.join(ENGINES)}")
        backends = _get(r, "backends", str, where, path, required=engine == "tare")
        if engine == "tare":
            for b in backends.split(","):
                if b not in available_backends:
                    raise CampaignError(f"{path}: {where}.backends: unknown backend {b!r} (this build has: {', '.join(available_backends)})")
        elif backends is not None:
            raise CampaignError(f"{path}: {where}.backends is for engine 'tare' only")
        threads = _get(r, "threads", list, where, path, default=[1], required=False)
        if not threads or any(isinstance(t, bool) or not isinstance(t, int) or not 1 <= t <= 1024 for t in threads):
            raise CampaignError(f"{path}: {where}.threads must be a list of integers in [1, 1024]")
        reps = _get(r, "repetitions", int, where, path, default=1, required=False)
        if reps < 1:
            raise CampaignError(f"{path}: {where}.repetitions must be >= 1")
        for j, o in enumerate(out_runs):
            if (o["engine"], o["backends"]) == (engine, backends):
                raise CampaignError(f"{path}: {where} repeats runs[{j}] (engine {engine!r}"
                                    + (f", backends {backends!r}" if backends else "") + "): give each configuration once, with all its threads")
        for m in out_models:
            if engine == "torch" and not m["bench"]:
                raise CampaignError(f"{path}: {where}: engine 'torch' needs each model's PyTorch module: model "
                                    f"{m['name']!r} is a file (give it as bench = NAME)")
            if engine == "ort" and m["file"] and not m["file"].endswith(".onnx"):
                raise CampaignError(f"{path}: {where}: engine 'ort' needs each model's file to be ONNX (.onnx): model "
                                    f"{m['name']!r} is {m['file']}")
            if engine in ("tflite", "tfjs") and engine not in m:
                raise CampaignError(f"{path}: {where}: engine {engine!r} needs each model's {engine} file: model "
                                    f"{m['name']!r} has none (give {engine} = FILE)")
        out_runs.append({"engine": engine, "backends": backends, "threads": sorted(set(threads)), "repetitions": reps})
    measure = doc.get("measure", {})
    if not isinstance(measure, dict):
        raise CampaignError(f"{path}: [measure] must be a table")
    _keys(measure, _MEASURE, "[measure]", path)
    meas = {"outputs": _get(measure, "outputs", bool, "[measure]", path, True, False),
            "latency": _get(measure, "latency", bool, "[measure]", path, True, False),
            "iters": _get(measure, "iters", int, "[measure]", path, 20, False),
            "warmup": _get(measure, "warmup", int, "[measure]", path, 3, False)}
    meas["pin"] = _pin(_get(measure, "pin", str, "[measure]", path, "", False), path)
    if meas["iters"] < 1 or meas["warmup"] < 0:
        raise CampaignError(f"{path}: [measure] iters must be >= 1 and warmup >= 0")
    if not meas["outputs"] and not meas["latency"]:
        raise CampaignError(f"{path}: [measure] asks for nothing (outputs and latency both false)")
    return {"name": name, "file": os.path.abspath(path), "models": out_models, "runs": out_runs, "measure": meas}
