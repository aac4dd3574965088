// Resize-13: expected values are the ONNX reference implementation's
// (onnx/backend/test/case/node/resize.py, interpolate_nd with the coefficient functions of that
// file, evaluated in float64 by /usr/bin/python3 with onnx 1.12 and pasted here), except where a
// comment gives a hand computation. Float checks pass scale = max|X| (the Resize budget). The
// forms of Resize-18/19 (the last three test cases) are checked against values by hand.
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
Tensor X22() { return F32({1, 1, 2, 2}, {1, 2, 3, 4}); }
Tensor X24() { return F32({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}); }
Tensor X44() { return F32({1, 1, 4, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}); }
Tensor Scales(const std::vector<double>& s) { return F32({static_cast<int64_t>(s.size())}, s); }
Tensor Sizes(const std::vector<int64_t>& s) { return I64({static_cast<int64_t>(s.size())}, s); }
NodeOf R(const char* mode, const char* ctm = "half_pixel") {
  NodeOf n("Resize");
  n.Attr("mode", mode).Attr("coordinate_transformation_mode", ctm);
  return n;
}
}  // namespace

TEST_CASE("Resize nearest: scales and sizes, up and down (ONNX test cases)") {
  // test_resize_upsample_scales_nearest
  Check(R("nearest"), {X22(), Tensor(), Scales({1, 1, 2, 3})},
        {{{1, 1, 4, 6}, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}}}, 1, 4);
  // test_resize_downsample_scales_nearest: out dims floor(2*0.6) = 1, floor(4*0.6) = 2
  Check(R("nearest"), {X24(), Tensor(), Scales({1, 1, 0.6, 0.6})}, {{{1, 1, 1, 2}, {1, 3}}}, 1, 8);
  // test_resize_upsample_sizes_nearest
  Check(R("nearest"), {X22(), Tensor(), Tensor(), Sizes({1, 1, 7, 8})},
        {{{1, 1, 7, 8}, {1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 1, 1,
         2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 3, 3, 4, 4, 4, 4}}}, 1, 4);
  // test_resize_downsample_sizes_nearest; an empty roi and an empty scales count as absent
  Check(R("nearest"), {X24(), F32({0}, {}), F32({0}, {}), Sizes({1, 1, 1, 3})}, {{{1, 1, 1, 3}, {1, 2, 4}}}, 1, 8);
}

