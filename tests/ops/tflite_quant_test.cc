// Quantized TFLite ops (domain "tflite"). Expected values:
//  * the committed fixtures tests/models/tflite_quant/conv_fc_{int8,uint8}: weights, biases,
//    scales and zero points are read from the .tflite files; the quantized input and CONV_2D
//    codes below were printed by an independent Python model of TFLite's reference arithmetic
//    (the functions of tests/models/tflite_quant/check_reference.py: quant_params, round_half_away,
//    requantize, with the conv loop of its check()); the FULLY_CONNECTED codes are LiteRT.js's
//    (README: check_reference.py and LiteRT.js agree on them, and on all 140 uint8 conv codes), and
//    dequantizing them reproduces LiteRT.js's committed float output bit for bit (checked here);
//  * the small cases: by hand, with TFLite's formulas (kernels/quant/quant.h), worked in comments.
#include <cstring>

#include "format/file_io.h"
#include "format/npy.h"
#include "tests/ops/op_test_util.h"
#include "tflite_schema_generated.h"

using namespace tare;
using namespace tare::test;

namespace {

const DType kI8 = DType::kInt8, kU8 = DType::kUInt8, kI16 = DType::kInt16;

NodeOf Q(const std::string& op) {
  NodeOf n(op);
  n.node.domain = "tflite";
  return n;
}

/// One tensor of a .tflite file: shape, data (when it has a buffer), scales, zero points.
struct TflTensor {
  Shape shape;
  DType dtype = DType::kUndefined;
  std::vector<uint8_t> bytes;
  std::vector<float> scales;
  std::vector<int64_t> zps;
};

std::map<std::string, TflTensor> ReadTflite(const std::string& path) {
  std::map<std::string, TflTensor> out;
  Result<std::vector<uint8_t>> b = ReadRegularFile(path);
  REQUIRE(b.ok());
  const tfl::Model* m = tfl::GetModel(b->data());
  const auto* sg = m->subgraphs()->Get(0);
  for (const tfl::Tensor* t : *sg->tensors()) {
    TflTensor r;
    for (int d : *t->shape()) r.shape.push_back(d);
    switch (t->type()) {
      case tfl::TensorType::INT8: r.dtype = kI8; break;
      case tfl::TensorType::UINT8: r.dtype = kU8; break;
      case tfl::TensorType::INT32: r.dtype = DType::kInt32; break;
      default: r.dtype = DType::kFloat32; break;
    }
    const tfl::Buffer* buf = m->buffers()->Get(t->buffer());
    if (buf && buf->data()) r.bytes.assign(buf->data()->begin(), buf->data()->end());
    if (const tfl::QuantizationParameters* q = t->quantization()) {
      if (q->scale()) r.scales.assign(q->scale()->begin(), q->scale()->end());
      if (q->zero_point()) r.zps.assign(q->zero_point()->begin(), q->zero_point()->end());
    }
    out[t->name()->str()] = r;
  }
  return out;
}

Tensor Data(const TflTensor& t) {
  Tensor x = Tensor::Alloc(t.dtype, t.shape).value();
  REQUIRE(x.nbytes() == t.bytes.size());
  std::memcpy(x.data, t.bytes.data(), t.bytes.size());
  return x;
}

std::vector<double> D(std::initializer_list<int> v) { return std::vector<double>(v.begin(), v.end()); }

// Independent model (see the top comment): quantized input and CONV_2D output codes, NHWC order.
const std::vector<double> kXqInt8 = D({
    99,  -111, 51,  -127, 116, 87,  -68,  -28, -91, 121, 24,   -89,  44,  110,  -48, -70,  -99, -21,
    -110, 13,  2,   -109, -107, -78, 18,  92,  -8,  68,  -53,  77,   -97, -57,  -50, -13,  -93, 37,
    122, 87,   16,  -85,  -21, 109, 97,   7,   117, -114, 63,  -71,  -30, 62,   -37, 101,  110, -93,
    -34, 59,   48,  119,  25,  54,  -21,  -40, -48, -14,  -123, -23,  4,   -86,  96,  52,   -59, -67,
    13,  36,   30,  13,   -58, -107, -111, 80,  39,  75,   -28,  -12,  -35, -24,  100, 119,  -112, -40,
    -103, -86, -42, -74,  -109, 0,   21,   -103, -13, 86,   -84,  32,   0,   125,  -97});
const std::vector<double> kConvInt8 = D({
    -71,  -47,  -128, -128, -128, -128, -128, -38,  -128, -54,  -128, -88,  -128, 7,    -16,  -128, -53,
    -58,  -104, -87,  -128, -128, -128, 35,   -128, -128, -78,  -128, -128, -80,  -128, -57,  49,   -128,
    -128, -128, 19,   7,    -128, -58,  -128, -128, -128, -7,   -31,  -83,  -128, -128, -118, -114, -128,
    -62,  -128, -128, 27,   -128, -75,  -128, -57,  -112, -128, -128, 17,   -128, -128, 65,   -128, 24,
    14,   -69,  -128, -128, -128, -128, -93,  -128, -128, -128, -128, -128, -128, -38,  -128, -128, -128,
    -78,  -128, -128, -34,  -128, -67,  -41,  -128, -128, 127,  -128, -128, -93,  1,    -68,  -128, -17,
    -69,  -128, -123, -112, -128, -28,  -11,  -103, -128, -79,  -59,  -115, -31,  -102, -128, -128, -128,
    -106, -128, -128, -68,  -60,  -91,  -128, -128, -12,  -81,  -82,  -87,  -84,  -128, -93,  -68,  -128,
    -128, -128, -74,  -128});
const std::vector<double> kXqUInt8 = D({
    80,  251, 95,  177, 57,  176, 101, 168, 242, 103, 80,  82,  81,  230, 45,  105, 176, 229, 70,  221, 223,
    111, 210, 167, 135, 12,  233, 11,  215, 58,  195, 173, 240, 230, 18,  204, 229, 152, 96,  176, 197, 92,
    54,  57,  121, 48,  193, 134, 192, 235, 66,  251, 98,  215, 74,  30,  36,  134, 154, 115, 223, 87,  230,
    1,   159, 222, 163, 225, 211, 40,  242, 123, 13,  219, 47,  251, 226, 80,  221, 200, 59,  250, 50,  139,
    207, 236, 249, 115, 37,  248, 102, 135, 7,   51,  132, 20,  150, 222, 141, 250, 71,  180, 113, 181, 9});
const std::vector<double> kConvUInt8 = D({
    93,  0,   98,  0,  0,   14,  0,   18,  96,  67,  57,  67, 0,   79,  0,   210, 19,  0,   139, 0,   81,
    67,  87,  27,  127, 92,  0,   0,   126, 0,   55,  0,  0,   91,  0,   203, 5,   0,   0,   0,   0,   254,
    70,  0,   1,   119, 0,   137, 0,   0,   0,   49,  36, 71,  92,  0,   71,  0,   0,   0,   0,   0,   0,
    0,   0,   55,  0,   0,   203, 99,  0,   99,  0,   0,  0,   0,   0,   0,   0,   0,   0,   64,  0,   62,
    0,   95,  64,  0,   0,   161, 0,   64,  138, 0,   59, 0,   197, 0,   0,   140, 0,   195, 0,   186, 118,
    0,   47,  0,   33,  52,  0,   0,   46,  56,  0,   0,  26,  157, 0,   86,  0,   0,   0,   0,   0,   0,
    157, 0,   55,  0,   16,  150, 11,  114, 0,   218, 0,  0,   0,   0});

/// QUANTIZE -> CONV_2D (3x3 SAME stride 1, RELU) -> FULLY_CONNECTED -> DEQUANTIZE of one fixture,
/// each node checked on ref64 and ref against the expected codes.
void CheckFixture(const std::string& name, const std::vector<double>& xq, const std::vector<double>& conv,
                  const std::vector<double>& fc) {
  CAPTURE(name);
  const std::string dir = std::string(TARE_SOURCE_DIR) + "/tests/models/tflite_quant/";
  std::map<std::string, TflTensor> t = ReadTflite(dir + name + ".tflite");
  Result<Tensor> x = ReadNpy(dir + name + "/input_0.npy");
  Result<Tensor> expected = ReadNpy(dir + name + "/expected/0_output.npy");
  REQUIRE(x.ok());
  REQUIRE(expected.ok());
  const TflTensor &iq = t["input_quantized"], &cw = t["conv/filter"], &cb = t["conv/bias"], &co = t["conv"];
  const TflTensor &fw = t["fc/weights"], &fb = t["fc/bias"], &fo = t["fc"];
  const DType q = iq.dtype;
  const bool u8 = q == kU8;

  const NodeOf quant = Q("Quantize")
                           .Attr("to", static_cast<int64_t>(q))
                           .Attr("y_scale", double(iq.scales[0]))
                           .Attr("y_zero_point", iq.zps[0]);
  Check(quant, {*x}, {{{1, 5, 7, 3}, xq, q}});

  NodeOf cn = Q("QConv2D")
                  .Attr("padding", "SAME")
                  .Attr("activation", "RELU")
                  .Attr("x_scale", double(iq.scales[0]))
                  .Attr("x_zero_point", iq.zps[0])
                  .Attr("w_scales", cw.scales)
                  .Attr("w_zero_points", cw.zps)
                  .Attr("y_scale", double(co.scales[0]))
                  .Attr("y_zero_point", co.zps[0]);
  if (u8) cn.Attr("bias_scale", double(cb.scales[0]));  // TFLite's uint8 bias-scale check
  Tensor xqt = Make(q, {1, 5, 7, 3}, xq);
  Check(cn, {xqt, Data(cw), Data(cb)}, {{{1, 5, 7, 4}, conv, q}});

  NodeOf fn = Q("QFullyConnected")
                  .Attr("x_scale", double(co.scales[0]))
                  .Attr("x_zero_point", co.zps[0])
                  .Attr("w_scales", fw.scales)
                  .Attr("w_zero_points", fw.zps)
                  .Attr("y_scale", double(fo.scales[0]))
                  .Attr("y_zero_point", fo.zps[0])
                  .Attr("bias_scale", double(fb.scales[0]));
  Tensor convt = Make(q, {1, 5, 7, 4}, conv);
  Check(fn, {convt, Data(fw), Data(fb)}, {{{1, 6}, fc, q}});

  // DEQUANTIZE of LiteRT's codes gives LiteRT's float output exactly, on both backends.
  const NodeOf dq = Q("Dequantize").Attr("x_scales", fo.scales).Attr("x_zero_points", fo.zps);
  Tensor fct = Make(q, {1, 6}, fc);
  std::vector<double> e(6);
  for (int i = 0; i < 6; ++i) e[static_cast<size_t>(i)] = ReadDouble(*expected, i);
  Check(dq, {fct}, {{{1, 6}, e}});
  for (DType c : {DType::kFloat64, DType::kFloat32}) {
    Result<std::vector<Tensor>> y = Run(dq, {fct}, c);
    REQUIRE(y.ok());
    for (int i = 0; i < 6; ++i) CHECK(ReadDouble((*y)[0], i) == e[static_cast<size_t>(i)]);
  }

  // The whole chain through a one-node-at-a-time evaluation from the float input.
  for (DType c : {DType::kFloat64, DType::kFloat32}) {
    CAPTURE(DTypeName(c));
    Result<std::vector<Tensor>> a = Run(quant, {*x}, c);
    REQUIRE(a.ok());
    Result<std::vector<Tensor>> b = Run(cn, {(*a)[0], Data(cw), Data(cb)}, c);
    REQUIRE(b.ok());
    Result<std::vector<Tensor>> f = Run(fn, {(*b)[0], Data(fw), Data(fb)}, c);
    REQUIRE(f.ok());
    Result<std::vector<Tensor>> y = Run(dq, {(*f)[0]}, c);
    REQUIRE(y.ok());
    for (int i = 0; i < 6; ++i) CHECK(ReadDouble((*y)[0], i) == e[static_cast<size_t>(i)]);
  }
}

}  // namespace

