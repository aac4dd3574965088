#!/usr/bin/env node
// ort_bench.js: ONNX Runtime's timing of one model, as one JSON line (the peer of `tare bench`).
//
// Usage: node bench/peers/ort_bench.js MODEL.onnx --input [NAME=]FILE.npy [...] [--threads N]
//                                      [--iters K] [--warmup W]
//   Inputs are .npy files (float32, float64, int64, int32, uint8, bool; little-endian, C order),
//   bound by NAME= or else in the model's input order.
// Session: onnxruntime-node (bench/peers/package.json: `cd bench/peers && npm install
// --ignore-scripts`, or through NODE_PATH), CPU execution provider, intraOpNumThreads N,
// interOpNumThreads 1, executionMode 'sequential', graphOptimizationLevel 'all'.
// Timing as `tare bench` (cli/bench.cc): load = InferenceSession.create; the first run timed
// alone; W untimed runs; K runs timed each alone (process.hrtime around `await session.run`).
// median (mean of the two middle values when K is even), p90 and p99 by nearest rank, min, mean.
// Errors: one line on stderr, exit 1.
'use strict';
const fs = require('fs');
const path = require('path');

function fail(msg) {
  process.stderr.write('ort_bench: error: ' + String(msg).replace(/[\r\n]+/g, ' ') + '\n');
  process.exit(1);
}

function loadOrt() {
  try {
    return require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));
  } catch (e) {
    try {
      return require('onnxruntime-node');
    } catch (e2) {
      fail('onnxruntime-node not found (cd bench/peers && npm install --ignore-scripts, or set NODE_PATH)');
    }
  }
}

// Reads a .npy file (format 1.0/2.0/3.0) into {type, dims, data} for ort.Tensor.
function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(file + ': not a .npy file');
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const hstart = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', hstart, hstart + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const order = /'fortran_order':\s*(True|False)/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !order || !shape) throw new Error(file + ': bad .npy header');
  if (order[1] === 'True') throw new Error(file + ': Fortran order is not supported');
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const n = dims.reduce((a, b) => a * b, 1);
  const kinds = {
    '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array], '<i8': ['int64', BigInt64Array],
    '<i4': ['int32', Int32Array], '|u1': ['uint8', Uint8Array], '|i1': ['int8', Int8Array], '|b1': ['bool', Uint8Array],
  };
  const kind = kinds[descr[1]];
  if (!kind) throw new Error(file + ': dtype ' + descr[1] + ' is not supported');
  const [type, Ctor] = kind;
  const off = hstart + hlen;
  if (buf.length - off < n * Ctor.BYTES_PER_ELEMENT) throw new Error(file + ': truncated data');
  const bytes = new Uint8Array(n * Ctor.BYTES_PER_ELEMENT);
  bytes.set(buf.subarray(off, off + bytes.length));  // copy: the typed array must be aligned
  const data = new Ctor(bytes.buffer, 0, n);
  return { type, dims, data: type === 'bool' ? Uint8Array.from(data) : data };
}

function summarize(times) {
  const t = [...times].sort((a, b) => a - b);
  const k = t.length;
  const median = k % 2 ? t[(k - 1) / 2] : 0.5 * (t[k / 2 - 1] + t[k / 2]);
  const rank = (p) => t[Math.min(k, Math.max(Math.ceil((p * k) / 100), 1)) - 1];
  return { median_ms: median, p90_ms: rank(90), p99_ms: rank(99), min_ms: t[0], mean_ms: t.reduce((a, b) => a + b, 0) / k };
}

function parseArgs(argv) {
  const a = { model: null, inputs: [], threads: 1, iters: 10, warmup: 2 };
  const int = (name, v, lo) => {
    if (v === undefined || !/^\d+$/.test(v) || Number(v) < lo) fail(name + ' must be an integer >= ' + lo + ', got ' + v);
    return Number(v);
  };
  for (let i = 0; i < argv.length; ++i) {
    const s = argv[i];
    if (s === '--input') a.inputs.push(argv[++i]);
    else if (s === '--threads') a.threads = int('--threads', argv[++i], 1);
    else if (s === '--iters') a.iters = int('--iters', argv[++i], 1);
    else if (s === '--warmup') a.warmup = int('--warmup', argv[++i], 0);
    else if (s.startsWith('--')) fail('unknown option ' + s);
    else if (a.model === null) a.model = s;
    else fail('unexpected argument ' + s);
  }
  if (!a.model) fail('usage: ort_bench.js MODEL.onnx --input [NAME=]FILE.npy ... [--threads N] [--iters K] [--warmup W]');
  if (a.inputs.some((x) => x === undefined)) fail('--input needs a value');
  return a;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const ort = loadOrt();
  const t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(args.model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: args.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const loadMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const feeds = {};
  let next = 0;
  for (const arg of args.inputs) {
    const eq = arg.indexOf('=');
    let name = null;
    let file = arg;
    if (eq > 0 && session.inputNames.includes(arg.slice(0, eq))) {
      name = arg.slice(0, eq);
      file = arg.slice(eq + 1);
    } else {
      while (next < session.inputNames.length && session.inputNames[next] in feeds) ++next;
      if (next >= session.inputNames.length) fail('too many inputs: the model has ' + session.inputNames.length);
      name = session.inputNames[next];
    }
    if (name in feeds) fail("input '" + name + "' is given twice");
    const t = readNpy(file);
    feeds[name] = new ort.Tensor(t.type, t.data, t.dims);
  }
  for (const n of session.inputNames) if (!(n in feeds)) fail("missing input '" + n + "'");
  const now = () => process.hrtime.bigint();
  let a = now();
  await session.run(feeds);
  const firstMs = Number(now() - a) / 1e6;
  for (let i = 0; i < args.warmup; ++i) await session.run(feeds);
  const times = [];
  for (let i = 0; i < args.iters; ++i) {
    a = now();
    await session.run(feeds);
    times.push(Number(now() - a) / 1e6);
  }
  let version = null;
  try {
    version = require(path.join(__dirname, 'node_modules', 'onnxruntime-node', 'package.json')).version;
  } catch (e) {
    version = ort.env && ort.env.versions ? ort.env.versions.node : null;
  }
  const out = {
    tool: 'onnxruntime', version, model: args.model, threads: args.threads, iters: args.iters, warmup: args.warmup,
    load_ms: loadMs, first_run_ms: firstMs, ...summarize(times), times_ms: times,
  };
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e) => fail(e && e.message ? e.message : e));