TEST_CASE("Resize nearest_mode with each coordinate transformation (ONNX test cases)") {
  // test_resize_upsample_sizes_nearest_floor_align_corners
  Check(R("nearest", "align_corners").Attr("nearest_mode", "floor"), {X44(), Tensor(), Tensor(), Sizes({1, 1, 8, 8})},
        {{{1, 1, 8, 8}, {1, 1, 1, 2, 2, 3, 3, 4, 1, 1, 1, 2, 2, 3, 3, 4, 1, 1, 1, 2, 2, 3, 3, 4, 5, 5, 5, 6,
         6, 7, 7, 8, 5, 5, 5, 6, 6, 7, 7, 8, 9, 9, 9, 10, 10, 11, 11, 12, 9, 9, 9, 10, 10, 11, 11,
         12, 13, 13, 13, 14, 14, 15, 15, 16}}}, 1, 16);
  // test_resize_upsample_sizes_nearest_round_prefer_ceil_asymmetric
  Check(R("nearest", "asymmetric").Attr("nearest_mode", "round_prefer_ceil"),
        {X44(), Tensor(), Tensor(), Sizes({1, 1, 8, 8})},
        {{{1, 1, 8, 8}, {1, 2, 2, 3, 3, 4, 4, 4, 5, 6, 6, 7, 7, 8, 8, 8, 5, 6, 6, 7, 7, 8, 8, 8, 9, 10, 10,
         11, 11, 12, 12, 12, 9, 10, 10, 11, 11, 12, 12, 12, 13, 14, 14, 15, 15, 16, 16, 16, 13, 14,
         14, 15, 15, 16, 16, 16, 13, 14, 14, 15, 15, 16, 16, 16}}}, 1, 16);
  // test_resize_upsample_sizes_nearest_ceil_half_pixel
  Check(R("nearest").Attr("nearest_mode", "ceil"), {X44(), Tensor(), Tensor(), Sizes({1, 1, 8, 8})},
        {{{1, 1, 8, 8}, {1, 2, 2, 3, 3, 4, 4, 4, 5, 6, 6, 7, 7, 8, 8, 8, 5, 6, 6, 7, 7, 8, 8, 8, 9, 10, 10,
         11, 11, 12, 12, 12, 9, 10, 10, 11, 11, 12, 12, 12, 13, 14, 14, 15, 15, 16, 16, 16, 13, 14,
         14, 15, 15, 16, 16, 16, 13, 14, 14, 15, 15, 16, 16, 16}}}, 1, 16);
  // By hand, 1-D [10,20,30,40] -> 8, asymmetric x = o/2 = 0, .5, 1, 1.5, ...:
  // round_prefer_floor picks 0,0,1,1,2,2,3,3; round_prefer_ceil (above) 0,1,1,2,2,3,3,3 (4 clamps
  // to 3); floor 0,0,1,1,...; tf_half_pixel_for_nn x = (o+0.5)/2 = .25,.75,1.25,.. rounds to
  // 0,1,1,2,2,3,3,4->3.
  const Tensor x1 = F32({4}, {10, 20, 30, 40});
  Check(R("nearest", "asymmetric"), {x1, Tensor(), Scales({2})}, {{{8}, {10, 10, 20, 20, 30, 30, 40, 40}}});
  Check(R("nearest", "asymmetric").Attr("nearest_mode", "floor"), {x1, Tensor(), Scales({2})},
        {{{8}, {10, 10, 20, 20, 30, 30, 40, 40}}});
  Check(R("nearest", "tf_half_pixel_for_nn"), {x1, Tensor(), Scales({2})}, {{{8}, {10, 20, 20, 30, 30, 40, 40, 40}}});
  // pytorch_half_pixel: to length 1 x = 0 -> 10; half_pixel to 1 (scale 0.25): x = 0.5/0.25-0.5 =
  // 1.5 -> round_prefer_floor 1 -> 20.
  Check(R("nearest", "pytorch_half_pixel"), {x1, Tensor(), Tensor(), Sizes({1})}, {{{1}, {10}}});
  Check(R("nearest"), {x1, Tensor(), Tensor(), Sizes({1})}, {{{1}, {20}}});
}

TEST_CASE("Resize nearest moves any dtype, exactly") {
  // int64 [2,3] -> sizes [4,3] (half_pixel rows: x = (o+0.5)/2-0.5 = -.25,.25,.75,1.25 -> 0,0,1,1)
  Check(R("nearest"), {I64({2, 3}, {1, -2, 3, 40, 50, 9000000000}), Tensor(), Tensor(), Sizes({4, 3})},
        {{{4, 3}, {1, -2, 3, 1, -2, 3, 40, 50, 9000000000, 40, 50, 9000000000}, DType::kInt64}});
}

