#!/usr/bin/python3
"""Regenerate the end-to-end model fixtures under tests/models/<name>/.

For every model this writes
    <name>/model.onnx              the ONNX export (eval mode, constant folding on)
    <name>/input.npy               a fixed input, batch 2
    <name>/expected/<output>.npy   PyTorch's own output on that input (float32)
    <name>/meta.json               opset, versions, input/output description

Models (the small architectures used by the training-problem / framework-comparison
studies): lenet5 (trained briefly on Fashion-MNIST), resnet20, vgg16 (CIFAR-style, reduced
widths), lstm_text and gru_text (embedding + 2-layer bidirectional RNN + linear).

Everything is seeded, so running the script twice gives the same inputs and outputs.
Run with Debian's interpreter:  /usr/bin/python3 tests/models/make_fixtures.py
Options: --only name,name   --out DIR   --train-steps N
"""

import argparse
import gzip
import json
import os
import shutil
import struct
import sys
import time
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
FASHION_DIR = "/usr/share/datasets/fashion-mnist"
SEED = 20240501
MAX_FILE_BYTES = 5 * 1024 * 1024


def seed_everything(seed):
    torch.manual_seed(seed)
    np.random.seed(seed % (2**32))


def setup_torch():
    # The exporter's UserWarnings (RNN batch size, prim::Constant shape inference) are noise here.
    warnings.filterwarnings("ignore", category=UserWarning)
    torch.set_num_threads(2)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass  # already set (e.g. when imported from another script)
    try:
        torch.use_deterministic_algorithms(True)
    except Exception:  # pragma: no cover - very old torch
        pass


# ----------------------------------------------------------------------------- data

