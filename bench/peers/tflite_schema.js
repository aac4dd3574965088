// tflite_schema.js: a small reader of the TFLite flatbuffer ("TFL3", tensorflow/lite/schema/schema.fbs),
// written by hand with no dependencies, for bench/peers/tflite_run.js. It reads what the runner needs:
// subgraph 0's tensors (name, shape, type, buffer), inputs, outputs and operators (op code, inputs,
// outputs), the op code table (builtin and custom names) and the signature keys; and cutModel(), which
// turns an intermediate tensor into a model output.
// Field numbers below are the schema's field ids (the vtable slot is 4 + 2 * id).
'use strict';

// BuiltinOperator, in enum order (0..161); later codes (STABLEHLO_*, ...) print as BUILTIN_<code>.
const BUILTIN_OPS = ('ADD AVERAGE_POOL_2D CONCATENATION CONV_2D DEPTHWISE_CONV_2D DEPTH_TO_SPACE DEQUANTIZE EMBEDDING_LOOKUP FLOOR ' +
  'FULLY_CONNECTED HASHTABLE_LOOKUP L2_NORMALIZATION L2_POOL_2D LOCAL_RESPONSE_NORMALIZATION LOGISTIC LSH_PROJECTION LSTM ' +
  'MAX_POOL_2D MUL RELU RELU_N1_TO_1 RELU6 RESHAPE RESIZE_BILINEAR RNN SOFTMAX SPACE_TO_DEPTH SVDF TANH CONCAT_EMBEDDINGS ' +
  'SKIP_GRAM CALL CUSTOM EMBEDDING_LOOKUP_SPARSE PAD UNIDIRECTIONAL_SEQUENCE_RNN GATHER BATCH_TO_SPACE_ND SPACE_TO_BATCH_ND ' +
  'TRANSPOSE MEAN SUB DIV SQUEEZE UNIDIRECTIONAL_SEQUENCE_LSTM STRIDED_SLICE BIDIRECTIONAL_SEQUENCE_RNN EXP TOPK_V2 SPLIT ' +
  'LOG_SOFTMAX DELEGATE BIDIRECTIONAL_SEQUENCE_LSTM CAST PRELU MAXIMUM ARG_MAX MINIMUM LESS NEG PADV2 GREATER GREATER_EQUAL ' +
  'LESS_EQUAL SELECT SLICE SIN TRANSPOSE_CONV SPARSE_TO_DENSE TILE EXPAND_DIMS EQUAL NOT_EQUAL LOG SUM SQRT RSQRT SHAPE POW ' +
  'ARG_MIN FAKE_QUANT REDUCE_PROD REDUCE_MAX PACK LOGICAL_OR ONE_HOT LOGICAL_AND LOGICAL_NOT UNPACK REDUCE_MIN FLOOR_DIV ' +
  'REDUCE_ANY SQUARE ZEROS_LIKE FILL FLOOR_MOD RANGE RESIZE_NEAREST_NEIGHBOR LEAKY_RELU SQUARED_DIFFERENCE MIRROR_PAD ABS ' +
  'SPLIT_V UNIQUE CEIL REVERSE_V2 ADD_N GATHER_ND COS WHERE RANK ELU REVERSE_SEQUENCE MATRIX_DIAG QUANTIZE MATRIX_SET_DIAG ' +
  'ROUND HARD_SWISH IF WHILE NON_MAX_SUPPRESSION_V4 NON_MAX_SUPPRESSION_V5 SCATTER_ND SELECT_V2 DENSIFY SEGMENT_SUM ' +
  'BATCH_MATMUL PLACEHOLDER_FOR_GREATER_OP_CODES CUMSUM CALL_ONCE BROADCAST_TO RFFT2D CONV_3D IMAG REAL COMPLEX_ABS HASHTABLE ' +
  'HASHTABLE_FIND HASHTABLE_IMPORT HASHTABLE_SIZE REDUCE_ALL CONV_3D_TRANSPOSE VAR_HANDLE READ_VARIABLE ASSIGN_VARIABLE ' +
  'BROADCAST_ARGS RANDOM_STANDARD_NORMAL BUCKETIZE RANDOM_UNIFORM MULTINOMIAL GELU DYNAMIC_UPDATE_SLICE RELU_0_TO_1 ' +
  'UNSORTED_SEGMENT_PROD UNSORTED_SEGMENT_MAX UNSORTED_SEGMENT_SUM ATAN2 UNSORTED_SEGMENT_MIN SIGN BITCAST BITWISE_XOR ' +
  'RIGHT_SHIFT').split(' ');