TEST_CASE("Resize linear: half_pixel, align_corners, pytorch_half_pixel (ONNX test cases)") {
  // test_resize_upsample_scales_linear
  Check(R("linear"), {X22(), Tensor(), Scales({1, 1, 2, 2})},
        {{{1, 1, 4, 4}, {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4}}}, 1, 4);
  // test_resize_upsample_scales_linear_align_corners
  Check(R("linear", "align_corners"), {X22(), Tensor(), Scales({1, 1, 2, 2})},
        {{{1, 1, 4, 4}, {1, 1.3333333333333335, 1.6666666666666665, 2, 1.6666666666666667, 2,
         2.333333333333333, 2.666666666666667, 2.3333333333333335, 2.6666666666666665, 3,
         3.333333333333333, 3, 3.333333333333333, 3.6666666666666665, 4}}}, 1, 4);
  // test_resize_downsample_scales_linear: x uses the given scale 0.6 (float32 0.60000002384)
  Check(R("linear"), {X24(), Tensor(), Scales({1, 1, 0.6, 0.6})}, {{{1, 1, 1, 2}, {2.6666665010982156, 4.333333101537502}}}, 1, 8);
  // Downsample align_corners with scales 0.6: out [1, 2]; by hand with length_resized = 2 (the
  // output dim, as the operator text; the ONNX script uses 4*0.6 = 2.4 and gets 3.142857):
  // row x = 0 -> row 0; cols x = o*3/1 = 0, 3 -> [1, 4].
  Check(R("linear", "align_corners"), {X24(), Tensor(), Scales({1, 1, 0.6, 0.6})}, {{{1, 1, 1, 2}, {1, 4}}}, 1, 8);
  // test_resize_downsample_sizes_linear_pytorch_half_pixel
  Check(R("linear", "pytorch_half_pixel"), {X44(), Tensor(), Tensor(), Sizes({1, 1, 3, 1})},
        {{{1, 1, 3, 1}, {1.6666666666666665, 7, 12.333333333333334}}}, 1, 16);
  // asymmetric by hand, [0, 8] -> 4: x = o/2 = 0, .5, 1, 1.5 -> 0, 4, 8, 8 (clamped)
  Check(R("linear", "asymmetric"), {F32({2}, {0, 8}), Tensor(), Scales({2})}, {{{4}, {0, 4, 8, 8}}}, 1, 8);
}

