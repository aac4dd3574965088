// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss. The NLL cases are the three examples of
// the ONNX NegativeLogLikelihoodLoss-13 document (checked by hand: the gathered scores and weights
// are written out per case); the log-softmax values were computed with numpy (float64) as
// (x - max) - log(sum(exp(x - max))) over axis 1, and pasted.
#include "tests/ops/op_test_util.h"

using namespace tare;
using namespace tare::test;

namespace {
// input (N=2, C=3, d1=2) = [[[1,2],[2,2],[3,2]], [[0,1],[2,2],[1,2]]], target [[2,1],[0,2]]:
// gathered scores: (n0,d0) c2 -> 3, (n0,d1) c1 -> 2, (n1,d0) c0 -> 0, (n1,d1) c2 -> 2.
Tensor Scores() { return F32({2, 3, 2}, {1, 2, 2, 2, 3, 2, 0, 1, 2, 2, 1, 2}); }
Tensor Target() { return I64({2, 2}, {2, 1, 0, 2}); }
Tensor Weight() { return F32({3}, {0.2, 0.3, 0.1}); }
NodeOf Nll(const char* reduction) { return NodeOf("NegativeLogLikelihoodLoss").Attr("reduction", reduction); }
NodeOf Sce(const char* reduction, int n_out = 1) {
  return NodeOf("SoftmaxCrossEntropyLoss", n_out).Attr("reduction", reduction);
}
}  // namespace

TEST_CASE("NegativeLogLikelihoodLoss reductions, weight (ONNX examples)") {
  Check(Nll("none"), {Scores(), Target()}, {{{2, 2}, {-3, -2, 0, -2}}});
  // mean: (-3 - 2 - 0 - 2) / 4 = -1.75; sum: -7.
  Check(Nll("mean"), {Scores(), Target()}, {{{}, {-1.75}}}, 4, 7);
  Check(NodeOf("NegativeLogLikelihoodLoss"), {Scores(), Target()}, {{{}, {-1.75}}}, 4, 7);  // default: mean
  Check(Nll("sum"), {Scores(), Target()}, {{{}, {-7}}}, 4, 7);
  // weights w[c] = 0.2, 0.3, 0.1: losses -3*0.1, -2*0.3, -0*0.2, -2*0.1; sum -1.1; mean -1.1 / 0.7.
  Check(Nll("none"), {Scores(), Target(), Weight()}, {{{2, 2}, {-0.3, -0.6, 0, -0.2}}}, 1, 0.6);
  Check(Nll("sum"), {Scores(), Target(), Weight()}, {{{}, {-1.1}}}, 4, 1.1);
  Check(Nll("mean"), {Scores(), Target(), Weight()}, {{{}, {-1.1 / 0.7}}}, 4, 2);
}

TEST_CASE("NegativeLogLikelihoodLoss ignore_index, rank 2 and int32 target") {
  // ignore_index 2 drops samples (n0,d0) and (n1,d1): losses [0, -2, 0, 0]; mean over the 2 kept.
  Check(Nll("none").Attr("ignore_index", int64_t{2}), {Scores(), Target()}, {{{2, 2}, {0, -2, 0, 0}}});
  Check(Nll("mean").Attr("ignore_index", int64_t{2}), {Scores(), Target()}, {{{}, {-1}}}, 2, 2);
  // With weights: -2*0.3 = -0.6 over weight sum 0.3 + 0.2 = 0.5 -> -1.2.
  Check(Nll("mean").Attr("ignore_index", int64_t{2}), {Scores(), Target(), Weight()}, {{{}, {-1.2}}}, 2, 2);
  // A negative ignore_index outside [0, C): target -1 is skipped, the rest gathered.
  // (N=3, C=2) = [[0.5,1.5],[2,3],[4,5]], target [1, -1, 0]: losses -1.5, 0, -4; mean -5.5/2.
  Check(Nll("mean").Attr("ignore_index", int64_t{-1}),
        {F32({3, 2}, {0.5, 1.5, 2, 3, 4, 5}), Make(DType::kInt32, {3}, {1, -1, 0})}, {{{}, {-2.75}}}, 2, 6);
  // Every sample ignored: 0 / 0.
  Check(Nll("mean").Attr("ignore_index", int64_t{0}), {F32({1, 2}, {1, 2}), I64({1}, {0})}, {{{}, {std::nan("")}}});
  Check(Nll("sum"), {Make(DType::kFloat64, {1, 2}, {-0.25, -3}), I64({1}, {1})}, {{{}, {3}, DType::kFloat64}});
}

