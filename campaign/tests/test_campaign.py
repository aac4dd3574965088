"""tare campaign (issue 25): bad files refused before any task; the same non-timing results serially
and on a Dask LocalCluster of 2 workers, and against numpy's argmax of the expected logits; a
worker killed in the middle of a campaign: it finishes, every result once, a rerun does nothing.

Run by ctest (campaign.pytest) with TARE_EXE and PYTHONPATH set: python3 -m pytest campaign/tests.
"""

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LENET = os.path.join(ROOT, "tests", "models", "lenet5")
sys.path.insert(0, os.path.dirname(HERE))

from tare_campaign import runner, spec, tasks  # noqa: E402

TARE = os.environ.get("TARE_EXE", os.path.join(ROOT, "build", "tare"))
sys.path.insert(0, os.path.join(os.path.dirname(TARE), "python"))  # the tare module built beside it


def write(tmp_path, text, name="c.toml"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def campaign_text(runs, iters=5, extra=""):
    return f"""
name = "t"
[[models]]
name = "lenet5"
file = "{LENET}/model.onnx"
inputs = "npy:{LENET}/dataset"
{extra}
{runs}
[measure]
iters = {iters}
warmup = 1
"""


RUNS = """
[[runs]]
engine = "tare"
backends = "cpu"
threads = [1, 2]
repetitions = 2
[[runs]]
engine = "tare"
backends = "ref"
threads = [1]
"""


def cli(*args):
    return subprocess.run([TARE, "campaign", *args], capture_output=True, text=True)


@pytest.mark.parametrize("bad, message", [
    ("name = \"t\"\nfoo = 1\n", "unknown key 'foo' in the file"),
    (campaign_text(RUNS).replace("repetitions = 2", "repetitions = 2\nspeed = 3"), "unknown key 'speed' in runs[0]"),
    (campaign_text(RUNS).replace("model.onnx", "missing.onnx"), "models[0].file: no such file"),
    (campaign_text(RUNS).replace('backends = "cpu"', 'backends = "gpu9"'), "unknown backend 'gpu9'"),
    (campaign_text(RUNS).replace('engine = "tare"\nbackends = "ref"', 'engine = "mxnet"'), "engine 'mxnet' is not one of"),
    (campaign_text(RUNS).replace("npy:", "csv:"), "inputs must be 'npy:DIR'"),
    ("name = [", "not valid TOML"),
    (campaign_text(RUNS).replace("warmup = 1", 'warmup = 1\npin = "1:one"'), "[measure].pin must be THREADS:CPUS pairs"),
    (campaign_text(RUNS).replace('engine = "tare"\nbackends = "ref"', 'engine = "tflite"'), "engine 'tflite' needs each model's tflite file"),
    (campaign_text(RUNS).replace("[[runs]]", 'tfjs = "none.json"\n[[runs]]', 1), "models[0].tfjs: no such file"),
    (campaign_text(RUNS).replace('warmup = 1', 'warmup = 1\npin = "1:2-1"'), "[measure].pin must be THREADS:CPUS pairs"),
    (campaign_text(RUNS).replace('warmup = 1', 'warmup = 1\npin = "1:0/1:1"'), "names 1 threads twice"),
    (campaign_text(RUNS).replace('warmup = 1', 'warmup = 1\npin = "1:4095"'), "[measure].pin names CPUs [4095]"),
    (campaign_text(RUNS).replace("[[runs]]", 'variants = [3]\n[[runs]]', 1), "variants[0] must be a string"),
    (campaign_text(RUNS).replace("[[runs]]", 'variants = ["notes.txt"]\n[[runs]]', 1), "variants[0] must be a model file"),
    (campaign_text(RUNS).replace('name = "lenet5"', 'name = ".."'), "name '..' must be letters"),
])
def test_bad_file_one_error_before_any_task(tmp_path, bad, message):
    f = write(tmp_path, bad)
    out = tmp_path / "out"
    p = cli("run", f, "--out", str(out), "--serial")
    assert p.returncode == 1
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], p.stderr
    assert not out.exists()  # nothing started