TEST_CASE("tflite quantized: int8 and uint8 conv + fully connected fixtures match LiteRT exactly") {
  CheckFixture("conv_fc_int8", kXqInt8, kConvInt8, D({-86, 55, -84, -76, -46, 84}));
  CheckFixture("conv_fc_uint8", kXqUInt8, kConvUInt8, D({120, 69, 134, 42, 191, 212}));
}

TEST_CASE("tflite QConv2D, QDepthwiseConv2D, QFullyConnected small cases") {
  // x [1,2,2,1] = 1..4, w all ones 2x2, VALID: acc = 10; m = 1 * 1 / 4 = 0.25 -> (2^30, shift -1):
  // RDBP(SRDHM(10, 2^30) = 5, 1) = 3 (2.5 rounds away from zero), + zero point -1 = 2.
  Check(Q("QConv2D")
            .Attr("padding", "VALID")
            .Attr("x_scale", 1.0)
            .Attr("w_scales", std::vector<float>{1.f})
            .Attr("y_scale", 4.0)
            .Attr("y_zero_point", -1),
        {Make(kI8, {1, 2, 2, 1}, {1, 2, 3, 4}), Make(kI8, {1, 2, 2, 1}, {1, 1, 1, 1})}, {{{1, 1, 1, 1}, {2}, kI8}});
  // Depthwise, M = 2: x [1,1,2,2] (w=0: 1,2; w=1: 3,4), filter [1,1,2,4] rows kx=0: 1 2 3 4,
  // kx=1: 1 1 1 1; oc = ic*2 + m: 1+3, 2+3, 6+4, 8+4 = 4 5 10 12, + bias 1 0 0 -2; all scales 1.
  Check(Q("QDepthwiseConv2D")
            .Attr("padding", "VALID")
            .Attr("depth_multiplier", 2)
            .Attr("x_scale", 1.0)
            .Attr("w_scales", std::vector<float>{1.f})
            .Attr("y_scale", 1.0),
        {Make(kI8, {1, 1, 2, 2}, {1, 2, 3, 4}), Make(kI8, {1, 1, 2, 4}, {1, 2, 3, 4, 1, 1, 1, 1}),
         Make(DType::kInt32, {4}, {1, 0, 0, -2})},
        {{{1, 1, 1, 4}, {5, 5, 10, 10}, kI8}});
  // SAME, stride 2 on a 3x3 uint8 image, 1x1 filter 2 with zero point 1 (w - 1 = 1), x zero point 3:
  // output 2x2 = taps (0,0), (0,2), (2,0), (2,2) minus 3; y zero point 5, scales 1.
  Check(Q("QConv2D")
            .Attr("padding", "SAME")
            .Attr("strides", std::vector<int64_t>{2, 2})
            .Attr("x_scale", 1.0)
            .Attr("x_zero_point", 3)
            .Attr("w_scales", std::vector<float>{1.f})
            .Attr("w_zero_points", std::vector<int64_t>{1})
            .Attr("y_scale", 1.0)
            .Attr("y_zero_point", 5),
        {Make(kU8, {1, 3, 3, 1}, {10, 11, 12, 13, 14, 15, 16, 17, 18}), Make(kU8, {1, 1, 1, 1}, {2})},
        {{{1, 2, 2, 1}, {12, 14, 18, 20}, kU8}});
  // keep_num_dims: x [1,2,2] rows (1,2), (3,4), w [1,2] = (1,-1), bias 3: 1-2+3, 3-4+3.
  Check(Q("QFullyConnected")
            .Attr("keep_num_dims", 1)
            .Attr("x_scale", 1.0)
            .Attr("w_scales", std::vector<float>{1.f})
            .Attr("y_scale", 1.0),
        {Make(kI8, {1, 2, 2}, {1, 2, 3, 4}), Make(kI8, {1, 2}, {1, -1}), Make(DType::kInt32, {1}, {3})},
        {{{1, 2, 1}, {2, 2}, kI8}});
}

