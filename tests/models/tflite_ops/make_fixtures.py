#!/usr/bin/python3
"""Expected outputs and manifest.json for tests/models/tflite_ops (and tests/models/tflite_quant).

    /usr/bin/python3 tests/models/tflite_ops/make_fixtures.py --cases CASES.tsv --ops DIR [--quant DIR]

make.sh runs it after tare_make_tflite_ops has written the models and inputs; CASES.tsv is the tool's
stdout, one line per case: folder label (ops or quant), case name, number of inputs, what it covers.

Per case, LiteRT.js (bench/peers/tflite_run.js, see its header; --repeat 2 checks two runs in one
process are bit-identical) runs <case>.tflite on <case>/input_<k>.npy and writes
<case>/expected/<k>_<name>.npy; the run is repeated in a second process whose files must be
byte-identical, and neither run's stderr may hold an "ERROR" line (LiteRT.js logs a failed prepare,
e.g. CONV_2D without a bias, and still returns outputs).

Cases in NUMPY get numpy's outputs instead: LiteRT.js 2.5.3 refuses every model with a variable
tensor (model_load.cc: "Variable tensors not yet supported"), and UNIDIRECTIONAL_SEQUENCE_LSTM's
output and cell states must be variable tensors (TFLite's kernel reads them with GetVariableInput).
Their weights are read back from the .tflite file here (a small flatbuffer reader, field ids of
TFLite's schema), and the LSTM is computed in float64 (TFLite's float kernel: gates i, f, c, o;
peepholes on i and f from the previous cell state and on o from the new one; no clipping;
zero initial states), rounded once to float32.

Cases in PENDING (tare does not pass them yet) go to pending/manifest.json instead, with paths
relative to pending/ (tare_tflite_check --models tests/models/tflite_ops --fixtures
tests/models/tflite_ops/pending).

Then manifest.json in each folder, in the format of tests/models/tflite/manifest.json (models:
{name: {file, sha256, covers, inputs [{name, shape, file, range}], outputs [{index, name, shape,
file, min, max, maxAbs}]}}; "reference" names numpy where LiteRT did not run).
"""

import argparse
import filecmp
import hashlib
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
RUNNER = os.path.join(ROOT, "bench", "peers", "tflite_run.js")
LITERT = {
    "package": "@litertjs/core@2.5.3",
    "build": "litert_wasm_compat_internal.wasm, accelerator wasm (XNNPACK), 1 thread",
    "runner": "bench/peers/tflite_run.js",
}
NUMPY = {
    "lstm": "numpy float64 (tests/models/tflite_ops/make_fixtures.py): LiteRT.js 2.5.3 refuses variable tensors",
    "lstm_peephole_time_major": "numpy float64 (tests/models/tflite_ops/make_fixtures.py): LiteRT.js 2.5.3 refuses variable tensors",
}
# Cases tare does not pass yet (a converter bug reported to the lead): their entries go to
# pending/manifest.json (paths relative to pending/), checked by ctest with WILL_FAIL.
PENDING = {}


def fail(msg):
    sys.stderr.write("make_fixtures.py: " + msg.replace("\n", " ") + "\n")
    sys.exit(1)


def safe(s):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s)


# ---- a small .tflite reader (field ids of TFLite's schema) ---------------------------------------

class Table:
    def __init__(self, b, pos):
        self.b, self.pos = b, pos
        self.vt = pos - struct.unpack_from("<i", b, pos)[0]
        self.vlen = struct.unpack_from("<H", b, self.vt)[0]

    def off(self, i):
        o = 4 + 2 * i
        return struct.unpack_from("<H", self.b, self.vt + o)[0] if o < self.vlen else 0

    def scalar(self, i, fmt, default=0):
        o = self.off(i)
        return struct.unpack_from("<" + fmt, self.b, self.pos + o)[0] if o else default

    def ref(self, i):
        o = self.off(i)
        if not o:
            return 0
        p = self.pos + o
        return p + struct.unpack_from("<I", self.b, p)[0]

    def vec(self, i):
        p = self.ref(i)
        return (p + 4, struct.unpack_from("<I", self.b, p)[0]) if p else (0, 0)

    def table(self, i):
        p = self.ref(i)
        return Table(self.b, p) if p else None

    def tables(self, i):
        start, n = self.vec(i)
        return [Table(self.b, start + 4 * k + struct.unpack_from("<I", self.b, start + 4 * k)[0]) for k in range(n)]

    def ints(self, i):
        start, n = self.vec(i)
        return list(struct.unpack_from("<%di" % n, self.b, start)) if n else []

    def raw(self, i):
        start, n = self.vec(i)
        return self.b[start:start + n]

    def string(self, i):
        start, n = self.vec(i)
        return self.b[start:start + n].decode()