TEST_CASE("SoftmaxCrossEntropyLoss reductions, weight, log_prob (numpy)") {
  // x = [[1,2,3],[1,1,1]], labels [2, 0]; log_softmax rows: [-2.4076.., -1.4076.., -0.4076..] and
  // -log 3 = -1.0986122886681096 each; losses 0.40760596444438035, 1.0986122886681096.
  Tensor x = F32({2, 3}, {1, 2, 3, 1, 1, 1});
  Tensor y = I64({2}, {2, 0});
  const std::vector<double> lp = {-2.4076059644443806, -1.4076059644443804, -0.40760596444438035,
                                  -1.0986122886681096, -1.0986122886681096, -1.0986122886681096};
  Check(Sce("none"), {x, y}, {{{2}, {0.40760596444438035, 1.0986122886681096}}}, 3, 3);
  Check(Sce("mean", 2), {x, y}, {{{}, {0.753109126556245}}, {{2, 3}, lp}}, 3, 3);
  Check(Sce("sum"), {x, y}, {{{}, {1.50621825311249}}}, 3, 3);
  // weights [0.5, 1, 2]: 2*0.40760.. = 0.8152119288887607, 0.5*1.09861.. = 0.5493061443340548;
  // mean = their sum / (2 + 0.5) = 0.5458072292891262.
  Tensor w = F32({3}, {0.5, 1, 2});
  Check(Sce("none"), {x, y, w}, {{{2}, {0.8152119288887607, 0.5493061443340548}}}, 3, 3);
  Check(Sce("mean"), {x, y, w}, {{{}, {0.5458072292891262}}}, 3, 3);
}

TEST_CASE("SoftmaxCrossEntropyLoss N-D with ignore_index (numpy)") {
  // x (2,3,2), labels [[2,0],[1,2]]: log_softmax over axis 1, gathered and negated:
  // 0.40760596444438035, 5.013385901721449, 1.0986122886681096, 2.7586236756795133; mean 2.319556957628363.
  Tensor x = F32({2, 3, 2}, {1, 0, 2, 0, 3, 5, 0, 1, 0, 1, 0, -1});
  Tensor y = I64({2, 2}, {2, 0, 1, 2});
  Check(Sce("mean", 2), {x, y},
        {{{}, {2.319556957628363}},
         {{2, 3, 2},
          {-2.4076059644443806, -5.013385901721449, -1.4076059644443804, -5.013385901721449, -0.40760596444438035,
           -0.01338590172144892, -1.0986122886681096, -0.7586236756795135, -1.0986122886681096, -0.7586236756795135,
           -1.0986122886681096, -2.7586236756795133}}},
        4, 10);
  // ignore_index 0 drops (n0,d1): (0.4076.. + 1.0986.. + 2.7586..) / 3 = 1.4216139762640008.
  Check(Sce("mean").Attr("ignore_index", int64_t{0}), {x, y}, {{{}, {1.4216139762640008}}}, 4, 10);
}

TEST_CASE("Loss rejections") {
  CheckFails(Nll("none"), {Scores(), I64({2, 2}, {2, 3, 0, 0})}, "out of range");
  CheckFails(Nll("none"), {Scores(), I64({2, 2}, {-1, 0, 0, 0})}, "out of range");
  CheckFails(Nll("avg"), {Scores(), Target()}, "'reduction'");
  CheckFails(Nll("none"), {Scores(), I64({2, 3}, {0, 0, 0, 0, 0, 0})}, "target must have shape [2,2]");
  CheckFails(Nll("none"), {Scores(), Make(DType::kFloat32, {2, 2}, {0, 0, 0, 0})}, "int32 or int64");
  CheckFails(Nll("none"), {Scores(), Target(), F32({2}, {1, 1})}, "weight must have shape [3]");
  CheckFails(Sce("none"), {F32({3}, {1, 2, 3}), I64({}, {0})}, "rank >= 2");
  CheckFails(Sce("none"), {I64({1, 2}, {1, 2}), I64({1}, {0})}, "float32 or float64");
  CheckFails(NodeOf("NegativeLogLikelihoodLoss", 2), {Scores(), Target()}, "one output");
}

TEST_CASE("Loss with no classes: every target is out of range; empty batch gives 0 / 0") {
  CheckFails(Sce("none"), {F32({2, 0}, {}), I64({2}, {0, 0})}, "out of range");
  CheckFails(Nll("sum"), {F32({1, 0, 2}, {}), I64({1, 2}, {0, 0})}, "out of range");
  Check(Sce("mean"), {F32({0, 3}, {}), I64({0}, {})}, {{{}, {std::nan("")}}});
  Check(Sce("sum").Attr("ignore_index", int64_t{0}), {F32({1, 0}, {}), I64({1}, {0})}, {{{}, {0}}});
}
