#!/usr/bin/env node
// tflite_run.js: runs a .tflite model on a real TFLite interpreter, LiteRT.js, in plain node: the
// reference for tare's TFLite converter (tests/models/tflite/, made by make_fixtures.py there).
//
// Usage: node bench/peers/tflite_run.js MODEL.tflite IN0.npy [IN1.npy ...] --out DIR [options]
//        node bench/peers/tflite_run.js MODEL.tflite --inspect
//   IN<k>.npy      subgraph 0's input k: float32, exactly the model's shape (C order, i.e. NHWC).
//   --out DIR      writes output k as DIR/<k>_<name>.npy (float32), name = the tensor's name with each run
//                  of characters outside [A-Za-z0-9_.-] replaced by '_'.
//   --outputs T[,T]  intermediate tensors instead: the tensors with indices T become the outputs of a
//                  copy of the model cut after the last operator that writes one of them (tflite_schema.js
//                  cutModel; at most as many tensors as the model has outputs), written as
//                  DIR/cut_<T>_<name>.npy.
//   --cut N        keep the first N operators instead (default: as few as --outputs needs).
//   --all-tensors  every tensor an operator writes (of a type --manifest writes) becomes an output (tflite_schema.js exposeTensors, all
//                  operators kept), as `tare compare --peer tflite` reads them (cli/peers.cc).
//   --manifest     writes each output as DIR/<name>.npy in its own type (float32, int32, int64, uint8, int8,
//                  bool), the name as tare's SafeName makes it (each character outside [A-Za-z0-9._-] as '_';
//                  a repeated name gets .2, .3 ... before .npy), and DIR/manifest.json {"litert_version",
//                  "outputs": [{name, file, dtype, shape}], "skipped": [{name, type}]}; DIR must not exist.
//   --repeat R     runs R times (default 2) on the same compiled model and fails unless every run gives
//                  bit-identical outputs; the files hold the first run's.
//   --iters K      then times K further runs after one warm-up (default 0: no timing).
//   --batches      each IN<k>.npy stacks K inputs on axis 0 (its leading dim K times the model's; the other
//                  dims the model's): the model runs once per slice (once each, no --repeat check) and each
//                  output file stacks the K results the same way (tare campaign's tflite engine). Not with
//                  --outputs, --all-tensors, --manifest or --iters.
//   --inspect      prints the flatbuffer's inventory (I/O, op codes and counts, tensor types) as JSON.
// Prints one JSON object: the model's SHA-256, LiteRT's version, per input name/shape/file, per output
// (or cut tensor) name, shape, file, min, max, max |value|, count of non-finite values, and timings.
// Errors: one line on stderr, exit 1.
//
// Interpreter: @litertjs/core (bench/peers/package.json; `cd bench/peers && npm install --ignore-scripts`),
// its "compat" build litert_wasm_compat_internal.wasm (WebAssembly SIMD without relaxed SIMD, so results do
// not depend on the CPU's FMA), accelerator 'wasm' (TFLite's CPU kernels with the XNNPACK delegate), one
// thread. It runs MediaPipe's custom op Convolution2DTransposeBias. Its tensors are float32, int32 or uint8.
// Node shims (LiteRT.js is written for browsers and workers):
// - `self` and `importScripts`: @litertjs/wasm-utils loads the emscripten glue through importScripts when
//   that exists (the worker path); here it runs the file from node_modules with vm.runInThisContext.
// - `require`, `__dirname`, `__filename`: the glue takes emscripten's node path and reads the .wasm next to
//   it with fs. Nothing is fetched.
// - The WebGPU probe (node has no `navigator`) warns through console.warn: silenced while loading.
// - V8 flag --no-liftoff: without it wasm first runs in V8's baseline tier, and the first 10-50 runs are
//   2-10x slower until tier-up.
'use strict';
require('v8').setFlagsFromString('--no-liftoff');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const { readNpy, writeNpy } = require('../study/npy.js');
const { parseModel, inventory, producers, cutModel, exposeTensors } = require('./tflite_schema.js');

const LITERT_DIR = path.join(__dirname, 'node_modules', '@litertjs', 'core');
const WASM_DIR = path.join(LITERT_DIR, 'wasm');

function fail(msg) {
  process.stderr.write('tflite_run: error: ' + String(msg).replace(/[\r\n]+/g, ' ') + '\n');
  process.exit(1);
}

