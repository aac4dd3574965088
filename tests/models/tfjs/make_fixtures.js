#!/usr/bin/env node
// make_fixtures.js — the committed TF.js fixtures of tests/models/tfjs/fixtures/, made with TF.js
// 4.22 itself (bench/peers/node_modules: cd bench/peers && npm install --ignore-scripts).
//
//   node tests/models/tfjs/make_fixtures.js [OUT]     (default: tests/models/tfjs/fixtures)
//
// Each fixture is a folder with model.json, its weight shard(s), input_<k>.npy, output_<k>.npy and
// result.json ({inputs, outputs: [{name, dtype, shape, file}]}, files relative to the folder), the
// outputs computed by TF.js's cpu backend on the seeded inputs: tests/models/tfjs/check.py compares
// tare's outputs with them.
//   layers_functional  Keras functional model (tf.model): Conv2D same/valid with activations,
//                      DepthwiseConv2D, SeparableConv2D, BatchNormalization, ReLU(max 6), LeakyReLU,
//                      ZeroPadding2D, Max/AveragePooling2D (same), UpSampling2D, Concatenate, Add,
//                      GlobalAveragePooling2D, Dense softmax; weights written uint8, uint16 and float16
//                      quantized (TF.js's quantization: q = round((w - min) / scale)).
//   layers_sequential  tf.sequential: Conv2D, MaxPooling2D, Flatten, Dense tanh/elu/sigmoid, Dropout,
//                      Reshape, Activation(relu6), Dense.
//   layers_text        Embedding (uint8 weights), LSTM (return_sequences, hard_sigmoid gates), GRU
//                      (sigmoid gates), LSTM go_backwards, SimpleRNN relu, Concatenate, Dense softmax.
//   graph_conv         a GraphDef written here: Conv2D, _FusedConv2D (BiasAdd + Relu6 / Prelu /
//                      LeakyRelu), FusedDepthwiseConv2dNative, DepthwiseConv2dNative (dilated),
//                      MaxPool / AvgPool SAME, BiasAdd, FusedBatchNormV3, ResizeBilinear
//                      (half_pixel_centers, align_corners), ResizeNearestNeighbor, DepthToSpace,
//                      MirrorPad, Pad, ConcatV2, Mean keep_dims, _FusedMatMul, Softmax.
//   graph_dilated      SpaceToBatchND -> Conv2D / DepthwiseConv2dNative -> BatchToSpaceND (dilated
//                      convolutions, with crops), Conv2DBackpropInput SAME and VALID.
//   graph_detect       NonMaxSuppressionV3, V4 (pad_to_max_output_size, valid_outputs), V5 (scores),
//                      Atan2 (every quadrant, the origin), SparseToDense.
//   graph_math         elementwise math, comparisons, Select, reductions, ArgMax, TopKV2, Cast.
//   graph_shape        Reshape, Squeeze, ExpandDims, Transpose, Tile, Pack, Unpack, Split, SplitV,
//                      Slice, StridedSlice (masks), GatherV2, GatherNd, Shape, Fill, ZerosLike, Range,
//                      MirrorPad SYMMETRIC, BroadcastTo, Where (one input).
//   graph_loop         TF1 while loops (Enter, Merge, Switch, NextIteration, Exit, LoopCond) with a
//                      loop invariant computed at run time; TensorListFromTensor / GetItem /
//                      Reserve / SetItem / Stack / Length; TensorArrayV3 / ScatterV3 / ReadV3 /
//                      WriteV3 / GatherV3 / SizeV3; StridedSlice new_axis and ellipsis; Slice and
//                      Pad with run-time begin, size and paddings; two TF1 tf.conds (Switch, Merge,
//                      a pivot with a branch Const under a control input), one taking each branch.
'use strict';
const fs = require('fs');
const path = require('path');
const { writeNpy, requirePeer, mulberry32 } = require('../../../bench/study/npy.js');

const OUT = process.argv[2] || path.join(__dirname, 'fixtures');

const rnd = mulberry32(20261204);
const uniform = (n, lo = -1, hi = 1) => Float32Array.from({ length: n }, () => lo + (hi - lo) * rnd());
const count = (shape) => shape.reduce((a, b) => a * b, 1);

// ---- GraphDef JSON helpers (TensorFlow's JSON form: int64 as strings, bytes as base64) ----------
const b64 = (s) => Buffer.from(s).toString('base64');
const A = {
  ints: (v) => ({ list: { i: v.map(String) } }),
  i: (v) => ({ i: String(v) }),
  f: (v) => ({ f: v }),
  b: (v) => ({ b: v }),
  s: (v) => ({ s: b64(v) }),
  strs: (v) => ({ list: { s: v.map(b64) } }),
  type: (t) => ({ type: t }),
  shape: (d) => ({ shape: { dim: d.map((x) => ({ size: String(x) })) } }),
};
const kDt = { float32: 'DT_FLOAT', int32: 'DT_INT32', bool: 'DT_BOOL' };

class GraphBuilder {
  constructor() { this.nodes = []; this.weights = []; this.bufs = []; }
  node(name, op, inputs = [], attr = {}) { this.nodes.push({ name, op, input: inputs, attr }); return name; }
  placeholder(name, shape, dtype = 'float32') { return this.node(name, 'Placeholder', [], { shape: A.shape(shape), dtype: A.type(kDt[dtype]) }); }
  // A Const whose value is in the weights manifest; quant: undefined | 'float16' | 'uint8'.
  const(name, shape, data, dtype = 'float32', quant = undefined) {
    const n = this.node(name, 'Const', [], { value: { tensor: { dtype: kDt[dtype], tensorShape: { dim: shape.map((x) => ({ size: String(x) })) } } }, dtype: A.type(kDt[dtype]) });
    const spec = { name, shape, dtype };
    if (quant) {
      const q = quantize(data, quant);
      spec.quantization = q.spec;
      this.bufs.push(q.bytes);
    } else {
      const arr = dtype === 'float32' ? Float32Array.from(data) : dtype === 'int32' ? Int32Array.from(data) : Uint8Array.from(data);
      this.bufs.push(Buffer.from(arr.buffer, arr.byteOffset, arr.byteLength));
    }
    this.weights.push(spec);
    return n;
  }
  model(outputs) {
    return {
      json: { format: 'graph-model', generatedBy: 'tare tests/models/tfjs/make_fixtures.js', convertedBy: null,
              modelTopology: { node: this.nodes, versions: { producer: 1 } },
              weightsManifest: [{ paths: ['group1-shard1of1.bin'], weights: this.weights }], outputs },
      shard: Buffer.concat(this.bufs),
    };
  }
}