TEST_CASE("tflite QAdd, QMul broadcasting") {
  // Add int8, scales 0.5, 0.5 -> 1: left shift 20, input multipliers 0.5 / (2 * 0.5) = 0.5, output
  // 1 / 2^20: y = RDBP((a + b) * 2^18, 19) = (a + b) / 2 rounded half away from zero.
  // x1 [2,2] = (3, -3), (10, 127); x2 [2] = (2, 0): 2.5 -> 3, -1.5 -> -2, 6, 63.5 -> 64.
  Check(Q("QAdd").Attr("x_scale", 0.5).Attr("x2_scale", 0.5).Attr("y_scale", 1.0),
        {Make(kI8, {2, 2}, {3, -3, 10, 127}), Make(kI8, {2}, {2, 0})}, {{{2, 2}, {3, -2, 6, 64}, kI8}});
  // Mul uint8: 0.5 * 0.25 / 0.125 = 1 -> (2^30, shift 1), identity: y = (a - 10) * b + 5, clamped.
  Check(Q("QMul")
            .Attr("x_scale", 0.5)
            .Attr("x_zero_point", 10)
            .Attr("x2_scale", 0.25)
            .Attr("y_scale", 0.125)
            .Attr("y_zero_point", 5),
        {Make(kU8, {3}, {12, 9, 200}), Make(kU8, {3}, {3, 4, 2})}, {{{3}, {11, 1, 255}, kU8}});
  // int16 power-of-two add: scales 1, 1 -> 1 (shifts 0): saturating sum; RELU clamps at 0.
  Check(Q("QAdd").Attr("x_scale", 1.0).Attr("x2_scale", 1.0).Attr("y_scale", 1.0).Attr("activation", "RELU"),
        {Make(kI16, {3}, {30000, -5, 7}), Make(kI16, {1}, {10000})}, {{{3}, {32767, 9995, 10007}, kI16}});
}

