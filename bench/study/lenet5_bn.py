#!/usr/bin/python3
"""LeNet-5 with one BatchNorm layer, trained in PyTorch on Fashion-MNIST: the model of the study
"same weights in PyTorch, ONNX Runtime and TF.js" (bench/study/prepare.sh runs every step).

Usage:  /usr/bin/python3 bench/study/lenet5_bn.py --out OUT [--epochs 2]

Architecture (NCHW, input [N,1,28,28] = pixels / 255, no normalisation):
    conv1 1->6 k5 pad 2, ReLU, AvgPool 2;  conv2 6->16 k5, ReLU, AvgPool 2;  flatten (400);
    fc1 400->120, BatchNorm1d(120, eps 1e-5), ReLU;  fc2 120->84, ReLU;  fc3 84->10 (logits).
The BatchNorm follows a Linear on purpose: torch's exporter folds Conv+BN, but keeps this one as an
ONNX BatchNormalization node.

Training: seed 20240501 (torch.manual_seed, numpy), torch.use_deterministic_algorithms(True),
2 intra-op threads and 1 inter-op thread (as tests/models/make_fixtures.py does); SGD lr 0.05,
momentum 0.9, batch 64, one fresh seeded permutation of the 60,000 training images per epoch
(938 steps per epoch, the last batch of an epoch holds 32 images).

Writes (all .npy little-endian, C order):
    OUT/lenet5_bn.onnx          torch.onnx.export, opset 13, eval mode, constant folding, input
                                "input" [N,1,28,28] (dynamic batch axis N), output "logits" [N,10]
    OUT/pytorch/logits.npy      float32 [10000,10] PyTorch's logits on the t10k images (batches of 500)
    OUT/labels.npy              int64 [10000] the t10k labels
    OUT/weights.json            every parameter and BN running statistic: {name: {"shape": [...],
                                "data": [...]}} in PyTorch's layout, row-major; every number is the
                                exact decimal of a float32 value, so parsing it gives the same float32
    OUT/altered_pool.onnx       the export with the second AveragePool's pads set to [1,1,0,0]
                                (10x10 -> still 5x5)
    OUT/altered_bn_eps.onnx     the export with the BatchNormalization's epsilon 1e-5 -> 1e-3 (the
                                Keras default: the classic converter bug)
    OUT/input.npy               float32 [2,1,28,28] the t10k items 0 and 1
    OUT/expected/logits.npy     float32 [2,10] PyTorch's logits on input.npy
    OUT/meta.json               seed, epochs, steps, training time, test accuracy, versions, the
                                ONNX op types and the names of the altered nodes
"""

import argparse
import json
import os
import re
import sys
import time
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "models"))
from make_fixtures import read_idx  # noqa: E402  (the fixtures' IDX reader: same files, same checks)

FASHION_DIR = "/usr/share/datasets/fashion-mnist"
SEED = 20240501
BATCH = 64
LR = 0.05
MOMENTUM = 0.9
OPSET = 13


