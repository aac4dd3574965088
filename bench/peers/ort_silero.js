#!/usr/bin/env node
// ort_silero.js — ONNX Runtime's outputs for the Silero VAD models on a fixed signal, as the fixture
// that tests/models/silero_check.cc compares tare with.
//
// Usage:  node bench/peers/ort_silero.js MODELS_DIR [OUT_DIR]
//   MODELS_DIR holds silero_vad_legacy.onnx and silero_vad_v5.onnx (tests/models/silero/fetch.sh).
//   OUT_DIR defaults to tests/models/silero (relative to the repository root).
// Needs the npm package onnxruntime-node (CPU binding; its install script is not needed), either
// in bench/peers/node_modules (`cd bench/peers && npm install --ignore-scripts`) or found through
// NODE_PATH (e.g. `npm install --ignore-scripts onnxruntime-node` in /work/npm-peers, then
// NODE_PATH=/work/npm-peers/node_modules).
//
// What it writes (all .npy, little-endian, C order; the leading axis is the chunk index):
//   OUT_DIR/input.npy                  float32 [20,512]  the 20 consecutive 512-sample chunks
//   OUT_DIR/legacy/output.npy          float32 [20,1,1]  speech probability     (model input h, c)
//   OUT_DIR/legacy/hn.npy, cn.npy      float32 [20,2,1,64]  LSTM state after each chunk
//   OUT_DIR/v5/output.npy              float32 [20,1,1]
//   OUT_DIR/v5/stateN.npy              float32 [20,2,1,128]
//   OUT_DIR/<model>/meta.txt           onnxruntime version, model sha256, carried state pairs
// Every chunk is run with sr = 16000 (int64 scalar) and batch 1. The recurrent state starts at
// zero and each chunk gets the state ONNX Runtime returned for the previous one
// (legacy: h <- hn, c <- cn; v5: state <- stateN). Single-threaded session, graph
// optimizations disabled, so ONNX Runtime evaluates the graph as written.
//
// The signal (16 kHz, 20 * 512 = 10240 samples = 0.64 s), sample n, t = n / 16000 s:
//   voiced(n)  = sum over harmonics k = 1..10 of (1/k) * sin(k * phi(n)), where the phase
//                phi(n) = sum_{m < n} 2*pi*f0(m/16000)/16000 follows a gliding pitch
//                f0(t) = 150 + 40 * sin(2*pi*2.5*t) Hz (a vowel-like harmonic tone);
//   env(t)     = 0.35 * (0.55 + 0.45 * sin(2*pi*4*t)) (a 4 Hz syllable-rate amplitude swing);
//   noise(n)   = a fixed LCG: x <- (1664525 * x + 1013904223) mod 2^32 from x = 12345, taking
//                x / 2^32 - 0.5 (uniform in [-0.5, 0.5));
//   gate(n)    = 1 for chunks 4..9 and 16..19 (the "speech" parts), 0 elsewhere, with 64-sample
//                linear ramps at each edge (inside the gated part);
//   burst(n)   = 1 in chunks 13..15 (a noise burst without voicing), 0 elsewhere;
//   x(n)       = gate(n) * env(t) * voiced(n) / 2 + (0.002 + 0.25 * burst(n)) * noise(n),
//                computed in double and rounded once to float32.
// So the VAD sees near-silence (chunks 0..3 and 10..12), a vowel-like voiced part (4..9), a noise
// burst (13..15) and a second voiced part (16..19); its probability varies across the chunks
// (legacy 0.003..0.999, v5 0.045..0.986 with ONNX Runtime 1.30.0).
'use strict';
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

const kRate = 16000, kChunk = 512, kChunks = 20;

function makeSignal() {
  const n = kChunk * kChunks;
  const x = new Float32Array(n);
  let lcg = 12345;
  let phi = 0;
  const inGate = (c) => (c >= 4 && c <= 9) || (c >= 16 && c <= 19);
  for (let i = 0; i < n; ++i) {
    const t = i / kRate;
    const c = Math.floor(i / kChunk);
    lcg = (Math.imul(1664525, lcg) + 1013904223) >>> 0;
    const noise = lcg / 4294967296 - 0.5;
    let voiced = 0;
    for (let k = 1; k <= 10; ++k) voiced += Math.sin(k * phi) / k;
    phi += 2 * Math.PI * (150 + 40 * Math.sin(2 * Math.PI * 2.5 * t)) / kRate;
    let gate = 0;
    if (inGate(c)) {
      // Distance (in samples) to the nearest edge of the gated run containing sample i.
      let start = c, end = c;
      while (start > 0 && inGate(start - 1)) --start;
      while (end < kChunks - 1 && inGate(end + 1)) ++end;
      const d = Math.min(i - start * kChunk, (end + 1) * kChunk - 1 - i);
      gate = Math.min(1, d / 64);
    }
    const burst = c >= 13 && c <= 15 ? 1 : 0;
    const env = 0.35 * (0.55 + 0.45 * Math.sin(2 * Math.PI * 4 * t));
    x[i] = gate * env * voiced / 2 + (0.002 + 0.25 * burst) * noise;
  }
  return x;
}