function parseArgs(argv) {
  const a = { model: null, inputs: [], out: null, outputs: null, cut: 0, repeat: 2, iters: 0, inspect: false, all: false, manifest: false, batches: false };
  const int = (name, v, lo) => {
    if (v === undefined || !/^\d+$/.test(v) || Number(v) < lo) fail(`${name} must be an integer >= ${lo}, got ${v}`);
    return Number(v);
  };
  for (let i = 0; i < argv.length; ++i) {
    const s = argv[i];
    if (s === '--out') a.out = argv[++i];
    else if (s === '--outputs') a.outputs = String(argv[++i]).split(',').map((t) => int('--outputs', t, 0));
    else if (s === '--cut') a.cut = int('--cut', argv[++i], 1);
    else if (s === '--repeat') a.repeat = int('--repeat', argv[++i], 1);
    else if (s === '--iters') a.iters = int('--iters', argv[++i], 0);
    else if (s === '--inspect') a.inspect = true;
    else if (s === '--all-tensors') a.all = true;
    else if (s === '--manifest') a.manifest = true;
    else if (s === '--batches') a.batches = true;
    else if (s.startsWith('--')) fail('unknown option ' + s);
    else if (a.model === null) a.model = s;
    else a.inputs.push(s);
  }
  if (!a.model) fail('usage: tflite_run.js MODEL.tflite IN.npy ... --out DIR [--outputs T[,T]] [--cut N] [--repeat R] [--iters K] | --inspect');
  if (!a.inspect && !a.out) fail('--out DIR is required');
  if (a.out === undefined) fail('--out needs a value');
  if (a.cut && !a.outputs) fail('--cut needs --outputs');
  if (a.all && a.outputs) fail('--all-tensors and --outputs exclude each other');
  if (a.manifest && fs.existsSync(a.out)) fail(a.out + ' exists: not overwritten');
  if (a.batches && (a.outputs || a.all || a.manifest || a.iters)) fail('--batches excludes --outputs, --all-tensors, --manifest and --iters');
  return a;
}

// JSON with one space of indent, arrays of numbers on one line.
const toJson = (v) => JSON.stringify(v, null, 1).replace(/\[\s+([-+0-9.eE,\s]+?)\s+\]/g, (_, g) => '[' + g.split(/,\s*/).join(', ') + ']');
const safe = (s) => String(s).replace(/[^A-Za-z0-9_.-]+/g, '_');
const sameShape = (x, y) => x.length === y.length && x.every((d, k) => d === y[k]);

