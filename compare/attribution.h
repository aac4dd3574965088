// Attribution (docs/ARCHITECTURE.md, the numerics contract): runs of a model on tare's backends
// with ref64's layers traced, each run's and each framework's distance from ref64, and the
// verdicts of `tare compare`:
//   same function                    two models compute the same function on ref64 (outputs within
//                                    the threshold, relative L2), or two frameworks' outputs agree
//   framework computing difference   two frameworks' outputs differ although their models compute
//                                    the same function
//   models differ at <layer>         the first aligned layer whose output diverges while the layers
//                                    feeding it agree
//   kernel noise floor               how far tare's own backends drift from ref64 on the model
// Every function here takes loaded models and tensors; reading model files is the caller's.
#pragma once
#include <array>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compare/align.h"
#include "compare/metrics.h"
#include "format/model_file.h"
#include "runtime/passes/float_truth.h"
#include "runtime/session.h"

namespace tare {

/// A model's run on one backend: its outputs (in the graph's output order; quantized outputs as
/// real values, float64) and, when traced, its layers (TracedLayers, graph order).
struct BackendRun {
  std::string backend;
  std::vector<NamedTensor> outputs;
  std::vector<Layer> layers;  ///< empty when the run was not traced
  /// When traced: the run's inputs and every traced value by tensor name (quantized codes as real
  /// values), and Session::Placement.
  std::map<std::string, Tensor> values;
  std::vector<std::pair<std::string, std::string>> placement;
};

/// A framework's own outputs for one model (`--expect LABEL=DIR`).
struct Framework {
  std::string label;  ///< unique among the frameworks, models and tare's runs
  std::string dir;    ///< the folder holding `<SafeName(output)>.npy` per output (one output: also its only .npy)
  std::vector<NamedTensor> outputs;  ///< in the model's output order (ReadFrameworkOutputs)
};

/// Everything compared for one model in single-input mode.
struct ModelRuns {
  std::string label;
  std::shared_ptr<Model> model;
  std::vector<BackendRun> runs;  ///< one per backend, ref64 first
  std::vector<Framework> frameworks;
  double floor = 0;  ///< kernel noise floor: worst rel L2 of tare's other backends against ref64 (SummarizeModel; a NaN distance does not raise it)
};

/// Bytes of traced layers all runs of one comparison may keep: half of this machine's physical
/// memory (4 GiB when it cannot be read).
size_t TraceBudget();

/// The quantization of each run-time quantized tensor of `g` by tensor name (QuantizedValues);
/// empty for a model without TFLite quantized ops. Errors: QuantizedValues's.
Result<std::map<std::string, ValueQuant>> QuantByName(const Graph& g);

/// Replaces the integer codes in `*t` by their real values (float64, DequantizeCodes) when `name` is
/// in `quant`; float tensors and non-tensor values are left as they are. This lets an integer run
/// compare with ref64's float truth and with a model quantized otherwise. Errors: DequantizeCodes's.
Status ToReal(const std::map<std::string, ValueQuant>& quant, const std::string& name, Tensor* t);

/// Runs `model` on `backend` with `inputs`. With `trace`, every layer is traced, the traced bytes
/// are added to `*traced_bytes` (shared by all runs of one comparison) and a run that takes the
/// total over TraceBudget() fails with a clear error. Quantized tensors (TFLite's quantized ops) come
/// back as real values: ref64 computes the float truth, the other backends' codes are dequantized.
/// Errors: session creation or the run (unknown backend, bad inputs, ...), the trace budget.
Result<BackendRun> RunModel(const std::shared_ptr<Model>& model, const std::string& backend,
                            const std::vector<NamedTensor>& inputs, bool trace, size_t* traced_bytes);

/// Fills `f->outputs` from `f->dir`: for each of `ref64_outputs` (the model's ref64 run), the .npy
/// file named by `files` at the same index (e.g. "<output name>.npy"), codes of a quantized output
/// (by `quant`, QuantByName) turned into real values. Errors, prefixed "--expect LABEL: ": a file
/// that cannot be read, or whose float/integer kind or shape differs from the model's output.
Status ReadFrameworkOutputs(const std::map<std::string, ValueQuant>& quant, const std::vector<NamedTensor>& ref64_outputs,
                            const std::vector<std::string>& files, Framework* f);

/// Labels of the models of one comparison, from their paths (in order): the file names, or the
/// paths as given where two file names are the same.
std::vector<std::string> ModelLabels(const std::vector<std::string>& paths);

/// The checks of a single-input comparison's options that need no file: at least one model,
/// `backends` starting with ref64 (the reference) and naming no backend twice, `threshold` finite
/// and >= 0. Errors name the CLI's options (--model, --backends, --threshold).
Status CheckCompareOptions(size_t n_models, const std::vector<std::string>& backends, double threshold);

/// The frameworks of every model (`model_labels`, ModelLabels): `frameworks[i].second` belongs to
/// the model of index `frameworks[i].first`; `dir` is read later (RunForComparison). Labels must be
/// non-empty, unique, and differ from the model labels and the names of tare's own runs ("BACKEND",
/// "MODEL BACKEND" for each of `backends`). Errors: an empty label or folder, a label given twice or
/// naming a model or a run, a model index out of range.
Result<std::vector<std::vector<Framework>>> AssignFrameworks(const std::vector<std::string>& model_labels,
                                                             const std::vector<std::string>& backends,
                                                             std::vector<std::pair<size_t, Framework>> frameworks);

/// Single-input mode for one model whose inputs are bound: runs `model` with `inputs` on each of
/// `backends` in order (ref64 first; every run traced when `trace_all` is set, else ref64's only,
/// RunModel; their bytes are added to `*traced_bytes`, shared by all models of the comparison),
/// then reads each of `frameworks`'
/// outputs from its `dir` (`<SafeName(output)>.npy` for each output of the ref64 run,
/// ReadFrameworkOutputs). The result's `label` is `label`; `floor` is set later by SummarizeModel.
/// Errors: RunModel's prefixed "LABEL on BACKEND: ", QuantByName's prefixed "LABEL: ",
/// ReadFrameworkOutputs's.
Result<ModelRuns> RunForComparison(std::shared_ptr<Model> model, const std::string& label, const std::vector<NamedTensor>& inputs,
                                   const std::vector<std::string>& backends, std::vector<Framework> frameworks, size_t* traced_bytes,
                                   bool trace_all = false);

/// The worst (largest rel L2, NaN first) comparison of `a` with `b`, outputs matched by position;
/// `*which` gets the worst output's name in `a`. Errors: different output counts, an output pair
/// that cannot be compared (CompareTensors, named by index and name).
Result<Metrics> WorstOutput(const std::vector<NamedTensor>& a, const std::vector<NamedTensor>& b, std::string* which);

/// Whether `m` is within `threshold`: no NaN mismatch and rel L2 <= threshold.
bool Within(const Metrics& m, double threshold);

/// A node's attributes as "name=value, ..." (tare.* attributes left out; floats as %.9g, strings
/// quoted, int and float lists in brackets, other kinds (string lists, graphs, tensors) by their
/// kind's name).
std::string NodeAttrs(const Node& n);

/// One run's or one framework's distance from ref64 over a model's outputs (WorstOutput).
struct VsRef64 {
  std::string name;          ///< the backend, or the framework's label
  std::string worst_output;  ///< the output with the largest rel L2
  Metrics metrics;
};

/// The distances from ref64 of one model's runs and frameworks.
struct ModelSummary {
  std::string label;
  std::vector<VsRef64> runs;        ///< every backend after ref64, in order
  std::vector<VsRef64> frameworks;  ///< every framework of the model, in order
  double floor = 0;                 ///< kernel noise floor (the worst rel L2 of `runs`; 0 without runs)
  bool floor_measured = false;      ///< whether a backend besides ref64 ran
  bool quantized = false;           ///< the model has TFLite quantized ops: `floor` is its quantization error
};

/// Compares every run after ref64 and every framework of `*mr` with its ref64 run, and sets
/// `mr->floor`. On error `*out` holds what was compared before it. Errors: WorstOutput's (a
/// framework's prefixed "LABEL: ").
Status SummarizeModel(ModelRuns* mr, ModelSummary* out);

/// One aligned layer of a model pair, as reported (a compared to b).
struct LayerRow {
  std::string a, b;     ///< the traced tensors' names
  std::string op, op_b; ///< the anchors' op types
  std::string how;      ///< "name" or "structure" (AlignedPair::how)
  PairLayout layout = PairLayout::kSame;
  bool diverges = false;
  std::optional<Metrics> metrics;  ///< absent when the tensors could not be compared
  std::string error;               ///< why not, else empty
};

/// One side of a first divergence: the anchor node, its op, the traced tensor and NodeAttrs.
struct DivergenceSide {
  std::string node, op, tensor, attributes;
};

/// The verdict on a pair of models or of frameworks.
struct PairVerdict {
  std::string a, b;     ///< the models' or frameworks' labels
  std::string kind;     ///< "models" or "frameworks"
  std::string verdict;  ///< "same function", "models differ", "models differ at NODE_A / NODE_B",
                        ///< "quantization error[, most added at NODE_A / NODE_B]",
                        ///< "framework computing difference" or (frameworks) "error"
  std::string text;     ///< the sentence for the terminal (may span lines)
  // kind "models":
  std::optional<Metrics> ref64;                ///< the ref64 outputs' worst distance (absent when they could not be compared)
  std::optional<size_t> aligned_layers;        ///< layers aligned (absent for "same function")
  std::optional<std::vector<LayerRow>> layers; ///< every aligned layer (only when asked for and not "same function")
  std::optional<std::array<DivergenceSide, 2>> first_divergence;  ///< for "models differ at"
  // kind "frameworks" whose outputs were compared:
  std::optional<Metrics> metrics;             ///< the frameworks' outputs, a against b
  std::optional<Metrics> a_vs_ref64, b_vs_ref64;
  std::optional<double> floor;                ///< the larger kernel noise floor of the two models
  std::optional<double> ratio_to_floor;       ///< the further framework's rel L2 over `floor` (when floor > 0)
};

/// Steps 1 and 2 of the attribution for two models' traced ref64 runs: "same function" when the
/// outputs agree within `threshold` (relative L2), else "models differ at NODE_A / NODE_B" at the
/// first divergence (FirstDivergence; the text names both nodes, ops, constant epilogues, tensors
/// and attributes), or "models differ" when no aligned layer diverges first. `with_layers` keeps
/// every aligned layer in the verdict.
PairVerdict JudgeModels(const std::string& la, const Model& ma, const BackendRun& ra, const std::string& lb,
                        const Model& mb, const BackendRun& rb, double threshold, bool with_layers);

/// The attribution of a difference that quantization makes: two traced runs of which at least one
/// is of a quantized model (on ref: TFLite's integer arithmetic, its codes read as real values; on
/// ref64: its float truth, where only the weights are quantized), the other a float model's or the
/// float truth's. "same function" when the
/// outputs agree within `threshold` (relative L2); else "quantization error, most added at NODE_A /
/// NODE_B" (one name when both are the same): over the aligned layers in model A's graph order,
/// the one whose relative L2 between the runs rises most above the largest of the layers before
/// it, i.e. where the item's error grows most; "quantization error" when none rises.
PairVerdict JudgeQuantization(const std::string& la, const Model& ma, const BackendRun& ra, const std::string& lb,
                              const Model& mb, const BackendRun& rb, double threshold);

/// "framework computing difference" or "same function" for two frameworks whose models compute
/// the same function; `fa`/`fb` are each framework's distance from ref64 and `floor` the larger
/// kernel noise floor of the two models. Verdict "error" when their outputs cannot be compared.
PairVerdict JudgeFrameworks(const Framework& a, const Metrics& fa, const Framework& b, const Metrics& fb, double floor,
                            double threshold);

/// Every verdict of single-input mode: each pair of models (in order), then each pair of
/// frameworks across all models: JudgeFrameworks when their models compute the same function
/// (or are one model), else the models' verdict. `summaries` (SummarizeModel, one per model) give
/// each framework's distance from ref64.
std::vector<PairVerdict> JudgeAll(const std::vector<ModelRuns>& all, const std::vector<ModelSummary>& summaries,
                                  double threshold);

}  // namespace tare
