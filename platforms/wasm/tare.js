'use strict';
// tare.js: the JavaScript API of tare's WebAssembly module (platforms/wasm, docs/PLATFORMS.md),
// for node and browsers. It wraps the C API of include/tare/tare.h that tare_wasm.js exports.
//
//   const tare = await require('./tare.js').init();          // node: loads tare_wasm.js next to this file
//                                                            // (a page: <script src=tare_wasm.js>, <script src=tare.js>, tare.init())
//   const model = tare.loadModel(bytes);                     // a .tare file's bytes (Uint8Array)
//   model.inputs, model.outputs                              // [{name, dtype, dims}] (dims: -1 dynamic)
//   const session = model.createSession({backends: 'ref'});  // 'ref' (default) or 'ref64'
//   const out = session.run({input: {data: Float32Array, dims: [1, 1, 28, 28]}});
//   out[0]                                                   // {name, dtype, dims, data: a typed array copy}
//   session.free(); model.free();
// Errors throw a TareError with .code (the C API's status in short form, e.g. "shape") and a
// message; bad arguments caught here have .code "invalid_argument". Only .tare models: the
// converters need protobuf and OpenSSL, which have no WebAssembly build on Debian (convert with
// the native `tare convert` first). Memory: the module's heap grows up to 2 GB and never shrinks;
// nothing is freed by the garbage collector, so free() every session and model.

const DTYPES = {
  1: 'float32', 2: 'uint8', 3: 'int8', 4: 'uint16', 5: 'int16', 6: 'int32', 7: 'int64', 9: 'bool',
  10: 'float16', 11: 'float64', 12: 'uint32', 13: 'uint64', 16: 'bfloat16',
};
const CODES = Object.fromEntries(Object.entries(DTYPES).map(([k, v]) => [v, Number(k)]));
// The typed array holding each dtype's elements (float16 and bfloat16 as their bit patterns).
const ARRAYS = {
  float32: Float32Array, uint8: Uint8Array, int8: Int8Array, uint16: Uint16Array, int16: Int16Array,
  int32: Int32Array, int64: BigInt64Array, bool: Uint8Array, float16: Uint16Array, float64: Float64Array,
  uint32: Uint32Array, uint64: BigUint64Array, bfloat16: Uint16Array,
};

/** An error of the C API: .code is its status name ("shape", "bad_model", ...). */
class TareError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'TareError';
    this.code = code;
  }
}

function invalid(message) {
  return new TareError('invalid_argument', message);
}

/** `dims` as an array of non-negative safe integers, or a TareError naming `what`. */
function checkDims(dims, what) {
  if (!Array.isArray(dims)) throw invalid(`${what}: dims must be an array of integers`);
  for (const d of dims) {
    if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 0) {
      throw invalid(`${what}: dims must be non-negative integers, got [${dims.map(String).join(', ')}]`);
    }
  }
  return dims;
}

class Runtime {
  constructor(M) {
    this.M = M;
  }
  /** Throws a TareError unless `status` is TARE_OK (0). */
  check(status) {
    if (status === 0) return;
    const M = this.M;
    // "TARE_ERROR_SHAPE" -> "shape", as the Python module's tare.Error.code.
    const code = M.UTF8ToString(M._tare_status_name(status)).replace(/^TARE_ERROR_/, '').toLowerCase();
    throw new TareError(code, M.UTF8ToString(M._tare_last_error()));
  }
  /** `n` bytes of the module's memory (free with _free), or a TareError when the heap is full. */
  alloc(n) {
    const p = this.M._malloc(n);
    if (!p) throw new TareError('limit_exceeded', `out of memory for ${n} bytes (the heap is at most 2 GB)`);
    return p;
  }
  /** A NUL-terminated copy of `s` in the module's memory (free with _free). */
  cstring(s) {
    const n = this.M.lengthBytesUTF8(s) + 1;
    const p = this.alloc(n);
    this.M.stringToUTF8(s, p, n);
    return p;
  }
  /** The dims at pointer `p` (int64, `rank` of them) as numbers. */
  dims(p, rank) {
    const out = [];
    for (let i = 0; i < rank; ++i) out.push(Number(this.readI64(p + 8 * i)));
    return out;
  }
  readI64(p) {
    const lo = this.M.getValue(p, 'i32') >>> 0, hi = this.M.getValue(p + 4, 'i32');
    return hi * 4294967296 + lo;
  }
  /** tare's version string. */
  version() {
    return this.M.UTF8ToString(this.M._tare_version());
  }
  /** The backends built in, comma-separated ("ref,ref64"). */
  backends() {
    return this.M.UTF8ToString(this.M._tare_backends());
  }
  /** Loads a .tare model from its bytes (copied into the module's memory, 64-byte aligned). */
  loadModel(bytes) {
    const M = this.M;
    if (!(bytes instanceof Uint8Array) && !(bytes instanceof ArrayBuffer)) {
      throw invalid('loadModel: expected the bytes of a .tare file as a Uint8Array (or Buffer) or an ArrayBuffer');
    }
    const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    const buf = M._tare_wasm_alloc64(u8.length);
    if (!buf) throw new TareError('limit_exceeded', `out of memory for a model of ${u8.length} bytes`);
    M.HEAPU8.set(u8, buf);
    let out;
    try {
      out = this.alloc(4);
    } catch (e) {
      M._free(buf);
      throw e;
    }
    try {
      this.check(M._tare_model_load_buffer(buf, u8.length, out));
      return new Model(this, M.getValue(out, 'i32'), buf);
    } catch (e) {
      M._free(buf);
      throw e;
    } finally {
      M._free(out);
    }
  }
}