def read_tflite(path):
    """Subgraph 0: tensors [(name, shape, constant data (float32, int32, uint8, int8) or None)], inputs, outputs, operators [(code, inputs, outputs, options)]."""
    with open(path, "rb") as f:
        b = f.read()
    if b[4:8] != b"TFL3":
        fail(path + " is not a TFLite flatbuffer")
    model = Table(b, struct.unpack_from("<I", b, 0)[0])
    codes = [max(t.scalar(0, "b"), t.scalar(3, "i")) for t in model.tables(1)]
    buffers = [t.raw(0) for t in model.tables(4)]
    g = model.tables(2)[0]
    tensors = []
    for t in g.tables(0):
        shape = t.ints(0)
        data = buffers[t.scalar(2, "I")]
        arr = None
        dtype = {0: "<f4", 2: "<i4", 3: "u1", 9: "i1"}.get(t.scalar(1, "b"))
        if len(data) and dtype:
            arr = np.frombuffer(bytes(data), dtype=dtype).reshape(shape)
        tensors.append((t.string(3), shape, arr))
    ops = [(codes[o.scalar(0, "I")], o.ints(1), o.ints(2), o.table(4)) for o in g.tables(3)]
    return tensors, g.ints(1), g.ints(2), ops


def sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def lstm_reference(path, inputs):
    """UNIDIRECTIONAL_SEQUENCE_LSTM (code 44), float, TANH cell activation, no projection, layer norm or clipping."""
    tensors, _, outs, ops = read_tflite(path)
    if len(ops) != 1 or ops[0][0] != 44:
        fail(path + ": expected one UNIDIRECTIONAL_SEQUENCE_LSTM")
    _, ins, _, opt = ops[0]
    act, cell_clip, proj_clip, time_major = opt.scalar(0, "b"), opt.scalar(1, "f"), opt.scalar(2, "f"), opt.scalar(3, "?")
    if act != 4 or cell_clip != 0 or proj_clip != 0 or any(t >= 0 for t in ins[16:18] + ins[20:]):
        fail(path + ": the reference handles TANH, no clipping, no projection, no layer norm")
    w = lambda k: None if ins[k] < 0 else tensors[ins[k]][2].astype(np.float64)
    Wi, Wf, Wc, Wo = (w(k) for k in (1, 2, 3, 4))
    Ri, Rf, Rc, Ro = (w(k) for k in (5, 6, 7, 8))
    Pi, Pf, Po = (w(k) for k in (9, 10, 11))
    bi, bf, bc, bo = (w(k) for k in (12, 13, 14, 15))
    x = inputs[0].astype(np.float64)
    if not time_major:
        x = x.transpose(1, 0, 2)
    steps, batch, hidden = x.shape[0], x.shape[1], Ri.shape[1]
    h = np.zeros((batch, hidden))
    c = np.zeros((batch, hidden))
    ys = []
    for t in range(steps):
        xt = x[t]
        i = sigmoid(xt @ Wi.T + h @ Ri.T + (Pi * c if Pi is not None else 0) + bi)
        f = sigmoid(xt @ Wf.T + h @ Rf.T + (Pf * c if Pf is not None else 0) + bf)
        g = np.tanh(xt @ Wc.T + h @ Rc.T + bc)
        c = f * c + i * g
        o = sigmoid(xt @ Wo.T + h @ Ro.T + (Po * c if Po is not None else 0) + bo)
        h = o * np.tanh(c)
        ys.append(h)
    y = np.stack(ys)
    if not time_major:
        y = y.transpose(1, 0, 2)
    name, shape, _ = tensors[outs[0]]
    if list(y.shape) != shape:
        fail("%s: reference output %s, the model says %s" % (path, list(y.shape), shape))
    return [(name, y.astype(np.float32))]


# ---- LiteRT.js --------------------------------------------------------------------------------------

def run_litert(model, inputs, out):
    r = subprocess.run(["node", RUNNER, model] + inputs + ["--out", out, "--repeat", "2"], capture_output=True, text=True)
    errors = [l for l in r.stderr.splitlines() if "ERROR" in l or "error" in l]
    if r.returncode != 0 or errors:
        fail("LiteRT.js on %s: %s" % (os.path.basename(model), "; ".join(sorted(set(errors))) or r.stderr.strip()[-300:]))
    return json.loads(r.stdout)


