'use strict';
// The WebAssembly module's test (issue 19, docs/PLATFORMS.md), run by platforms/wasm/test.sh under
// node: every case of CASES (the cases.json of tests/bitid/ref_hashes.cc --export: .tare models
// and .npy inputs written by the native build) runs through tare.js on ref and ref64,
// and every output's SHA-256 must equal the committed manifest's (tests/bitid/ref.json,
// ref64.json), hashed as tests/bitid/ref_hashes.cc does: "<dtype>[d0,d1,...]\n" then the elements
// in little-endian order, every NaN written as the positive quiet NaN. Also checks the errors of
// a few bad calls (and two models of test.sh's for the 32-bit size checks). Prints a line per failing case (per case with VERBOSE=1), the outputs checked
// per backend, and ends with "N passed, N failed" (cases times backends, and the bad calls).
//   node test.js CASES MANIFEST_DIR MODULE_DIR [DUMP_DIR]
// MODULE_DIR: build-wasm/platforms/wasm (tare.js + tare_wasm.js). DUMP_DIR/<backend>/: the native
// tare_ref_hashes --dump of the same cases, to say by how many ULP a differing output differs.
// A case listed in the manifest's known_differences is reported (KNOWN), not failed; so is a ref64
// output within REF64_REL of x86-64's (CLOSE): ref64 is not promised bit-identical across C libraries.
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const {init, TareError, ARRAYS} = require(path.resolve(process.argv[4] || __dirname, 'tare.js'));

