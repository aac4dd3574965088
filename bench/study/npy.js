// npy.js — the small file helpers the study's JavaScript runners share (bench/study/ort.js, tfjs.js):
// a .npy (format 1.0) writer and reader for C-order little-endian arrays (float32, float64, int64,
// int32, int16, int8, uint8, uint16, uint32, uint64, and bool or float16 as their bytes / bit
// patterns), and a reader for the gzipped IDX files of Fashion-MNIST.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');

// numpy's type string of each typed array, and the typed array of each type string.
const kDescr = new Map([[Float32Array, '<f4'], [Float64Array, '<f8'], [BigInt64Array, '<i8'], [Int32Array, '<i4'],
                        [Int16Array, '<i2'], [Int8Array, '|i1'], [Uint8Array, '|u1'], [Uint16Array, '<u2'],
                        [Uint32Array, '<u4'], [BigUint64Array, '<u8']]);
const kArray = Object.fromEntries([...kDescr].map(([T, d]) => [d, T]).concat([['|b1', Uint8Array], ['<f2', Uint16Array]]));

// Writes `data` (a typed array of kDescr) with `shape` to `file`; `descr` overrides the type
// string ('|b1' for bools held in a Uint8Array, '<f2' for float16 bit patterns in a Uint16Array).
function writeNpy(file, data, shape, descr = null) {
  descr = descr || kDescr.get(data.constructor);
  if (descr && kArray[descr] !== data.constructor) throw new Error(`writeNpy: ${descr} cannot be written from a ${data.constructor.name}`);
  if (!descr) throw new Error(`writeNpy: unsupported array type ${data.constructor.name}`);
  const count = shape.reduce((a, b) => a * b, 1);
  if (count !== data.length) throw new Error(`writeNpy: shape [${shape}] holds ${count} values, got ${data.length}`);
  const shapeStr = '(' + shape.join(', ') + (shape.length === 1 ? ',)' : ')');
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeStr}, }`;
  header += ' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'),
                                        Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

// Reads a C-order little-endian .npy file (format 1.x or 2.x) of a type of kArray.
// Returns {shape, data, descr} with data the typed array of kArray[descr].
function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + hlen;
  const header = buf.toString('latin1', major === 1 ? 10 : 12, start);
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const fortran = /'fortran_order':\s*(True|False)/.exec(header);
  const shapeM = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !fortran || !shapeM) throw new Error(`${file}: bad .npy header ${header}`);
  if (fortran[1] === 'True') throw new Error(`${file}: Fortran order is not supported`);
  const shape = shapeM[1].split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const T = kArray[descr[1]];
  if (!T) throw new Error(`${file}: dtype ${descr[1]} is not supported`);
  const count = shape.reduce((a, b) => a * b, 1);
  if (buf.length - start !== count * T.BYTES_PER_ELEMENT) throw new Error(`${file}: size does not match shape [${shape}]`);
  const bytes = buf.subarray(start);
  const data = new T(count);  // copy: the payload need not be aligned
  new Uint8Array(data.buffer).set(bytes);
  return { shape, data, descr: descr[1] };
}

// Reads an unsigned-byte IDX file (gzipped if the name ends in .gz): {dims, data: Uint8Array}.
function readIdx(file) {
  let buf = fs.readFileSync(file);
  if (file.endsWith('.gz')) buf = zlib.gunzipSync(buf);
  if (buf.length < 4 || buf.readUInt16BE(0) !== 0 || buf[2] !== 0x08) throw new Error(`${file}: not an unsigned-byte IDX file`);
  const ndim = buf[3];
  const dims = [];
  for (let i = 0; i < ndim; ++i) dims.push(buf.readUInt32BE(4 + 4 * i));
  const count = dims.reduce((a, b) => a * b, 1);
  const start = 4 + 4 * ndim;
  if (buf.length - start !== count) throw new Error(`${file}: ${buf.length - start} values, header says [${dims}]`);
  return { dims, data: new Uint8Array(buf.subarray(start)) };
}

// The Fashion-MNIST test split: images [n,28,28] as float32 pixels / 255 (the float32 quotient,
// as numpy's uint8 -> float32 / 255 gives) and labels as an Int32Array.
function loadTestSet(dir) {
  const img = readIdx(path.join(dir, 't10k-images-idx3-ubyte.gz'));
  const lab = readIdx(path.join(dir, 't10k-labels-idx1-ubyte.gz'));
  if (img.dims.length !== 3 || lab.dims.length !== 1 || img.dims[0] !== lab.dims[0]) throw new Error('unexpected t10k shapes');
  const pixels = new Float32Array(img.data.length);
  for (let i = 0; i < pixels.length; ++i) pixels[i] = img.data[i] / 255;  // double quotient -> float32: the correctly rounded float32 quotient (53 >= 2*24+2 bits)
  return { n: img.dims[0], h: img.dims[1], w: img.dims[2], pixels, labels: Int32Array.from(lab.data) };
}

function argmaxAccuracy(logits, classes, labels) {
  let right = 0;
  for (let i = 0; i < labels.length; ++i) {
    let best = 0;
    for (let k = 1; k < classes; ++k) if (logits[i * classes + k] > logits[i * classes + best]) best = k;
    if (best === labels[i]) ++right;
  }
  return right / labels.length;
}

// Where the peer runtimes are installed: bench/peers/node_modules (npm install --ignore-scripts).
function requirePeer(name) {
  return require(require.resolve(name, { paths: [path.join(__dirname, '..', 'peers')] }));
}

// mulberry32: a seeded uniform generator in [0, 1) (the runners' seeded inputs, the TF.js fixtures).
function mulberry32(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

module.exports = { writeNpy, readNpy, readIdx, loadTestSet, argmaxAccuracy, requirePeer, mulberry32 };