TEST_CASE("Resize cubic: A, exclude_outside, every transformation (ONNX test cases)") {
  // test_resize_upsample_scales_cubic
  Check(R("cubic"), {X44(), Tensor(), Scales({1, 1, 2, 2})},
        {{{1, 1, 8, 8}, {0.47265625, 0.76953125, 1.24609375, 1.875, 2.28125, 2.91015625, 3.38671875,
         3.68359375, 1.66015625, 1.95703125, 2.43359375, 3.0625, 3.46875, 4.09765625, 4.57421875,
         4.87109375, 3.56640625, 3.86328125, 4.33984375, 4.96875, 5.375, 6.00390625, 6.48046875,
         6.77734375, 6.08203125, 6.37890625, 6.85546875, 7.484375, 7.890625, 8.51953125, 8.99609375,
         9.29296875, 7.70703125, 8.00390625, 8.48046875, 9.109375, 9.515625, 10.14453125,
         10.62109375, 10.91796875, 10.22265625, 10.51953125, 10.99609375, 11.625, 12.03125,
         12.66015625, 13.13671875, 13.43359375, 12.12890625, 12.42578125, 12.90234375, 13.53125,
         13.9375, 14.56640625, 15.04296875, 15.33984375, 13.31640625, 13.61328125, 14.08984375,
         14.71875, 15.125, 15.75390625, 16.23046875, 16.52734375}}}, 1, 16);
  // test_resize_upsample_scales_cubic_align_corners
  Check(R("cubic", "align_corners"), {X44(), Tensor(), Scales({1, 1, 2, 2})},
        {{{1, 1, 8, 8}, {1, 1.341107871720116, 1.8002915451895047, 2.3294460641399395, 2.670553935860057,
         3.1997084548104975, 3.658892128279886, 4, 2.3644314868804632, 2.7055393586005803,
         3.1647230320699693, 3.693877551020402, 4.034985422740519, 4.564139941690962,
         5.023323615160351, 5.364431486880464, 4.201166180758018, 4.5422740524781355,
         5.0014577259475255, 5.530612244897956, 5.871720116618073, 6.400874635568519,
         6.860058309037909, 7.201166180758019, 6.317784256559761, 6.658892128279877,
         7.118075801749267, 7.647230320699696, 7.988338192419813, 8.517492711370258,
         8.97667638483965, 9.317784256559758, 7.6822157434402305, 8.023323615160347,
         8.482507288629739, 9.011661807580165, 9.352769679300282, 9.88192419825073,
         10.34110787172012, 10.682215743440228, 9.79883381924199, 10.139941690962107,
         10.599125364431497, 11.128279883381923, 11.46938775510204, 11.99854227405249,
         12.457725947521883, 12.79883381924199, 11.635568513119543, 11.976676384839658,
         12.435860058309055, 12.965014577259476, 13.306122448979593, 13.835276967930044,
         14.294460641399438, 14.635568513119544, 13, 13.341107871720117, 13.800291545189513,
         14.32944606413993, 14.670553935860049, 15.199708454810503, 15.658892128279895, 16}}}, 1, 16);
  // test_resize_downsample_scales_cubic
  Check(R("cubic"), {X44(), Tensor(), Scales({1, 1, 0.8, 0.8})},
        {{{1, 1, 3, 3}, {1.471191370779707, 2.7812499493593372, 4.082519463037899, 6.711425685098226,
         8.021484263677857, 9.32275377735642, 11.916503739812477, 13.226562318392109,
         14.527831832070667}}}, 1, 16);
  // downsample align_corners, scales 0.8 -> 3x3 with length_resized = 3 (script fed sizes 3x3):
  // x = 0, 1.5, 3
  Check(R("cubic", "align_corners"), {X44(), Tensor(), Scales({1, 1, 0.8, 0.8})},
        {{{1, 1, 3, 3}, {1, 2.5, 4, 7, 8.5, 10, 13, 14.5, 16}}}, 1, 16);
  // test_resize_upsample_sizes_cubic
  Check(R("cubic"), {X44(), Tensor(), Tensor(), Sizes({1, 1, 9, 10})},
        {{{1, 1, 9, 10}, {0.45507921810699725, 0.6405792181069992, 0.9715792181069964, 1.4225792181069963,
         1.9073292181069992, 2.2233292181069957, 2.7080792181069997, 3.1590792181069944,
         3.490079218106996, 3.6755792181069915, 1.3943796296296342, 1.5798796296296367,
         1.9108796296296329, 2.3618796296296347, 2.8466296296296374, 3.162629629629633,
         3.6473796296296386, 4.098379629629633, 4.429379629629636, 4.61487962962963,
         2.9513069272976713, 3.136806927297674, 3.467806927297669, 3.9188069272976724,
         4.403556927297674, 4.719556927297667, 5.204306927297676, 5.6553069272976675,
         5.986306927297672, 6.171806927297662, 5.205250685871076, 5.39075068587108,
         5.721750685871074, 6.17275068587108, 6.6575006858710815, 6.9735006858710715,
         7.458250685871084, 7.909250685871075, 8.240250685871082, 8.42575068587107,
         6.889750000000005, 7.075250000000008, 7.40625, 7.8572500000000085, 8.34200000000001,
         8.657999999999996, 9.14275000000001, 9.59375, 9.92475000000001, 10.11024999999999,
         8.574249314128949, 8.759749314128952, 9.090749314128942, 9.541749314128952,
         10.026499314128952, 10.342499314128938, 10.827249314128956, 11.278249314128942,
         11.609249314128958, 11.794749314128934, 10.828193072702335, 11.01369307270234,
         11.344693072702327, 11.79569307270234, 12.280443072702338, 12.59644307270232,
         13.081193072702343, 13.532193072702325, 13.863193072702343, 14.048693072702315,
         12.385120370370378, 12.570620370370385, 12.901620370370368, 13.352620370370383,
         13.837370370370381, 14.153370370370359, 14.638120370370387, 15.089120370370368,
         15.420120370370386, 15.605620370370357, 13.324420781893002, 13.509920781893006,
         13.840920781892995, 14.291920781893007, 14.776670781893005, 15.092670781892982,
         15.57742078189301, 16.028420781892994, 16.359420781893007, 16.544920781892973}}}, 1, 16);
  // test_resize_downsample_sizes_cubic
  Check(R("cubic"), {X44(), Tensor(), Tensor(), Sizes({1, 1, 3, 3})},
        {{{1, 1, 3, 3}, {1.6307870370370419, 3.0046296296296333, 4.378472222222226, 7.12615740740741, 8.5,
         9.873842592592593, 12.62152777777778, 13.99537037037037, 15.369212962962964}}}, 1, 16);
  // test_resize_upsample_scales_cubic_A_n0p5_exclude_outside
  Check(R("cubic").Attr("cubic_coeff_a", -0.5).Attr("exclude_outside", int64_t{1}),
        {X44(), Tensor(), Scales({1, 1, 2, 2})},
        {{{1, 1, 8, 8}, {0.5588235294117645, 0.8149420352082435, 1.356982487651549, 1.8970588235294115,
         2.3970588235294112, 2.9371351594072737, 3.4791756118505797, 3.7352941176470584,
         1.5832975525976813, 1.8394160583941606, 2.3814565108374657, 2.9215328467153285,
         3.421532846715328, 3.961609182593191, 4.5036496350364965, 4.759768140832976,
         3.7514593623709023, 4.007577868167382, 4.549618320610685, 5.0896946564885495,
         5.5896946564885495, 6.129770992366412, 6.671811444809718, 6.927929950606196,
         5.9117647058823515, 6.1678832116788325, 6.709923664122138, 7.25, 7.75, 8.290076335877863,
         8.832116788321168, 9.088235294117647, 7.9117647058823515, 8.167883211678832,
         8.709923664122138, 9.25, 9.75, 10.290076335877863, 10.832116788321168, 11.088235294117647,
         10.072070049393801, 10.328188555190282, 10.870229007633588, 11.41030534351145,
         11.91030534351145, 12.450381679389313, 12.992422131832617, 13.248540637629098,
         12.240231859167022, 12.496350364963504, 13.038390817406809, 13.578467153284672,
         14.078467153284672, 14.618543489162535, 15.16058394160584, 15.416702447402317,
         13.264705882352938, 13.52082438814942, 14.062864840592724, 14.602941176470587,
         15.102941176470587, 15.64301751234845, 16.185057964791756, 16.441176470588232}}}, 1, 16);
  // test_resize_downsample_scales_cubic_A_n0p5_exclude_outside
  Check(R("cubic").Attr("cubic_coeff_a", -0.5).Attr("exclude_outside", int64_t{1}),
        {X44(), Tensor(), Scales({1, 1, 0.8, 0.8})},
        {{{1, 1, 3, 3}, {1.3681267160435837, 2.6695013448951905, 4.0133366320977695, 6.57362523145001,
         7.874999860301617, 9.218835147504198, 11.948966380260327, 13.250341009111931,
         14.594176296314512}}}, 1, 16);
  // test_resize_upsample_scales_cubic_asymmetric
  Check(R("cubic", "asymmetric"), {X44(), Tensor(), Scales({1, 1, 2, 2})},
        {{{1, 1, 8, 8}, {1, 1.40625, 2, 2.5, 3, 3.59375, 4, 4.09375, 2.625, 3.03125, 3.625, 4.125, 4.625,
         5.21875, 5.625, 5.71875, 5, 5.40625, 6, 6.5, 7, 7.59375, 8, 8.09375, 7, 7.40625, 8, 8.5, 9,
         9.59375, 10, 10.09375, 9, 9.40625, 10, 10.5, 11, 11.59375, 12, 12.09375, 11.375, 11.78125,
         12.375, 12.875, 13.375, 13.96875, 14.375, 14.46875, 13, 13.40625, 14, 14.5, 15, 15.59375,
         16, 16.09375, 13.375, 13.78125, 14.375, 14.875, 15.375, 15.96875, 16.375, 16.46875}}}, 1, 16);
}

