#!/usr/bin/env python3
"""tare's own ONNX test cases (issue 20): the forms of opsets 18 to 23 and float16 / bfloat16 models,
which Debian's ONNX 1.12 and its backend test data (opsets up to 17) do not have.

  /usr/bin/python3 tests/conformance/make_cases.py [--only SUBSTR] [--keep]

Each case is a small model built with onnx.helper (onnx 1.12 writes any op name and opset; its
checker, which stops at opset 17, is not run) and written as the ONNX backend test suite lays cases
out: tests/conformance/cases/<name>/model.onnx and test_data_set_0/{input_K,output_K}.pb. The
expected outputs are ONNX Runtime's (onnxruntime-node 1.30 run by ort_cases.js: CPU provider, one
thread, no graph optimization). Where a case also has a numpy reference written from the operator's
spec text (`ref=`), the two must agree (rtol 1e-3, atol 1e-5 in float32; within 2 ULP of the narrow
type for float16/bfloat16) or the script stops. Where ONNX Runtime refuses a case, its message goes to
cases/ort_refusals.txt and the numpy reference gives the expected outputs (a case with neither is an
error). The NaN and inf cases (issue 20 item 4) and the few float8 / int4 casts where ONNX Runtime
departs from the spec (`expect="spec"`, each explained in cases_spec.py) take the numpy reference's
outputs and list where ONNX Runtime differs in cases/ort_differences.txt. `tare_conformance --data tests/conformance --folder cases` runs them (ctest
conformance.<backend>.cases; expected failures in cases_xfail_<backend>.txt).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "cases")
RNG = np.random.default_rng(20)
IR_FOR_OPSET = {18: 8, 19: 9, 20: 9, 21: 10, 22: 10, 23: 11}


class BF16:
    """A bfloat16 tensor: its values as float32 (exactly representable) and its uint16 codes."""

    def __init__(self, values):
        f = np.asarray(values, dtype=np.float32)
        bits = f.view(np.uint32).astype(np.uint64)
        rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)  # to nearest even
        self.codes = rounded
        self.values = (rounded.astype(np.uint32) << 16).view(np.float32)
        self.shape = f.shape


class Raw:
    """A tensor of a type onnx 1.12's numpy helpers lack, given by its TensorProto code and raw bytes:
    the float8 types (17-20: one code per byte) and uint4 / int4 (21 / 22: two per byte, the first
    in the low nibble, as onnx.proto says). `values` are its elements as numbers (for references)."""

    def __init__(self, code, values, raw):
        self.code = code
        self.values = np.asarray(values)
        self.shape = self.values.shape
        self.raw = raw

    @staticmethod
    def int4(values, signed=True):
        v = np.asarray(values, dtype=np.int64)
        nib = (v & 0xF).ravel().astype(np.uint8)
        if nib.size % 2:
            nib = np.append(nib, 0)
        packed = (nib[0::2] | (nib[1::2] << 4)).astype(np.uint8)
        return Raw(22 if signed else 21, v, packed.tobytes())


def elem_type(a):
    if isinstance(a, BF16):
        return TensorProto.BFLOAT16
    if isinstance(a, Raw):
        return a.code
    return helper.np_dtype_to_tensor_dtype(np.asarray(a).dtype) if hasattr(helper, "np_dtype_to_tensor_dtype") \
        else onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.asarray(a).dtype]


def to_proto(a, name):
    if isinstance(a, Raw):
        t = TensorProto()
        t.name = name
        t.data_type = a.code
        t.dims.extend(a.shape)
        t.raw_data = a.raw
        return t
    if isinstance(a, BF16):
        t = TensorProto()
        t.name = name
        t.data_type = TensorProto.BFLOAT16
        t.dims.extend(a.shape)
        t.raw_data = a.codes.tobytes()
        return t
    return numpy_helper.from_array(np.asarray(a), name)


CASES = []


def case(name, op, inputs, opset=18, attrs=None, outputs=1, out_types=None, inits=None, ref=None, nodes=None,
         domain="", expect="ort"):
    """Registers a case: one node `op` (or `nodes`, a list of NodeProto) reading graph inputs
    `inputs` [(name, array)] and initializers `inits` [(name, array)], with `outputs` outputs
    (a count or names) of element types `out_types` (default: the first input's). expect="spec":
    the numpy reference gives the expected outputs even where ONNX Runtime runs the case (the NaN
    and inf cases, whose semantics are the spec's numpy and PyTorch's); where ONNX Runtime's outputs
    differ, the difference goes to cases/ort_differences.txt instead of stopping the script."""
    assert expect in ("ort", "spec") and (expect == "ort" or ref is not None), name
    CASES.append(dict(name=name, op=op, inputs=inputs, opset=opset, attrs=attrs or {}, outputs=outputs,
                      out_types=out_types, inits=inits or [], ref=ref, nodes=nodes, domain=domain, expect=expect))


def build(c):
    outs = c["outputs"] if isinstance(c["outputs"], list) else ["y" if c["outputs"] == 1 else "y%d" % i
                                                                   for i in range(c["outputs"])]
    types = c["out_types"] or [elem_type(c["inputs"][0][1])] * len(outs)
    if c["nodes"] is not None:
        nodes = c["nodes"]
    else:
        ins = [n for n, _ in c["inputs"]] + [n for n, _ in c["inits"]]
        nodes = [helper.make_node(c["op"], ins, outs, domain=c["domain"] or None, **c["attrs"])]
    g = helper.make_graph(
        nodes, c["name"],
        [helper.make_tensor_value_info(n, elem_type(a), list(a.shape if isinstance(a, (BF16, Raw)) else np.shape(a)))
         for n, a in c["inputs"]],
        [helper.make_tensor_value_info(o, t, None) for o, t in zip(outs, types)],
        initializer=[to_proto(a, n) for n, a in c["inits"]])
    imports = [helper.make_opsetid("", c["opset"])]
    if c["domain"]:
        imports.append(helper.make_opsetid(c["domain"], 1))
    m = helper.make_model(g, opset_imports=imports, producer_name="tare make_cases.py")
    m.ir_version = IR_FOR_OPSET.get(c["opset"], 8)
    return m, outs


def values(a):
    return a.values if isinstance(a, (BF16, Raw)) else np.asarray(a)


def agree(got, want, narrow):
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        return False
    if got.dtype.kind in "iub":
        return np.array_equal(got, want)
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    if narrow:
        ulp = np.abs(w) * (2.0 ** -10 if narrow == "float16" else 2.0 ** -7) + 1e-7
        return bool(np.all((np.abs(g - w) <= 2 * ulp) | (np.isnan(g) & np.isnan(w)) | (g == w)))
    return bool(np.allclose(g, w, rtol=1e-3, atol=1e-5, equal_nan=True))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--keep", action="store_true", help="keep the ONNX Runtime scratch folder")
    args = ap.parse_args()
    import cases_spec  # noqa: F401  (registers the cases)
    todo = [c for c in CASES if args.only in c["name"]]
    names = [c["name"] for c in CASES]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        sys.exit("duplicate case names: " + ", ".join(sorted(dup)))
    scratch = tempfile.mkdtemp(prefix="tare_cases_")
    models = {}
    for c in todo:
        d = os.path.join(scratch, c["name"])
        os.makedirs(d)
        m, outs = build(c)
        models[c["name"]] = (m, outs)
        onnx.save(m, os.path.join(d, "model.onnx"))
        for k, (_, a) in enumerate(c["inputs"]):
            if isinstance(a, BF16):
                continue  # onnxruntime-node has no bfloat16 tensors: such cases use the numpy reference
            np.save(os.path.join(d, "in_%d.npy" % k), np.asarray(a))
    subprocess.run(["node", os.path.join(HERE, "ort_cases.js")] + [os.path.join(scratch, c["name"]) for c in todo],
                   check=True)
    refusals = []
    differences = []
    failed = []
    from_ort = 0
    for c in todo:
        d = os.path.join(scratch, c["name"])
        m, outs = models[c["name"]]
        has_bf16 = any(isinstance(a, BF16) for _, a in c["inputs"])
        ort_out = None
        if has_bf16:
            refusals.append((c["name"], "onnxruntime-node has no bfloat16 tensors"))
        elif os.path.exists(os.path.join(d, "ort_error.txt")):
            refusals.append((c["name"], open(os.path.join(d, "ort_error.txt")).read().strip()))
        else:
            ort_out = [np.load(os.path.join(d, "ort_out_%d.npy" % k)) for k in range(len(outs))]
        ref_out = None
        if c["ref"] is not None:
            r = c["ref"](*[values(a) for _, a in c["inputs"]])
            ref_out = list(r) if isinstance(r, (tuple, list)) else [r]
        if ort_out is None and ref_out is None:
            failed.append("%s: ONNX Runtime refused it and it has no numpy reference" % c["name"])
            continue
        narrow_types = {TensorProto.FLOAT16: "float16", TensorProto.BFLOAT16: "bfloat16"}
        types = c["out_types"] or [elem_type(c["inputs"][0][1])] * len(outs)
        if ort_out is not None and ref_out is not None:
            for k, (o, r) in enumerate(zip(ort_out, ref_out)):
                if agree(o, r, narrow_types.get(types[k])):
                    continue
                if c["expect"] == "spec":
                    bad = [i for i, (a, b) in enumerate(zip(np.asarray(o).ravel(), np.asarray(r).ravel()))
                           if not agree(np.array([a]), np.array([b]), narrow_types.get(types[k]))]
                    differences.append((c["name"], "output %d: %d of %d elements differ; first at %d: ort %s, spec %s"
                                        % (k, len(bad), np.asarray(r).size, bad[0], np.asarray(o).ravel()[bad[0]],
                                           np.asarray(r).ravel()[bad[0]])))
                else:
                    failed.append("%s: output %d: ONNX Runtime and the numpy reference disagree:\n  ort %s\n  ref %s"
                                  % (c["name"], k, np.asarray(o).ravel()[:8], np.asarray(r).ravel()[:8]))
        want = ort_out if ort_out is not None and c["expect"] == "ort" else ref_out
        from_ort += want is ort_out
        dst = os.path.join(OUT, c["name"])
        shutil.rmtree(dst, ignore_errors=True)
        os.makedirs(os.path.join(dst, "test_data_set_0"))
        onnx.save(m, os.path.join(dst, "model.onnx"))
        for k, (n, a) in enumerate(c["inputs"]):
            with open(os.path.join(dst, "test_data_set_0", "input_%d.pb" % k), "wb") as f:
                f.write(to_proto(a, n).SerializeToString())
        for k, w in enumerate(want):
            if types[k] == TensorProto.BFLOAT16:
                w = BF16(np.asarray(w, dtype=np.float32))
            elif types[k] == TensorProto.FLOAT16:
                w = np.asarray(w).astype(np.float16)
            with open(os.path.join(dst, "test_data_set_0", "output_%d.pb" % k), "wb") as f:
                f.write(to_proto(w, outs[k]).SerializeToString())
    if not args.only:
        with open(os.path.join(OUT, "ort_refusals.txt"), "w") as f:
            f.write("# Cases ONNX Runtime 1.30 (onnxruntime-node, CPU) refuses; their expected outputs come from\n"
                    "# the numpy reference in cases_spec.py. Written by make_cases.py.\n")
            for n, why in refusals:
                f.write("%s  %s\n" % (n, why))
        with open(os.path.join(OUT, "ort_differences.txt"), "w") as f:
            f.write("# Cases (expect=\"spec\" in cases_spec.py: the NaN and inf cases, and the float8 / int4 casts\n"
                    "# noted there) where ONNX Runtime 1.30 (onnxruntime-node, CPU, no graph optimization) differs\n"
                    "# from the spec's numpy, which gives their expected outputs (for NaN and inf, PyTorch matches\n"
                    "# it). Written by make_cases.py.\n")
            for n, why in differences:
                f.write("%s  %s\n" % (n, why))
    if args.keep:
        print("scratch:", scratch)
    else:
        shutil.rmtree(scratch)
    print("%d cases written, %d with ONNX Runtime's outputs, %d refused by it, %d cases (expect=spec) where it differs "
          "from the spec" % (len(todo) - len(failed), from_ort, len(refusals), len(differences)))
    if failed:
        sys.exit("\n".join(failed))


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    sys.modules["make_cases"] = sys.modules[__name__]
    main()