def test_keys_are_stable_and_cover_the_grid(tmp_path):
    c = spec.load(write(tmp_path, campaign_text(RUNS)), ["ref", "cpu"])
    keys = [t["key"] for t in tasks.expand(c)]
    assert keys == [t["key"] for t in tasks.expand(spec.load(write(tmp_path, campaign_text(RUNS)), ["ref", "cpu"]))]
    assert keys[:3] == ["outputs/lenet5/tare-cpu/t1", "outputs/lenet5/tare-cpu/t2", "outputs/lenet5/tare-ref/t1"]
    assert len(keys) == 3 + 2 * 2 + 1 and len(set(keys)) == len(keys)
    assert "timing/lenet5/tare-cpu/t2/r1" in keys


def non_timing(out):
    res = {}
    for f in sorted(os.listdir(os.path.join(out, "results"))):
        r = json.load(open(os.path.join(out, "results", f)))
        if r["kind"] == "outputs":
            res[r["key"]] = (r["top1"], r.get("accuracy"))
        else:
            res[r["key"]] = "timing" if r["median_ms"] > 0 and r["peak_rss_bytes"] > 0 else "bad timing"
    return res


def test_serial_and_local_cluster_agree_with_the_expected_logits(tmp_path):
    f = write(tmp_path, campaign_text(RUNS))
    a, b = tmp_path / "serial", tmp_path / "dask"
    assert cli("run", f, "--out", str(a), "--serial").returncode == 0
    p = cli("run", f, "--out", str(b), "--workers", "2")
    assert p.returncode == 0, p.stderr
    assert non_timing(a) == non_timing(b)
    # Independent: the top-1 of the PyTorch logits committed with the model, and its labels.
    want = np.load(os.path.join(LENET, "expected", "logits.npy")).argmax(axis=1).tolist()
    labels = np.load(os.path.join(LENET, "dataset", "labels.npy"))
    for key, v in non_timing(a).items():
        if key.startswith("outputs/"):
            assert v[0] == want, key
            assert v[1] == float((np.array(want) == labels).mean())
    rep = cli("report", str(b))
    assert rep.returncode == 0 and "| lenet5 | tare-cpu | 2 |" in rep.stdout
    rep = json.load(open(b / "report.json"))
    assert all(r["flips"] == 0 for r in rep["rows"]) and all(r.get("repetitions", 1) >= 1 for r in rep["rows"])
    assert rep["flips"]["lenet5"] == {"runs": ["tare-cpu/t1", "tare-cpu/t2", "tare-ref/t1"], "matrix": [[0] * 3] * 3}
    html = (b / "report.html").read_text()
    assert "<svg" in html and "Top-1 flips between runs" in html and "tare-ref/t1" in html


def descendants(pid):
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid=,args="], capture_output=True, text=True).stdout
    procs = [ln.split(None, 2) for ln in out.splitlines() if ln.strip()]
    kids, frontier = [], {str(pid)}
    while frontier:
        nxt = {p for p, pp, *_ in procs if pp in frontier}
        kids += [(p, a) for p, pp, *rest in procs if p in nxt for a in rest]
        frontier = nxt
    return kids