TEST_CASE("tflite QAveragePool2D, QMaxPool2D") {
  // x [1,2,4,1] rows (1,-5,3,7), (2,0,-8,4); 2x2 VALID stride 2: max 2, 7; average -2/4 -> -1 (ties
  // away from zero: (-2 - 2) / 4), 6/4 -> 2 ((6 + 2) / 4).
  const Tensor x = Make(kI8, {1, 2, 4, 1}, {1, -5, 3, 7, 2, 0, -8, 4});
  auto pool = [](const char* op) {
    return Q(op)
        .Attr("kernel_shape", std::vector<int64_t>{2, 2})
        .Attr("strides", std::vector<int64_t>{2, 2})
        .Attr("padding", "VALID")
        .Attr("x_scale", 0.5)
        .Attr("y_scale", 0.5);
  };
  Check(pool("QMaxPool2D"), {x}, {{{1, 1, 2, 1}, {2, 7}, kI8}});
  Check(pool("QAveragePool2D"), {x}, {{{1, 1, 2, 1}, {-1, 2}, kI8}});
  // int16 3x3 = 1..9, 2x2 SAME stride 2 (padding after only): windows clipped to the image:
  // (1+2+4+5)/4 = 3, (3+6)/2 = 4.5 -> 5, (7+8)/2 = 7.5 -> 8, 9.
  Check(Q("QAveragePool2D")
            .Attr("kernel_shape", std::vector<int64_t>{2, 2})
            .Attr("strides", std::vector<int64_t>{2, 2})
            .Attr("padding", "SAME")
            .Attr("x_scale", 1.0)
            .Attr("y_scale", 1.0),
        {Make(kI16, {1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9})}, {{{1, 2, 2, 1}, {3, 5, 8, 9}, kI16}});
}