const CUSTOM = 32;
// TensorType, in enum order.
const TENSOR_TYPES = ('float32 float16 int32 uint8 int64 string bool int16 complex64 int8 float64 complex128 uint64 resource ' +
  'variant uint32 uint16 int4 bfloat16').split(' ');

// A flatbuffer table at byte `pos` of `dv`; field accessors take the schema's field id.
class Table {
  constructor(dv, pos) {
    this.dv = dv;
    this.pos = pos;
    this.vt = pos - dv.getInt32(pos, true);
    this.vtLen = dv.getUint16(this.vt, true);
  }
  off(id) { const o = 4 + 2 * id; return o < this.vtLen ? this.dv.getUint16(this.vt + o, true) : 0; }
  i8(id, d = 0) { const o = this.off(id); return o ? this.dv.getInt8(this.pos + o) : d; }
  u8(id, d = 0) { const o = this.off(id); return o ? this.dv.getUint8(this.pos + o) : d; }
  i32(id, d = 0) { const o = this.off(id); return o ? this.dv.getInt32(this.pos + o, true) : d; }
  u32(id, d = 0) { const o = this.off(id); return o ? this.dv.getUint32(this.pos + o, true) : d; }
  ref(id) { const o = this.off(id); if (!o) return 0; const p = this.pos + o; return p + this.dv.getUint32(p, true); }
  table(id) { const p = this.ref(id); return p ? new Table(this.dv, p) : null; }
  str(id) {
    const p = this.ref(id);
    if (!p) return null;
    return Buffer.from(this.dv.buffer, this.dv.byteOffset + p + 4, this.dv.getUint32(p, true)).toString('utf8');
  }
  vec(id) { const p = this.ref(id); return p ? { start: p + 4, len: this.dv.getUint32(p, true) } : null; }
  i32vec(id) {
    const v = this.vec(id);
    if (!v) return [];
    return Array.from({ length: v.len }, (_, k) => this.dv.getInt32(v.start + 4 * k, true));
  }
  tables(id) {
    const v = this.vec(id);
    if (!v) return [];
    return Array.from({ length: v.len }, (_, k) => { const p = v.start + 4 * k; return new Table(this.dv, p + this.dv.getUint32(p, true)); });
  }
}

// Parses `buf` (a Buffer or Uint8Array holding a .tflite file). Returns {dv, version, description,
// opcodes: [{name, code, custom, version}], buffers: [byte length], graph: subgraph 0 as
// {tensors: [{index, name, shape, type, buffer, constant, sparse}], inputs, outputs, operators:
// [{index, op, inputs, outputs}], table}, subgraphs (count), signatures (keys)}.
function parseModel(buf) {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (buf.byteLength < 8 || Buffer.from(buf.buffer, buf.byteOffset + 4, 4).toString('latin1') !== 'TFL3') {
    throw new Error('not a TFLite flatbuffer (no "TFL3" identifier)');
  }
  const model = new Table(dv, dv.getUint32(0, true));
  const opcodes = model.tables(1).map((t) => {
    const code = Math.max(t.i8(0, 0), t.i32(3, 0));  // deprecated_builtin_code (int8) vs builtin_code (int32)
    const custom = t.str(1);
    return { code, custom, version: t.i32(2, 1), name: code === CUSTOM ? custom : (BUILTIN_OPS[code] || `BUILTIN_${code}`) };
  });
  const buffers = model.tables(4).map((t) => { const v = t.vec(0); return v ? v.len : t.u32(2, 0); });
  const subgraphs = model.tables(2);
  if (!subgraphs.length) throw new Error('the model has no subgraph');
  const g = subgraphs[0];
  const tensors = g.tables(0).map((t, index) => ({
    index, name: t.str(3), shape: t.i32vec(0), type: TENSOR_TYPES[t.i8(1, 0)] || `type${t.i8(1, 0)}`,
    buffer: t.u32(2, 0), constant: (buffers[t.u32(2, 0)] || 0) > 0, sparse: !!t.table(6),
  }));
  const operators = g.tables(3).map((o, index) => ({
    index, op: opcodes[o.u32(0, 0)].name, inputs: o.i32vec(1), outputs: o.i32vec(2),
  }));
  return {
    dv, version: model.u32(0, 0), description: model.str(3), opcodes, buffers,
    graph: { tensors, inputs: g.i32vec(1), outputs: g.i32vec(2), operators, table: g },
    subgraphs: subgraphs.length, signatures: model.tables(7).map((s) => s.str(2)),
  };
}

