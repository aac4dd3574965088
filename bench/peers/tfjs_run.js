#!/usr/bin/env node
// tfjs_run.js — TF.js's own outputs for a TF.js model.json (layers or graph model), from local files.
//
//   node bench/peers/tfjs_run.js DIR/model.json --out OUT [IN0.npy ...] [--input NAME=FILE ...] [--seed N]
//        [--range LO,HI] [--shape NAME=d,d,..] [--outputs NODE[,NODE]] [--backend cpu|wasm]
//        [--manifest] [--all-tensors]
//
// --input NAME=FILE binds a .npy to the input of that name (else files bind in TF.js's input order).
// --all-tensors: every value becomes an output: in a graph model each node's first output (not
// Const, Placeholder, NoOp), named by its node; in a layers model each layer's output, named by
// its layer (tare compare --peer tfjs). --manifest: outputs written as OUT/<name>.npy (characters
// outside [A-Za-z0-9._-] as '_', as tare's SafeName) in their own type, and OUT/manifest.json
// {tfjs_version, outputs: [{name, file, dtype, shape}], skipped: [{name, dtype}]} instead of
// result.json.
//
// TF.js 4.22 (@tensorflow/tfjs in bench/peers/node_modules, npm install --ignore-scripts) on its
// pure-JavaScript `cpu` backend (float32 math) unless --backend says otherwise. The shards are
// read in manifest order and handed to tf.loadGraphModel / tf.loadLayersModel through an
// in-memory IO handler (no network). Inputs: one .npy per model input in TF.js's order, or seeded
// uniform ones (mulberry32; floats in --range, default -1,1; int32 in [0, 255]) written as
// OUT/input_<k>.npy. Unknown dims are 1 unless --shape gives them. Graph models run `execute`
// (`executeAsync` when execute refuses: control flow, dynamic shapes); --outputs fetches named
// nodes instead of the model's outputs. Writes OUT/output_<k>.npy (float32, or int32 for int32
// outputs, C order) and OUT/result.json {tfjs, backend, format, inputs: [{name, dtype, shape,
// file}], outputs: [{name, dtype, shape, file}]}.
'use strict';
const fs = require('fs');
const path = require('path');
const { readNpy, writeNpy, requirePeer, mulberry32 } = require('../study/npy.js');

function fail(msg) { console.error(`tfjs_run.js: ${msg}`); process.exit(2); }

function parseArgs(argv) {
  const a = { out: null, seed: 1, range: [-1, 1], shapes: {}, outputs: null, backend: 'cpu', model: null, inputs: [], named: {},
              manifest: false, all: false };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const next = () => { if (i + 1 >= argv.length) fail(`${k} needs a value`); return argv[++i]; };
    if (k === '--out') a.out = next();
    else if (k === '--seed') a.seed = Number(next());
    else if (k === '--range') a.range = next().split(',').map(Number);
    else if (k === '--shape') { const [n, s] = next().split('='); a.shapes[n] = s.split(',').map(Number); }
    else if (k === '--outputs') a.outputs = next().split(',');
    else if (k === '--backend') a.backend = next();
    else if (k === '--input') { const v = next(); const e = v.indexOf('='); if (e < 1) fail(`--input ${v}: expected NAME=FILE`); a.named[v.slice(0, e)] = v.slice(e + 1); }
    else if (k === '--manifest') a.manifest = true;
    else if (k === '--all-tensors') a.all = true;
    else if (k.startsWith('--')) fail(`unknown option ${k}`);
    else if (!a.model) a.model = k;
    else a.inputs.push(k);
  }
  if (!a.model || !a.out) fail('usage: node tfjs_run.js DIR/model.json --out OUT [IN.npy ...] [--seed N] [--range LO,HI] [--shape NAME=d,..] [--outputs N,..]');
  return a;
}