TEST_CASE("tflite QSoftmax, QLogistic") {
  // Two equal logits: table[255] = exp(0) = 1 each, sum 2, inv = 1 / (2 / 256) = 128: uint8
  // (int)(128 + 0.5) = 128; int8 roundf(128) - 128 = 0.
  Check(Q("QSoftmax").Attr("x_scale", 0.1).Attr("y_scale", 1.0 / 256),
        {Make(kU8, {2, 2}, {5, 5, 200, 200})}, {{{2, 2}, {128, 128, 128, 128}, kU8}});
  Check(Q("QSoftmax").Attr("x_scale", 0.1).Attr("y_scale", 1.0 / 256).Attr("y_zero_point", -128),
        {Make(kI8, {2}, {-7, -7})}, {{{2}, {0, 0}, kI8}});
  // Logistic int8, x scale 1, y 1/256 zero point -128: sigmoid(0) = 0.5 -> 128 - 128 = 0;
  // sigmoid(127) -> 256 - 128 clamped to 127; sigmoid(-128) -> 0 - 128. Fixed point: radius
  // CalculateInputRadius(4, 28) = floor(15 * 2^27 / 2^28) = 7 saturates +-127/128 the same way,
  // and logistic(0) = 2^30 in Q0.31 -> RDBP(2^30, 23) = 128 -> 0.
  for (const char* k : {"table", "fixed_point"}) {
    CAPTURE(k);
    Check(Q("QLogistic").Attr("kernel", k).Attr("x_scale", 1.0).Attr("y_scale", 1.0 / 256).Attr("y_zero_point", -128),
          {Make(kI8, {3}, {0, 127, -128})}, {{{3}, {0, 127, -128}, kI8}});
  }
}