/** Reads a .npy file (format 1.0 to 3.0, C order, little-endian) as {dtype, dims, data}. */
function readNpy(file) {
  const b = fs.readFileSync(file);
  if (b.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = b[6];
  const hlen = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = b.toString('latin1', start, start + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${file}: Fortran order`);
  const dims = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const types = {
    '<f2': 'float16', '<f4': 'float32', '<f8': 'float64', '|i1': 'int8', '<i2': 'int16', '<i4': 'int32', '<i8': 'int64',
    '|u1': 'uint8', '<u2': 'uint16', '<u4': 'uint32', '<u8': 'uint64', '|b1': 'bool',
  };
  const dtype = types[descr];
  if (!dtype) throw new Error(`${file}: dtype ${descr} not read by this test`);
  const raw = b.subarray(start + hlen);
  const copy = new Uint8Array(raw.length);
  copy.set(raw);
  return {dtype, dims, data: new ARRAYS[dtype](copy.buffer)};
}

/** SHA-256 of an output's canonical bytes (see the file comment). */
function hashOf(out) {
  const bytes = new Uint8Array(out.data.buffer.slice(out.data.byteOffset, out.data.byteOffset + out.data.byteLength));
  if (out.dtype === 'float32' || out.dtype === 'float64') {
    const f = out.dtype === 'float32' ? new Float32Array(bytes.buffer) : new Float64Array(bytes.buffer);
    const bits = out.dtype === 'float32' ? new Uint32Array(bytes.buffer) : new BigUint64Array(bytes.buffer);
    for (let i = 0; i < f.length; ++i) {
      if (Number.isNaN(f[i])) bits[i] = out.dtype === 'float32' ? 0x7fc00000 : 0x7ff8000000000000n;
    }
  }
  const h = crypto.createHash('sha256');
  h.update(`${out.dtype}[${out.dims.join(',')}]\n`);
  h.update(bytes);
  return h.digest('hex');
}

/** Largest distance in ULP between two float64 arrays (NaN matching NaN is 0). */
function maxUlp64(a, b) {
  const key = (x) => {
    const v = new BigInt64Array(new Float64Array([x]).buffer)[0];
    return v < 0n ? -0x8000000000000000n - v : v;
  };
  let worst = 0n;
  for (let i = 0; i < a.length; ++i) {
    if (Number.isNaN(a[i]) || Number.isNaN(b[i])) {
      if (Number.isNaN(a[i]) !== Number.isNaN(b[i])) return Infinity;
      continue;
    }
    const d = key(a[i]) - key(b[i]);
    const ad = d < 0n ? -d : d;
    if (ad > worst) worst = ad;
  }
  return Number(worst);
}

/** ref64 outputs may differ from x86-64's by this much (max abs difference over max abs value):
 * double rounding noise, the last bit of a libm function carried through the layers after it. */
const REF64_REL = 1e-12;

/** Max abs difference of two arrays over the largest magnitude of `b` (0 when equal). */
function relDiff(a, b) {
  let diff = 0, scale = 0;
  for (let i = 0; i < a.length; ++i) {
    if (Number.isNaN(a[i]) && Number.isNaN(b[i])) continue;
    diff = Math.max(diff, Math.abs(a[i] - b[i]));
    scale = Math.max(scale, Math.abs(b[i]));
  }
  return Number.isNaN(diff) ? Infinity : scale > 0 ? diff / scale : diff;
}

function expectError(what, code, fn) {
  try {
    fn();
  } catch (e) {
    if (e instanceof TareError && e.code === code && e.message.length > 0) return true;
    console.log(`FAIL ${what}: expected TareError ${code}, got ${e.code || ''} ${e.message}`);
    return false;
  }
  console.log(`FAIL ${what}: no error`);
  return false;
}

async function main() {
  const [casesFile, manifestDir, , dumpDir] = process.argv.slice(2);
  const cases = JSON.parse(fs.readFileSync(casesFile, 'utf8')).cases;
  const tare = await init();
  console.log(`tare ${tare.version()} (WebAssembly), backends ${tare.backends()}`);
  let passed = 0, failed = 0, close = 0;
  const outputs = {};
  for (const backend of ['ref', 'ref64']) {
    const manifest = JSON.parse(fs.readFileSync(path.join(manifestDir, `${backend}.json`), 'utf8'));
    for (const c of cases) {
      const want = manifest.cases[c.name];
      if (!want) {
        console.log(`FAIL ${c.name} on ${backend}: not in ${backend}.json`);
        ++failed;
        continue;
      }
      const t0 = Date.now();
      let why = '', n = 0;
      try {
        const model = tare.loadModel(fs.readFileSync(c.tare));
        const session = model.createSession({backends: backend});
        const feeds = {};
        c.inputs.forEach((inp, i) => {
          const t = readNpy(inp.npy);
          feeds[inp.name || model.inputs[i].name] = {data: t.data, dims: t.dims, dtype: inp.dtype || t.dtype};
        });
        const outs = session.run(feeds);
        for (const o of outs) {
          ++n;
          const h = hashOf(o);
          if (!(o.name in want)) why += ` output '${o.name}' not in the manifest;`;
          else if (want[o.name] !== h) {
            const known = (manifest.known_differences || {})[c.name];
            // tare_ref_hashes --dump of the same case on x86-64 (test.sh writes it): the distance in ULP.
            const dumped = dumpDir && path.join(dumpDir, backend, c.name, o.name.replace(/[^A-Za-z0-9_.-]/g, '_') + '.npy');
            const ulps = dumped && fs.existsSync(dumped) && o.dtype === 'float64' ? maxUlp64(o.data, readNpy(dumped).data) : null;
            const ulp = ulps === null ? '' : `, at most ${ulps} ULP from x86-64`;
            const rel = ulps === null ? null : relDiff(o.data, readNpy(dumped).data);
            if (backend === 'ref64' && rel !== null && rel <= REF64_REL) {
              // ref64 returns the C library's double results unrounded: musl's differ from glibc's.
              console.log(`CLOSE ${c.name} on ref64: output '${o.name}' differs${ulp}, max abs difference ${rel.toExponential(2)} of its largest value`);
              ++close;
            } else if (known && (ulps === null || ulps <= known.max_ulp)) {
              console.log(`KNOWN ${c.name} on ${backend}: output '${o.name}' differs${ulp} (${known.why})`);
            } else if (known) {
              why += ` output '${o.name}' differs by ${ulps} ULP, over the ${known.max_ulp} of known_differences;`;
            } else {
              why += ` output '${o.name}' hash ${h.slice(0, 12)}.. != ${want[o.name].slice(0, 12)}..${ulp};`;
            }
          }
        }
        if (n !== Object.keys(want).length) why += ` ${n} outputs, the manifest has ${Object.keys(want).length};`;
        session.free();
        model.free();
      } catch (e) {
        why = ` ${e.code || 'exception'}: ${e.message}`;
      }
      const ms = Date.now() - t0;
      if (why) {
        console.log(`FAIL ${c.name} on ${backend}:${why}`);
        ++failed;
      } else {
        if (process.env.VERBOSE) console.log(`PASS ${c.name} on ${backend}: ${n} outputs bit-identical to the manifest (${ms} ms)`);
        ++passed;
        outputs[backend] = (outputs[backend] || 0) + n;
      }
    }
  }
  console.log(`ref: ${outputs.ref || 0} outputs bit-identical to ref.json`);
  console.log(`ref64: ${(outputs.ref64 || 0) - close} outputs bit-identical to ref64.json, ${close} within ${REF64_REL} of x86-64's ` +
              '(max abs difference over the largest value)');
  // Bad input gets a TareError, never a crash.
  const lenet = cases.find((c) => c.name === 'fixture/lenet5');
  const probeDir = path.dirname(path.dirname(path.resolve(casesFile)));  // test.sh's folder: the probe models
  const bytes = fs.readFileSync(lenet.tare);
  const checks = [
    expectError('truncated model', 'bad_model', () => tare.loadModel(bytes.subarray(0, bytes.length - 100))),
    expectError('unknown backend', 'invalid_argument', () => tare.loadModel(bytes).createSession({backends: 'cuda'})),
    expectError('wrong input shape', 'shape', () => {
      const m = tare.loadModel(bytes);
      m.createSession().run({[m.inputs[0].name]: {data: new Float32Array(10), dims: [1, 10]}});
    }),
    expectError('unknown input', 'invalid_argument', () => {
      const m = tare.loadModel(bytes);
      m.createSession().run({nope: {data: new Float32Array(784), dims: [1, 1, 28, 28]}});
    }),
    // The JavaScript API's own checks.
    expectError('a string for model bytes', 'invalid_argument', () => tare.loadModel('lenet5.tare')),
    expectError('an unknown session option', 'invalid_argument', () => tare.loadModel(bytes).createSession({threads: 4})),
    expectError('an empty backend list', 'invalid_argument', () => tare.loadModel(bytes).createSession({backends: ''})),
    expectError('Int32Array data for a float32 input', 'invalid_argument', () => {
      const m = tare.loadModel(bytes);
      m.createSession().run({[m.inputs[0].name]: {data: new Int32Array(2 * 784), dims: [2, 1, 28, 28]}});
    }),
    expectError('a fractional dim', 'invalid_argument', () => {
      const m = tare.loadModel(bytes);
      m.createSession().run({[m.inputs[0].name]: {data: new Float32Array(2 * 784), dims: [2.5, 1, 28, 28]}});
    }),
    expectError('a session limit below the first tensor', 'limit_exceeded', () => {
      const m = tare.loadModel(bytes);
      m.createSession({maxTensorBytes: 1000}).run({[m.inputs[0].name]: {data: new Float32Array(2 * 784), dims: [2, 1, 28, 28]}});
    }),
    // 32 bits: sizes of 4 GiB and more must not wrap to small buffers (they did, before issue 19).
    expectError('ConstantOfShape of 2^30 + 1 floats (4 GiB)', 'limit_exceeded', () => {
      const m = tare.loadModel(fs.readFileSync(path.join(probeDir, 'constant_of_shape.tare')));
      m.createSession().run({shape: {data: new BigInt64Array([2n ** 30n + 1n]), dims: [1]}});
    }),
    expectError('a tensor view of 2^30 + 1 floats over 4 bytes', 'limit_exceeded', () => {
      const m = tare.loadModel(fs.readFileSync(path.join(probeDir, 'relu_dynamic.tare')));
      m.createSession().run({x: {data: new Float32Array([-7]), dims: [2 ** 30 + 1]}});
    }),
  ];
  for (const ok of checks) ok ? ++passed : ++failed;
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

main().catch((e) => {
  console.log(`FAIL: ${e.stack || e}`);
  console.log('0 passed, 1 failed');
  process.exitCode = 1;
});
