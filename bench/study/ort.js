#!/usr/bin/env node
// ort.js — ONNX Runtime's logits for the study model (bench/study/prepare.sh, step 2).
//
// Usage:  node bench/study/ort.js OUT [--model FILE] [--opt LEVEL]
//         node bench/study/ort.js --run MODEL INPUT.npy OUTPUT.npy [--opt LEVEL]
// The first form runs OUT/lenet5_bn.onnx (or --model) on the 10,000 Fashion-MNIST t10k images
// (/usr/share/datasets/fashion-mnist, or $FASHION_MNIST_DIR; pixels / 255 in float32, no
// normalisation) as [500,1,28,28] batches and writes OUT/ort/logits.npy (float32 [10000,10]) and
// OUT/ort/meta.json (versions, settings, accuracy). The second form runs MODEL on one float32 .npy
// input (its first graph input) and writes the first output to OUTPUT.npy.
// onnxruntime-node from bench/peers/node_modules (cd bench/peers && npm install --ignore-scripts);
// CPU execution provider, 1 intra-op and 1 inter-op thread, graph optimization level LEVEL
// ('all' = ONNX Runtime's default, what a user gets; 'disabled' = the graph as written).
'use strict';
const fs = require('fs');
const path = require('path');
const { writeNpy, readNpy, loadTestSet, argmaxAccuracy, requirePeer } = require('./npy.js');

const kBatch = 500;

function parseArgs(argv) {
  const a = { positional: [], model: null, opt: 'all', run: false };
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '--model') a.model = argv[++i];
    else if (argv[i] === '--opt') a.opt = argv[++i];
    else if (argv[i] === '--run') a.run = true;
    else a.positional.push(argv[i]);
  }
  if (!['all', 'extended', 'basic', 'disabled'].includes(a.opt)) throw new Error(`--opt ${a.opt}: use all, extended, basic or disabled`);
  if (a.run ? a.positional.length !== 3 : a.positional.length !== 1) {
    console.error('usage: node ort.js OUT [--model FILE] [--opt all|disabled]\n' +
                  '       node ort.js --run MODEL INPUT.npy OUTPUT.npy [--opt all|disabled]');
    process.exit(2);
  }
  return a;
}

async function session(ort, model, opt) {
  return ort.InferenceSession.create(model, {
    executionProviders: ['cpu'], graphOptimizationLevel: opt, intraOpNumThreads: 1, interOpNumThreads: 1,
    logSeverityLevel: 3,
  });
}

async function runOne(ort, a) {
  const [model, inFile, outFile] = a.positional;
  const s = await session(ort, model, a.opt);
  const x = readNpy(inFile);
  if (!(x.data instanceof Float32Array)) throw new Error(`${inFile}: expected float32`);
  const out = await s.run({ [s.inputNames[0]]: new ort.Tensor('float32', x.data, x.shape) });
  const y = out[s.outputNames[0]];
  writeNpy(outFile, Float32Array.from(y.data), y.dims.map(Number));
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const ort = requirePeer('onnxruntime-node');
  if (a.run) return runOne(ort, a);
  const out = a.positional[0];
  const model = a.model || path.join(out, 'lenet5_bn.onnx');
  const data = loadTestSet(process.env.FASHION_MNIST_DIR || '/usr/share/datasets/fashion-mnist');
  const s = await session(ort, model, a.opt);
  const inName = s.inputNames[0], outName = s.outputNames[0];
  const per = data.h * data.w;
  let logits = null, classes = 0;
  const t0 = process.hrtime.bigint();
  for (let b = 0; b < data.n; b += kBatch) {
    const n = Math.min(kBatch, data.n - b);
    const x = new ort.Tensor('float32', data.pixels.slice(b * per, (b + n) * per), [n, 1, data.h, data.w]);
    const y = (await s.run({ [inName]: x }))[outName];
    if (y.type !== 'float32' || y.dims.length !== 2 || Number(y.dims[0]) !== n) throw new Error(`output ${outName}: ${y.type} [${y.dims}]`);
    if (!logits) { classes = Number(y.dims[1]); logits = new Float32Array(data.n * classes); }
    logits.set(y.data, b * classes);
  }
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const acc = argmaxAccuracy(logits, classes, data.labels);
  writeNpy(path.join(out, 'ort', 'logits.npy'), logits, [data.n, classes]);
  const meta = {
    runtime: `onnxruntime-node ${ort.env.versions.node} (common ${ort.env.versions.common})`,
    model: path.basename(model), execution_provider: 'cpu', graph_optimization_level: a.opt,
    intra_op_threads: 1, inter_op_threads: 1, batch: kBatch, images: data.n,
    test_accuracy: Number(acc.toFixed(4)), run_time_s: Number(secs.toFixed(2)),
  };
  fs.writeFileSync(path.join(out, 'ort', 'meta.json'), JSON.stringify(meta, null, 2) + '\n');
  console.log(`[ort] ${meta.runtime}, optimization '${a.opt}', 1 thread: accuracy ${(acc * 100).toFixed(2)}% ` +
              `on ${data.n} images (${secs.toFixed(1)}s)`);
}

main().catch((e) => { console.error(String((e && e.stack) || e)); process.exit(1); });