def stats(a):
    a = a.astype(np.float64)
    return {"min": float(a.min()), "max": float(a.max()), "maxAbs": float(np.abs(a).max())}


def make_case(folder, name, n_inputs, covers):
    model = os.path.join(folder, name + ".tflite")
    with open(model, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    inputs = [os.path.join(folder, name, "input_%d.npy" % k) for k in range(n_inputs)]
    tensors, in_ids, out_ids, _ = read_tflite(model)
    entry = {"file": name + ".tflite", "sha256": sha, "covers": covers, "inputs": [], "outputs": []}
    for k, t in enumerate(in_ids):
        a = np.load(inputs[k])
        if a.dtype != np.float32 or list(a.shape) != tensors[t][1] or a.min() < -1 or a.max() > 1:
            fail("%s: input %d is not float32 %s in [-1, 1]" % (name, k, tensors[t][1]))
        entry["inputs"].append({"name": tensors[t][0], "shape": tensors[t][1], "file": "%s/input_%d.npy" % (name, k),
                                "range": [-1.0, 1.0]})
    exp = os.path.join(folder, name, "expected")
    if os.path.isdir(exp):
        for f in os.listdir(exp):
            os.remove(os.path.join(exp, f))
    if name in NUMPY:
        entry["reference"] = NUMPY[name]
        outs = lstm_reference(model, [np.load(p) for p in inputs])
        os.makedirs(exp, exist_ok=True)
        for k, (tname, y) in enumerate(outs):
            np.save(os.path.join(exp, "%d_%s.npy" % (k, safe(tname))), y)
    else:
        res = run_litert(model, inputs, exp)
        with tempfile.TemporaryDirectory() as tmp:  # a second process must write the same bytes
            again = run_litert(model, inputs, tmp)
            for o, p in zip(res["outputs"], again["outputs"]):
                if not filecmp.cmp(o["file"], p["file"], shallow=False):
                    fail("%s: LiteRT.js output %s differs between two processes" % (name, o["name"]))
        outs = [(o["name"], None) for o in res["outputs"]]
    for k, t in enumerate(out_ids):
        tname, shape, _ = tensors[t]
        rel = "%s/expected/%d_%s.npy" % (name, k, safe(tname))
        y = np.load(os.path.join(folder, rel))
        if list(y.shape) != shape or y.dtype != np.float32 or outs[k][0] != tname:
            fail("%s: output %d (%s) is %s %s, the model says %s" % (name, k, tname, y.dtype, list(y.shape), shape))
        if not np.all(np.isfinite(y)):
            fail("%s: output %s has non-finite values" % (name, tname))
        entry["outputs"].append({"index": k, "name": tname, "shape": shape, "file": rel, **stats(y)})
    return entry


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", required=True)
    ap.add_argument("--ops", required=True)
    ap.add_argument("--quant")
    a = ap.parse_args()
    folders = {"ops": a.ops, "quant": a.quant}
    manifests = {}
    with open(a.cases) as f:
        for line in f:
            label, name, n, covers = line.rstrip("\n").split("\t")
            if folders.get(label) is None:
                fail("case %s is for folder '%s', not given" % (name, label))
            entry = make_case(folders[label], name, int(n), covers)
            if label == "ops" and name in PENDING:
                label = "pending"
                entry["pending"] = PENDING[name]
                for item in entry["inputs"] + entry["outputs"]:
                    item["file"] = "../" + item["file"]
            m = manifests.setdefault(label, {"litert": LITERT, "generator": "tools/make_tflite_ops.cc, tests/models/tflite_ops/make.sh",
                                             "models": {}})
            m["models"][name] = entry
            print("%-32s %s" % (name, ", ".join("%s %s" % (o["name"], o["shape"]) for o in entry["outputs"])))
    if "pending" in manifests:
        folders["pending"] = os.path.join(a.ops, "pending")
        os.makedirs(folders["pending"], exist_ok=True)
    for label, m in manifests.items():
        text = json.dumps(m, indent=1)
        text = re.sub(r"\[\s+([-+0-9.eE,\s]+?)\s+\]", lambda g: "[" + ", ".join(g.group(1).split()).replace(",,", ",") + "]", text)
        with open(os.path.join(folders[label], "manifest.json"), "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
