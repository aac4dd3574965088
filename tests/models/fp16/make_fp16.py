#!/usr/bin/python3
"""float16 copies of ResNet-18 and of a BERT-style encoder, run on tare and ONNX Runtime (issue 20).

    /usr/bin/python3 tests/models/fp16/make_fp16.py DIR [--models resnet18,encoder] [--tare build/tare]
        [--write-fixture tests/models/encoder_fp16]

For each model: the float32 export (PyTorch, seeded weights; ResNet-18 from tests/models/zoo_check.py
at 64x64, the encoder defined below) into DIR/<model>/fp32/model.onnx, its float16 copy made by
to_fp16() into DIR/<model>/fp16/model.onnx, ONNX Runtime's outputs for both (ort_cases.js: CPU
provider, one thread, no graph optimization), tare's `ref` (and `ref64`) outputs for both, and one
line per comparison: relative L2 distance and max |difference| in units of 2^-10 * max|y| (one
float16 ULP at the output's largest value). Needs python3-torch, python3-torchvision, node and
onnxruntime-node (bench/peers). --write-fixture copies the encoder's float16 model, input and ONNX
Runtime's float16 outputs into a fixture folder (tests/models/encoder_fp16, run by ctest).

to_fp16() does what onnxconverter-common's convert_float_to_float16(keep_io_types=True) does for
these models: every float32 initializer, Constant and value_info becomes float16, Cast-to-float
becomes Cast-to-float16, and the graph inputs and outputs stay float32 with a Cast at each.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.dirname(HERE))


def to_fp16(model):
    """The float16 copy of a float32 ONNX model, inputs and outputs kept float32 (see the docstring)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph
    f32, f16 = TensorProto.FLOAT, TensorProto.FLOAT16

    def narrow(t):
        if t.data_type == f32:
            a = numpy_helper.to_array(t).astype(np.float16)
            t.CopyFrom(numpy_helper.from_array(a, t.name))

    keep32 = set()  # initializers that must stay float32: Resize/Upsample scales
    for n in g.node:
        if n.op_type in ("Resize", "Upsample") and len(n.input) > 2:
            keep32.add(n.input[2])
    for t in g.initializer:
        if t.name not in keep32:
            narrow(t)
    for n in g.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.TENSOR:
                narrow(a.t)
            if n.op_type == "Cast" and a.name == "to" and a.i == f32:
                a.i = f16
    for vi in g.value_info:
        if vi.type.tensor_type.elem_type == f32:
            vi.type.tensor_type.elem_type = f16
    casts = []
    for vi in g.input:
        if vi.type.tensor_type.elem_type != f32:
            continue
        inner = vi.name + "_fp16"
        for n in g.node:
            for i, x in enumerate(n.input):
                if x == vi.name:
                    n.input[i] = inner
        casts.append(helper.make_node("Cast", [vi.name], [inner], to=f16, name=vi.name + "_to_fp16"))
    tail = []
    for vi in g.output:
        if vi.type.tensor_type.elem_type != f32:
            continue
        inner = vi.name + "_fp16"
        for n in g.node:
            for i, x in enumerate(n.output):
                if x == vi.name:
                    n.output[i] = inner
            for i, x in enumerate(n.input):
                if x == vi.name:
                    n.input[i] = inner
        tail.append(helper.make_node("Cast", [inner], [vi.name], to=f32, name=vi.name + "_to_fp32"))
    nodes = casts + list(g.node) + tail
    del g.node[:]
    g.node.extend(nodes)
    return m


class Encoder(torch.nn.Module):
    """A BERT-style encoder: `layers` blocks of multi-head self-attention (with a padding mask) and
    a GELU feed-forward network, each followed by a residual Add and LayerNorm (post-norm, as BERT)."""

    def __init__(self, d=64, heads=4, ff=256, layers=2):
        super().__init__()
        self.d, self.heads = d, heads
        self.qkv = torch.nn.ModuleList([torch.nn.Linear(d, 3 * d) for _ in range(layers)])
        self.out = torch.nn.ModuleList([torch.nn.Linear(d, d) for _ in range(layers)])
        self.ln1 = torch.nn.ModuleList([torch.nn.LayerNorm(d, eps=1e-12) for _ in range(layers)])
        self.ff1 = torch.nn.ModuleList([torch.nn.Linear(d, ff) for _ in range(layers)])
        self.ff2 = torch.nn.ModuleList([torch.nn.Linear(ff, d) for _ in range(layers)])
        self.ln2 = torch.nn.ModuleList([torch.nn.LayerNorm(d, eps=1e-12) for _ in range(layers)])

    def forward(self, x, mask):
        b, s, d = x.shape
        h, dh = self.heads, self.d // self.heads
        bias = (1.0 - mask[:, None, None, :]) * -10000.0  # BERT's additive padding mask
        for qkv, out, ln1, ff1, ff2, ln2 in zip(self.qkv, self.out, self.ln1, self.ff1, self.ff2, self.ln2):
            q, k, v = qkv(x).split(d, dim=-1)
            q = q.reshape(b, s, h, dh).transpose(1, 2)
            k = k.reshape(b, s, h, dh).transpose(1, 2)
            v = v.reshape(b, s, h, dh).transpose(1, 2)
            att = torch.softmax(q @ k.transpose(-1, -2) / dh ** 0.5 + bias, dim=-1)
            ctx = (att @ v).transpose(1, 2).reshape(b, s, d)
            x = ln1(x + out(ctx))
            x = ln2(x + ff2(torch.nn.functional.gelu(ff1(x))))
        return x