// TF.js's weight quantization (tfjs-converter's quantize_weights): uint8/uint16 affine with min and
// scale, float16 by rounding to the nearest half.
function quantize(data, dtype) {
  if (dtype === 'float16') {
    const out = new Uint16Array(data.length);
    const f = new Float32Array(1), u = new Uint32Array(f.buffer);
    for (let i = 0; i < data.length; i++) {
      f[0] = data[i];
      const x = u[0], sign = (x >>> 16) & 0x8000, e = ((x >>> 23) & 0xff) - 127 + 15, m = x & 0x7fffff;
      if (e <= 0) out[i] = sign;  // the fixtures hold no value this small
      else {
        let h = sign | (e << 10) | (m >>> 13);
        const rest = m & 0x1fff;
        if (rest > 0x1000 || (rest === 0x1000 && (h & 1))) h++;
        out[i] = h;
      }
    }
    return { spec: { dtype: 'float16' }, bytes: Buffer.from(out.buffer) };
  }
  const levels = dtype === 'uint8' ? 255 : 65535;
  let mn = Math.min(...data), mx = Math.max(...data);
  const scale = (mx - mn) / levels || 1;
  const T = dtype === 'uint8' ? Uint8Array : Uint16Array;
  const q = T.from(data, (v) => Math.round((v - mn) / scale));
  return { spec: { dtype, min: mn, scale }, bytes: Buffer.from(q.buffer) };
}

// ---- layers models: built with TF.js, saved through a handler, weights then quantized ----------
async function saveLayers(tf, model, quant) {
  let art;
  await model.save(tf.io.withSaveHandler(async (a) => { art = a; return { modelArtifactsInfo: { dateSaved: new Date(), modelTopologyType: 'JSON' } }; }));
  const buf = Buffer.from(art.weightData);
  const specs = [];
  const parts = [];
  let off = 0;
  art.weightSpecs.forEach((s, k) => {
    const n = count(s.shape);
    const bytes = buf.subarray(off, off + 4 * n);
    off += 4 * n;
    const q = quant ? quant(s, k) : undefined;
    if (q && s.dtype === 'float32') {
      const r = quantize(new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)), q);
      specs.push({ ...s, quantization: r.spec });
      parts.push(r.bytes);
    } else {
      specs.push(s);
      parts.push(bytes);
    }
  });
  return {
    json: { format: 'layers-model', generatedBy: `TensorFlow.js tfjs-layers v${tf.version.tfjs}`, convertedBy: null, modelTopology: art.modelTopology,
            weightsManifest: [{ paths: ['group1-shard1of1.bin'], weights: specs }] },
    shard: Buffer.concat(parts),
  };
}