class Model {
  constructor(rt, handle, buffer) {
    this.rt = rt;
    this.handle = handle;
    this.buffer = buffer;
    this.sessions = 0;
    this.inputs = this.io(0);
    this.outputs = this.io(1);
  }
  io(kind) {
    const M = this.rt.M;
    const tmp = this.rt.alloc(32);
    try {
      this.rt.check(M._tare_model_io_count(this.handle, kind, tmp));
      const n = M.getValue(tmp, 'i32');
      const list = [];
      for (let i = 0; i < n; ++i) {
        this.rt.check(M._tare_model_io(this.handle, kind, i, tmp, tmp + 4, tmp + 8, tmp + 16));
        const rank = this.rt.readI64(tmp + 16);
        list.push({
          name: M.UTF8ToString(M.getValue(tmp, 'i32')),
          dtype: DTYPES[M.getValue(tmp + 4, 'i32')] || 'undefined',
          dims: rank < 0 ? null : this.rt.dims(M.getValue(tmp + 8, 'i32'), rank),
        });
      }
      return list;
    } finally {
      M._free(tmp);
    }
  }
  /** A session on `options.backends` ("ref" by default; "ref64" computes in double). */
  createSession(options = {}) {
    const M = this.rt.M;
    if (options === null || typeof options !== 'object') throw invalid('createSession: options must be an object');
    for (const k of Object.keys(options)) {
      if (!['backends', 'maxTensorBytes', 'maxArenaBytes'].includes(k)) {
        throw invalid(`createSession: unknown option '${k}' (backends, maxTensorBytes, maxArenaBytes)`);
      }
    }
    const backends = options.backends === undefined ? 'ref' : options.backends;
    if (typeof backends !== 'string' || backends.includes('\0')) throw invalid('createSession: backends must be a string such as "ref"');
    for (const k of ['maxTensorBytes', 'maxArenaBytes']) {
      const v = options[k];
      if (v !== undefined && (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0)) {
        throw invalid(`createSession: ${k} must be a positive integer (bytes)`);
      }
    }
    const tmp = this.rt.alloc(4);
    let opts = 0;
    try {
      this.rt.check(M._tare_options_create(tmp));
      opts = M.getValue(tmp, 'i32');
      const b = this.rt.cstring(backends);
      try {
        this.rt.check(M._tare_options_set_backends(opts, b));
      } finally {
        M._free(b);
      }
      // The uint64 limits: Emscripten passes a 64-bit argument as two 32-bit halves (low, high).
      const setLimit = (fn, v) => v !== undefined && this.rt.check(fn(opts, v % 4294967296, Math.floor(v / 4294967296)));
      setLimit(M._tare_options_set_max_tensor_bytes, options.maxTensorBytes);
      setLimit(M._tare_options_set_max_arena_bytes, options.maxArenaBytes);
      this.rt.check(M._tare_session_create(this.handle, opts, tmp));
      ++this.sessions;
      return new Session(this, M.getValue(tmp, 'i32'));
    } finally {
      if (opts) M._tare_options_free(opts);
      M._free(tmp);
    }
  }
  /** Frees the model; its bytes stay until its last session is freed too. */
  free() {
    if (!this.handle) return;
    this.rt.M._tare_model_free(this.handle);
    this.handle = 0;
    this.release();
  }
  release() {
    if (!this.handle && this.sessions === 0 && this.buffer) {
      this.rt.M._free(this.buffer);
      this.buffer = 0;
    }
  }
}

