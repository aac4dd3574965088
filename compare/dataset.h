// Data-set mode of `tare compare` (--dataset): every run's top-1 predictions and accuracy on a
// labelled data set and, for every pair of runs, the items whose top-1 prediction flips, each flip
// attributed: two runs of one model (or of two models that compute the same function on that item,
// checked on ref64 with every layer traced) flip by a kernel noise floor (tare's backends) or a
// framework computing difference (a framework involved); otherwise the models differ at the first
// diverging layer on that item (JudgeModels).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "compare/attribution.h"
#include "format/model_file.h"
#include "runtime/ir/tensor.h"

namespace tare {

/// A labelled data set: items [N, ...] (float32, one item per row) and N labels.
struct DataSet {
  Tensor items;
  std::vector<int64_t> labels;
};

/// Reads an IDX file (gzip or plain; magic 0x0000080D with D = `dims` dims of uint8): the data and,
/// in `*shape`, its dims. Errors: unreadable, over 2 GiB, not IDX of `dims` uint8 dims, wrong size.
Result<std::vector<uint8_t>> ReadIdx(const std::string& path, int dims, Shape* shape);

/// Loads `fashion-mnist:DIR` (DIR/t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte, each maybe
/// .gz; items [N,1,28,28] = pixels / 255) or `npy:DIR` (DIR/items.npy float32 [N, ...] and
/// DIR/labels.npy [N] integers). Errors name the spec's problem or the file.
Result<DataSet> LoadDataSet(const std::string& spec);

/// Items [start, start + shape[0]) of `ds` as one float32 batch of `shape` (the item shape of `ds`
/// with the batch as its first dim); rows past the data set's end are zero.
Tensor MakeBatch(const DataSet& ds, int64_t start, const Shape& shape);

/// Index of the largest of row `row` of `t` read as [rows, classes] (ties to the lower index) and,
/// in `*margin` when given, its margin over the runner-up (0 with one class).
int64_t Argmax(const Tensor& t, int64_t row, int64_t classes, double* margin = nullptr);

/// A model in data-set mode: its single input and the batch it is fed with.
struct DsModel {
  std::string label;
  std::shared_ptr<Model> model;
  std::string input;    ///< the graph input's name
  int64_t batch = 1;    ///< the input's first dim when fixed and > 0, else 1
  Shape batch_shape;    ///< the data set's item shape with `batch` first
};

/// `model` (labelled `label`) prepared for the items of `ds`. Errors: not one input, no output.
Result<DsModel> PrepareDsModel(std::shared_ptr<Model> model, const std::string& label, const DataSet& ds);

/// Reads a framework's logits for the first `n` items from `f.dir`/`file` (e.g. "<output name>.npy"):
/// floating-point [N >= n, classes >= 2]. Errors, prefixed "--expect LABEL: ": unreadable, or
/// another dtype or shape.
Result<Tensor> ReadFrameworkLogits(const Framework& f, const std::string& file, int64_t n);

/// A run's top-1 prediction per item (-1 where its logits hold a NaN) and its top-1 margin (NaN there).
struct RunPred {
  std::string label;  ///< "MODEL BACKEND", or the framework's label
  std::string kind;   ///< the backend, or "framework"
  size_t model = 0;   ///< index of the run's model
  std::vector<int64_t> pred;
  std::vector<double> margin;
};

/// Appends the prediction of row `row` of `y` ([rows, classes] logits) to `*rp`.
void PredictRow(const Tensor& y, int64_t row, int64_t classes, RunPred* rp);

/// Runs `dm` (model index `model`) on `backend` over the first `n` items of `ds`, batch by batch, and
/// sets `*classes` to the output's class count. `progress(done)` is called after each batch that
/// crosses a multiple of 100 items and after the last one. Errors, prefixed "LABEL on BACKEND: ":
/// session creation or a run; prefixed "LABEL: ": an output that is not floating-point [batch,
/// classes >= 2].
Result<RunPred> PredictOnBackend(const DsModel& dm, size_t model, const std::string& backend, const DataSet& ds, int64_t n,
                                 const std::function<void(int64_t done)>& progress, int64_t* classes);

/// A framework's predictions from its logits (ReadFrameworkLogits) for the first `n`
/// items. Errors: its class count is not `classes` (the model's).
Result<RunPred> PredictFramework(const Framework& f, const Tensor& logits, size_t model, int64_t n, int64_t classes);

/// The predictions of every model on every backend, in order, each model's frameworks after its
/// runs (`logits[m][f]`, from ReadFrameworkLogits, holds the logits of `frameworks[m][f]`).
/// `progress(run label, done)` is called as PredictOnBackend's `progress`, when given. Errors:
/// PredictOnBackend's and PredictFramework's.
Result<std::vector<RunPred>> PredictAll(const std::vector<DsModel>& models, const std::vector<std::string>& backends,
                                        const std::vector<std::vector<Framework>>& frameworks,
                                        const std::vector<std::vector<Tensor>>& logits, const DataSet& ds, int64_t n,
                                        const std::function<void(const std::string& label, int64_t done)>& progress);

/// A run's accuracy over the first n items (NaN predictions count wrong).
struct Accuracy {
  int64_t correct = 0;
  int64_t nan = 0;      ///< items with NaN logits
  double accuracy = 0;  ///< correct / n
};
/// The Accuracy of run `r` against the labels of `ds` over its first n items (n = 0: accuracy NaN).
Accuracy AccuracyOf(const RunPred& r, const DataSet& ds, int64_t n);

/// Attributes top-1 flips between runs; caches the verdict of two models per item.
class FlipAttributor {
 public:
  /// `models` and `ds` must outlive the attributor.
  FlipAttributor(const std::vector<DsModel>& models, const DataSet& ds, double threshold);
  /// The attribution of a flip of `item` between `ra` and `rb`: "kernel noise floor" or "framework
  /// computing difference" (a framework involved) when they are runs of one model or of two models
  /// that compute the same function on the item, else the models' verdict ("models differ at ...",
  /// JudgeModels, on ref64). Where a model is quantized the verdict is JudgeQuantization's
  /// ("quantization error, most added at ..."), its integer runs (any run but ref64's float truth,
  /// a framework's included) traced on ref (TFLite's integer arithmetic), its ref64 run on ref64:
  /// so also between a quantized model's integer run and its own ref64 run.
  /// The models are compared on the batch that starts at `item` (the models' batch size), so with a
  /// batch larger than 1 a difference on a neighbouring item also counts.
  /// Errors: the traced runs.
  Result<std::string> operator()(const RunPred& ra, const RunPred& rb, int64_t item);

 private:
  const std::vector<DsModel>& models_;
  const DataSet& ds_;
  double threshold_;
  std::vector<char> quantized_;  ///< per model: has TFLite quantized ops
  std::map<std::tuple<size_t, std::string, size_t, std::string, int64_t>, std::string> judged_;
};

/// One item whose top-1 prediction differs between two runs.
struct Flip {
  int64_t item = 0, label = 0;
  int64_t a = 0, b = 0;              ///< the two runs' predictions
  double margin_a = 0, margin_b = 0; ///< their top-1 margins
  std::string attribution;
};

/// The flips between two runs, in item order, and their count per attribution.
struct PairFlips {
  std::string a, b;  ///< the runs' labels
  std::vector<Flip> flips;
  std::map<std::string, int64_t> by_attribution;
};

/// The flips between runs `a` and `b` over the first `n` items. Errors: "attributing item I: ..."
Result<PairFlips> FlipsBetween(const RunPred& a, const RunPred& b, const DataSet& ds, int64_t n, FlipAttributor& attribute);

}  // namespace tare
