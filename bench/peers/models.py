#!/usr/bin/python3
"""The models of the side-by-side benchmark (issue 5) and the PyTorch modules behind them.

    /usr/bin/python3 bench/peers/models.py prepare OUT [--models a,b,...]

writes OUT/models.json (the manifest read by bench/run_peers.py, bench/peers/torch_bench.py) and,
for the models that are not committed, OUT/models/<name>/model.onnx plus their inputs and
PyTorch's outputs as .npy. Nothing is written into the source tree.

Models (name: ONNX file; inputs; PyTorch module):
  lenet5, resnet20, vgg16, lstm_text, gru_text
      tests/models/<name>/model.onnx with its committed input.npy (batch 2). The PyTorch module is
      the class that produced the export, from tests/models/make_fixtures.py, built the same way:
      resnet20, vgg16, lstm_text, gru_text by make_fixtures' own seeded builders (same weights);
      lenet5 (trained by make_fixtures, which takes minutes) as LeNet5() with the export's
      initializers loaded (the names are the module's parameter names). torch_bench.py checks the
      module's output against the fixture's expected/logits.npy, so the module is the one exported.
  lenet5_bn
      tests/models/lenet5_bn/model.onnx (the study's LeNet-5 with a BatchNorm, docs/STUDY.md; input
      batch symbolic, the committed input.npy has 2): the module is bench/study/lenet5_bn.py's
      LeNet5BN with the export's initializers loaded (named as the module's parameters and buffers).
  resnet18, mobilenet_v2, squeezenet1_1
      torchvision 0.14 architectures with seeded random weights (torch.manual_seed(SEED + k),
      weights=None), eval mode, exported here with opset 13, input "input" float32 [1,3,224,224]
      uniform in [-1, 1) (numpy default_rng(SEED + k)), output "logits"; PyTorch's own output is
      saved as expected/logits.npy.
  bert_encoder, vit_b_16, convnext_tiny, efficientnet_b0  (issue 23: 2020s architectures)
      bert_encoder: BertEncoder below, a BERT-style classifier (token and position embeddings,
      4 post-LayerNorm encoder layers, d 256, 4 heads, FFN 1024 with erf Gelu, additive attention
      mask, tanh pooler on the first token, 10 logits), inputs "input_ids" and "attention_mask"
      int64 [1, 128] (ids uniform in [0, 8000) from default_rng(SEED + k), the mask 1 on the first
      112 tokens and 0 after). vit_b_16, convnext_tiny, efficientnet_b0: torchvision 0.14
      architectures as above (ViT's head, which torchvision zeroes, drawn from N(0, 0.02^2)). All seeded (torch.manual_seed(SEED + k)), eval mode, exported here
      with opset 14 (LayerNorm and Gelu decomposed: LayerNormalization is opset 17), output
      "logits", PyTorch's own output saved as expected/logits.npy.
  silero_legacy, silero_v5
      the published Silero VAD models (tests/models/silero/fetch.sh DEST, default build/corpus):
      one 512-sample chunk at 16 kHz (the first row of tests/models/silero/input.npy), sr = 16000
      (int64 scalar), zero state. ONNX Runtime only: there is no PyTorch module.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
FIXTURES = os.path.join(ROOT, "tests", "models")
SEED = 20240501

FIXTURE_MODELS = ["lenet5", "resnet20", "vgg16", "lstm_text", "gru_text", "lenet5_bn"]
TORCHVISION_MODELS = {"resnet18": 101, "mobilenet_v2": 102, "squeezenet1_1": 103}  # name -> seed offset
MODERN_MODELS = {"bert_encoder": 201, "vit_b_16": 202, "convnext_tiny": 203, "efficientnet_b0": 204}  # name -> seed offset
SILERO_MODELS = {"silero_legacy": "silero_vad_legacy.onnx", "silero_v5": "silero_vad_v5.onnx"}
ALL_MODELS = FIXTURE_MODELS + list(TORCHVISION_MODELS) + list(MODERN_MODELS) + list(SILERO_MODELS)
# The default set of bench/run_peers.sh (issue 5's list: gru_text is available but not in it).
DEFAULT_MODELS = ["lenet5", "resnet20", "vgg16", "lstm_text", "resnet18", "mobilenet_v2", "squeezenet1_1",
                  "silero_legacy", "silero_v5"]


def _make_fixtures():
    """tests/models/make_fixtures.py as a module (its main() only runs as a script)."""
    if FIXTURES not in sys.path:
        sys.path.insert(0, FIXTURES)
    import make_fixtures  # noqa: E402
    return make_fixtures


def _torchvision_module(name):
    import torch
    import torchvision
    torch.manual_seed(SEED + TORCHVISION_MODELS[name])
    model = getattr(torchvision.models, name)(weights=None)
    return model.eval()


def _bert_encoder_class():
    import torch
    from torch import nn

    class BertEncoder(nn.Module):
        """A BERT-style sequence classifier (the encoder of issue 23's table): post-LayerNorm layers
        as BERT-base's, smaller."""

        def __init__(self, vocab=8000, max_len=512, d=256, heads=4, ffn=1024, layers=4, classes=10):
            super().__init__()
            self.heads, self.dh = heads, d // heads
            self.tok = nn.Embedding(vocab, d)
            self.pos = nn.Embedding(max_len, d)
            self.register_buffer("position_ids", torch.arange(max_len).unsqueeze(0))
            self.emb_ln = nn.LayerNorm(d, eps=1e-12)
            self.qkv = nn.ModuleList(nn.ModuleList(nn.Linear(d, d) for _ in range(3)) for _ in range(layers))
            self.attn_out = nn.ModuleList(nn.Linear(d, d) for _ in range(layers))
            self.ln1 = nn.ModuleList(nn.LayerNorm(d, eps=1e-12) for _ in range(layers))
            self.ff1 = nn.ModuleList(nn.Linear(d, ffn) for _ in range(layers))
            self.ff2 = nn.ModuleList(nn.Linear(ffn, d) for _ in range(layers))
            self.ln2 = nn.ModuleList(nn.LayerNorm(d, eps=1e-12) for _ in range(layers))
            self.pool = nn.Linear(d, d)
            self.cls = nn.Linear(d, classes)

        def _split(self, x):
            b, t, _ = x.shape
            return x.view(b, t, self.heads, self.dh).permute(0, 2, 1, 3)

        def forward(self, input_ids, attention_mask):
            t = input_ids.shape[1]
            h = self.tok(input_ids) + self.pos(self.position_ids[:, :t])
            h = self.emb_ln(h)
            bias = (1.0 - attention_mask[:, None, None, :].to(h.dtype)) * -10000.0
            for i in range(len(self.qkv)):
                q, k, v = (self._split(lin(h)) for lin in self.qkv[i])
                a = torch.softmax(q @ k.transpose(-1, -2) / (self.dh ** 0.5) + bias, dim=-1) @ v
                a = a.permute(0, 2, 1, 3).reshape(h.shape)
                h = self.ln1[i](h + self.attn_out[i](a))
                h = self.ln2[i](h + self.ff2[i](nn.functional.gelu(self.ff1[i](h))))
            return self.cls(torch.tanh(self.pool(h[:, 0])))

    return BertEncoder


def _modern_module(name):
    import torch
    torch.manual_seed(SEED + MODERN_MODELS[name])
    if name == "bert_encoder":
        model = _bert_encoder_class()()
    else:
        import torchvision
        model = getattr(torchvision.models, name)(weights=None)
        if name == "vit_b_16":  # torchvision zeroes ViT's head: its logits would all be 0
            torch.nn.init.normal_(model.heads.head.weight, std=0.02)
    return model.eval()


def _modern_inputs(name):
    """The model's inputs as (name, array) pairs."""
    rng = np.random.default_rng(SEED + MODERN_MODELS[name])
    if name == "bert_encoder":
        ids = rng.integers(0, 8000, size=(1, 128), dtype=np.int64)
        mask = np.zeros((1, 128), np.int64)
        mask[:, :112] = 1
        return [("input_ids", ids), ("attention_mask", mask)]
    return [("input", rng.uniform(-1.0, 1.0, size=(1, 3, 224, 224)).astype(np.float32))]


def _with_export_weights(model, name):
    """`model` with the initializers of tests/models/<name>/model.onnx loaded (named as its state_dict;
    BatchNorm's num_batches_tracked, which the export drops, kept), in eval mode."""
    import onnx
    import torch
    from onnx import numpy_helper
    inits = {t.name: numpy_helper.to_array(t) for t in onnx.load(os.path.join(FIXTURES, name, "model.onnx")).graph.initializer}
    state = model.state_dict()
    missing = [k for k in state if k not in inits and not k.endswith("num_batches_tracked")]
    if missing:
        raise RuntimeError(f"{name}: the export lacks initializers {missing}")
    model.load_state_dict({k: torch.from_numpy(inits[k].copy()) if k in inits else v for k, v in state.items()})
    return model.eval()


def torch_module(name):
    """The PyTorch module (eval mode) that produced model `name`'s ONNX file."""
    if name in TORCHVISION_MODELS:
        return _torchvision_module(name)
    if name in MODERN_MODELS:
        return _modern_module(name)
    if name not in FIXTURE_MODELS:
        raise KeyError(f"{name}: no PyTorch module (ONNX Runtime only)")
    if name == "lenet5_bn":
        sys.path.insert(0, os.path.join(ROOT, "bench", "study"))
        try:
            from lenet5_bn import LeNet5BN
        finally:
            sys.path.pop(0)
        return _with_export_weights(LeNet5BN(), name)
    mf = _make_fixtures()
    if name == "lenet5":
        mf.seed_everything(mf.SEED)
        return _with_export_weights(mf.LeNet5(), name)
    builders = {"resnet20": mf.build_resnet20, "vgg16": mf.build_vgg16,
                "lstm_text": mf.BUILDERS["lstm_text"], "gru_text": mf.BUILDERS["gru_text"]}
    model, _x, _opset, _meta = builders[name](None, lambda msg: None)
    return model.eval()


def _entry(name, onnx_path, inputs, torch_ok, expected):
    return {"name": name, "onnx": onnx_path, "inputs": inputs, "torch": torch_ok, "expected": expected}


def prepare(out, names, silero_dir, log=print):
    """Writes what the models need under OUT and returns the manifest (also OUT/models.json)."""
    manifest = []
    for name in names:
        if name in FIXTURE_MODELS:
            d = os.path.join(FIXTURES, name)
            manifest.append(_entry(name, os.path.join(d, "model.onnx"), [["input", os.path.join(d, "input.npy")]], True,
                                   os.path.join(d, "expected", "logits.npy")))
        elif name in TORCHVISION_MODELS:
            d = os.path.join(out, "models", name)
            onnx_path = os.path.join(d, "model.onnx")
            inp, exp = os.path.join(d, "input.npy"), os.path.join(d, "expected", "logits.npy")
            if not (os.path.exists(onnx_path) and os.path.exists(inp) and os.path.exists(exp)):
                import torch
                t0 = time.time()
                os.makedirs(os.path.join(d, "expected"), exist_ok=True)
                model = _torchvision_module(name)
                rng = np.random.default_rng(SEED + TORCHVISION_MODELS[name])
                x = rng.uniform(-1.0, 1.0, size=(1, 3, 224, 224)).astype(np.float32)
                with torch.no_grad():
                    y = model(torch.from_numpy(x)).numpy()
                torch.onnx.export(model, (torch.from_numpy(x),), onnx_path, input_names=["input"],
                                  output_names=["logits"], opset_version=13, do_constant_folding=True,
                                  training=torch.onnx.TrainingMode.EVAL)
                np.save(inp, x)
                np.save(exp, y.astype(np.float32))
                log(f"  exported {name} to {onnx_path} ({time.time() - t0:.1f}s)")
            manifest.append(_entry(name, onnx_path, [["input", inp]], True, exp))
        elif name in MODERN_MODELS:
            d = os.path.join(out, "models", name)
            onnx_path = os.path.join(d, "model.onnx")
            ins = _modern_inputs(name)
            files = [[k, os.path.join(d, k + ".npy")] for k, _ in ins]
            exp = os.path.join(d, "expected", "logits.npy")
            if not (os.path.exists(onnx_path) and os.path.exists(exp) and all(os.path.exists(f) for _, f in files)):
                import torch
                t0 = time.time()
                os.makedirs(os.path.join(d, "expected"), exist_ok=True)
                model = _modern_module(name)
                args = tuple(torch.from_numpy(a) for _, a in ins)
                with torch.no_grad():
                    y = model(*args).numpy()
                torch.onnx.export(model, args, onnx_path, input_names=[k for k, _ in ins], output_names=["logits"],
                                  opset_version=14, do_constant_folding=True, training=torch.onnx.TrainingMode.EVAL)
                for (_, a), (_, f) in zip(ins, files):
                    np.save(f, a)
                np.save(exp, y.astype(np.float32))
                log(f"  exported {name} to {onnx_path} ({time.time() - t0:.1f}s)")
            manifest.append(_entry(name, onnx_path, files, True, exp))
        elif name in SILERO_MODELS:
            onnx_path = os.path.join(silero_dir, SILERO_MODELS[name])
            if not os.path.exists(onnx_path):
                log(f"  {name}: {onnx_path} is missing (bash tests/models/silero/fetch.sh {silero_dir}); skipped")
                continue
            d = os.path.join(out, "models", "silero_inputs")
            os.makedirs(d, exist_ok=True)
            chunk = np.load(os.path.join(FIXTURES, "silero", "input.npy"))[:1].astype(np.float32)
            files = {"input": chunk, "sr": np.array(16000, dtype=np.int64),
                     "h": np.zeros((2, 1, 64), np.float32), "c": np.zeros((2, 1, 64), np.float32),
                     "state": np.zeros((2, 1, 128), np.float32)}
            for k, v in files.items():
                np.save(os.path.join(d, k + ".npy"), v)
            order = ["input", "sr", "h", "c"] if name == "silero_legacy" else ["input", "state", "sr"]
            manifest.append(_entry(name, onnx_path, [[k, os.path.join(d, k + ".npy")] for k in order], False, None))
        else:
            raise SystemExit(f"unknown model {name!r}; choose from {', '.join(ALL_MODELS)}")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "models.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["prepare", "list"])
    ap.add_argument("out", nargs="?", help="output folder (prepare)")
    ap.add_argument("--models", default=",".join(DEFAULT_MODELS), help="comma-separated, from " + ",".join(ALL_MODELS))
    ap.add_argument("--silero-dir", default=os.path.join(ROOT, "build", "corpus"))
    args = ap.parse_args()
    if args.command == "list":
        print("\n".join(ALL_MODELS))
        return
    if not args.out:
        ap.error("prepare needs OUT")
    names = [n for n in args.models.split(",") if n]
    manifest = prepare(os.path.abspath(args.out), names, args.silero_dir)
    print(f"{len(manifest)} model(s) in {os.path.join(os.path.abspath(args.out), 'models.json')}")


if __name__ == "__main__":
    main()