class Session {
  constructor(model, handle) {
    this.model = model;
    this.rt = model.rt;
    this.handle = handle;
  }
  /**
   * Runs the model. `feeds`: {inputName: {data: TypedArray, dims: [..], dtype?}} (dtype defaults
   * to the model's declared one). Returns the outputs in graph order as
   * [{name, dtype, dims, data}], each data a copy (a typed array of ARRAYS[dtype]).
   */
  run(feeds) {
    const M = this.rt.M;
    if (feeds === null || typeof feeds !== 'object') throw invalid('run: feeds must be an object {inputName: {data, dims}}');
    const names = Object.keys(feeds);
    for (const name of names) {
      const f = feeds[name];
      if (f === null || typeof f !== 'object' || !ArrayBuffer.isView(f.data) || f.data instanceof DataView) {
        throw invalid(`run: input '${name}' must be {data: a typed array, dims: [...]}`);
      }
      checkDims(f.dims, `run: input '${name}'`);
      const declared = this.model.inputs.find((x) => x.name === name);
      const dtype = f.dtype || (declared && declared.dtype) || 'float32';
      if (!Object.prototype.hasOwnProperty.call(CODES, dtype)) throw invalid(`run: input '${name}': unknown dtype '${dtype}'`);
      // The typed array must be the dtype's own (bool: Uint8Array; float16, bfloat16: Uint16Array of their bits).
      if (!(f.data instanceof ARRAYS[dtype])) {
        throw invalid(`run: input '${name}' is ${dtype}: its data must be a ${ARRAYS[dtype].name}, got a ${f.data.constructor.name}`);
      }
    }
    const allocs = [], tensors = [];
    try {
      const namePtrs = this.rt.alloc(4 * Math.max(1, names.length));
      allocs.push(namePtrs);
      const tensorPtrs = this.rt.alloc(4 * Math.max(1, names.length));
      allocs.push(tensorPtrs);
      names.forEach((name, i) => {
        const f = feeds[name];
        const declared = this.model.inputs.find((x) => x.name === name);
        const dtype = f.dtype || (declared && declared.dtype) || 'float32';
        const bytes = new Uint8Array(f.data.buffer, f.data.byteOffset, f.data.byteLength);
        const data = M._tare_wasm_alloc64(Math.max(1, bytes.length));
        if (!data) throw new TareError('limit_exceeded', `run: out of memory for input '${name}' (${bytes.length} bytes; the heap is at most 2 GB)`);
        allocs.push(data);
        const dims = this.rt.alloc(8 * Math.max(1, f.dims.length));
        allocs.push(dims);
        const out = this.rt.alloc(4);
        allocs.push(out);
        M.HEAPU8.set(bytes, data);
        f.dims.forEach((d, k) => {
          M.setValue(dims + 8 * k, d % 4294967296, 'i32');
          M.setValue(dims + 8 * k + 4, Math.floor(d / 4294967296), 'i32');
        });
        const name_c = this.rt.cstring(name);
        allocs.push(name_c);
        this.rt.check(M._tare_tensor_create(CODES[dtype], dims, f.dims.length, data, bytes.length, out));
        tensors.push(M.getValue(out, 'i32'));
        M.setValue(namePtrs + 4 * i, name_c, 'i32');
        M.setValue(tensorPtrs + 4 * i, tensors[i], 'i32');
      });
      this.rt.check(M._tare_session_run(this.handle, namePtrs, tensorPtrs, names.length));
      return this.outputs();
    } finally {
      tensors.forEach((t) => M._tare_tensor_free(t));
      allocs.forEach((p) => M._free(p));
    }
  }
  outputs() {
    const M = this.rt.M;
    const tmp = this.rt.alloc(32);
    try {
      this.rt.check(M._tare_session_output_count(this.handle, tmp));
      const n = M.getValue(tmp, 'i32'), list = [];
      for (let i = 0; i < n; ++i) {
        this.rt.check(M._tare_session_output(this.handle, i, tmp, tmp + 4));
        const name = M.UTF8ToString(M.getValue(tmp, 'i32'));
        this.rt.check(M._tare_tensor_info(M.getValue(tmp + 4, 'i32'), tmp + 8, tmp + 12, tmp + 16, tmp + 20, tmp + 24));
        const dtype = DTYPES[M.getValue(tmp + 8, 'i32')];
        const dims = this.rt.dims(M.getValue(tmp + 12, 'i32'), M.getValue(tmp + 16, 'i32'));
        const ptr = M.getValue(tmp + 20, 'i32'), bytes = M.getValue(tmp + 24, 'i32') >>> 0;
        const copy = M.HEAPU8.slice(ptr, ptr + bytes);
        list.push({name, dtype, dims, data: new ARRAYS[dtype](copy.buffer, 0, bytes / ARRAYS[dtype].BYTES_PER_ELEMENT)});
      }
      return list;
    } finally {
      M._free(tmp);
    }
  }
  free() {
    if (!this.handle) return;
    this.rt.M._tare_session_free(this.handle);
    this.handle = 0;
    --this.model.sessions;
    this.model.release();
  }
}

/**
 * Loads the WebAssembly module: options.factory, else (node) tare_wasm.js next to this file, else
 * (a page that loaded tare_wasm.js with a <script> tag) its global createTareWasm.
 */
async function init(options = {}) {
  const factory = options.factory ||
      (typeof require === 'function' ? require('./tare_wasm.js') : globalThis.createTareWasm);
  if (typeof factory !== 'function') throw invalid('init: tare_wasm.js is not loaded (load it before tare.js in a page)');
  return new Runtime(await factory());
}

// node: module.exports; a page: the global `tare` (platforms/wasm/demo.html).
if (typeof module !== 'undefined' && module.exports) module.exports = {init, TareError, DTYPES, ARRAYS};
else globalThis.tare = {init, TareError, DTYPES, ARRAYS};