// Minimal .npy (format 1.0) writer for float32 and int64.
function writeNpy(file, descr, shape, bytes) {
  const shapeStr = '(' + shape.join(', ') + (shape.length === 1 ? ',)' : ')');
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeStr}, }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1; pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), data]));
}

const kModels = [
  { name: 'legacy', file: 'silero_vad_legacy.onnx', state: [['h', 'hn', [2, 1, 64]], ['c', 'cn', [2, 1, 64]]] },
  { name: 'v5', file: 'silero_vad_v5.onnx', state: [['state', 'stateN', [2, 1, 128]]] },
];

async function main() {
  const args = process.argv.slice(2);
  if (args.length < 1 || args.length > 2) {
    console.error('usage: node ort_silero.js MODELS_DIR [OUT_DIR]');
    process.exit(2);
  }
  const ort = require('onnxruntime-node');
  const modelsDir = args[0];
  const outDir = args[1] || path.join(__dirname, '..', '..', 'tests', 'models', 'silero');
  const signal = makeSignal();
  fs.mkdirSync(outDir, { recursive: true });
  writeNpy(path.join(outDir, 'input.npy'), '<f4', [kChunks, kChunk], signal);

  for (const m of kModels) {
    const modelPath = path.join(modelsDir, m.file);
    const bytes = fs.readFileSync(modelPath);
    const session = await ort.InferenceSession.create(modelPath, {
      executionProviders: ['cpu'], graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, interOpNumThreads: 1,
      logSeverityLevel: 3,  // errors only
    });
    const feeds = {};
    for (const [inName, , shape] of m.state)
      feeds[inName] = new ort.Tensor('float32', new Float32Array(shape.reduce((a, b) => a * b)), shape);
    feeds.sr = new ort.Tensor('int64', BigInt64Array.from([16000n]), []);
    const collected = {};  // output name -> {shape, chunks: [Float32Array]}
    for (let c = 0; c < kChunks; ++c) {
      feeds.input = new ort.Tensor('float32', signal.slice(c * kChunk, (c + 1) * kChunk), [1, kChunk]);
      const out = await session.run(feeds);
      for (const name of session.outputNames) {
        const t = out[name];
        if (t.type !== 'float32') throw new Error(`${m.name}: output ${name} is ${t.type}, expected float32`);
        if (!collected[name]) collected[name] = { shape: t.dims, chunks: [] };
        collected[name].chunks.push(Float32Array.from(t.data));
      }
      for (const [inName, outName, shape] of m.state) {
        const t = out[outName];
        if (t.dims.join(',') !== shape.join(',')) throw new Error(`${m.name}: ${outName} has shape [${t.dims}]`);
        feeds[inName] = new ort.Tensor('float32', Float32Array.from(t.data), shape);
      }
    }
    const dir = path.join(outDir, m.name);
    fs.mkdirSync(dir, { recursive: true });
    const summary = [];
    for (const name of session.outputNames) {
      const { shape, chunks } = collected[name];
      const all = new Float32Array(chunks.length * chunks[0].length);
      chunks.forEach((a, i) => all.set(a, i * a.length));
      writeNpy(path.join(dir, `${name}.npy`), '<f4', [kChunks, ...shape], all);
      let lo = Infinity, hi = -Infinity;
      for (const v of all) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
      summary.push(`${name} [${kChunks},${shape}] range [${lo.toPrecision(6)}, ${hi.toPrecision(6)}]`);
    }
    const probs = collected.output.chunks.map((a) => a[0].toFixed(4));
    const meta = [
      `model ${m.file} sha256 ${crypto.createHash('sha256').update(bytes).digest('hex')}`,
      `onnxruntime-node ${ort.env.versions.node} (common ${ort.env.versions.common}), cpu, ` +
        'graph optimizations disabled, 1 thread',
      `inputs ${session.inputNames.join(' ')}; outputs ${session.outputNames.join(' ')}`,
      `sr 16000 (int64 scalar); batch 1; ${kChunks} chunks of ${kChunk} samples from ../input.npy; ` +
        'state starts at zero',
      `carried ${m.state.map(([i, o]) => `${i} <- ${o}`).join(', ')}`,
      ...summary,
      `output per chunk: ${probs.join(' ')}`,
    ];
    fs.writeFileSync(path.join(dir, 'meta.txt'), meta.join('\n') + '\n');
    console.log(`${m.name}:\n  ` + meta.join('\n  '));
  }
}

main().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