// model.json plus its shards, concatenated in manifest order, as TF.js's ModelArtifacts.
function artifacts(file) {
  const j = JSON.parse(fs.readFileSync(file, 'utf8'));
  const dir = path.dirname(file);
  const specs = [];
  const bufs = [];
  for (const g of j.weightsManifest || []) {
    specs.push(...g.weights);
    for (const p of g.paths) bufs.push(fs.readFileSync(path.join(dir, decodeURIComponent(p))));
  }
  const all = Buffer.concat(bufs);
  const art = { modelTopology: j.modelTopology, weightSpecs: specs, weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength),
                format: j.format, generatedBy: j.generatedBy, convertedBy: j.convertedBy };
  for (const k of ['signature', 'userDefinedMetadata', 'modelInitializer', 'initializerSignature']) if (j[k] !== undefined) art[k] = j[k];
  return { j, art };
}


async function main() {
  const args = parseArgs(process.argv.slice(2));
  const warn = console.warn;
  console.warn = () => {};  // the "use tfjs-node" banner
  const tf = requirePeer('@tensorflow/tfjs');
  if (args.backend === 'wasm') requirePeer('@tensorflow/tfjs-backend-wasm');
  await tf.setBackend(args.backend);
  await tf.ready();
  console.warn = warn;
  const { j, art } = artifacts(path.resolve(args.model));
  const graph = j.format === 'graph-model' || Array.isArray(j.modelTopology && j.modelTopology.node);
  const io = { load: async () => art };
  const model = graph ? await tf.loadGraphModel(io) : await tf.loadLayersModel(io);
  let ins, outNames;
  if (graph) {
    const sig = j.signature || (j.userDefinedMetadata && j.userDefinedMetadata.signature) || {};
    const sigIn = Object.values(sig.inputs || {});
    ins = model.inputs.map((t) => {
      let shape = t.shape ? t.shape.map((d) => (d == null ? -1 : d)) : [];
      const s = sigIn.find((x) => x.name === t.name || x.name === `${t.name}:0`);
      const sd = s && s.tensorShape && s.tensorShape.dim ? s.tensorShape.dim.map((d) => Number(d.size)) : null;
      if (sd && sd.length === shape.length) shape = shape.map((d, i) => (d < 0 ? sd[i] : d));
      return { name: t.name, dtype: t.dtype, shape };
    });
    outNames = args.outputs || model.outputNodes;
    if (args.all) {
      outNames = j.modelTopology.node.filter((n) => !['Const', 'Placeholder', 'NoOp'].includes(n.op)).map((n) => n.name);
    }
  } else {
    if (args.outputs) fail('--outputs is for graph models');
    // Named by their input layers (the names tare gives the model's inputs).
    ins = model.inputs.map((t, k) => ({ name: model.inputs[k].sourceLayer.name, dtype: t.dtype, shape: t.shape.map((d) => (d == null ? -1 : d)) }));
    outNames = model.outputs.map((o) => (o.sourceLayer ? o.sourceLayer.name : o.name));
  }
  let layersModel = model;
  if (!graph && args.all) {
    // Every layer called once (a shared layer's outputs are a list: left out), input layers excepted.
    const ls = model.layers.filter((l) => l.getClassName() !== 'InputLayer' && !Array.isArray(l.output) && l.inboundNodes.length === 1);
    layersModel = tf.model({ inputs: model.inputs, outputs: ls.map((l) => l.output) });
    outNames = ls.map((l) => l.name);
  }
  fs.mkdirSync(args.out, { recursive: true });
  const rnd = mulberry32(args.seed);
  const feeds = [];
  const inRecs = [];
  ins.forEach((d, k) => {
    let shape, data, file;
    const given = args.named[d.name] || args.named[d.name.replace(/:0$/, '')] || args.inputs[k];
    if (given) {
      const npy = readNpy(given);
      shape = npy.shape;
      data = d.dtype === 'int32' ? Int32Array.from(npy.data, Number) : d.dtype === 'bool' ? Uint8Array.from(npy.data, Number) : Float32Array.from(npy.data, Number);
      file = given;
    } else {
      shape = args.shapes[d.name] || args.shapes[d.name.replace(/:0$/, '')] || d.shape.map((x) => (x < 0 ? 1 : x));
      const n = shape.reduce((x, y) => x * y, 1);
      const [lo, hi] = args.range;
      if (d.dtype === 'float32') data = Float32Array.from({ length: n }, () => lo + (hi - lo) * rnd());
      else if (d.dtype === 'int32') data = Int32Array.from({ length: n }, () => Math.floor(rnd() * 256));
      else fail(`cannot make inputs of dtype ${d.dtype}`);
      file = path.join(args.out, `input_${k}.npy`);
      writeNpy(file, data, shape);
    }
    feeds.push(tf.tensor(data, shape, d.dtype));
    inRecs.push({ name: d.name, dtype: d.dtype, shape, file });
  });
  let ys;
  if (graph) {
    const feed = {};
    ins.forEach((d, k) => { feed[d.name] = feeds[k]; });
    try {
      ys = model.execute(feed, outNames);
    } catch (e) {
      if (!/executeAsync|dynamic|control flow/i.test(e.message)) throw e;
      ys = await model.executeAsync(feed, outNames);
    }
  } else {
    ys = layersModel.predict(feeds.length === 1 ? feeds[0] : feeds);
  }
  if (!Array.isArray(ys)) ys = [ys];
  if (args.manifest) {
    const safe = (n) => { const t = String(n || 'output').replace(/[^A-Za-z0-9._-]/g, '_'); return t === '.' || t === '..' ? '_' : t; };
    const man = { tfjs_version: tf.version.tfjs, outputs: [], skipped: [] };
    const used = new Set();
    for (let k = 0; k < ys.length; k++) {
      const y = ys[k];
      const name = String(outNames[k]).replace(/:0$/, '');  // TensorFlow's "node:0" is tare's "node"
      if (!['float32', 'int32', 'bool'].includes(y.dtype)) { man.skipped.push({ name, dtype: y.dtype }); continue; }
      let file = `${safe(name)}.npy`;
      for (let r = 2; used.has(file); r++) file = `${safe(name)}.${r}.npy`;
      used.add(file);
      const v = await y.data();
      const data = y.dtype === 'float32' ? Float32Array.from(v) : y.dtype === 'int32' ? Int32Array.from(v) : Uint8Array.from(v);
      writeNpy(path.join(args.out, file), data, y.shape, y.dtype === 'bool' ? '|b1' : null);
      man.outputs.push({ name, file, dtype: y.dtype, shape: y.shape });
    }
    fs.writeFileSync(path.join(args.out, 'manifest.json'), JSON.stringify(man, null, 1) + '\n');
    return;
  }
  const outs = [];
  for (let k = 0; k < ys.length; k++) {
    const v = await ys[k].data();
    const file = path.join(args.out, `output_${k}.npy`);
    const data = ys[k].dtype === 'int32' ? Int32Array.from(v) : Float32Array.from(v, Number);
    writeNpy(file, data, ys[k].shape);
    outs.push({ name: outNames[k], dtype: ys[k].dtype, shape: ys[k].shape, file });
  }
  const result = { tfjs: tf.version.tfjs, backend: tf.getBackend(), format: graph ? 'graph' : 'layers', model: args.model, inputs: inRecs, outputs: outs };
  fs.writeFileSync(path.join(args.out, 'result.json'), JSON.stringify(result, null, 1));
  console.log(JSON.stringify({ format: result.format, inputs: inRecs.map((r) => `${r.name}:${r.dtype}[${r.shape}]`), outputs: outs.map((o) => `${o.name}:${o.dtype}[${o.shape}]`) }));
}

main().catch((e) => { console.error(`tfjs_run.js: ${e && e.stack || e}`); process.exit(1); });