// JSON-friendly summary: I/O, op codes, op counts, tensor types.
function inventory(m) {
  const g = m.graph;
  const io = (i) => ({ index: i, name: g.tensors[i].name, shape: g.tensors[i].shape, dtype: g.tensors[i].type });
  const opCounts = {};
  for (const op of g.operators) opCounts[op.op] = (opCounts[op.op] || 0) + 1;
  const tensorTypes = {};
  for (const t of g.tensors) {
    const k = (t.constant ? 'const ' : '') + (t.sparse ? 'sparse ' : '') + t.type;
    tensorTypes[k] = (tensorTypes[k] || 0) + 1;
  }
  return {
    schemaVersion: m.version, description: m.description, subgraphs: m.subgraphs, signatures: m.signatures,
    inputs: g.inputs.map(io), outputs: g.outputs.map(io),
    opcodes: m.opcodes.map(({ name, code, version }) => ({ name, builtinCode: code, version })),
    operators: g.operators.length, opCounts, tensorTypes,
  };
}

// The index of the operator that writes each tensor (-1 for inputs and constants).
function producers(m) {
  const p = new Array(m.graph.tensors.length).fill(-1);
  for (const op of m.graph.operators) for (const t of op.outputs) if (t >= 0) p[t] = op.index;
  return p;
}

// A copy of the model whose subgraph 0 runs only its first `nOps` operators and whose outputs are the
// tensors `outputs` (indices). It patches the two vectors' lengths in place (the cut-off bytes just become
// unreferenced), so it can return at most as many tensors as the model has outputs, and it keeps a prefix of
// the operators in flatbuffer order, which TFLite executes in that order.
function cutModel(bytes, nOps, outputs) {
  const buf = Buffer.from(bytes);  // a copy
  const m = parseModel(buf);
  const g = m.graph;
  if (!(Number.isInteger(nOps) && nOps >= 1 && nOps <= g.operators.length)) throw new Error(`cut: the operator count must be 1..${g.operators.length}, got ${nOps}`);
  if (!outputs.length || outputs.length > g.outputs.length) throw new Error(`cut: 1..${g.outputs.length} tensor(s) for this model, got ${outputs.length}`);
  const ops = g.table.vec(3);
  m.dv.setUint32(ops.start - 4, nOps, true);
  const outs = g.table.vec(2);
  m.dv.setUint32(outs.start - 4, outputs.length, true);
  outputs.forEach((t, k) => m.dv.setInt32(outs.start + 4 * k, t, true));
  return buf;
}

// A copy of the model whose subgraph 0 has the tensors `outputs` (indices) as its outputs, every
// operator kept: a new int32 vector is appended (4-byte aligned) after the last byte of the file and
// the subgraph's `outputs` field is pointed at it (a flatbuffer offset only has to point forward, and
// nothing else moves, so buffers stored after the flatbuffer keep their offsets).
function exposeTensors(bytes, outputs) {
  const m = parseModel(Buffer.from(bytes));
  const g = m.graph;
  const field = g.table.off(2);
  if (!field) throw new Error('expose: subgraph 0 has no outputs field');
  for (const t of outputs) if (!(Number.isInteger(t) && t >= 0 && t < g.tensors.length)) throw new Error(`expose: no tensor ${t}`);
  const pad = (4 - (bytes.length % 4)) % 4;
  const buf = Buffer.alloc(bytes.length + pad + 4 + 4 * outputs.length);
  Buffer.from(bytes).copy(buf, 0);
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const vec = bytes.length + pad;
  dv.setUint32(vec, outputs.length, true);
  outputs.forEach((t, k) => dv.setInt32(vec + 4 + 4 * k, t, true));
  const at = g.table.pos + field;
  dv.setUint32(at, vec - at, true);
  return buf;
}

module.exports = { parseModel, inventory, producers, cutModel, exposeTensors, BUILTIN_OPS, TENSOR_TYPES };