function stats(data) {
  let min = Infinity, max = -Infinity, nonFinite = 0;
  for (const v of data) {
    if (!Number.isFinite(v)) { ++nonFinite; continue; }
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return { min, max, maxAbs: Math.max(Math.abs(min), Math.abs(max)), nonFinite };
}

function bitIdentical(x, y) {
  const a = new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  const b = new Uint8Array(y.buffer, y.byteOffset, y.byteLength);
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

async function loadLitert() {
  globalThis.self = globalThis;
  globalThis.importScripts = (file) => vm.runInThisContext(fs.readFileSync(String(file), 'utf8'), { filename: String(file) });
  globalThis.require = require;
  globalThis.__dirname = WASM_DIR;
  globalThis.__filename = path.join(WASM_DIR, 'litert_wasm_compat_internal.js');
  const lrt = await import(path.join(LITERT_DIR, 'dist', 'index.js'));
  const warn = console.warn;
  console.warn = () => {};
  try {
    await lrt.loadLiteRt(WASM_DIR + '/');
  } finally {
    console.warn = warn;
  }
  return lrt;
}

// --manifest: the outputs by name in their own types, and manifest.json (see the usage above).
const kNpyType = { float32: '<f4', int32: '<i4', int64: '<i8', uint8: '|u1', int8: '|i1', bool: '|b1', int16: '<i2' };
function writeManifest(a, g, outs, data) {
  fs.mkdirSync(a.out, { recursive: true });
  const version = JSON.parse(fs.readFileSync(path.join(LITERT_DIR, 'package.json'), 'utf8')).version;
  const manifest = { litert_version: version, outputs: [], skipped: [] };
  const used = new Set();
  outs.forEach((t, k) => {
    const tensor = g.tensors[t];
    const descr = kNpyType[tensor.type];
    if (!descr) {
      manifest.skipped.push({ name: tensor.name, type: tensor.type });
      return;
    }
    let base = (tensor.name.length ? tensor.name : 'output').replace(/[^A-Za-z0-9._-]/g, '_');
    if (base === '.' || base === '..') base = '_';
    // A file name within the 255 bytes of common file systems (a long name keeps its start and its index).
    if (base.length > 200) base = base.slice(0, 180) + '.t' + t;
    let file = base;
    for (let n = 2; used.has(file); ++n) file = base + '.' + n;
    used.add(file);
    file += '.npy';
    let arr = data[k];
    if (tensor.type === 'bool') arr = Uint8Array.from(arr, (v) => (v ? 1 : 0));
    writeNpy(path.join(a.out, file), arr, tensor.shape, descr);
    manifest.outputs.push({ name: tensor.name, file, dtype: descr, shape: tensor.shape });
  });
  fs.writeFileSync(path.join(a.out, 'manifest.json'), JSON.stringify(manifest, null, 1) + '\n');
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  let bytes;
  try {
    bytes = fs.readFileSync(a.model);
  } catch (e) {
    fail(`cannot read ${a.model}: ${e.message}`);
  }
  const sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
  const full = parseModel(bytes);
  if (a.inspect) {
    process.stdout.write(toJson({ model: path.basename(a.model), sha256, ...inventory(full) }) + '\n');
    return;
  }
  const g = full.graph;
  const prod = producers(full);
  let outs = g.outputs;
  if (a.outputs) {
    for (const t of a.outputs) {
      if (t >= g.tensors.length) fail(`--outputs: tensor ${t} does not exist (the model has ${g.tensors.length})`);
      if (prod[t] < 0) fail(`--outputs: tensor ${t} (${g.tensors[t].name}) is not written by any operator`);
    }
    const cut = a.cut || 1 + Math.max(...a.outputs.map((t) => prod[t]));
    for (const t of a.outputs) if (prod[t] >= cut) fail(`--outputs: tensor ${t} is written by operator ${prod[t]}, after the cut at ${cut}`);
    bytes = cutModel(bytes, cut, a.outputs);
    a.cut = cut;
    outs = a.outputs;
  } else if (a.all) {
    outs = [...g.outputs];
    // Only tensors LiteRT.js hands back (float16 ones, e.g. a DENSIFY's, it refuses as outputs).
    for (const op of g.operators) for (const t of op.outputs) if (t >= 0 && !outs.includes(t) && kNpyType[g.tensors[t].type]) outs.push(t);
    bytes = exposeTensors(bytes, outs);
  }
  if (a.inputs.length !== g.inputs.length) fail(`the model has ${g.inputs.length} input(s), got ${a.inputs.length} file(s)`);
  const inputs = g.inputs.map((t, k) => {
    const want = g.tensors[t];
    let arr;
    try {
      arr = readNpy(a.inputs[k]);
    } catch (e) {
      fail(e.message);
    }
    if (want.type !== 'float32') fail(`input ${k} (${want.name}) is ${want.type}; only float32 inputs are supported`);
    if (!(arr.data instanceof Float32Array)) fail(`${a.inputs[k]}: not float32 (input ${k}, ${want.name}, is float32)`);
    const stacked = a.batches && arr.shape.length === want.shape.length && want.shape[0] > 0 && arr.shape[0] % want.shape[0] === 0 &&
      arr.shape[0] > 0 && sameShape(arr.shape.slice(1), want.shape.slice(1));
    if (!stacked && !sameShape(arr.shape, want.shape)) {
      fail(`${a.inputs[k]}: shape [${arr.shape}], input ${k} (${want.name}) is [${want.shape}]` + (a.batches ? ' (or a stack of those on axis 0)' : ''));
    }
    return { name: want.name, shape: want.shape, file: a.inputs[k], data: arr.data, slices: stacked ? arr.shape[0] / want.shape[0] : 1 };
  });
  if (a.batches && new Set(inputs.map((x) => x.slices)).size > 1) fail('--batches: the inputs stack different numbers of batches');

  const lrt = await loadLitert();
  const model = await lrt.loadAndCompile(new Uint8Array(bytes), { accelerator: 'wasm' });
  // LiteRT's inputs and outputs are subgraph 0's in order, named after the tensors: check, rather than assume.
  const check = (what, details, tensors) => tensors.forEach((t, k) => {
    const d = details[k];
    if (!d || d.name !== g.tensors[t].name || !sameShape(Array.from(d.shape), g.tensors[t].shape)) {
      fail(`LiteRT's ${what} ${k} is ${d ? `${d.name} [${Array.from(d.shape)}]` : 'missing'}, the flatbuffer says ${g.tensors[t].name} [${g.tensors[t].shape}]`);
    }
  });
  check('input', model.getInputDetails(), g.inputs);
  check('output', model.getOutputDetails(), outs);
  if (a.batches) return runBatches(a, g, outs, inputs, lrt, model, sha256);
  const feeds = inputs.map((x) => new lrt.Tensor(x.data, x.shape));
  // Without --manifest every output as float32 (the files tests/models/tflite/ hold); with it, in its type.
  const runOnce = async () => {
    const res = await model.run(feeds);
    const data = res.map((t) => (a.manifest ? t.toTypedArray().slice() : Float32Array.from(t.toTypedArray())));
    res.forEach((t) => t.delete());
    return data;
  };
  const first = await runOnce();
  for (let r = 1; r < a.repeat; ++r) {
    const again = await runOnce();
    again.forEach((d, k) => { if (!bitIdentical(d, first[k])) fail(`run ${r + 1} differs from run 1 in output ${k} (${g.tensors[outs[k]].name})`); });
  }
  let timing = null;
  if (a.iters) {
    await runOnce();
    const times = [];
    for (let i = 0; i < a.iters; ++i) {
      const t0 = process.hrtime.bigint();
      await runOnce();
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    times.sort((x, y) => x - y);
    const k = times.length;
    timing = { iters: k, median_ms: k % 2 ? times[(k - 1) / 2] : 0.5 * (times[k / 2 - 1] + times[k / 2]), min_ms: times[0] };
  }
  feeds.forEach((t) => t.delete());
  model.delete();

  if (a.manifest) return writeManifest(a, g, outs, first);
  fs.mkdirSync(a.out, { recursive: true });
  const outputs = outs.map((t, k) => {
    const tensor = g.tensors[t];
    const file = path.join(a.out, a.outputs ? `cut_${t}_${safe(tensor.name)}.npy` : `${k}_${safe(tensor.name)}.npy`);
    writeNpy(file, first[k], tensor.shape);
    const entry = a.outputs ? { tensor: t, operator: prod[t], op: g.operators[prod[t]].op } : { index: k, tensor: t };
    return { ...entry, name: tensor.name, shape: tensor.shape, file, ...stats(first[k]) };
  });
  const version = JSON.parse(fs.readFileSync(path.join(LITERT_DIR, 'package.json'), 'utf8')).version;
  const result = {
    tool: 'litert', version, build: 'litert_wasm_compat_internal.wasm, accelerator wasm (XNNPACK), 1 thread',
    model: a.model, sha256, cut: a.outputs ? a.cut : null, runs: a.repeat, bitIdentical: a.repeat > 1 ? true : null,
    inputs: inputs.map(({ name, shape, file }) => ({ name, shape, file })), outputs, timing,
  };
  process.stdout.write(toJson(result) + '\n');
}

// --batches: each slice of the stacked inputs through the model once; the outputs stacked.
async function runBatches(a, g, outs, inputs, lrt, model, sha256) {
  const slices = inputs[0].slices;
  const results = outs.map((t) => new Float32Array(slices * g.tensors[t].shape.reduce((p, d) => p * d, 1)));
  for (let s = 0; s < slices; ++s) {
    const feeds = inputs.map((x) => {
      const n = x.data.length / slices;
      return new lrt.Tensor(x.data.slice(s * n, (s + 1) * n), x.shape);
    });
    const res = await model.run(feeds);
    res.forEach((t, k) => {
      const d = t.toTypedArray();
      results[k].set(Float32Array.from(d), s * d.length);
      t.delete();
    });
    feeds.forEach((t) => t.delete());
  }
  model.delete();
  fs.mkdirSync(a.out, { recursive: true });
  const outputs = outs.map((t, k) => {
    const tensor = g.tensors[t];
    const shape = [tensor.shape[0] * slices, ...tensor.shape.slice(1)];
    const file = path.join(a.out, `${k}_${safe(tensor.name)}.npy`);
    writeNpy(file, results[k], shape);
    return { index: k, tensor: t, name: tensor.name, shape, file, ...stats(results[k]) };
  });
  const version = JSON.parse(fs.readFileSync(path.join(LITERT_DIR, 'package.json'), 'utf8')).version;
  process.stdout.write(toJson({ tool: 'litert', version, model: a.model, sha256, batches: slices,
    inputs: inputs.map(({ name, shape, file }) => ({ name, shape, file })), outputs }) + '\n');
}

main().catch((e) => fail(e && e.message ? e.message : e));