TEST_CASE("Resize tf_crop_and_resize with roi and extrapolation_value (ONNX test cases)") {
  const Tensor sizes = Sizes({1, 1, 3, 3});
  // test_resize_tf_crop_and_resize
  Check(R("linear", "tf_crop_and_resize"), {X44(), F32({8}, {0, 0, 0.4, 0.6, 1, 1, 0.6, 0.8}), Tensor(), sizes},
        {{{1, 1, 3, 3}, {7.6000001430511475, 7.900000125169754, 8.20000010728836, 8.800000250339508,
         9.100000232458115, 9.400000214576721, 10.000000357627869, 10.300000339746475,
         10.600000321865082}}}, 1, 16);
  // test_resize_tf_crop_and_resize_extrapolation_value. The ONNX script subtracts the float32 roi
  // values in float32 (12.40000057 at [1][0]); tare computes coordinates in double, so the script
  // was run with the roi converted to float64 first: 12.400000393390656.
  Check(R("linear", "tf_crop_and_resize").Attr("extrapolation_value", 10.0),
        {X44(), F32({8}, {0, 0, 0.4, 0.6, 1, 1, 1.2, 1.7}), Tensor(), sizes},
        {{{1, 1, 3, 3}, {7.6000001430511475, 10, 10, 12.400000393390656, 10, 10, 10, 10, 10}}}, 1, 16);
  // same roi with nearest and extrapolation_value -1 (script with nearest_coeffs)
  Check(R("nearest", "tf_crop_and_resize").Attr("extrapolation_value", -1.0),
        {X44(), F32({8}, {0, 0, 0.4, 0.6, 1, 1, 1.2, 1.7}), Tensor(), sizes},
        {{{1, 1, 3, 3}, {7, -1, -1, 11, -1, -1, -1, -1, -1}}}, 1, 16);
}