def setup_torch(threads):
    warnings.filterwarnings("ignore", category=UserWarning)  # exporter noise
    torch.manual_seed(SEED)
    np.random.seed(SEED % (2**32))
    torch.set_num_threads(threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass
    torch.use_deterministic_algorithms(True)


def load_split(prefix):
    x = read_idx(os.path.join(FASHION_DIR, f"{prefix}-images-idx3-ubyte.gz"))
    y = read_idx(os.path.join(FASHION_DIR, f"{prefix}-labels-idx1-ubyte.gz"))
    x = torch.from_numpy(x.astype(np.float32) / np.float32(255.0)).unsqueeze(1)
    return x, torch.from_numpy(y.astype(np.int64))


class LeNet5BN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.pool1 = nn.AvgPool2d(2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.pool2 = nn.AvgPool2d(2)
        self.fc1 = nn.Linear(400, 120)
        self.bn1 = nn.BatchNorm1d(120, eps=1e-5)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool1(F.relu(self.conv1(x)))
        x = self.pool2(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.bn1(self.fc1(x)))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def train(model, xtr, ytr, epochs):
    gen = torch.Generator().manual_seed(SEED + 1)
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    model.train()
    steps = 0
    t0 = time.time()
    for epoch in range(epochs):
        perm = torch.randperm(len(xtr), generator=gen)
        for pos in range(0, len(perm), BATCH):
            idx = perm[pos:pos + BATCH]
            loss = F.cross_entropy(model(xtr[idx]), ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            steps += 1
        print(f"  epoch {epoch + 1}/{epochs}: {steps} steps, last loss {loss.item():.3f} "
              f"({time.time() - t0:.1f}s)", flush=True)
    model.eval()
    return steps, time.time() - t0


def predict(model, x, batch=500):
    with torch.no_grad():
        return torch.cat([model(x[i:i + batch]) for i in range(0, len(x), batch)]).numpy().astype(np.float32)


def node_by_type(m, op_type, index):
    nodes = [n for n in m.graph.node if n.op_type == op_type]
    if len(nodes) <= index:
        sys.exit(f"export has {len(nodes)} {op_type} nodes, expected more than {index}")
    return nodes[index]


def set_attr(node, name, value):
    import onnx.helper
    for a in node.attribute:
        if a.name == name:
            node.attribute.remove(a)
            break
    node.attribute.append(onnx.helper.make_attribute(name, value))


def dump_json(obj, path):
    """Indented JSON, with every list of scalars kept on one line."""
    text = json.dumps(obj, indent=2)
    text = re.sub(r"\[\s*([^\[\]{}]*?)\s*\]", lambda m: "[" + ", ".join(v.strip() for v in m.group(1).split(",")) + "]"
                  if m.group(1).strip() else "[]", text)
    with open(path, "w") as f:
        f.write(text + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    import onnx
    import onnx.checker

    setup_torch(args.threads)
    out = args.out
    for d in ("", "pytorch", "expected"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    xtr, ytr = load_split("train")
    xte, yte = load_split("t10k")

    model = LeNet5BN()
    print(f"[pytorch] training LeNet-5+BN, {args.epochs} epochs, {args.threads} threads", flush=True)
    steps, secs = train(model, xtr, ytr, args.epochs)
    logits = predict(model, xte)
    acc = float((logits.argmax(1) == yte.numpy()).mean())
    print(f"[pytorch] trained in {secs:.1f}s ({steps} steps); test accuracy {acc * 100:.2f}%", flush=True)
    np.save(os.path.join(out, "pytorch", "logits.npy"), logits)
    np.save(os.path.join(out, "labels.npy"), yte.numpy().astype(np.int64))

    x2 = xte[:2].clone()
    with torch.no_grad():
        y2 = model(x2).numpy().astype(np.float32)
    np.save(os.path.join(out, "input.npy"), x2.numpy())
    np.save(os.path.join(out, "expected", "logits.npy"), y2)

    state = model.state_dict()
    weights = {}
    for name, t in state.items():
        if name.endswith("num_batches_tracked"):
            continue
        a = t.detach().numpy().astype(np.float32)
        # float(np.float32) is exact in double and repr() round-trips the double.
        weights[name] = {"shape": list(a.shape), "data": [float(v) for v in a.ravel()]}
    with open(os.path.join(out, "weights.json"), "w") as f:
        json.dump({"eps": {"bn1": model.bn1.eps}, "tensors": weights}, f)

    onnx_path = os.path.join(out, "lenet5_bn.onnx")
    torch.onnx.export(model, (x2,), onnx_path, input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": {0: "N"}, "logits": {0: "N"}}, opset_version=OPSET,
                      do_constant_folding=True, training=torch.onnx.TrainingMode.EVAL, export_params=True)
    m = onnx.load(onnx_path)
    onnx.checker.check_model(m)
    ops = [n.op_type for n in m.graph.node]
    if ops.count("BatchNormalization") != 1 or ops.count("AveragePool") != 2:
        sys.exit(f"unexpected export: ops {ops}")
    print(f"[onnx] {onnx_path}: {' '.join(ops)}", flush=True)

    altered = onnx.load(onnx_path)
    pool = node_by_type(altered, "AveragePool", 1)
    old_pads = next((list(a.ints) for a in pool.attribute if a.name == "pads"), [0, 0, 0, 0])
    set_attr(pool, "pads", [1, 1, 0, 0])
    onnx.checker.check_model(altered, full_check=True)
    onnx.save(altered, os.path.join(out, "altered_pool.onnx"))
    print(f"[onnx] altered_pool.onnx: node {pool.name!r} pads {old_pads} -> [1, 1, 0, 0]", flush=True)

    altered = onnx.load(onnx_path)
    bn = node_by_type(altered, "BatchNormalization", 0)
    old_eps = next((a.f for a in bn.attribute if a.name == "epsilon"), 1e-5)
    set_attr(bn, "epsilon", 1e-3)
    onnx.checker.check_model(altered, full_check=True)
    onnx.save(altered, os.path.join(out, "altered_bn_eps.onnx"))
    print(f"[onnx] altered_bn_eps.onnx: node {bn.name!r} epsilon {old_eps:g} -> 1e-3", flush=True)

    meta = {
        "model": "LeNet-5 with BatchNorm1d(120) after fc1 (bench/study/lenet5_bn.py)",
        "dataset": "Fashion-MNIST t10k (/usr/share/datasets/fashion-mnist), pixels / 255",
        "seed": SEED, "epochs": args.epochs, "steps": steps, "batch": BATCH, "lr": LR,
        "momentum": MOMENTUM, "threads": args.threads, "train_time_s": round(secs, 1),
        "test_accuracy": round(acc, 4), "torch_version": torch.__version__,
        "onnx_version": onnx.__version__, "opset": OPSET, "onnx_ops": ops,
        "input": {"name": "input", "shape": ["N", 1, 28, 28], "dtype": "float32"},
        "output": {"name": "logits", "shape": ["N", 10], "dtype": "float32"},
        "input_npy": "t10k items 0 and 1", "input_labels": yte[:2].tolist(),
        "altered": {
            "altered_pool.onnx": {"node": pool.name, "attribute": "pads", "from": old_pads,
                                  "to": [1, 1, 0, 0]},
            "altered_bn_eps.onnx": {"node": bn.name, "attribute": "epsilon", "from": old_eps,
                                    "to": 1e-3},
        },
    }
    dump_json(meta, os.path.join(out, "meta.json"))


if __name__ == "__main__":
    main()