def build(name):
    torch.manual_seed(20)
    if name == "resnet18":
        import zoo_check
        model, x, _ = zoo_check.build("resnet18", 64)
        return model, (x,), ["input"], 13
    model = Encoder().eval()
    x = torch.randn(2, 16, 64)
    mask = torch.ones(2, 16)
    mask[1, 12:] = 0  # the second sequence has 4 padding positions
    return model, (x, mask), ["x", "mask"], 17


def ort(dirs):
    subprocess.run(["node", os.path.join(ROOT, "tests", "conformance", "ort_cases.js")] + dirs, check=True)
    for d in dirs:
        if os.path.exists(os.path.join(d, "ort_error.txt")):
            sys.exit(d + ": ONNX Runtime: " + open(os.path.join(d, "ort_error.txt")).read())


def tare_run(tare, d, names, backend):
    args = [tare, "run", os.path.join(d, "model.onnx"), "--backend", backend, "--output-dir", os.path.join(d, backend)]
    for k, n in enumerate(names):
        args += ["--input", "%s=%s" % (n, os.path.join(d, "in_%d.npy" % k))]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    out = sorted(f for f in os.listdir(os.path.join(d, backend)) if f.endswith(".npy"))
    return np.load(os.path.join(d, backend, out[0])).astype(np.float64)


def distance(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    rel = np.linalg.norm(a - b) / np.linalg.norm(b)
    ulps = np.max(np.abs(a - b)) / (2.0 ** -10 * np.max(np.abs(b)))
    return rel, ulps


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--models", default="resnet18,encoder")
    ap.add_argument("--tare", default=os.path.join(ROOT, "build", "tare"))
    ap.add_argument("--write-fixture", default="")
    args = ap.parse_args()
    torch.set_num_threads(1)
    results = {}
    for name in args.models.split(","):
        model, xs, names, opset = build(name)
        base = os.path.join(args.dir, name)
        f32d, f16d = os.path.join(base, "fp32"), os.path.join(base, "fp16")
        for d in (f32d, f16d):
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
        with torch.no_grad():
            torch.onnx.export(model, xs, os.path.join(f32d, "model.onnx"), input_names=names, output_names=["y"],
                              opset_version=opset, do_constant_folding=True)
            torch_y = model(*xs).numpy()
        onnx.save(to_fp16(onnx.load(os.path.join(f32d, "model.onnx"))), os.path.join(f16d, "model.onnx"))
        for d in (f32d, f16d):
            for k, x in enumerate(xs):
                np.save(os.path.join(d, "in_%d.npy" % k), x.numpy())
        ort([f32d, f16d])
        ort32 = np.load(os.path.join(f32d, "ort_out_0.npy"))
        ort16 = np.load(os.path.join(f16d, "ort_out_0.npy"))
        r = {}
        for backend in ("ref", "ref64", "cpu", "onednn"):
            t16 = tare_run(args.tare, f16d, names, backend)
            t32 = tare_run(args.tare, f32d, names, backend)
            r[backend] = {"fp16 vs ORT fp16": distance(t16, ort16), "fp16 vs ORT fp32 original": distance(t16, ort32),
                          "fp32 vs ORT fp32": distance(t32, ort32)}
        r["ORT fp16 vs ORT fp32"] = distance(ort16, ort32)
        r["ORT fp32 vs PyTorch"] = distance(ort32, torch_y)
        results[name] = r
        for k, v in r.items():
            if isinstance(v, dict):
                for kk, (rel, ulps) in v.items():
                    print("%-9s %-6s %-27s rel L2 %.2e  max|d| %.2f fp16 ULP of max|y|" % (name, k, kk, rel, ulps))
            else:
                print("%-9s %-34s rel L2 %.2e  max|d| %.2f fp16 ULP of max|y|" % (name, k, v[0], v[1]))
        if args.write_fixture and name == "encoder":
            fx = args.write_fixture
            shutil.rmtree(fx, ignore_errors=True)
            os.makedirs(os.path.join(fx, "expected"))
            shutil.copy(os.path.join(f16d, "model.onnx"), os.path.join(fx, "model.onnx"))
            for k, n in enumerate(names):
                shutil.copy(os.path.join(f16d, "in_%d.npy" % k), os.path.join(fx, n + ".npy"))
            np.save(os.path.join(fx, "expected", "y.npy"), ort16)
            with open(os.path.join(fx, "fixture.cmake"), "w") as f:  # read by tests/models/run_fixture.cmake
                f.write("# Written by tests/models/fp16/make_fp16.py: the encoder's two inputs, and the float16\n"
                        "# budget (docs/NUMERICS.md): rel L2 <= 2^-10 against ONNX Runtime's float16 run; the\n"
                        "# outputs are hidden states, not scores, so no argmax check.\n"
                        "set(FIXTURE_INPUTS %s)\n"
                        "set(FIXTURE_CHECK_ARGS 9.77e-4 --no-argmax)\n" % " ".join("%s=%s.npy" % (n, n) for n in names))
    with open(os.path.join(args.dir, "fp16_results.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