async function layersFunctional(tf) {
  const L = tf.layers;
  const x = tf.input({ shape: [12, 12, 3], name: 'image' });
  const c1 = L.conv2d({ filters: 8, kernelSize: 3, padding: 'same', activation: 'relu', name: 'conv1' }).apply(x);
  const bn = L.batchNormalization({ epsilon: 1e-3, name: 'bn1' }).apply(c1);
  const r6 = L.reLU({ maxValue: 6, name: 'relu6' }).apply(bn);
  const dw = L.depthwiseConv2d({ kernelSize: 3, depthMultiplier: 2, padding: 'same', name: 'dw' }).apply(r6);
  const pad = L.zeroPadding2d({ padding: [[1, 0], [0, 1]], name: 'pad' }).apply(dw);
  const sep = L.separableConv2d({ filters: 8, kernelSize: 3, strides: 2, padding: 'valid', activation: 'sigmoid', name: 'sep' }).apply(pad);
  const mp = L.maxPooling2d({ poolSize: 2, strides: 2, padding: 'same', name: 'maxpool' }).apply(r6);
  const ap = L.averagePooling2d({ poolSize: 3, strides: 2, padding: 'same', name: 'avgpool' }).apply(r6);
  const lr = L.leakyReLU({ alpha: 0.1, name: 'leaky' }).apply(ap);
  const cat = L.concatenate({ name: 'concat' }).apply([mp, lr]);
  const c2 = L.conv2d({ filters: 8, kernelSize: 1, activation: 'tanh', name: 'conv2' }).apply(cat);
  const sum = L.add({ name: 'add' }).apply([c2, sep]);
  const up = L.upSampling2d({ size: [2, 2], name: 'up' }).apply(sum);
  const gap = L.globalAveragePooling2d({ name: 'gap' }).apply(up);
  const y = L.dense({ units: 5, activation: 'softmax', name: 'logits' }).apply(gap);
  const feat = L.dense({ units: 4, name: 'features' }).apply(gap);
  const model = tf.model({ inputs: x, outputs: [y, feat], name: 'functional' });
  model.setWeights(model.getWeights().map((w) => {
    const name = w.name || '';
    const v = uniform(w.size, name.includes('variance') ? 0.5 : -0.5, name.includes('variance') ? 1.5 : 0.5);
    return tf.tensor(v, w.shape);
  }));
  // Quantize: uint8 for the convolutions' kernels, uint16 for the dense kernels, float16 for bn.
  return saveLayers(tf, model, (s) => (/conv[12]\/kernel|dw\//.test(s.name) ? 'uint8' : /kernel/.test(s.name) && /logits|features/.test(s.name) ? 'uint16' : /bn1/.test(s.name) ? 'float16' : undefined));
}

async function layersSequential(tf) {
  const L = tf.layers;
  const model = tf.sequential({ name: 'sequential' });
  model.add(L.conv2d({ inputShape: [10, 10, 2], filters: 4, kernelSize: 3, strides: 1, activation: 'elu', name: 'conv' }));
  model.add(L.maxPooling2d({ poolSize: 2, name: 'pool' }));
  model.add(L.flatten({ name: 'flatten' }));
  model.add(L.dense({ units: 12, activation: 'tanh', name: 'fc1' }));
  model.add(L.dropout({ rate: 0.5, name: 'drop' }));
  model.add(L.reshape({ targetShape: [3, 4], name: 'reshape' }));
  model.add(L.activation({ activation: 'relu6', name: 'act' }));
  model.add(L.flatten({ name: 'flatten2' }));
  model.add(L.dense({ units: 3, activation: 'sigmoid', name: 'fc2' }));
  model.setWeights(model.getWeights().map((w) => tf.tensor(uniform(w.size, -0.6, 0.6), w.shape)));
  return saveLayers(tf, model, null);
}

async function layersText(tf) {
  const L = tf.layers;
  const x = tf.input({ shape: [7], name: 'tokens' });
  const e = L.embedding({ inputDim: 20, outputDim: 6, name: 'embed' }).apply(x);
  const s1 = L.lstm({ units: 5, returnSequences: true, name: 'lstm_seq' }).apply(e);  // recurrent_activation hard_sigmoid (TF.js's default)
  const g = L.gru({ units: 4, recurrentActivation: 'sigmoid', name: 'gru' }).apply(s1);
  const back = L.lstm({ units: 3, goBackwards: true, recurrentActivation: 'sigmoid', name: 'lstm_back' }).apply(e);
  const rnn = L.simpleRNN({ units: 3, activation: 'relu', name: 'rnn' }).apply(e);
  const y = L.dense({ units: 3, activation: 'softmax', name: 'classes' }).apply(L.concatenate({ name: 'cat' }).apply([g, back, rnn]));
  const model = tf.model({ inputs: x, outputs: y, name: 'text' });
  model.setWeights(model.getWeights().map((w) => tf.tensor(uniform(w.size, -0.8, 0.8), w.shape)));
  return saveLayers(tf, model, (s) => (/embed/.test(s.name) ? 'uint8' : undefined));
}

function graphConv() {
  const g = new GraphBuilder();
  const x = g.placeholder('x', [-1, 9, 9, 3]);
  const w1 = g.const('w1', [3, 3, 3, 6], uniform(162, -0.5, 0.5), 'float32', 'uint8');
  const c1 = g.node('conv1', 'Conv2D', [x, w1], { strides: A.ints([1, 2, 2, 1]), padding: A.s('SAME'), data_format: A.s('NHWC'), dilations: A.ints([1, 1, 1, 1]) });
  const b1 = g.const('b1', [6], uniform(6));
  const ba = g.node('bias1', 'BiasAdd', [c1, b1], { data_format: A.s('NHWC') });
  const w2 = g.const('w2', [3, 3, 6, 6], uniform(324, -0.4, 0.4), 'float32', 'float16');
  const b2 = g.const('b2', [6], uniform(6));
  const f2 = g.node('fused_relu6', '_FusedConv2D', [ba, w2, b2], { strides: A.ints([1, 1, 1, 1]), padding: A.s('VALID'), data_format: A.s('NHWC'),
    dilations: A.ints([1, 1, 1, 1]), fused_ops: A.strs(['BiasAdd', 'Relu6']), num_args: A.i(1), epsilon: A.f(0) });
  const w3 = g.const('w3', [1, 1, 6, 6], uniform(36, -0.6, 0.6));
  const f2b = g.node('fused_leaky', '_FusedConv2D', [f2, w3, b2], { strides: A.ints([1, 1, 1, 1]), padding: A.s('VALID'), data_format: A.s('NHWC'),
    dilations: A.ints([1, 1, 1, 1]), fused_ops: A.strs(['BiasAdd', 'LeakyRelu']), num_args: A.i(1), leakyrelu_alpha: A.f(0.15) });
  const al = g.const('alpha', [6], uniform(6, 0, 0.5));
  const f3 = g.node('fused_prelu', '_FusedConv2D', [f2b, w2, b2, al], { strides: A.ints([1, 1, 1, 1]), padding: A.s('SAME'), data_format: A.s('NHWC'),
    dilations: A.ints([1, 1, 1, 1]), fused_ops: A.strs(['BiasAdd', 'Prelu']), num_args: A.i(2), epsilon: A.f(0) });
  const dw = g.const('dw', [3, 3, 6, 2], uniform(108, -0.5, 0.5));
  const bd = g.const('bd', [12], uniform(12));
  const f4 = g.node('fused_dw', 'FusedDepthwiseConv2dNative', [f3, dw, bd], { strides: A.ints([1, 1, 1, 1]), padding: A.s('SAME'), data_format: A.s('NHWC'),
    dilations: A.ints([1, 1, 1, 1]), fused_ops: A.strs(['BiasAdd', 'Relu']), num_args: A.i(1) });
  // (Not LeakyRelu: TF.js 4.22 does not read leakyrelu_alpha for FusedDepthwiseConv2dNative and
  // returns NaN for its negative inputs, docs/FINDINGS.md F6; _FusedConv2D below carries it.)
  const dw2 = g.const('dw2', [2, 2, 12, 1], uniform(48, -0.5, 0.5));
  const d5 = g.node('dilated_dw', 'DepthwiseConv2dNative', [f4, dw2], { strides: A.ints([1, 1, 1, 1]), padding: A.s('SAME'), data_format: A.s('NHWC'), dilations: A.ints([1, 2, 2, 1]) });
  const sc = g.const('bn_scale', [12], uniform(12, 0.5, 1.5));
  const of = g.const('bn_offset', [12], uniform(12));
  const mn = g.const('bn_mean', [12], uniform(12));
  const vr = g.const('bn_var', [12], uniform(12, 0.5, 2));
  const bn = g.node('bn', 'FusedBatchNormV3', [d5, sc, of, mn, vr], { epsilon: A.f(0.001), data_format: A.s('NHWC'), is_training: A.b(false) });
  const mp = g.node('maxpool', 'MaxPool', [bn], { ksize: A.ints([1, 3, 3, 1]), strides: A.ints([1, 2, 2, 1]), padding: A.s('SAME'), data_format: A.s('NHWC') });
  const ap = g.node('avgpool', 'AvgPool', [bn], { ksize: A.ints([1, 2, 2, 1]), strides: A.ints([1, 2, 2, 1]), padding: A.s('SAME'), data_format: A.s('NHWC') });
  const sz = g.const('size', [2], [7, 5], 'int32');
  const rb = g.node('resize_half', 'ResizeBilinear', [mp, sz], { align_corners: A.b(false), half_pixel_centers: A.b(true) });
  const ra = g.node('resize_align', 'ResizeBilinear', [ap, sz], { align_corners: A.b(true), half_pixel_centers: A.b(false) });
  const rn = g.node('resize_nearest', 'ResizeNearestNeighbor', [ap, sz], { align_corners: A.b(false), half_pixel_centers: A.b(true) });
  const ax3 = g.const('axis3', [], [3], 'int32');
  const cat = g.node('concat', 'ConcatV2', [rb, ra, rn, ax3], { N: A.i(3) });
  const pads = g.const('pads', [4, 2], [0, 0, 1, 1, 2, 1, 0, 0], 'int32');
  const mpad = g.node('mirror', 'MirrorPad', [cat, pads], { mode: A.s('REFLECT') });
  const zpad = g.node('zpad', 'Pad', [mpad, pads]);
  const d2s = g.node('d2s', 'DepthToSpace', [zpad], { block_size: A.i(2), data_format: A.s('NHWC') });
  const axes = g.const('axes12', [2], [1, 2], 'int32');
  const mean = g.node('mean', 'Mean', [d2s, axes], { keep_dims: A.b(false) });
  const wf = g.const('wfc', [9, 4], uniform(36, -0.5, 0.5), 'float32', 'uint8');
  const bf = g.const('bfc', [4], uniform(4));
  const fc = g.node('fc', '_FusedMatMul', [mean, wf, bf], { transpose_a: A.b(false), transpose_b: A.b(false), fused_ops: A.strs(['BiasAdd', 'Relu']), num_args: A.i(1), epsilon: A.f(0) });
  const sm = g.node('softmax', 'Softmax', [fc]);
  const keep = g.node('mean_keep', 'Mean', [d2s, axes], { keep_dims: A.b(true) });
  return { ...g.model(['softmax', 'mean_keep']), inputs: [{ name: 'x', shape: [2, 9, 9, 3], dtype: 'float32' }], outputs: [sm, keep] };
}

// TensorFlow's dilated convolutions as the TF.js converter keeps them: SpaceToBatchND -> Conv2D /
// DepthwiseConv2dNative (VALID) -> BatchToSpaceND, with paddings that make SAME, and crops.
function graphDilated() {
  const g = new GraphBuilder();
  const x = g.placeholder('x', [1, 7, 7, 3]);
  const i32 = (n, shape, v) => g.const(n, shape, v, 'int32');
  const block = i32('block', [2], [2, 2]);
  // 7x7, 3x3 kernel, rate 2, SAME: pad 2 each side, 1 more at the end to divide by 2, cropped after.
  const s2b = g.node('s2b', 'SpaceToBatchND', [x, block, i32('paddings', [2, 2], [2, 3, 2, 3])]);
  const w = g.const('w', [3, 3, 3, 4], uniform(108, -0.5, 0.5));
  const c = g.node('atrous', 'Conv2D', [s2b, w], { strides: A.ints([1, 1, 1, 1]), padding: A.s('VALID'), data_format: A.s('NHWC'), dilations: A.ints([1, 1, 1, 1]) });
  const b2s = g.node('b2s', 'BatchToSpaceND', [c, block, i32('crops', [2, 2], [0, 1, 0, 1])]);
  const b = g.node('bias', 'BiasAdd', [b2s, g.const('b', [4], uniform(4))], { data_format: A.s('NHWC') });
  const block3 = i32('block3', [2], [3, 3]);
  const s2 = g.node('s2b_dw', 'SpaceToBatchND', [b, block3, i32('paddings3', [2, 2], [3, 5, 3, 5])]);
  const dw = g.node('atrous_dw', 'DepthwiseConv2dNative', [s2, g.const('dw', [3, 3, 4, 1], uniform(36, -0.5, 0.5))],
    { strides: A.ints([1, 1, 1, 1]), padding: A.s('VALID'), data_format: A.s('NHWC'), dilations: A.ints([1, 1, 1, 1]) });
  const y = g.node('b2s_dw', 'BatchToSpaceND', [dw, block3, i32('crops3', [2, 2], [0, 2, 0, 2])]);
  // Transposed convolutions (Conv2DBackpropInput): SAME stride 2 to 13x14 (odd and even), VALID
  // stride 2 to 15x16 (16: the last column gets no contribution).
  const wt = g.const('wt', [3, 3, 5, 4], uniform(180, -0.5, 0.5));
  const t1 = g.node('deconv_same', 'Conv2DBackpropInput', [i32('sizes1', [4], [1, 13, 14, 5]), wt, y],
    { strides: A.ints([1, 2, 2, 1]), padding: A.s('SAME'), data_format: A.s('NHWC'), dilations: A.ints([1, 1, 1, 1]) });
  const t2 = g.node('deconv_valid', 'Conv2DBackpropInput', [i32('sizes2', [4], [1, 15, 16, 5]), wt, y],
    { strides: A.ints([1, 2, 2, 1]), padding: A.s('VALID'), data_format: A.s('NHWC'), dilations: A.ints([1, 1, 1, 1]) });
  return { ...g.model([y, t1, t2]), inputs: [{ name: 'x', shape: [1, 7, 7, 3], dtype: 'float32' }], outputs: [y, t1, t2] };
}

// Detection post-processing: NonMaxSuppressionV3, V5 (scores, padding), Atan2, SparseToDense.
function graphDetect() {
  const g = new GraphBuilder();
  const boxes = g.placeholder('boxes', [8, 4]);
  const scores = g.placeholder('scores', [8]);
  const i32 = (n, v) => g.const(n, [], [v], 'int32');
  const f32 = (n, v) => g.const(n, [], [v]);
  const ops = [];
  const v3 = g.node('nms_v3', 'NonMaxSuppressionV3', [boxes, scores, i32('max3', 5), f32('iou3', 0.3), f32('score3', 0.2)]);
  ops.push(g.node('nms_v3_f', 'Cast', [v3], { SrcT: A.type('DT_INT32'), DstT: A.type('DT_FLOAT') }));
  // (TF.js 4.22 does not pad V5's outputs to max_output_size, docs/FINDINGS.md F8: V5 runs unpadded
  // here and V4 carries pad_to_max_output_size.)
  g.node('nms_v5', 'NonMaxSuppressionV5', [boxes, scores, i32('max5', 8), f32('iou5', 0.5), f32('score5', 0.0), f32('sigma5', 0)],
    { pad_to_max_output_size: A.b(false) });
  ops.push(g.node('nms_v5_f', 'Cast', ['nms_v5'], { SrcT: A.type('DT_INT32'), DstT: A.type('DT_FLOAT') }));
  ops.push(g.node('nms_v5_scores', 'Identity', ['nms_v5:1']));
  g.node('nms_v4', 'NonMaxSuppressionV4', [boxes, scores, i32('max4', 8), f32('iou4', 0.4), f32('score4', 0.3)], { pad_to_max_output_size: A.b(true) });
  ops.push(g.node('nms_v4_f', 'Cast', ['nms_v4'], { SrcT: A.type('DT_INT32'), DstT: A.type('DT_FLOAT') }));
  ops.push(g.node('nms_v4_valid', 'Cast', ['nms_v4:1'], { SrcT: A.type('DT_INT32'), DstT: A.type('DT_FLOAT') }));
  const [yy, xx] = ['ycol', 'xcol'].map((nm, k) => g.node(nm, 'Squeeze', [g.node(`${nm}_slice`, 'Slice', [boxes, g.const(`${nm}_b`, [2], [0, k], 'int32'), g.const(`${nm}_s`, [2], [-1, 1], 'int32')])], { squeeze_dims: A.ints([1]) }));
  const centered = g.node('centered', 'Sub', [xx, f32('half', 0.5)]);
  ops.push(g.node('atan2', 'Atan2', [yy, centered]));
  ops.push(g.node('atan2_zero', 'Atan2', [g.const('zeros4', [4], [0, 1, -1, 0]), g.const('xs4', [4], [0, 0, -2, -3])]));
  ops.push(g.node('sparse', 'SparseToDense', [g.const('sp_idx', [3, 2], [0, 1, 2, 3, 1, 0], 'int32'), g.const('sp_shape', [2], [3, 4], 'int32'),
    g.const('sp_vals', [3], [5, -6, 7]), f32('sp_default', 0.5)], { validate_indices: A.b(true) }));
  return { ...g.model(ops), inputs: [{ name: 'boxes', shape: [8, 4], dtype: 'float32', gen: 'boxes' }, { name: 'scores', shape: [8], dtype: 'float32', gen: 'scores' }], outputs: ops };
}

function graphMath() {
  const g = new GraphBuilder();
  const a = g.placeholder('a', [2, 3, 4]);
  const b = g.placeholder('b', [3, 4]);
  const c = g.const('c', [4], uniform(4, 0.5, 2));
  const ops = [];
  const bin = (n, op, x, y) => { ops.push(g.node(n, op, [x, y])); return n; };
  const un = (n, op, x) => { ops.push(g.node(n, op, [x])); return n; };
  bin('add', 'AddV2', a, b); bin('sub', 'Sub', a, c); bin('mul', 'Mul', a, b); bin('div', 'RealDiv', a, c);
  bin('max', 'Maximum', a, b); bin('min', 'Minimum', a, b); bin('sqdiff', 'SquaredDifference', a, b);
  bin('floordiv', 'FloorDiv', a, c); bin('floormod', 'FloorMod', a, c);
  const absA = un('abs', 'Abs', a);
  bin('pow', 'Pow', absA, c);
  un('neg', 'Neg', a); un('exp', 'Exp', a); un('log', 'Log', absA); un('sqrt', 'Sqrt', absA); un('rsqrt', 'Rsqrt', c);
  un('square', 'Square', a); un('reciprocal', 'Reciprocal', c); un('floor', 'Floor', a); un('ceil', 'Ceil', a);
  un('sin', 'Sin', a); un('cos', 'Cos', a); un('sigmoid', 'Sigmoid', a); un('tanh', 'Tanh', a); un('relu', 'Relu', a);
  un('elu', 'Elu', a); un('selu', 'Selu', a); un('softplus', 'Softplus', a); un('relu6', 'Relu6', g.node('scaled', 'Mul', [a, g.const('eight', [], [8])]));
  ops.push(g.node('leaky', 'LeakyRelu', [a], { alpha: A.f(0.3) }));
  ops.push(g.node('addn', 'AddN', [a, 'neg', a], { N: A.i(3) }));
  const gt = g.node('greater', 'Greater', [a, b]);
  const le = g.node('less_equal', 'LessEqual', [a, c]);
  const both = g.node('and', 'LogicalAnd', [gt, le]);
  ops.push(g.node('select', 'SelectV2', [both, a, b]));
  ops.push(g.node('ne_cast', 'Cast', [g.node('not_equal', 'NotEqual', [gt, le])], { SrcT: A.type('DT_BOOL'), DstT: A.type('DT_FLOAT') }));
  const ax = g.const('ax', [1], [-1], 'int32');
  const ax01 = g.const('ax01', [2], [0, 1], 'int32');
  ops.push(g.node('sum', 'Sum', [a, ax], { keep_dims: A.b(false) }));
  ops.push(g.node('maxr', 'Max', [a, ax01], { keep_dims: A.b(true) }));
  ops.push(g.node('minr', 'Min', [a, ax], { keep_dims: A.b(false) }));
  ops.push(g.node('prod', 'Prod', [c, g.const('ax0', [1], [0], 'int32')], { keep_dims: A.b(false) }));
  const dim = g.const('dim', [], [2], 'int32');
  ops.push(g.node('argmax_f', 'Cast', [g.node('argmax', 'ArgMax', [a, dim], { output_type: A.type('DT_INT32') })], { SrcT: A.type('DT_INT32'), DstT: A.type('DT_FLOAT') }));
  const k = g.const('k', [], [2], 'int32');
  g.node('topk', 'TopKV2', [a, k], { sorted: A.b(true) });
  ops.push(g.node('topk_values', 'Identity', ['topk']));
  ops.push(g.node('topk_indices', 'Cast', ['topk:1'], { SrcT: A.type('DT_INT32'), DstT: A.type('DT_FLOAT') }));
  ops.push(g.node('logsoftmax', 'LogSoftmax', [a]));
  return { ...g.model(ops), inputs: [{ name: 'a', shape: [2, 3, 4], dtype: 'float32' }, { name: 'b', shape: [3, 4], dtype: 'float32' }], outputs: ops };
}

function graphShape() {
  const g = new GraphBuilder();
  const x = g.placeholder('x', [2, 6, 4]);
  const idx = g.placeholder('idx', [3], 'int32');
  const i32 = (n, shape, v) => g.const(n, shape, v, 'int32');
  const ops = [];
  const r = g.node('reshape', 'Reshape', [x, i32('shape', [3], [4, -1, 2])]);
  ops.push(g.node('transpose', 'Transpose', [r, i32('perm', [3], [2, 0, 1])]));
  const e = g.node('expand', 'ExpandDims', [x, i32('edim', [], [-1])]);
  ops.push(g.node('squeeze', 'Squeeze', [e], { squeeze_dims: A.ints([3]) }));
  ops.push(g.node('tile', 'Tile', [x, i32('mult', [3], [1, 2, 1])]));
  ops.push(g.node('pack', 'Pack', [x, x], { axis: A.i(1), N: A.i(2) }));
  g.node('unpack', 'Unpack', [x], { axis: A.i(0), num: A.i(2) });
  ops.push(g.node('unpack1', 'Identity', ['unpack:1']));
  g.node('split', 'Split', [i32('sax', [], [1]), x], { num_split: A.i(3) });
  ops.push(g.node('split2', 'Identity', ['split:2']));
  g.node('splitv', 'SplitV', [x, i32('sizes', [2], [1, 3]), i32('vax', [], [2])], { num_split: A.i(2) });
  ops.push(g.node('splitv1', 'Identity', ['splitv:1']));
  ops.push(g.node('slice', 'Slice', [x, i32('begin', [3], [0, 1, 1]), i32('size', [3], [-1, 3, 2])]));
  ops.push(g.node('strided', 'StridedSlice', [x, i32('sb', [3], [1, 1, 1]), i32('se', [3], [2, 6, 2]), i32('ss', [3], [1, 1, 1])],
    { begin_mask: A.i(0), end_mask: A.i(4), ellipsis_mask: A.i(0), new_axis_mask: A.i(0), shrink_axis_mask: A.i(1) }));
  // Strides other than 1 without shrink_axis_mask: TF.js 4.22's cpu stridedSlice fails ("Requested out
  // of range element") when a shrunk axis meets a stride other than 1 (docs/FINDINGS.md, F6).
  ops.push(g.node('strided2', 'StridedSlice', [x, i32('tb', [3], [0, 5, 0]), i32('te', [3], [2, 0, 4]), i32('ts', [3], [1, -2, 3])],
    { begin_mask: A.i(1), end_mask: A.i(1), ellipsis_mask: A.i(0), new_axis_mask: A.i(0), shrink_axis_mask: A.i(0) }));
  ops.push(g.node('gather', 'GatherV2', [x, idx, i32('gax', [], [1])], { batch_dims: A.i(0) }));
  const nd = i32('nd', [2, 2], [1, 0, 0, 5]);
  ops.push(g.node('gathernd', 'GatherNd', [x, nd]));
  const shp = g.node('shape_of', 'Shape', [x], { out_type: A.type('DT_INT32') });
  ops.push(g.node('shape_f', 'Cast', [shp], { SrcT: A.type('DT_INT32'), DstT: A.type('DT_FLOAT') }));
  ops.push(g.node('fill', 'Fill', [shp, g.const('val', [], [1.5])]));
  ops.push(g.node('zeros', 'ZerosLike', [x]));
  ops.push(g.node('range_f', 'Cast', [g.node('range', 'Range', [i32('r0', [], [2]), i32('r1', [], [11]), i32('r2', [], [3])])], { SrcT: A.type('DT_INT32'), DstT: A.type('DT_FLOAT') }));
  ops.push(g.node('padv2', 'PadV2', [x, i32('pads', [3, 2], [0, 0, 1, 2, 0, 1]), g.const('pval', [], [-2])]));
  ops.push(g.node('symmetric', 'MirrorPad', [x, i32('spads', [3, 2], [0, 1, 2, 1, 3, 0])], { mode: A.s('SYMMETRIC') }));
  ops.push(g.node('broadcast', 'BroadcastTo', [g.node('row', 'Slice', [x, i32('rb', [3], [0, 0, 0]), i32('rs', [3], [1, 1, 4])]), i32('bshape', [3], [2, 3, 4])]));
  ops.push(g.node('where_f', 'Cast', [g.node('where1', 'Where', [g.node('positive', 'Greater', [x, g.const('half', [], [0.5])])])],
    { SrcT: A.type('DT_INT64'), DstT: A.type('DT_FLOAT') }));
  const bmask = g.const('bmask', [6, 4], Array.from({ length: 24 }, (_, i) => (i % 3 ? 1 : 0)), 'bool');
  ops.push(g.node('where', 'SelectV2', [bmask, x, g.const('zero', [], [0])]));
  return { ...g.model(ops), inputs: [{ name: 'x', shape: [2, 6, 4], dtype: 'float32' }, { name: 'idx', shape: [3], dtype: 'int32', values: [3, 0, 5] }], outputs: ops };
}

// tf.while_loop as TF 1.x writes it: per loop variable Enter -> Merge <- NextIteration, Switch on
// the LoopCond, Exit from the Switch's output 0; body(vars as Switch:1 names) -> new values.
function whileLoop(g, name, inits, invariants, cond, body) {
  const frame = { frame_name: A.s(name), is_constant: A.b(false) };
  const inv = invariants.map((t, k) => g.node(`${name}/inv_${k}`, 'Enter', [t], { frame_name: A.s(name), is_constant: A.b(true) }));
  const merges = inits.map((t, k) => `${name}/merge_${k}`);
  inits.forEach((t, k) => g.node(`${name}/enter_${k}`, 'Enter', [t], frame));
  inits.forEach((t, k) => g.node(merges[k], 'Merge', [`${name}/enter_${k}`, `${name}/next_${k}`]));
  const lc = g.node(`${name}/loop_cond`, 'LoopCond', [cond(merges, inv)]);
  const sw = inits.map((t, k) => g.node(`${name}/switch_${k}`, 'Switch', [merges[k], lc]));
  const outs = body(sw.map((s) => `${s}:1`), inv);
  outs.forEach((t, k) => g.node(`${name}/next_${k}`, 'NextIteration', [t]));
  return sw.map((s, k) => g.node(`${name}/exit_${k}`, 'Exit', [s]));
}

function graphLoop() {
  const g = new GraphBuilder();
  const x = g.placeholder('x', [3, 4]);
  const i32 = (n, v) => g.const(n, [], [v], 'int32');
  const f32s = (n, v) => g.const(n, [], [v]);
  const ops = [];
  // Loop 1: acc_i = acc_{i-1} * scale + x[i] * (i + 1), written to a reserved list; scale (an
  // invariant) is computed from x at run time.
  const scale = g.node('scale', 'Mean', [g.node('absx', 'Abs', [x]), g.const('all_axes', [2], [0, 1], 'int32')], { keep_dims: A.b(false) });
  const rows = g.node('rows', 'TensorListFromTensor', [x, g.const('row_shape', [1], [4], 'int32')], { element_dtype: A.type('DT_FLOAT'), shape_type: A.type('DT_INT32') });
  const out = g.node('out_list', 'TensorListReserve', [g.const('row_shape2', [1], [4], 'int32'), i32('three', 3)], { element_dtype: A.type('DT_FLOAT'), shape_type: A.type('DT_INT32') });
  const acc0 = g.node('acc0', 'ZerosLike', [g.node('row0', 'Slice', [x, g.const('r0b', [2], [0, 0], 'int32'), g.const('r0s', [2], [1, -1], 'int32')])]);
  const acc0v = g.node('acc0v', 'Squeeze', [acc0], { squeeze_dims: A.ints([0]) });
  const ex1 = whileLoop(g, 'loop1', [i32('i0', 0), acc0v, rows, out], [scale, i32('n', 3)],
    ([i], [, n]) => g.node('loop1/less', 'Less', [i, n]),
    ([i, acc, rl, ol], [sc]) => {
      const row = g.node('loop1/row', 'TensorListGetItem', [rl, i, g.const('loop1/es', [1], [4], 'int32')], { element_dtype: A.type('DT_FLOAT') });
      const i1 = g.node('loop1/i1', 'AddV2', [i, i32('loop1/one', 1)]);
      const w = g.node('loop1/w', 'Cast', [i1], { SrcT: A.type('DT_INT32'), DstT: A.type('DT_FLOAT') });
      const acc2 = g.node('loop1/acc2', 'AddV2', [g.node('loop1/decay', 'Mul', [acc, sc]), g.node('loop1/wrow', 'Mul', [row, w])]);
      const ol2 = g.node('loop1/set', 'TensorListSetItem', [ol, i, acc2], { element_dtype: A.type('DT_FLOAT') });
      return [i1, acc2, rl, ol2];
    });
  ops.push(g.node('stacked', 'TensorListStack', [ex1[3], g.const('row_shape3', [1], [4], 'int32')], { element_dtype: A.type('DT_FLOAT'), num_elements: A.i(3) }));
  ops.push(g.node('final_acc', 'Identity', [ex1[1]]));
  ops.push(g.node('list_len', 'Cast', [g.node('len', 'TensorListLength', [ex1[3]])], { SrcT: A.type('DT_INT32'), DstT: A.type('DT_FLOAT') }));
  // Loop 2: a TensorArray scattered from x in reversed row order, read in the loop, squared and
  // written to a second TensorArray, gathered after.
  const ta = g.node('ta', 'TensorArrayV3', [i32('ta_size', 3)], { dtype: A.type('DT_FLOAT'), element_shape: A.shape([4]), dynamic_size: A.b(false), clear_after_read: A.b(false), identical_element_shapes: A.b(true) });
  const flow = g.node('ta_scatter', 'TensorArrayScatterV3', [ta, g.const('rev', [3], [2, 1, 0], 'int32'), x, 'ta:1'], { T: A.type('DT_FLOAT') });
  const tb = g.node('tb', 'TensorArrayV3', [i32('tb_size', 3)], { dtype: A.type('DT_FLOAT'), element_shape: A.shape([4]), dynamic_size: A.b(false), clear_after_read: A.b(false), identical_element_shapes: A.b(true) });
  const ex2 = whileLoop(g, 'loop2', [i32('j0', 0), 'tb:1'], [ta, flow, tb, g.node('ta_n', 'TensorArraySizeV3', [ta, flow])],
    ([j], [, , , n]) => g.node('loop2/less', 'Less', [j, n]),
    ([j, fb], [h, fa, hb]) => {
      const r = g.node('loop2/read', 'TensorArrayReadV3', [h, j, fa], { dtype: A.type('DT_FLOAT') });
      const sq = g.node('loop2/sq', 'Square', [r]);
      const fb2 = g.node('loop2/write', 'TensorArrayWriteV3', [hb, j, sq, fb], { T: A.type('DT_FLOAT') });
      return [g.node('loop2/j1', 'AddV2', [j, i32('loop2/one', 1)]), fb2];
    });
  ops.push(g.node('gathered', 'TensorArrayGatherV3', [tb, g.const('order', [3], [1, 2, 0], 'int32'), ex2[1]], { dtype: A.type('DT_FLOAT'), element_shape: A.shape([4]) }));
  // StridedSlice with a new axis and an ellipsis: x[None, ..., 1:3].
  ops.push(g.node('ss_new', 'StridedSlice', [x, g.const('ssb', [3], [0, 0, 1], 'int32'), g.const('sse', [3], [0, 0, 3], 'int32'), g.const('sss', [3], [1, 1, 1], 'int32')],
    { begin_mask: A.i(0), end_mask: A.i(0), ellipsis_mask: A.i(2), new_axis_mask: A.i(1), shrink_axis_mask: A.i(0), Index: A.type('DT_INT32') }));
  // Slice and Pad with run-time begin, size and paddings (from x's shape).
  const shp = g.node('shp', 'Shape', [x], { out_type: A.type('DT_INT32') });
  const one = g.node('shp_1', 'StridedSlice', [shp, g.const('s1b', [1], [1], 'int32'), g.const('s1e', [1], [2], 'int32'), g.const('s1s', [1], [1], 'int32')],
    { begin_mask: A.i(0), end_mask: A.i(0), ellipsis_mask: A.i(0), new_axis_mask: A.i(0), shrink_axis_mask: A.i(1), Index: A.type('DT_INT32') });
  const half = g.node('half', 'FloorDiv', [one, i32('two', 2)]);
  const begin = g.node('rt_begin', 'Pack', [i32('zero', 0), half], { axis: A.i(0) });
  const size = g.node('rt_size', 'Pack', [i32('minus1', -1), half], { axis: A.i(0) });
  const sl = g.node('rt_slice', 'Slice', [x, begin, size], { Index: A.type('DT_INT32') });
  ops.push(sl);
  const pads = g.node('rt_pads', 'Pack', [g.node('pr0', 'Pack', [i32('p00', 1), i32('p01', 0)], { axis: A.i(0) }), g.node('pr1', 'Pack', [half, i32('p11', 1)], { axis: A.i(0) })], { axis: A.i(0) });
  ops.push(g.node('rt_pad', 'PadV2', [sl, pads, f32s('pad_value', -0.5)]));
  // tf.cond as TF 1.x writes it, on a predicate true for one cond and false for the other.
  const total = g.node('total', 'Sum', [x, g.const('all_axes2', [2], [0, 1], 'int32')], { keep_dims: A.b(false) });
  for (const [name, op] of [['cond_a', 'Greater'], ['cond_b', 'LessEqual']]) {
    const p = g.node(`${name}/pred`, op, [total, f32s(`${name}/zero`, 0)]);
    const piv = g.node(`${name}/switch_pred`, 'Switch', [p, p]);
    const pivT = g.node(`${name}/pivot_t`, 'Identity', [`${piv}:1`]);
    const sx = g.node(`${name}/switch_x`, 'Switch', [x, p]);
    const st = g.node(`${name}/switch_s`, 'Switch', [scale, p]);
    const two = g.const(`${name}/two`, [], [2]);
    g.nodes[g.nodes.length - 1].input = [`^${pivT}`];  // a branch constant: under the pivot's control
    const thenV = g.node(`${name}/then`, 'AddV2', [g.node(`${name}/then_mul`, 'Mul', [`${sx}:1`, two]), `${st}:1`]);
    const elseV = g.node(`${name}/else`, 'Neg', [sx]);
    ops.push(g.node(`${name}/merge`, 'Merge', [elseV, thenV]));
    ops.push(g.node(`${name}/merge_s`, 'Merge', [`${st}:1`, st]));
  }
  return { ...g.model(ops), inputs: [{ name: 'x', shape: [3, 4], dtype: 'float32' }], outputs: ops };
}

async function runGraph(tf, m, dir) {
  const io = { load: async () => ({ modelTopology: m.json.modelTopology, weightSpecs: m.json.weightsManifest[0].weights,
                                      weightData: m.shard.buffer.slice(m.shard.byteOffset, m.shard.byteOffset + m.shard.byteLength), format: 'graph-model' }) };
  const model = await tf.loadGraphModel(io);
  const feeds = {};
  const recs = [];
  m.inputs.forEach((d, k) => {
    let data;
    if (d.gen === 'boxes') {  // [y1, x1, y2, x2] corners, heights and widths in [0.2, 0.6)
      data = new Float32Array(count(d.shape));
      for (let b = 0; b < d.shape[0]; b++) {
        const y1 = rnd(), x1 = rnd();
        data.set([y1, x1, y1 + 0.2 + 0.4 * rnd(), x1 + 0.2 + 0.4 * rnd()], 4 * b);
      }
    } else if (d.gen === 'scores') {
      data = uniform(count(d.shape), 0, 1);
    } else {
      data = d.values ? Int32Array.from(d.values) : d.dtype === 'int32' ? Int32Array.from({ length: count(d.shape) }, () => Math.floor(rnd() * 6)) : uniform(count(d.shape), -2, 2);
    }
    feeds[d.name] = tf.tensor(data, d.shape, d.dtype);
    writeNpy(path.join(dir, `input_${k}.npy`), data, d.shape);
    recs.push({ name: d.name, dtype: d.dtype, shape: d.shape, file: `input_${k}.npy` });
  });
  let ys;
  try {
    ys = model.execute(feeds, m.outputs);
  } catch (e) {  // NonMaxSuppression and the like are asynchronous in TF.js
    ys = await model.executeAsync(feeds, m.outputs);
  }
  return { recs, ys: Array.isArray(ys) ? ys : [ys], names: m.outputs };
}

async function runLayers(tf, m, dir, shapes, gen) {
  const io = { load: async () => ({ modelTopology: m.json.modelTopology, weightSpecs: m.json.weightsManifest[0].weights,
                                      weightData: m.shard.buffer.slice(m.shard.byteOffset, m.shard.byteOffset + m.shard.byteLength) }) };
  const model = await tf.loadLayersModel(io);
  const recs = [];
  const feeds = shapes.map((s, k) => {
    const data = gen ? Float32Array.from({ length: count(s) }, gen) : uniform(count(s), -1, 1);
    writeNpy(path.join(dir, `input_${k}.npy`), data, s);
    recs.push({ name: model.inputs[k].sourceLayer.name, dtype: 'float32', shape: s, file: `input_${k}.npy` });
    return tf.tensor(data, s);
  });
  let ys = model.predict(feeds.length === 1 ? feeds[0] : feeds);
  ys = Array.isArray(ys) ? ys : [ys];
  return { recs, ys, names: model.outputs.map((o) => o.sourceLayer.name) };
}

async function main() {
  const warn = console.warn;
  console.warn = () => {};
  const tf = requirePeer('@tensorflow/tfjs');
  await tf.setBackend('cpu');
  await tf.ready();
  console.warn = warn;
  const fixtures = [
    ['layers_functional', await layersFunctional(tf), [[2, 12, 12, 3]]],
    ['layers_sequential', await layersSequential(tf), [[3, 10, 10, 2]]],
    ['layers_text', await layersText(tf), [[4, 7]], () => Math.floor(rnd() * 20)],
    ['graph_conv', graphConv(), null],
    ['graph_dilated', graphDilated(), null],
    ['graph_detect', graphDetect(), null],
    ['graph_math', graphMath(), null],
    ['graph_shape', graphShape(), null],
    ['graph_loop', graphLoop(), null],
  ];
  for (const [name, m, shapes, gen] of fixtures) {
    const dir = path.join(OUT, name);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const j = { ...m.json };
    delete j.outputs;
    // Graph models: a signature names the outputs (as the TF.js converter writes one).
    if (m.json.outputs) j.signature = { outputs: Object.fromEntries(m.json.outputs.map((o) => [o, { name: `${o}:0` }])) };
    fs.writeFileSync(path.join(dir, 'model.json'), JSON.stringify(j));
    fs.writeFileSync(path.join(dir, 'group1-shard1of1.bin'), m.shard);
    const r = shapes ? await runLayers(tf, m, dir, shapes, gen) : await runGraph(tf, m, dir);
    const outs = [];
    for (let k = 0; k < r.ys.length; k++) {
      const v = await r.ys[k].data();
      const file = `output_${k}.npy`;
      writeNpy(path.join(dir, file), Float32Array.from(v, Number), r.ys[k].shape);
      outs.push({ name: r.names[k], dtype: 'float32', shape: r.ys[k].shape, file });
    }
    fs.writeFileSync(path.join(dir, 'result.json'), JSON.stringify({ tfjs: tf.version.tfjs, backend: 'cpu', inputs: r.recs, outputs: outs }, null, 1));
    console.log(`${dir}: ${outs.length} output(s)`);
  }
}

main().catch((e) => { console.error(e && e.stack || e); process.exit(1); });
