#!/usr/bin/env node
// tfjs.js — TensorFlow.js's logits for the study model (bench/study/prepare.sh, step 3).
//
// Usage:  node bench/study/tfjs.js OUT [--export-only]
// Builds the LeNet-5+BN of bench/study/lenet5_bn.py as a tf.js LAYERS model (tf.sequential) in
// TensorFlow's native NHWC layout, loads the numbers of OUT/weights.json (PyTorch's state_dict),
// runs the 10,000 Fashion-MNIST t10k images (/usr/share/datasets/fashion-mnist or
// $FASHION_MNIST_DIR, pixels / 255 in float32) as [500,28,28,1] batches on the pure-JavaScript
// 'cpu' backend (no tfjs-node) and writes OUT/tfjs/logits.npy (float32 [10000,10]) and
// OUT/tfjs/meta.json; and saves the model as TF.js writes it: OUT/tfjs/model/model.json and
// group1-shard1of1.bin (--export-only: only that, without the data set).
//
// Weight conversion (PyTorch -> Keras layout):
//   conv kernels [out,in,kh,kw] -> [kh,kw,in,out]; dense kernels [out,in] -> [in,out];
//   fc1: PyTorch flattens NCHW [16,5,5] as c*25 + h*5 + w, Keras flattens NHWC [5,5,16] as
//   (h*5 + w)*16 + c, so row (h*5 + w)*16 + c of the Keras kernel is column c*25 + h*5 + w of
//   PyTorch's weight: the same function on the same images;
//   BatchNormalization: gamma, beta, moving mean, moving variance = bn1.weight, bias, running_mean,
//   running_var, epsilon set explicitly to PyTorch's 1e-5 (the Keras default is 1e-3).
// conv1 uses padding 'same' (k5, stride 1: 2 pixels on every side, as PyTorch's padding=2),
// conv2 and both average pools 'valid'.
// @tensorflow/tfjs from bench/peers/node_modules (cd bench/peers && npm install --ignore-scripts).
'use strict';
const fs = require('fs');
const path = require('path');
const { writeNpy, loadTestSet, argmaxAccuracy, requirePeer } = require('./npy.js');

const kBatch = 500;

// tfjs warns once, on the first tensor, that tfjs-node would be faster: drop that banner only.
const consoleWarn = console.warn;
console.warn = (...args) => {
  if (args.some((a) => typeof a === 'string' && a.includes('tfjs-node'))) return;
  consoleWarn(...args);
};

function tensorOf(w, name) {
  const t = w.tensors[name];
  if (!t) throw new Error(`weights.json has no ${name}`);
  return t;
}

// [out,in,kh,kw] -> [kh,kw,in,out]
function convKernel(t) {
  const [o, i, kh, kw] = t.shape;
  const r = new Float32Array(t.data.length);
  for (let a = 0; a < o; ++a)
    for (let b = 0; b < i; ++b)
      for (let y = 0; y < kh; ++y)
        for (let x = 0; x < kw; ++x) r[((y * kw + x) * i + b) * o + a] = t.data[((a * i + b) * kh + y) * kw + x];
  return { shape: [kh, kw, i, o], data: r };
}

// [out,in] -> [in,out]; with chw = [C,H,W], row (h*W + w)*C + c takes PyTorch's column c*H*W + h*W + w.
function denseKernel(t, chw) {
  const [o, n] = t.shape;
  const r = new Float32Array(t.data.length);
  for (let row = 0; row < n; ++row) {
    let src = row;
    if (chw) {
      const [C, H, W] = chw;
      const c = row % C, hw = Math.floor(row / C);
      src = c * H * W + hw;
    }
    for (let a = 0; a < o; ++a) r[row * o + a] = t.data[a * n + src];
  }
  return { shape: [n, o], data: r };
}

