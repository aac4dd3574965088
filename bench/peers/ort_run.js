#!/usr/bin/env node
// ort_run.js: runs an ONNX model once on ONNX Runtime and writes every output as .npy: the peer
// `tare compare --peer ort` runs (cli/peers.cc), on the model as given for its outputs and on a copy
// with every intermediate value made an output (converters/onnx/onnx_writer.h,
// WriteOnnxWithEveryValueAsOutput) for its layers.
//
// Usage: node bench/peers/ort_run.js MODEL.onnx --input NAME=FILE.npy [...] --out DIR
//   --input   one per model input, bound by name (float32, float64, int64, int32, int16, int8,
//             uint8, uint16, uint32, uint64, bool; C order).
//   --out     a folder that does not exist yet: it gets <name>.npy per output, the name with each
//             character outside [A-Za-z0-9._-] replaced by '_' (as tare's SafeName; a name that
//             would repeat an earlier file gets .2, .3 ... before .npy), and manifest.json:
//             {"outputs": [{"name", "file", "dtype" (numpy's type string), "shape"}], "skipped":
//             [{"name", "type"}] (string and other non-numeric outputs), "ort_version"}.
// Session: onnxruntime-node (bench/peers/package.json: `cd bench/peers && npm install
// --ignore-scripts`, or through NODE_PATH), CPU execution provider, 1 intra-op and 1 inter-op
// thread, sequential, graphOptimizationLevel 'all' (ONNX Runtime's default). A node whose output is
// a graph output is not fused with the next one, so on the copy every value is computed unfused.
// Errors: one line on stderr, exit 1.
'use strict';
const fs = require('fs');
const path = require('path');
const { readNpy, writeNpy } = require('../study/npy.js');

function fail(msg) {
  process.stderr.write('ort_run: error: ' + String(msg).replace(/[\r\n]+/g, ' ') + '\n');
  process.exit(1);
}

function loadOrt() {
  for (const where of [path.join(__dirname, 'node_modules', 'onnxruntime-node'), 'onnxruntime-node']) {
    try {
      return require(where);
    } catch (e) {
      // next
    }
  }
  fail('onnxruntime-node not found (cd bench/peers && npm install --ignore-scripts, or set NODE_PATH)');
}

// numpy type string -> ONNX Runtime tensor type.
const kOrtType = {
  '<f4': 'float32', '<f8': 'float64', '<i8': 'int64', '<i4': 'int32', '<i2': 'int16', '|i1': 'int8', '|u1': 'uint8',
  '<u2': 'uint16', '<u4': 'uint32', '<u8': 'uint64', '|b1': 'bool', '<f2': 'float16',
};
const kDescrOf = Object.fromEntries(Object.entries(kOrtType).map(([d, t]) => [t, d]));

function parseArgs(argv) {
  const a = { model: null, inputs: [], out: null };
  for (let i = 0; i < argv.length; ++i) {
    const s = argv[i];
    if (s === '--input' || s === '--out') {
      if (i + 1 >= argv.length) fail(s + ' needs a value');
      if (s === '--input') a.inputs.push(argv[++i]);
      else a.out = argv[++i];
    } else if (s.startsWith('--')) fail('unknown option ' + s);
    else if (a.model === null) a.model = s;
    else fail('unexpected argument ' + s);
  }
  if (!a.model || !a.out) fail('usage: ort_run.js MODEL.onnx --input NAME=FILE.npy ... --out DIR');
  if (fs.existsSync(a.out)) fail(a.out + ' exists: not overwritten');
  return a;
}

const safe = (s) => {
  const r = (s.length ? s : 'output').replace(/[^A-Za-z0-9._-]/g, '_');
  return r === '.' || r === '..' ? '_' : r;
};

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const ort = loadOrt();
  let session;
  try {
    session = await ort.InferenceSession.create(args.model, {
      executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
  } catch (e) {
    fail(args.model + ': ONNX Runtime refused the model: ' + e.message);
  }
  const feeds = {};
  for (const arg of args.inputs) {
    const eq = arg.indexOf('=');
    if (eq <= 0) fail('--input must be NAME=FILE.npy, got ' + arg);
    const name = arg.slice(0, eq);
    if (!session.inputNames.includes(name)) fail(`the model has no input '${name}' (inputs: ${session.inputNames.join(', ')})`);
    if (name in feeds) fail(`input '${name}' is given twice`);
    let t;
    try {
      t = readNpy(arg.slice(eq + 1));
    } catch (e) {
      fail(e.message);
    }
    if (!kOrtType[t.descr]) fail(`${arg.slice(eq + 1)}: dtype ${t.descr} is not supported`);
    feeds[name] = new ort.Tensor(kOrtType[t.descr], t.data, t.shape);
  }
  for (const n of session.inputNames) if (!(n in feeds)) fail(`missing input '${n}'`);
  let results;
  try {
    results = await session.run(feeds);
  } catch (e) {
    fail('ONNX Runtime failed to run ' + args.model + ': ' + e.message);
  }
  fs.mkdirSync(args.out, { recursive: true });
  const manifest = { ort_version: ort.env.versions ? ort.env.versions.common : null, outputs: [], skipped: [] };
  const used = new Set();
  for (const name of session.outputNames) {
    const t = results[name];
    const descr = kDescrOf[t.type];
    if (!descr || t.type === 'string') {
      manifest.skipped.push({ name, type: t.type });
      continue;
    }
    // A file name within the 255 bytes of common file systems (a long name keeps its start and a count).
    const base = safe(name).length > 200 ? safe(name).slice(0, 180) + '.n' + manifest.outputs.length : safe(name);
    let file = base;
    for (let k = 2; used.has(file); ++k) file = base + '.' + k;
    used.add(file);
    file += '.npy';
    let data = t.data;
    if (t.type === 'bool') data = Uint8Array.from(data, (v) => (v ? 1 : 0));
    else if (t.type === 'float16' && !(data instanceof Uint16Array)) data = new Uint16Array(data.buffer, data.byteOffset, data.length);
    writeNpy(path.join(args.out, file), data, [...t.dims], descr);
    manifest.outputs.push({ name, file, dtype: descr, shape: [...t.dims] });
  }
  fs.writeFileSync(path.join(args.out, 'manifest.json'), JSON.stringify(manifest, null, 1) + '\n');
}

main().catch((e) => fail(e.message));