def test_a_worker_killed_mid_campaign(tmp_path):
    # Timing tasks of about half a second each (8,000 runs of LeNet-5), serialized per machine.
    f = write(tmp_path, campaign_text(RUNS, iters=8000))
    out = tmp_path / "out"
    p = subprocess.Popen([TARE, "campaign", "run", f, "--out", str(out), "--workers", "2"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    killed = None
    while time.time() < deadline and p.poll() is None and not killed:
        done = len(os.listdir(out / "results")) if (out / "results").exists() else 0
        workers = [pid for pid, args in descendants(p.pid) if "spawn_main" in args or "forkserver" in args]
        if done >= 4 and len(workers) >= 2:
            killed = workers[-1]
            os.kill(int(killed), signal.SIGKILL)
        time.sleep(0.2)
    so, se = p.communicate(timeout=300)
    assert killed, "no worker to kill"
    assert p.returncode == 0, se
    keys = [t["key"] for t in tasks.expand(spec.load(f, ["ref", "cpu"]))]
    files = sorted(os.listdir(out / "results"))
    assert files == sorted(tasks.key_file(k) for k in keys)  # every result, each once, no temporaries
    for k in keys:
        assert json.load(open(out / "results" / tasks.key_file(k)))["key"] == k
    again = cli("run", f, "--out", str(out), "--serial")
    assert again.returncode == 0 and "0 tasks run, 8 done before" in again.stdout


def test_runner_resumes_and_skips_done_keys(tmp_path):
    c = spec.load(write(tmp_path, campaign_text(RUNS)), ["ref", "cpu"])
    out = str(tmp_path / "o")
    ran, skipped, failed = runner.run(c, out, TARE, serial=True, log=lambda m: None)
    assert (ran, skipped, failed) == (8, 0, [])
    os.remove(os.path.join(out, "results", tasks.key_file("timing/lenet5/tare-cpu/t2/r1")))
    ran, skipped, failed = runner.run(c, out, TARE, serial=True, log=lambda m: None)
    assert (ran, skipped, failed) == (1, 7, [])


def test_an_existing_dask_cluster_by_its_scheduler_address(tmp_path):
    from distributed import LocalCluster
    f = write(tmp_path, campaign_text(RUNS))
    # A cluster's workers import tare_campaign and the tare module themselves (docs/CAMPAIGNS.md).
    paths = [os.path.dirname(HERE), os.path.join(os.path.dirname(TARE), "python")]
    os.environ["PYTHONPATH"] = os.pathsep.join(paths + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    sys.path[:0] = [p for p in paths if p not in sys.path]  # spawned workers start with this process's sys.path
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        p = cli("run", f, "--out", str(tmp_path / "o"), "--scheduler", cluster.scheduler_address)
    assert p.returncode == 0, p.stderr
    assert "8 tasks run, 0 done before, 0 failed" in p.stdout
    assert len(os.listdir(tmp_path / "o" / "results")) == 8


def test_out_folder_of_another_campaign_or_a_file_is_refused(tmp_path):
    f = write(tmp_path, campaign_text(RUNS))
    (tmp_path / "afile").write_text("x")
    p = cli("run", f, "--out", str(tmp_path / "afile"), "--serial")
    assert p.returncode == 1 and "is not a folder" in p.stderr
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    p = cli("run", f, "--out", str(other), "--serial")
    assert p.returncode == 1 and "holds no campaign" in p.stderr and (other / "notes.txt").read_text() == "mine"
    out = tmp_path / "o"
    assert cli("run", f, "--out", str(out), "--serial").returncode == 0
    g = write(tmp_path, campaign_text(RUNS).replace('name = "t"', 'name = "u"'), "d.toml")
    p = cli("run", g, "--out", str(out), "--serial")
    assert p.returncode == 1 and "holds campaign 't', not 'u'" in p.stderr


def test_a_changed_model_file_or_setting_runs_its_tasks_again(tmp_path):
    # Same campaign name and keys, another model file's bytes: the stale results are not reused.
    import shutil
    model = tmp_path / "m.onnx"
    shutil.copy(os.path.join(LENET, "model.onnx"), model)
    text = campaign_text(RUNS).replace(f"{LENET}/model.onnx", str(model))
    f = write(tmp_path, text)
    out = tmp_path / "o"
    assert cli("run", f, "--out", str(out), "--serial").returncode == 0
    os.utime(model, ns=(1, 1))  # same bytes, other time stamp: still done
    p = cli("run", f, "--out", str(out), "--serial")
    assert "0 tasks run, 8 done before" in p.stdout, p.stdout
    with open(model, "ab") as fh:
        fh.write(b"\0")  # other bytes (an unknown trailing field's worth): every task again
    p = cli("run", f, "--out", str(out), "--serial")
    assert "8 to run (8 of them done before with other settings or another model file)" in p.stdout, p.stdout + p.stderr


def test_data_problems_are_found_before_any_task(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    np.save(d / "items.npy", np.load(os.path.join(LENET, "dataset", "items.npy"))[:1])  # 1 item, batch 2
    f = write(tmp_path, campaign_text(RUNS).replace(f"npy:{LENET}/dataset", f"npy:{d}"))
    p = cli("run", f, "--out", str(tmp_path / "o"), "--serial")
    assert p.returncode == 1 and "1 items do not split into batches of the model's 2" in p.stderr
    assert not (tmp_path / "o").exists()
    np.save(d / "items.npy", np.load(os.path.join(LENET, "dataset", "items.npy")))
    np.save(d / "labels.npy", np.array([1, 2, 3]))
    p = cli("run", f, "--out", str(tmp_path / "o"), "--serial")
    assert p.returncode == 1 and "3 labels for 2 items" in p.stderr
    g = write(tmp_path, campaign_text(RUNS + RUNS.split("[[runs]]")[1].join(["[[runs]]", ""])), "dup.toml")
    p = cli("run", g, "--out", str(tmp_path / "o"), "--serial")
    assert p.returncode == 1 and "repeats runs[0]" in p.stderr


HAVE_TORCH = importlib.util.find_spec("torch") is not None


@pytest.mark.skipif(not HAVE_TORCH, reason="engine torch needs PyTorch (bash platforms/debian/setup.sh --fixtures)")
def test_torch_engine_on_a_benchmark_model_agrees_with_pytorchs_logits(tmp_path):
    # lenet5 as a benchmark model: bench/peers/models.py's PyTorch module with the weights of the
    # committed export; its input (one batch of 2) and the expected logits PyTorch produced.
    text = """
name = "tb"
[[models]]
name = "lenet5"
bench = "lenet5"
[[runs]]
engine = "torch"
threads = [2]
[[runs]]
engine = "tare"
backends = "cpu"
threads = [1]
[measure]
latency = true
iters = 3
warmup = 1
"""
    f = write(tmp_path, text)
    out = tmp_path / "out"
    p = cli("run", f, "--out", str(out), "--serial")
    assert p.returncode == 0, p.stderr
    want = np.load(os.path.join(LENET, "expected", "logits.npy"))
    for key in ("outputs~lenet5~torch~t2", "outputs~lenet5~tare-cpu~t1"):
        r = json.loads((out / "results" / (key + ".json")).read_text())
        assert r["top1"] == want.argmax(axis=1).tolist()
        got = np.load(out / r["outputs_file"])
        assert np.abs(got - want).max() <= 1e-5 * np.abs(want).max()
    t = json.loads((out / "results" / "timing~lenet5~torch~t2~r0.json").read_text())
    assert t["median_ms"] > 0 and t["peak_rss_bytes"] > 0 and t["process_cpu_s"] > 0


@pytest.mark.parametrize("body, message", [
    ('[[models]]\nname = "m"\nbench = "alexnet"\n[[runs]]\nengine = "ort"\n', "bench 'alexnet' is not one of"),
    ('[[models]]\nname = "m"\nbench = "lenet5"\nfile = "x.onnx"\n[[runs]]\nengine = "ort"\n', "gives bench and file"),
    (f'[[models]]\nname = "m"\nfile = "{LENET}/model.onnx"\ninputs = "npy:{LENET}/dataset"\n[[runs]]\nengine = "torch"\n',
     "engine 'torch' needs each model's PyTorch module"),
])
def test_bench_and_torch_refused_when_they_cannot_run(tmp_path, body, message):
    f = write(tmp_path, 'name = "t"\n' + body)
    p = cli("run", f, "--out", str(tmp_path / "out"), "--serial")
    assert p.returncode == 1
    assert message in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_timed_children_leave_out_the_dask_nannys_environment():
    # A Dask nanny gives its worker MALLOC_TRIM_THRESHOLD_=65536 and *_NUM_THREADS=1 (PyTorch's
    # ResNet-18 ran 9x slower with the first): the timed child's environment is without them.
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cl, Client(cl) as client:
        assert client.submit(lambda: os.environ.get("MALLOC_TRIM_THRESHOLD_")).result() == "65536"
        env = client.submit(tasks._child_env).result()
    assert "MALLOC_TRIM_THRESHOLD_" not in env and "OMP_NUM_THREADS" not in env
    assert "PATH" in env


BN = os.path.join(ROOT, "tests", "models", "lenet5_bn")


def run_serial(tmp_path, text):
    """`tare campaign run` of `text` (written to tmp_path) with --serial into tmp_path/out: (the
    process, the out folder)."""
    out = tmp_path / "out"
    return cli("run", write(tmp_path, text), "--out", str(out), "--serial"), out


def bn_model(name, *extra):
    """A [[models]] table: the study's LeNet-5-BN as a benchmark model on its 64 committed test
    images, with its TFLite twin, and `extra` lines."""
    return "\n".join([f'[[models]]\nname = "{name}"\nbench = "lenet5_bn"\ninputs = "npy:{BN}/dataset"',
                      f'tflite = "{BN}/tflite_twin/model.tflite"', *extra])


def test_frameworks_on_a_data_set_lenet5_bn(tmp_path):  # and the report's tare compare of them
    # The study's LeNet-5-BN in PyTorch (its module with the export's weights), ONNX Runtime, TF.js
    # (the committed layers model) and LiteRT.js (the committed TFLite twin, batch 2: run 32 times)
    # on the 64 committed test images: each against the logits the frameworks gave in the study
    # (tests/models/lenet5_bn/dataset/expected) or PyTorch's.
    bn = BN
    text = f"""
name = "fw"
{bn_model("lenet5_bn", f'tfjs = "{bn}/tfjs/model.json"', f'variants = ["{bn}/variants/altered_pool.onnx"]')}
{'[[runs]]' + chr(10) + 'engine = "torch"' if HAVE_TORCH else ''}
[[runs]]
engine = "ort"
[[runs]]
engine = "tfjs"
[[runs]]
engine = "tflite"
[measure]
latency = true
"""
    p, out = run_serial(tmp_path, text)
    assert p.returncode == 0, p.stderr
    # tflite and tfjs have no timing tool: only torch's and ort's timing tasks.
    engines = (("torch",) if HAVE_TORCH else ()) + ("ort", "tfjs", "tflite")
    assert sorted(x.name for x in (out / "results").glob("timing~*")) == sorted(
        f"timing~lenet5_bn~{e}~t1~r0.json" for e in engines if e in ("torch", "ort"))
    ref = {e: np.load(os.path.join(bn, "dataset", "expected", e, "logits.npy")) for e in ("pytorch", "ort", "tfjs")}
    labels = np.load(os.path.join(bn, "dataset", "labels.npy"))
    for engine, want in (("torch", ref["pytorch"]), ("ort", ref["ort"]), ("tfjs", ref["tfjs"]), ("tflite", ref["pytorch"])):
        if engine not in engines:
            continue
        r = json.loads((out / "results" / f"outputs~lenet5_bn~{engine}~t1.json").read_text())
        got = np.load(out / r["outputs_file"])
        assert got.shape == (64, 10)
        assert np.abs(got - want).max() <= 1e-4, engine
        assert r["top1"] == want.argmax(axis=1).tolist()
        assert r["accuracy"] == pytest.approx(float((want.argmax(axis=1) == labels).mean()))
    # The report: tare compare on the four frameworks' logits over the same 64 items (its own
    # accuracy lines, one per run, agree with the labels), linked from the page.
    p = cli("report", str(out))
    assert p.returncode == 0, p.stderr
    rep = json.loads((out / "report.json").read_text())
    cmp = rep["compare"]["lenet5_bn"]
    assert cmp["exit"] == 0 and (out / cmp["html"]).is_file() and (out / cmp["json"]).is_file()
    acc = float((ref["pytorch"].argmax(axis=1) == labels).mean())
    for engine in engines:
        assert any(line.startswith("accuracy") and engine in line and f"{acc:.4f}" in line for line in cmp["summary"]), (engine, cmp["summary"])
    assert cmp["html"] in (out / "report.html").read_text()
    # The altered export (a pool's pads changed): its flips against each framework are attributed
    # to that pool.
    for engine in engines:
        line = next(x for x in cmp["summary"] if x.startswith(f"flips {engine} vs altered_pool.onnx ref64:"))
        n = int(line.split(":")[1].split()[0])
        assert n > 0 and f"({n} models differ at /pool2/AveragePool" in line, line


def test_items_that_do_not_fit_a_framework_file_and_a_rerun_after_a_refusal(tmp_path):
    # The TFLite twin's batch is 2: 3 items are refused before any task, naming the limit. The
    # refusal came after the benchmark model was prepared in the folder: a rerun with the file
    # mended runs there.
    text = f"""
name = "fit"
{bn_model("m", "limit = 3")}
[[runs]]
engine = "tflite"
[measure]
latency = false
"""
    p, out = run_serial(tmp_path, text)
    assert p.returncode == 1 and "do not split into the tflite file's batch of 2 (limit = 3)" in p.stderr, p.stderr
    assert not (out / "results").exists()
    p, out = run_serial(tmp_path, text.replace("limit = 3", "limit = 4"))
    assert p.returncode == 0, p.stderr
    assert (out / "results" / "outputs~m~tflite~t1.json").is_file()


def test_an_engine_this_machine_lacks_is_named_before_any_task(tmp_path):
    # The npm packages looked up under another root (none there): each peer engine is named with
    # where it comes from.
    for engine, what in (("ort", "ONNX Runtime"), ("tflite", "LiteRT.js"), ("tfjs", "TF.js")):
        c = {"runs": [{"engine": "tare"}, {"engine": engine}]}
        assert spec.engines_missing(c, str(tmp_path)) == f"engine {engine!r} needs {what} (cd bench/peers && npm install --ignore-scripts)"
    assert spec.engines_missing({"runs": [{"engine": "ort"}]}, ROOT) == ""
    assert spec.engines_missing({"runs": [{"engine": "torch"}]}, ROOT) == ("" if HAVE_TORCH else
                                                                        "engine 'torch' needs PyTorch (python3-torch: bash platforms/debian/setup.sh --fixtures)")


def test_variants_are_read_before_any_task_and_compared_with_one_engine(tmp_path):
    # A variant named .onnx that is no model: refused before any task. A real one beside a single
    # engine: the report's tare compare still runs, and attributes the altered pool's flips.
    (tmp_path / "fake.onnx").write_text("not a model")
    one_engine = f"""
name = "v"
{bn_model("m", 'variants = ["VARIANT"]')}
[[runs]]
engine = "tare"
backends = "ref"
[measure]
latency = false
"""
    p, out = run_serial(tmp_path, one_engine.replace("VARIANT", str(tmp_path / "fake.onnx")))
    assert p.returncode == 1 and "variant" in p.stderr and "cannot be read" in p.stderr, p.stderr
    assert not out.exists()
    p, out = run_serial(tmp_path, one_engine.replace("VARIANT", f"{BN}/variants/altered_pool.onnx"))
    assert p.returncode == 0, p.stderr
    p = cli("report", str(out))
    assert p.returncode == 0, p.stderr
    summary = json.loads((out / "report.json").read_text())["compare"]["m"]["summary"]
    line = next(x for x in summary if x.startswith("flips tare-ref vs altered_pool.onnx ref64:"))
    assert "models differ at /pool2/AveragePool" in line, summary


def test_the_example_files_load_and_a_tflite_model_file_is_read():
    # Every committed example is a valid campaign file on this build; example (b)'s int8 .tflite
    # is read through the tare module (input, its fixed batch of 2, output "Identity").
    import tare
    examples = os.path.join(ROOT, "bench", "campaigns")
    names = sorted(f for f in os.listdir(examples) if f.endswith(".toml"))
    assert "quantization_lenet5_bn.toml" in names and "frameworks_lenet5_bn.toml" in names
    for name in names:
        c = spec.load(os.path.join(examples, name), tare.backends())
        assert c["models"], name
    int8 = os.path.join(ROOT, "tests", "models", "lenet5_bn", "tflite_int8", "model.tflite")
    assert tasks.model_io(int8) == ("input", 2, "Identity")
    with pytest.raises(ValueError):
        tasks.model_io(os.path.join(LENET, "input.npy"))


def test_a_tflite_file_litertjs_cannot_read_is_named_before_any_task(tmp_path):
    # The TFLite twin cut in half: LiteRT.js's own message, naming the file, before any task.
    with open(os.path.join(BN, "tflite_twin", "model.tflite"), "rb") as f:
        data = f.read()
    bad = tmp_path / "cut.tflite"
    bad.write_bytes(data[:len(data) // 2])
    text = f"""
name = "cut"
[[models]]
name = "m"
file = "{BN}/model.onnx"
inputs = "npy:{BN}/dataset"
tflite = "{bad}"
[[runs]]
engine = "tflite"
[measure]
latency = false
"""
    p, out = run_serial(tmp_path, text)
    assert p.returncode == 1 and f"its tflite file {bad}: LiteRT.js cannot read it" in p.stderr, p.stderr
    assert not (out / "results").exists()