async function main() {
  const args = process.argv.slice(2);
  const exportOnly = args.includes('--export-only');
  const pos = args.filter((a) => a !== '--export-only');
  if (pos.length !== 1) {
    console.error('usage: node tfjs.js OUT [--export-only]');
    process.exit(2);
  }
  const out = pos[0];
  const tf = requirePeer('@tensorflow/tfjs');
  await tf.setBackend('cpu');
  await tf.ready();
  const w = JSON.parse(fs.readFileSync(path.join(out, 'weights.json'), 'utf8'));
  const eps = w.eps && w.eps.bn1 !== undefined ? w.eps.bn1 : 1e-5;

  const model = tf.sequential({ name: 'lenet5_bn' });
  model.add(tf.layers.conv2d({ name: 'conv1', inputShape: [28, 28, 1], filters: 6, kernelSize: 5, strides: 1,
                               padding: 'same', dataFormat: 'channelsLast', useBias: true }));
  model.add(tf.layers.activation({ name: 'relu1', activation: 'relu' }));
  model.add(tf.layers.averagePooling2d({ name: 'pool1', poolSize: 2, strides: 2, padding: 'valid' }));
  model.add(tf.layers.conv2d({ name: 'conv2', filters: 16, kernelSize: 5, strides: 1, padding: 'valid', useBias: true }));
  model.add(tf.layers.activation({ name: 'relu2', activation: 'relu' }));
  model.add(tf.layers.averagePooling2d({ name: 'pool2', poolSize: 2, strides: 2, padding: 'valid' }));
  model.add(tf.layers.flatten({ name: 'flatten' }));
  model.add(tf.layers.dense({ name: 'fc1', units: 120 }));
  model.add(tf.layers.batchNormalization({ name: 'bn1', axis: -1, epsilon: eps }));
  model.add(tf.layers.activation({ name: 'relu3', activation: 'relu' }));
  model.add(tf.layers.dense({ name: 'fc2', units: 84, activation: 'relu' }));
  model.add(tf.layers.dense({ name: 'fc3', units: 10 }));

  const T = (k) => tf.tensor(k.data, k.shape, 'float32');
  const vec = (name) => T({ data: Float32Array.from(tensorOf(w, name).data), shape: tensorOf(w, name).shape });
  const layer = (n) => model.getLayer(n);
  layer('conv1').setWeights([T(convKernel(tensorOf(w, 'conv1.weight'))), vec('conv1.bias')]);
  layer('conv2').setWeights([T(convKernel(tensorOf(w, 'conv2.weight'))), vec('conv2.bias')]);
  const pooled = model.getLayer('pool2').outputShape;  // [null, 5, 5, 16]
  layer('fc1').setWeights([T(denseKernel(tensorOf(w, 'fc1.weight'), [pooled[3], pooled[1], pooled[2]])), vec('fc1.bias')]);
  layer('bn1').setWeights([vec('bn1.weight'), vec('bn1.bias'), vec('bn1.running_mean'), vec('bn1.running_var')]);
  layer('fc2').setWeights([T(denseKernel(tensorOf(w, 'fc2.weight'))), vec('fc2.bias')]);
  layer('fc3').setWeights([T(denseKernel(tensorOf(w, 'fc3.weight'))), vec('fc3.bias')]);
  const bnEps = layer('bn1').getConfig().epsilon;
  if (bnEps !== eps) throw new Error(`bn1 epsilon is ${bnEps}, wanted ${eps}`);

  // The model as TF.js saves it (model.json + one binary shard: what tare converts, docs/STUDY.md).
  const mdir = path.join(out, 'tfjs', 'model');
  fs.mkdirSync(mdir, { recursive: true });
  await model.save(tf.io.withSaveHandler(async (art) => {
    fs.writeFileSync(path.join(mdir, 'group1-shard1of1.bin'), Buffer.from(art.weightData));
    fs.writeFileSync(path.join(mdir, 'model.json'), JSON.stringify({
      format: 'layers-model', generatedBy: `TensorFlow.js tfjs-layers v${tf.version['tfjs-layers']}`, convertedBy: null,
      modelTopology: art.modelTopology, weightsManifest: [{ paths: ['group1-shard1of1.bin'], weights: art.weightSpecs }] }));
    return { modelArtifactsInfo: { dateSaved: new Date(), modelTopologyType: 'JSON' } };
  }));
  console.log(`[tfjs] saved the model as ${mdir}/model.json`);
  if (exportOnly) return;

  const data = loadTestSet(process.env.FASHION_MNIST_DIR || '/usr/share/datasets/fashion-mnist');
  const per = data.h * data.w;
  const logits = new Float32Array(data.n * 10);
  const t0 = process.hrtime.bigint();
  for (let b = 0; b < data.n; b += kBatch) {
    const n = Math.min(kBatch, data.n - b);
    const y = tf.tidy(() => model.predict(tf.tensor4d(data.pixels.subarray(b * per, (b + n) * per), [n, data.h, data.w, 1])));
    logits.set(await y.data(), b * 10);
    y.dispose();
  }
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const acc = argmaxAccuracy(logits, 10, data.labels);
  writeNpy(path.join(out, 'tfjs', 'logits.npy'), logits, [data.n, 10]);
  const meta = {
    runtime: `@tensorflow/tfjs ${tf.version.tfjs} (tfjs-core ${tf.version['tfjs-core']}, tfjs-layers ${tf.version['tfjs-layers']})`,
    backend: tf.getBackend(), layout: 'NHWC', bn_epsilon: bnEps, batch: kBatch, images: data.n,
    test_accuracy: Number(acc.toFixed(4)), run_time_s: Number(secs.toFixed(2)),
  };
  fs.writeFileSync(path.join(out, 'tfjs', 'meta.json'), JSON.stringify(meta, null, 2) + '\n');
  console.log(`[tfjs] ${meta.runtime}, backend '${meta.backend}': accuracy ${(acc * 100).toFixed(2)}% ` +
              `on ${data.n} images (${secs.toFixed(1)}s)`);
}

main().catch((e) => { console.error(String((e && e.stack) || e)); process.exit(1); });
