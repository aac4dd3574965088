#!/usr/bin/env node
// ort_cases.js: ONNX Runtime's outputs for the cases make_cases.py builds (tests/conformance/cases).
//
// Usage: node tests/conformance/ort_cases.js DIR [DIR ...]
//   Each DIR holds model.onnx and in_K.npy (the model's inputs in order). Writes ort_out_K.npy
//   (the model's outputs in order) or, when ONNX Runtime refuses the model or fails to run it,
//   ort_error.txt (its message, one line). Session: onnxruntime-node (bench/peers/package.json;
//   `cd bench/peers && npm install --ignore-scripts`), CPU execution provider, one thread,
//   graphOptimizationLevel 'disabled' (each node as the model writes it, nothing fused).
// .npy dtypes: float16 (<f2, as Uint16Array), float32, float64, int8/16/32/64, uint8/16/32/64, bool.
'use strict';
const fs = require('fs');
const path = require('path');

function loadOrt() {
  const here = path.join(__dirname, '..', '..', 'bench', 'peers', 'node_modules', 'onnxruntime-node');
  try { return require(here); } catch (e) { return require('onnxruntime-node'); }
}

const KINDS = {
  '<f2': ['float16', Uint16Array], '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array],
  '|i1': ['int8', Int8Array], '<i2': ['int16', Int16Array], '<i4': ['int32', Int32Array], '<i8': ['int64', BigInt64Array],
  '|u1': ['uint8', Uint8Array], '<u2': ['uint16', Uint16Array], '<u4': ['uint32', Uint32Array],
  '<u8': ['uint64', BigUint64Array], '|b1': ['bool', Uint8Array],
};

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(file + ': not a .npy file');
  const hlen = buf[6] === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const hstart = buf[6] === 1 ? 10 : 12;
  const header = buf.toString('latin1', hstart, hstart + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  const dims = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const kind = KINDS[descr];
  if (!kind) throw new Error(file + ': dtype ' + descr + ' is not supported');
  const n = dims.reduce((a, b) => a * b, 1);
  const bytes = buf.subarray(hstart + hlen, hstart + hlen + n * kind[1].BYTES_PER_ELEMENT);
  const data = new kind[1](n);
  new Uint8Array(data.buffer).set(bytes);
  return { type: kind[0], dims, data };
}

function writeNpy(file, tensor) {
  const entry = Object.entries(KINDS).find(([, k]) => k[0] === tensor.type);
  if (!entry) throw new Error('output type ' + tensor.type + ' is not supported');
  let header = "{'descr': '" + entry[0] + "', 'fortran_order': False, 'shape': (" +
      tensor.dims.join(', ') + (tensor.dims.length === 1 ? ',' : '') + '), }';
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1; head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  const d = tensor.data;
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), Buffer.from(d.buffer, d.byteOffset, d.byteLength)]));
}

async function runCase(ort, dir) {
  for (const f of fs.readdirSync(dir)) if (f.startsWith('ort_')) fs.unlinkSync(path.join(dir, f));
  try {
    const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'), {
      executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'disabled',
    });
    const feeds = {};
    session.inputNames.forEach((name, k) => {
      const t = readNpy(path.join(dir, 'in_' + k + '.npy'));
      feeds[name] = new ort.Tensor(t.type, t.data, t.dims);
    });
    const results = await session.run(feeds);
    session.outputNames.forEach((name, k) => writeNpy(path.join(dir, 'ort_out_' + k + '.npy'), results[name]));
  } catch (e) {
    fs.writeFileSync(path.join(dir, 'ort_error.txt'), String(e.message || e).replace(/[\r\n]+/g, ' ') + '\n');
  }
}

(async () => {
  const ort = loadOrt();
  for (const dir of process.argv.slice(2)) await runCase(ort, dir);
})();