def read_idx(path):
    """Read an (optionally gzipped) idx file into a numpy array."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    zero, dtype_code, ndim = struct.unpack(">HBB", data[:4])
    if zero != 0 or dtype_code != 0x08:
        raise ValueError(f"{path}: not an unsigned-byte idx file")
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    arr = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim)
    if arr.size != int(np.prod(dims)):
        raise ValueError(f"{path}: truncated ({arr.size} values, header says {dims})")
    return arr.reshape(dims)


def load_fashion_mnist():
    def imgs(name):
        return torch.from_numpy(read_idx(os.path.join(FASHION_DIR, name)).astype(np.float32) / 255.0).unsqueeze(1)

    def labels(name):
        return torch.from_numpy(read_idx(os.path.join(FASHION_DIR, name)).astype(np.int64))

    return (imgs("train-images-idx3-ubyte.gz"), labels("train-labels-idx1-ubyte.gz"),
            imgs("t10k-images-idx3-ubyte.gz"), labels("t10k-labels-idx1-ubyte.gz"))


# ----------------------------------------------------------------------------- models

class LeNet5(nn.Module):
    """LeNet-5 for 28x28 inputs: conv 6@5x5 (pad 2) - avgpool - conv 16@5x5 - avgpool - 120 - 84 - 10."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.pool1 = nn.AvgPool2d(2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.pool2 = nn.AvgPool2d(2)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, num_classes)

    def forward(self, x):
        x = self.pool1(F.relu(self.conv1(x)))
        x = self.pool2(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def kaiming_init(model):
    """He init (fan_out, as torchvision's CNNs do): PyTorch's default init shrinks the
    activations layer after layer, so a deep random net would map every input to nearly the
    same logits and the fixture would not exercise the convolutions."""
    for m in model.modules():
        if isinstance(m, (nn.Conv2d, nn.Linear)):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            if m.bias is not None:
                nn.init.normal_(m.bias, 0.0, 0.01)


class BasicBlock(nn.Module):
    """CIFAR ResNet basic block; the downsampling shortcut is a 1x1 conv + BN (option B)."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class ResNet20(nn.Module):
    """CIFAR ResNet-20: conv3x3@16, 3 stages x 3 basic blocks (16/32/64), global avgpool, FC."""

    def __init__(self, num_classes=10, blocks=(3, 3, 3), widths=(16, 32, 64)):
        super().__init__()
        self.conv1 = nn.Conv2d(3, widths[0], 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        layers, cin = [], widths[0]
        for stage, (n, w) in enumerate(zip(blocks, widths)):
            for i in range(n):
                stride = 2 if (stage > 0 and i == 0) else 1
                layers.append(BasicBlock(cin, w, stride))
                cin = w
        self.layers = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, num_classes)
        kaiming_init(self)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.layers(x)
        x = torch.flatten(self.pool(x), 1)
        return self.fc(x)


VGG16_CFG = (16, 16, "M", 32, 32, "M", 64, 64, 64, "M", 128, 128, 128, "M", 128, 128, 128, "M")


class VGG16(nn.Module):
    """VGG-16 for CIFAR (13 conv+BN+ReLU, 5 maxpools, 3 FC) with the widths divided by 4."""

    def __init__(self, cfg=VGG16_CFG, fc=128, num_classes=10):
        super().__init__()
        layers, cin = [], 3
        for v in cfg:
            if v == "M":
                layers.append(nn.MaxPool2d(2, 2))
            else:
                layers += [nn.Conv2d(cin, v, 3, padding=1), nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
                cin = v
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(
            nn.Linear(cin, fc), nn.ReLU(inplace=True), nn.Dropout(),
            nn.Linear(fc, fc), nn.ReLU(inplace=True), nn.Dropout(),
            nn.Linear(fc, num_classes))
        kaiming_init(self)

    def forward(self, x):
        x = self.features(x)
        return self.classifier(torch.flatten(x, 1))


class TextRNN(nn.Module):
    """Embedding -> 2-layer bidirectional LSTM/GRU (batch_first) -> last time step -> Linear."""

    def __init__(self, cell="lstm", vocab=1000, embed=32, hidden=48, layers=2, num_classes=4):
        super().__init__()
        rnn_cls = {"lstm": nn.LSTM, "gru": nn.GRU}[cell]
        self.embed = nn.Embedding(vocab, embed)
        self.rnn = rnn_cls(embed, hidden, num_layers=layers, bidirectional=True, batch_first=True)
        self.fc = nn.Linear(2 * hidden, num_classes)

    def forward(self, tokens):
        out, _ = self.rnn(self.embed(tokens))
        return self.fc(out[:, -1, :])


def randomize_batchnorm(model, gen):
    """Give every BatchNorm non-trivial running statistics and affine parameters."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                n = m.num_features
                m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
                m.running_var.copy_(torch.empty(n).uniform_(0.5, 2.0, generator=gen))
                if m.affine:
                    m.weight.copy_(torch.empty(n).uniform_(0.5, 1.5, generator=gen))
                    m.bias.copy_(torch.randn(n, generator=gen) * 0.1)


# ----------------------------------------------------------------------------- training

def train_lenet(model, steps, batch, log):
    xtr, ytr, xte, yte = load_fashion_mnist()
    gen = torch.Generator().manual_seed(SEED + 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    model.train()
    t0 = time.time()
    perm = torch.randperm(len(xtr), generator=gen)
    pos = 0
    for step in range(steps):
        if pos + batch > len(perm):
            perm, pos = torch.randperm(len(xtr), generator=gen), 0
        idx = perm[pos:pos + batch]
        pos += batch
        loss = F.cross_entropy(model(xtr[idx]), ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if (step + 1) % 500 == 0:
            log(f"  lenet5 step {step + 1}/{steps} loss {loss.item():.3f} ({time.time() - t0:.1f}s)")
    model.eval()
    with torch.no_grad():
        pred = torch.cat([model(xte[i:i + 1000]).argmax(1) for i in range(0, len(xte), 1000)])
    acc = (pred == yte).float().mean().item()
    return acc, time.time() - t0, xte[:2].clone(), yte[:2].clone()


# ----------------------------------------------------------------------------- export

def export_fixture(name, model, x, opset, out_root, extra_meta, log):
    import onnx

    d = os.path.join(out_root, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(os.path.join(d, "expected"))
    model.eval()
    with torch.no_grad():
        y = model(x)
    onnx_path = os.path.join(d, "model.onnx")
    torch.onnx.export(model, (x,), onnx_path, input_names=["input"], output_names=["logits"],
                      opset_version=opset, do_constant_folding=True,
                      training=torch.onnx.TrainingMode.EVAL, export_params=True)
    m = onnx.load(onnx_path)
    onnx.checker.check_model(m)
    out_names = [o.name for o in m.graph.output]
    assert out_names == ["logits"], out_names
    np.save(os.path.join(d, "input.npy"), x.numpy())
    np.save(os.path.join(d, "expected", "logits.npy"), y.numpy().astype(np.float32))
    ops = sorted({n.op_type for n in m.graph.node})
    meta = {
        "name": name,
        "opset": opset,
        "torch_version": torch.__version__,
        "onnx_version": onnx.__version__,
        "seed": SEED,
        "inputs": [{"name": "input", "shape": list(x.shape), "dtype": str(x.numpy().dtype)}],
        "outputs": [{"name": "logits", "shape": list(y.shape), "dtype": "float32"}],
        "output_names": out_names,
        "onnx_ops": ops,
        "parameters": sum(p.numel() for p in model.parameters()),
    }
    meta.update(extra_meta)
    with open(os.path.join(d, "meta.json"), "w") as f:
        f.write(dump_json(meta))
    sizes = {}
    for root, _, files in os.walk(d):
        for fn in files:
            p = os.path.join(root, fn)
            sizes[os.path.relpath(p, d)] = os.path.getsize(p)
            if os.path.getsize(p) >= MAX_FILE_BYTES:
                raise RuntimeError(f"{p} is {os.path.getsize(p)} bytes (limit {MAX_FILE_BYTES})")
    log(f"  {name}: opset {opset}, model.onnx {sizes['model.onnx'] / 1e6:.2f} MB, "
        f"output {tuple(y.shape)}, ops {' '.join(ops)}")
    return sizes


def dump_json(obj):
    """Indented JSON with short lists of scalars kept on one line."""
    import re
    text = json.dumps(obj, indent=2)

    def inline(m):
        return "[" + ", ".join(v.strip() for v in m.group(1).split(",")) + "]"
    return re.sub(r"\[\s*((?:[^\[\]{}\s][^\[\]{}]*?)?)\s*\]", inline, text) + "\n"


def build_lenet5(args, log):
    seed_everything(SEED)
    model = LeNet5()
    acc, secs, x, labels = train_lenet(model, args.train_steps, 64, log)
    log(f"  lenet5 test accuracy {acc * 100:.2f}% after {args.train_steps} steps ({secs:.1f}s)")
    return model, x, 11, {"test_accuracy": round(acc, 4), "train_steps": args.train_steps,
                          "train_batch": 64,
                          "dataset": "Fashion-MNIST (/usr/share/datasets/fashion-mnist), pixels / 255",
                          "input_labels": labels.tolist()}


def build_resnet20(args, log):
    seed_everything(SEED + 20)
    model = ResNet20()
    randomize_batchnorm(model, torch.Generator().manual_seed(SEED + 21))
    x = torch.randn(2, 3, 32, 32, generator=torch.Generator().manual_seed(SEED + 22))
    return model, x, 12, {"init": "He normal (fan_out), BatchNorm statistics randomized"}


def build_vgg16(args, log):
    seed_everything(SEED + 16)
    model = VGG16()
    randomize_batchnorm(model, torch.Generator().manual_seed(SEED + 17))
    x = torch.randn(2, 3, 32, 32, generator=torch.Generator().manual_seed(SEED + 18))
    return model, x, 13, {"init": "He normal (fan_out), BatchNorm statistics randomized",
                          "widths": [v for v in VGG16_CFG]}


def build_text(cell, seed_off, opset):
    def build(args, log):
        seed_everything(SEED + seed_off)
        model = TextRNN(cell)
        x = torch.randint(0, 1000, (2, 20), generator=torch.Generator().manual_seed(SEED + seed_off + 1))
        return model, x, opset, {"init": "random", "vocab": 1000, "embed": 32, "hidden": 48,
                                 "layers": 2, "bidirectional": True}
    return build


BUILDERS = {
    "lenet5": build_lenet5,
    "resnet20": build_resnet20,
    "vgg16": build_vgg16,
    "lstm_text": build_text("lstm", 30, 13),
    "gru_text": build_text("gru", 40, 11),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="comma-separated subset of " + ",".join(BUILDERS))
    ap.add_argument("--out", default=HERE, help="output root (default: this directory)")
    ap.add_argument("--train-steps", type=int, default=938, help="LeNet SGD steps (938 = 1 epoch at batch 64)")
    args = ap.parse_args()
    setup_torch()
    names = [n for n in args.only.split(",") if n] or list(BUILDERS)
    for n in names:
        if n not in BUILDERS:
            sys.exit(f"unknown model {n!r}; choose from {', '.join(BUILDERS)}")

    def log(msg):
        print(msg, flush=True)

    t_all = time.time()
    for name in names:
        t0 = time.time()
        log(f"[{name}]")
        model, x, opset, extra = BUILDERS[name](args, log)
        export_fixture(name, model, x, opset, args.out, extra, log)
        log(f"  done in {time.time() - t0:.1f}s")
    log(f"all fixtures written in {time.time() - t_all:.1f}s")


if __name__ == "__main__":
    main()