TEST_CASE("tflite QSoftmax, QLogistic on int16") {
  // Softmax, x scale 0.01, y 1/32768. Four equal logits, by hand: exp(0) is the exp table's
  // lookup at 32767 = 32762 (Q0.15) each; the sum 131048 (clz 15) normalised is 131048 in Q1.16,
  // recentred 131048 - 3 * 2^15 = 32744; the 1/(1+x) table at 32744 (entry 511 = 16400, slope -16,
  // offset 104) gives 16400 + ((-16 * 104 + 64) >> 7) = 16387; (32762 * 16387 + 2^15) >> 16 = 8192.
  // Both kernel names run TFLite's one int16 kernel. [0, -100, 300] * 0.01 -> softmax [0.0466,
  // 0.0171, 0.9362] x 32768 = [1527.5, 562.0, 30678.4] (script of tests/unit/quant_kernels_test.cc,
  // bit-exact: 1528, 562, 30677).
  for (const char* k : {"table", "fixed_point"}) {
    CAPTURE(k);
    Check(Q("QSoftmax").Attr("kernel", k).Attr("x_scale", 0.01).Attr("y_scale", 1.0 / 32768),
          {Make(kI16, {2, 4}, {5, 5, 5, 5, 0, 0, 0, 0})}, {{{2, 4}, {8192, 8192, 8192, 8192, 8192, 8192, 8192, 8192}, kI16}});
    Check(Q("QSoftmax").Attr("kernel", k).Attr("x_scale", 0.01).Attr("y_scale", 1.0 / 32768),
          {Make(kI16, {3}, {0, -100, 300})}, {{{3}, {1528, 562, 30677}, kI16}});
  }
  // Logistic, x scale 2^-12: the default resolver ("table") runs gemmlowp's int16 logistic, the
  // reference resolver ("fixed_point") the interpolated table with multiplier 3. sigmoid(0) = 1/2
  // exactly; sigmoid(+-1000 / 4096) = 0.5607 / 0.4393 (x 32768: 18375.6, 14392.4); script: gemmlowp
  // 18376, 14391; table 18374, 14394.
  Check(Q("QLogistic").Attr("x_scale", 1.0 / 4096).Attr("y_scale", 1.0 / 32768),
        {Make(kI16, {3}, {0, 1000, -1000})}, {{{3}, {16384, 18376, 14391}, kI16}});
  Check(Q("QLogistic").Attr("kernel", "fixed_point").Attr("x_scale", 1.0 / 4096).Attr("y_scale", 1.0 / 32768),
        {Make(kI16, {3}, {0, 1000, -1000})}, {{{3}, {16384, 18374, 14394}, kI16}});
  // TFLite's int16 requirements.
  CheckFails(Q("QLogistic").Attr("x_scale", 0.001).Attr("y_scale", 1.0 / 256), {Make(kI16, {1}, {0})}, "1/32768");
  CheckFails(Q("QLogistic").Attr("x_scale", 0.001).Attr("x_zero_point", 4).Attr("y_scale", 1.0 / 32768),
             {Make(kI16, {1}, {0})}, "zero point must be 0");
  CheckFails(Q("QSoftmax").Attr("x_scale", 0.001).Attr("y_scale", 1.0 / 256), {Make(kI16, {2}, {0, 1})}, "1/32768");
  CheckFails(Q("QSoftmax").Attr("x_scale", 0.001).Attr("y_scale", 1.0 / 32768),
             {Make(kI16, {1, 1, 1, 1, 2}, {0, 1})}, "rank 1 to 4");
}

TEST_CASE("tflite Quantize, Dequantize") {
  // float -> int8, scale 0.5, zero point 1: x / 0.5 = 2.5 -> roundf 3 (+1 = 4); -2.5 -> -3 (-2);
  // 200 -> 201 clamped 127; -1.5 -> -2 (-1); 0 -> 1.
  Check(Q("Quantize").Attr("to", 3).Attr("y_scale", 0.5).Attr("y_zero_point", 1),
        {F32({5}, {1.25, -1.25, 100, -0.75, 0})}, {{{5}, {4, -2, 127, -1, 1}, kI8}});
  // int8 -> uint8 requantize at equal scales: multiplier 1, y = x + 128.
  Check(Q("Quantize").Attr("to", 2).Attr("x_scale", 1.0).Attr("y_scale", 1.0).Attr("y_zero_point", 128),
        {Make(kI8, {3}, {-128, 0, 127})}, {{{3}, {0, 128, 255}, kU8}});
  // Per channel along axis 1: scales (0.5, 0.25), zero points (0, 2): 0.5, 0, 1.5, 0.5.
  Check(Q("Dequantize")
            .Attr("x_scales", std::vector<float>{0.5f, 0.25f})
            .Attr("x_zero_points", std::vector<int64_t>{0, 2})
            .Attr("axis", 1),
        {Make(kI8, {2, 2}, {1, 2, 3, 4})}, {{{2, 2}, {0.5, 0, 1.5, 0.5}}});
  // uint8 per tensor, scale 0.5 zero point 128.
  Check(Q("Dequantize").Attr("x_scales", std::vector<float>{0.5f}).Attr("x_zero_points", std::vector<int64_t>{128}),
        {Make(kU8, {3}, {128, 138, 118})}, {{{3}, {0, 5, -5}}});
}

