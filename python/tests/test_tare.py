"""Tests of the Python module `tare` (python/tare_module.cc).

The fixtures come from $TARE_MODELS (tests/models): the LeNet-5 and ResNet-20 ONNX exports of
PyTorch with an input and PyTorch's own logits. Files are written only under pytest's tmp_path.
"""
import os

import numpy as np
import pytest

import tare

MODELS = os.environ.get("TARE_MODELS", "")


def fixture(model):
    """(model.onnx path, input array, PyTorch's logits) of a model of $TARE_MODELS."""
    d = os.path.join(MODELS, model)
    if not os.path.isfile(os.path.join(d, "model.onnx")):
        pytest.fail("TARE_MODELS must name tests/models (no %s/model.onnx under %r)" % (model, MODELS))
    return (os.path.join(d, "model.onnx"), np.load(os.path.join(d, "input.npy")),
            np.load(os.path.join(d, "expected", "logits.npy")))


def rel_l2(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def raises(code, fn, *args, **kwargs):
    """Calls fn, which must raise tare.Error with `code`; returns the error."""
    with pytest.raises(tare.Error) as info:
        fn(*args, **kwargs)
    assert info.value.code == code, (info.value.code, str(info.value))
    assert str(info.value) == info.value.message
    assert "\n" not in str(info.value) and str(info.value)
    return info.value


def test_import_and_version():
    assert isinstance(tare.__version__, str)
    assert tare.__version__.count(".") == 2 and all(p.isdigit() for p in tare.__version__.split("."))
    backends = tare.backends()
    assert "ref" in backends and "ref64" in backends
    assert issubclass(tare.Error, Exception)
    for f in (tare.convert, tare.compare, tare.Session.run, tare.Session.trace, tare.Session.placement):
        assert f.__doc__ and len(f.__doc__) > 80


@pytest.mark.parametrize("model", ["lenet5", "resnet20"])
def test_convert_then_run_matches_pytorch(model, tmp_path):
    onnx, x, expected = fixture(model)
    dst = tmp_path / (model + ".tare")
    assert tare.convert(onnx, str(dst)) is None
    assert dst.stat().st_size > 1000
    for backends in ("cpu,ref", "ref", "ref64"):
        s = tare.Session(dst, backends=backends)  # os.PathLike
        out = s.run({"input": x})
        assert list(out) == ["logits"]
        y = out["logits"]
        assert y.dtype == (np.float64 if backends == "ref64" else np.float32)
        assert y.shape == expected.shape
        assert rel_l2(y, expected) <= 1e-4, (backends, rel_l2(y, expected))
        assert s.arena_bytes > 0
        placement = s.placement()
        assert len(placement) > 5
        names = {b for _, b in placement}
        assert names <= {"cpu", "ref", "ref64", "folded", "unused"} and names & {"cpu", "ref", "ref64"}
        if backends == "ref64":
            assert "ref64" in names


@pytest.mark.parametrize("model", ["lenet5", "resnet20"])
def test_onnx_directly_and_list_of_backends(model):
    onnx, x, expected = fixture(model)
    s = tare.Session(onnx, backends=["cpu", "ref"], threads=2)
    y = s.run({"input": x})["logits"]
    assert rel_l2(y, expected) <= 1e-4
    # The output owns its memory: a second run does not change the first run's array.
    first = y.copy()
    s.run({"input": np.zeros_like(x)})
    np.testing.assert_array_equal(y, first)


def test_metadata():
    onnx, x, _ = fixture("lenet5")
    s = tare.Session(onnx, backends="ref")
    (i,), (o,) = s.inputs, s.outputs
    # The export declares a fixed batch of 2 (tests/models/lenet5/meta.json).
    assert (i.name, i.dtype, i.shape, i.kind) == ("input", np.dtype(np.float32), (2, 1, 28, 28), "tensor")
    assert (o.name, o.dtype, o.shape) == ("logits", np.dtype(np.float32), (2, 10))
    assert repr(i) == "TensorInfo(name='input', dtype=float32, shape=(2, 1, 28, 28))"
    assert x.shape == i.shape and x.dtype == i.dtype


def test_wrong_dtype_and_shape():
    onnx, x, _ = fixture("lenet5")
    s = tare.Session(onnx, backends="ref")
    e = raises("invalid_argument", s.run, {"input": x.astype(np.float64)})
    assert "'input'" in e.message and "float32" in e.message and "float64" in e.message
    e = raises("shape", s.run, {"input": x[:1]})
    assert "'input'" in e.message and "[2,1,28,28]" in e.message
    raises("shape", s.run, {"input": x.reshape(2, 28, 28)})
    raises("invalid_argument", s.run, {"input": x.astype(np.complex64)})
    raises("invalid_argument", s.run, {"input": x.astype(">f4")})
    raises("invalid_argument", s.run, {"input": x.tolist()})
    raises("invalid_argument", s.run, [x])


def test_missing_and_unknown_inputs():
    onnx, x, _ = fixture("lenet5")
    s = tare.Session(onnx, backends="ref")
    assert "missing input 'input'" in raises("invalid_argument", s.run, {}).message
    e = raises("invalid_argument", s.run, {"input": x, "other": x})
    assert "'other'" in e.message
    raises("invalid_argument", s.run, {1: x})


def test_bad_arguments():
    onnx, _, _ = fixture("lenet5")
    e = raises("invalid_argument", tare.Session, onnx, backends="cpu,nosuch")
    assert "'nosuch'" in e.message and "ref64" in e.message  # lists the available ones
    raises("invalid_argument", tare.Session, onnx, backends=[])
    raises("invalid_argument", tare.Session, onnx, backends=3)
    raises("invalid_argument", tare.Session, onnx, threads=0)
    raises("invalid_argument", tare.Session, onnx, threads="2")
    raises("invalid_argument", tare.Session, 42)
    raises("invalid_argument", tare.Session, onnx, trace=["no such tensor"])


def test_session_limits():
    onnx, x, _ = fixture("lenet5")
    s = tare.Session(onnx, backends="ref", max_arena_bytes=1000)
    e = raises("limit_exceeded", s.run, {"input": x})
    assert "1000" in e.message
    raises("invalid_argument", tare.Session, onnx, max_tensor_bytes=0)


def test_missing_model_and_corrupt_tare(tmp_path):
    onnx, _, _ = fixture("lenet5")
    missing = str(tmp_path / "absent.tare")
    assert "absent.tare" in raises("io", tare.Session, missing).message
    raises("io", tare.Session, str(tmp_path / "absent.onnx"))
    good = tmp_path / "good.tare"
    tare.convert(onnx, good)
    data = bytearray(good.read_bytes())
    data[len(data) // 2] ^= 0x10
    bad = tmp_path / "bad.tare"
    bad.write_bytes(bytes(data))
    e = raises("bad_model", tare.Session, str(bad))
    assert "bad.tare" in e.message
    tare.Session(str(good), backends="ref")  # the unflipped copy loads


def test_convert_errors(tmp_path):
    onnx, _, _ = fixture("lenet5")
    raises("invalid_argument", tare.convert, onnx, str(tmp_path / "out.onnx"))
    assert not (tmp_path / "out.onnx").exists()
    tare_file = tmp_path / "m.tare"
    tare.convert(onnx, tare_file)
    size = tare_file.stat().st_size
    raises("invalid_argument", tare.convert, str(tare_file), str(tare_file))
    assert tare_file.stat().st_size == size
    raises("io", tare.convert, onnx, str(tmp_path / "no_dir" / "m.tare"))
    raises("io", tare.convert, str(tmp_path / "absent.onnx"), str(tmp_path / "x.tare"))
    assert not (tmp_path / "x.tare").exists()


def test_non_contiguous_input():
    onnx, x, expected = fixture("lenet5")
    s = tare.Session(onnx, backends="ref")
    want = s.run({"input": x})["logits"]
    assert rel_l2(want, expected) <= 1e-4  # the reference itself matches PyTorch
    # The same values through a transposed view: not C-contiguous.
    t = np.ascontiguousarray(x.transpose(0, 1, 3, 2)).transpose(0, 1, 3, 2)
    assert not t.flags["C_CONTIGUOUS"] and np.array_equal(t, x)
    np.testing.assert_array_equal(s.run({"input": t})["logits"], want)
    # A strided slice of a larger array.
    big = np.zeros((4, 1, 28, 28), np.float32)
    big[::2] = x
    assert not big[::2].flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(s.run({"input": big[::2]})["logits"], want)


def test_trace_layers():
    onnx, x, expected = fixture("lenet5")
    s = tare.Session(onnx, backends="ref64", trace="*")
    assert s.trace() == []  # before the first run
    out = s.run({"input": x})
    layers = s.trace()
    assert len(layers) >= 10
    assert set(layers[0]) == {"value", "node", "op", "array"}
    ops = [l["op"] for l in layers]
    assert "Conv" in ops and "Gemm" in ops and "Relu" in ops
    conv = layers[ops.index("Conv")]
    assert conv["array"].ndim == 4 and conv["array"].shape[0] == 2 and conv["array"].dtype == np.float64
    last = [l for l in layers if l["value"] == "logits"]
    assert len(last) == 1
    np.testing.assert_array_equal(last[0]["array"], out["logits"])
    assert rel_l2(last[0]["array"], expected) <= 1e-4
    # One named tensor only.
    name = conv["value"]
    s1 = tare.Session(onnx, backends="ref", trace=[name])
    s1.run({"input": x})
    assert [l["value"] for l in s1.trace()] == [name]
    raises("invalid_argument", tare.Session(onnx, backends="ref").trace)


def test_compare_same_model(tmp_path):
    onnx, x, expected = fixture("lenet5")
    report = tare.compare([onnx, onnx], {"input": x})
    # The keys of `tare compare --json` (single-input mode), schema of docs/COMPARE.md.
    assert set(report) == {"schema_version", "kind", "models", "pairs", "threshold_rel_l2"}
    assert report["schema_version"] == 1 and report["kind"] == "single-input"
    assert report["threshold_rel_l2"] == 1e-9
    assert len(report["models"]) == 2
    m = report["models"][0]
    assert set(m) >= {"file", "runs", "frameworks", "kernel_noise_floor_rel_l2", "quantized"}
    assert [r["backend"] for r in m["runs"]] == ["ref"]
    assert 0 < m["kernel_noise_floor_rel_l2"] < 1e-5
    assert [p["verdict"] for p in report["pairs"]] == ["same function"]
    # A framework's own outputs: PyTorch's logits in a folder, by output name.
    torch_dir = tmp_path / "pytorch"
    torch_dir.mkdir()
    np.save(torch_dir / "logits.npy", expected)
    report = tare.compare(onnx, {"input": x}, backends="ref64,ref", expects={"pytorch": str(torch_dir)})
    (fw,) = report["models"][0]["frameworks"]
    assert fw["label"] == "pytorch" and fw["metrics"]["rel_l2"] < 1e-4
    raises("invalid_argument", tare.compare, onnx, {"input": x}, backends=("ref", "ref64"))
    raises("invalid_argument", tare.compare, onnx, {"input": x}, threshold=-1.0)
    raises("invalid_argument", tare.compare, [onnx, onnx], {"input": x}, expects={"a": str(torch_dir)})
    e = raises("invalid_argument", tare.compare, onnx, {"input": x, "zzz": x})
    assert "'zzz'" in e.message
    raises("shape", tare.compare, onnx, {"input": x[:1]})


def test_compare_layers():
    onnx, x, expected = fixture("lenet5")
    report = tare.compare(onnx, {"input": x}, backends="ref64,ref", layers=True)
    (m,) = report["models"]
    assert m["bisections"] == []
    (l,) = m["layers"]
    assert l["backend"] == "ref" and l["over_budget"] == 0
    # LeNet-5's 14 nodes after folding (2 Conv, 2 AveragePool, 3 Gemm, ...), all checked alone.
    ops = [n["op"] for n in l["nodes"]]
    assert len(ops) == 14 and ops.count("Conv") == 2 and ops.count("Gemm") == 3
    assert l["isolated_nodes"] == 14 and 0 <= l["worst_ratio"] <= 1
    for n in l["nodes"]:
        assert n["placement"] == "ref" and n["chained"]["rel_l2"] < 1e-5 and n["isolated"]["ratio"] <= 1
    # Without layers: no layers key (the report as before).
    assert "layers" not in tare.compare(onnx, {"input": x})["models"][0]


def test_compare_models_differ():
    onnx, x, _ = fixture("lenet5")
    # LeNet-5 with the second pooling's pads changed (tests/models/lenet5/variants).
    altered = os.path.join(os.path.dirname(onnx), "variants", "pool2_pads_altered.onnx")
    report = tare.compare([onnx, altered], {"input": x})
    (pair,) = report["pairs"]
    assert (pair["a"], pair["b"], pair["kind"]) == ("model.onnx", "pool2_pads_altered.onnx", "models")
    assert pair["verdict"] == "models differ at /pool2/AveragePool / /pool2/AveragePool"
    assert pair["first_divergence"]["b"]["attributes"].find("pads=[1,1,0,0]") >= 0