TEST_CASE("Resize survives degenerate roi and empty outputs") {
  // A NaN or huge roi puts every coordinate of that axis outside [0, in-1]: all extrapolated.
  Check(R("linear", "tf_crop_and_resize").Attr("extrapolation_value", 5.0),
        {X22(), F32({8}, {0, 0, 0, NAN, 1, 1, 1, 1e30}), Tensor(), Sizes({1, 1, 2, 2})},
        {{{1, 1, 2, 2}, {5, 5, 5, 5}}}, 1, 4);
  Check(R("cubic"), {X22(), Tensor(), Tensor(), Sizes({1, 1, 0, 3})}, {{{1, 1, 0, 3}, {}}});
}

TEST_CASE("Resize N-D: trilinear, cubic on three axes, linear on the batch axis") {
  const Tensor v = F32({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 9});
  Check(R("linear"), {v, Tensor(), Tensor(), Sizes({3, 3, 3})},
        {{{3, 3, 3}, {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4, 3, 3.5, 4, 4, 4.625, 5.25, 5, 5.75, 6.5, 5, 5.5, 6, 6,
         6.75, 7.5, 7, 8, 9}}}, 1, 9);
  Check(R("cubic"), {v, Tensor(), Scales({1.5, 2, 1})},
        {{{3, 4, 2}, {0.44184027777777807, 1.4509955512152775, 1.1059027777777777, 2.0862358940972214,
         2.1996527777777772, 3.1325141059027763, 2.863715277777776, 3.7677544487847205, 2.7890625,
         3.736328125, 3.453125, 4.56640625, 4.546875, 5.93359375, 5.2109375, 6.763671875,
         5.136284722222219, 6.021660698784718, 5.800347222222219, 7.046576605902773,
         6.894097222222217, 8.734673394097214, 7.558159722222216, 9.75958930121527}}}, 1, 9);
  Check(R("linear", "align_corners"), {F32({2, 1, 1, 3}, {1, 2, 3, 4, 6, 8}), Tensor(), Scales({2, 1, 1, 1})},
        {{{4, 1, 1, 3}, {1, 2, 3, 2, 3.3333333333333335, 4.666666666666666, 3, 4.666666666666667,
         6.333333333333333, 4, 6, 8}}}, 1, 8);
  // identity (scales all 1) copies
  Check(R("linear"), {X22(), Tensor(), Scales({1, 1, 1, 1})}, {{{1, 1, 2, 2}, {1, 2, 3, 4}}}, 1, 4);
}