TEST_CASE("tflite quantized ops reject bad inputs") {
  const Tensor x = Make(kI8, {1, 2, 2, 1}, {1, 2, 3, 4});
  const Tensor w2 = Make(kI8, {2, 1, 1, 1}, {1, 1});
  auto conv = [] {
    return Q("QConv2D").Attr("padding", "VALID").Attr("x_scale", 1.0).Attr("y_scale", 1.0);
  };
  // w_scales: 1 or one per output channel (2).
  CheckFails(conv().Attr("w_scales", std::vector<float>{1.f, 1.f, 1.f}), {x, w2}, "w_scales");
  // int8 conv takes an int32 bias only.
  CheckFails(conv().Attr("w_scales", std::vector<float>{1.f}), {x, w2, I64({2}, {0, 0})}, "bias must be int32");
  CheckFails(conv().Attr("w_scales", std::vector<float>{1.f}), {x, w2, Make(DType::kInt32, {3}, {0, 0, 0})},
             "bias must have shape");
  // uint8 weights with int8 x; per-channel uint8; a missing padding; unknown activation.
  CheckFails(conv().Attr("w_scales", std::vector<float>{1.f}), {x, Make(kU8, {2, 1, 1, 1}, {1, 1})}, "w must be int8");
  CheckFails(conv().Attr("w_scales", std::vector<float>{1.f, 2.f}),
             {Make(kU8, {1, 2, 2, 1}, {1, 2, 3, 4}), Make(kU8, {2, 1, 1, 1}, {1, 1})}, "per-channel");
  CheckFails(Q("QConv2D").Attr("x_scale", 1.0).Attr("y_scale", 1.0).Attr("w_scales", std::vector<float>{1.f}), {x, w2},
             "padding");
  CheckFails(conv().Attr("w_scales", std::vector<float>{1.f}).Attr("activation", "TANH"), {x, w2}, "activation");
  CheckFails(conv().Attr("w_scales", std::vector<float>{-1.f}), {x, w2}, "scale");
  // Pools do not rescale: equal input and output quantization required.
  CheckFails(Q("QAveragePool2D")
                 .Attr("kernel_shape", std::vector<int64_t>{2, 2})
                 .Attr("padding", "VALID")
                 .Attr("x_scale", 0.5)
                 .Attr("y_scale", 0.25),
             {x}, "equal input and output quantization");
  // Softmax output must be scale 1/256 with the type's zero point.
  CheckFails(Q("QSoftmax").Attr("x_scale", 0.1).Attr("y_scale", 0.5), {Make(kI8, {2}, {1, 2})}, "1/256");
  CheckFails(Q("QAdd").Attr("x_scale", 1.0).Attr("x2_scale", 1.0).Attr("y_scale", 1.0),
             {Make(kI8, {2}, {1, 2}), Make(kU8, {2}, {1, 2})}, "x2 must have");
  CheckFails(Q("QAdd").Attr("x_scale", 1.0).Attr("x2_scale", 1.0).Attr("y_scale", 1.0),
             {Make(kI8, {2}, {1, 2}), Make(kI8, {3}, {1, 2, 3})}, "broadcast");
  CheckFails(Q("Quantize").Attr("to", 7).Attr("y_scale", 1.0), {F32({1}, {1})}, "attribute 'to'");
  CheckFails(Q("Quantize").Attr("to", 5).Attr("x_scale", 1.0).Attr("y_scale", 1.0), {Make(kI8, {1}, {1})},
             "not supported");
  CheckFails(Q("Dequantize").Attr("x_scales", std::vector<float>{1.f, 1.f, 1.f}), {Make(kI8, {2, 2}, {1, 2, 3, 4})},
             "x_scales has 3");
  CheckFails(Q("Dequantize").Attr("x_scales", std::vector<float>{1.f}), {F32({1}, {1})}, "must be int8");
}