TEST_CASE("Resize rejects invalid models") {
  CheckFails(R("linear"), {X22(), Tensor(), Scales({1, 1, 2, 2}), Sizes({1, 1, 4, 4})}, "not both");
  CheckFails(R("linear"), {X22()}, "one of 'scales' or 'sizes'");
  CheckFails(R("bilinear"), {X22(), Tensor(), Scales({1, 1, 2, 2})}, "attribute 'mode'");
  CheckFails(R("linear", "center"), {X22(), Tensor(), Scales({1, 1, 2, 2})}, "coordinate_transformation_mode");
  CheckFails(R("nearest").Attr("nearest_mode", "round"), {X22(), Tensor(), Scales({1, 1, 2, 2})}, "nearest_mode");
  CheckFails(R("linear"), {X22(), Tensor(), Scales({2, 2})}, "'scales' must have shape [4]");
  CheckFails(R("linear"), {X22(), Tensor(), Scales({1, 1, 0, 2})}, "positive");
  CheckFails(R("linear"), {X22(), Tensor(), Tensor(), Sizes({1, 1, -1, 2})}, ">= 0");
  CheckFails(R("linear"), {I64({2}, {1, 2}), Tensor(), Scales({2})}, "needs a float32");
  CheckFails(R("linear", "tf_crop_and_resize"), {X22(), Tensor(), Tensor(), Sizes({1, 1, 3, 3})}, "roi");
  CheckFails(R("linear", "tf_crop_and_resize"), {X22(), F32({4}, {0, 0, 1, 1}), Tensor(), Sizes({1, 1, 3, 3})},
             "roi");
  CheckFails(R("cubic").Attr("exclude_outside", int64_t{2}), {X22(), Tensor(), Scales({1, 1, 2, 2})},
             "exclude_outside");
}

TEST_CASE("Resize-18 antialias: the kernel stretched by 1/scale, weights normalized, edges clamped") {
  // By hand, 1-D [0, 1, 2, 3] -> 2 (scale 0.5), linear: support 1 / 0.5 = 2. o = 0: x = 0.5, taps
  // j = -1..2 weigh 1 - |j - 0.5| / 2 = .25, .75, .75, .25 (sum 2 -> .125, .375, .375, .125); j = -1
  // clamps to 0: y = .375 * 1 + .125 * 2 = 0.625. o = 1 (x = 2.5): .125 * 1 + .375 * 2 + .5 * 3 = 2.375.
  const Tensor x = F32({4}, {0, 1, 2, 3});
  Check(R("linear").Attr("antialias", int64_t{1}), {x, Tensor(), Scales({0.5})}, {{{2}, {0.625, 2.375}}}, 1, 3);
  // exclude_outside: the taps outside X weigh 0, the others are renormalized (.75, .75, .25 / 1.75).
  Check(R("linear").Attr("antialias", int64_t{1}).Attr("exclude_outside", int64_t{1}), {x, Tensor(), Scales({0.5})},
        {{{2}, {1.25 / 1.75, 4 / 1.75}}}, 1, 3);
  // Growing (scale >= 1): no effect; nearest: no effect.
  Check(R("linear").Attr("antialias", int64_t{1}), {F32({2}, {0, 8}), Tensor(), Scales({2})}, {{{4}, {0, 2, 6, 8}}}, 1, 8);
  Check(R("nearest").Attr("antialias", int64_t{1}), {x, Tensor(), Scales({0.5})}, {{{2}, {0, 2}}}, 1, 3);
}

TEST_CASE("Resize-18 axes and keep_aspect_ratio_policy; Resize-19 half_pixel_symmetric") {
  // axes = [-1]: only W resized ([1, 2] -> 1, 1.25, 1.75, 2 at half_pixel x = -.25, .25, .75, 1.25).
  Check(R("linear").Attr("axes", std::vector<int64_t>{-1}), {X22(), Tensor(), Scales({2})},
        {{{1, 1, 2, 4}, {1, 1.25, 1.75, 2, 3, 3.25, 3.75, 4}}}, 1, 4);
  Check(R("linear").Attr("axes", std::vector<int64_t>{3}), {X22(), Tensor(), Tensor(), Sizes({4})},
        {{{1, 1, 2, 4}, {1, 1.25, 1.75, 2, 3, 3.25, 3.75, 4}}}, 1, 4);
  // sizes [4, 4] for H = 2, W = 4: not_smaller takes max(2, 1) = 2 -> 4 x 8; not_larger min -> 2 x 4.
  NodeOf big = R("nearest").Attr("axes", std::vector<int64_t>{2, 3}).Attr("keep_aspect_ratio_policy", "not_smaller");
  Check(big, {X24(), Tensor(), Tensor(), Sizes({4, 4})},
        {{{1, 1, 4, 8}, {1, 1, 2, 2, 3, 3, 4, 4, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 5, 5, 6, 6, 7, 7, 8, 8}}},
        1, 8);
  NodeOf small = R("nearest").Attr("axes", std::vector<int64_t>{2, 3}).Attr("keep_aspect_ratio_policy", "not_larger");
  Check(small, {X24(), Tensor(), Tensor(), Sizes({4, 4})}, {{{1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}}}, 1, 8);
  // half_pixel_symmetric, [0..4] * 0.5: out floor(2.5) = 2, offset 5/2 * (1 - 2/2.5) = 0.5, x = 1, 3
  // (half_pixel: 0.5, 2.5).
  Check(R("linear", "half_pixel_symmetric"), {F32({5}, {0, 1, 2, 3, 4}), Tensor(), Scales({0.5})}, {{{2}, {1, 3}}}, 1, 4);
}

TEST_CASE("Resize-18 forms: invalid attributes and input lengths are refused") {
  CheckFails(R("linear").Attr("antialias", int64_t{2}), {X22(), Tensor(), Scales({1, 1, 0.5, 0.5})},
             "'antialias' must be 0 or 1");
  CheckFails(R("linear").Attr("keep_aspect_ratio_policy", "fit"), {X22(), Tensor(), Tensor(), Sizes({1, 1, 1, 1})},
             "keep_aspect_ratio_policy");
  CheckFails(R("linear").Attr("axes", std::vector<int64_t>{2, -2}), {X22(), Tensor(), Scales({2, 2})}, "repeats axis 2");
  CheckFails(R("linear").Attr("axes", std::vector<int64_t>{4}), {X22(), Tensor(), Scales({2})}, "out of range");
  CheckFails(R("linear").Attr("axes", std::vector<int64_t>{2, 3}), {X22(), Tensor(), Scales({1, 1, 2, 2})},
             "'scales' must have shape [2] (length of 'axes')");
  CheckFails(R("linear").Attr("axes", std::vector<int64_t>{3}), {X22(), Tensor(), Tensor(), Sizes({1, 1, 2, 2})},
             "'sizes' must have shape [1]");
  CheckFails(R("linear", "tf_crop_and_resize").Attr("axes", std::vector<int64_t>{2, 3}),
             {X22(), F32({8}, {0, 0, 0, 0, 1, 1, 1, 1}), Tensor(), Sizes({3, 3})}, "roi");
}
