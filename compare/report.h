// The reports of `tare compare`: the JSON document (--json) of single-input mode and of data-set
// mode, and the self-contained HTML page (--html: no scripts, no network) made from that JSON.
// Non-finite numbers are written as the strings "nan", "inf" and "-inf" where JsonNumber is used;
// object keys come out sorted (nlohmann::json's default).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compare/attribution.h"
#include "compare/dataset.h"
#include "compare/layers.h"
#include "compare/metrics.h"

namespace tare {

/// The `schema_version` of both JSON reports (docs/COMPARE.md): raised when a field changes
/// meaning or goes away; new fields may appear without it.
inline constexpr int kReportSchemaVersion = 1;

/// `v` as a JSON number, or "nan", "inf", "-inf" when it is not finite.
nlohmann::json JsonNumber(double v);

/// {max_abs, max_rel, rel_l2, cosine, max_ulp, top1, topk, k, nan_mismatch} of `m`.
nlohmann::json MetricsJson(const Metrics& m);

/// One model of single-input mode: {file, runs: [{backend, vs: "ref64", worst_output, metrics}],
/// frameworks: [{label, vs: "ref64", worst_output, metrics}], kernel_noise_floor_rel_l2 (null when
/// not measured), quantized}.
nlohmann::json ModelJson(const ModelSummary& s);

/// One pair verdict: {a, b, kind, verdict} and what the verdict has (ref64, aligned_layers, layers
/// [{a, b, op, op_b, how, layout: "same" | "a NHWC" | "b NHWC", diverges, metrics | error}],
/// first_divergence {a, b: {node, op, tensor, attributes}}; metrics, a_vs_ref64, b_vs_ref64,
/// kernel_noise_floor_rel_l2, ratio_to_floor).
nlohmann::json PairJson(const PairVerdict& v);

/// One backend's layers (compare/layers.h): {backend, isolated_nodes, over_budget, worst_ratio,
/// worst_node, nodes: [{index, node, op, tensor, placement, chained: MetricsJson | null,
/// chained_error, isolated: {ratio, k, units, worst_output, worst_index, placement, metrics} |
/// null, isolated_error}]}; the ratio is a JsonNumber ("inf" for a NaN on one side).
nlohmann::json LayersJson(const BackendLayers& l);

/// A framework's departure from ref64 (FirstDeparture): {peer, found, compared, factor, text} and
/// when found {node, op, index, rel_l2, floor, ratio}, else {worst_node, ratio} (the ratio a
/// JsonNumber).
nlohmann::json DepartureJson(const Departure& d);

/// One bisection (BisectBackend): {backend, reference, threshold_rel_l2, verdict, text, candidates,
/// probes, backend_vs_ref64, reference_vs_ref64} and for verdict "found" {node, op, index,
/// attributes, input_shapes, with_node, before_node, isolated_ratio (null when not run),
/// reproducer (the folder written, "" when none)}.
nlohmann::json BisectionJson(const Bisection& b, const std::string& reproducer);

/// The JSON report of single-input mode: {schema_version, kind: "single-input", threshold_rel_l2,
/// models: [ModelJson...], pairs: [PairJson...]}, models and pairs in the given order (the CLI adds
/// each model's `layers` and `bisections`).
nlohmann::json CompareReport(double threshold, const std::vector<ModelSummary>& models, const std::vector<PairVerdict>& pairs);

/// The JSON report of data-set mode: {schema_version, kind: "dataset", items: n, threshold_rel_l2, runs: [{run, model, kind,
/// accuracy, correct, nan_items}], pairs: [{a, b, flips: [{item, label, a, b, margin_a, margin_b,
/// attribution}], by_attribution: {ATTRIBUTION: count}}]}. `models` are indexed by RunPred::model.
nlohmann::json DataSetReport(int64_t n, double threshold, const std::vector<DsModel>& models,
                             const std::vector<RunPred>& runs, const std::vector<Accuracy>& accuracy,
                             const std::vector<PairFlips>& pairs);

/// `in` with <, >, & and " escaped for HTML.
std::string HtmlEscape(const std::string& in);

/// The HTML page of a single-input report (CompareReport, compare/report_html.cc), one
/// self-contained file (inline style, SVG and a table-sorting script; nothing fetched): the
/// verdicts first (pairs, kernel bugs, peers' departures, bisections), the runs table against
/// ref64, per model with `layers` a log plot of every run's and peer's chained rel L2 per layer
/// (tare's per-layer noise floor, times the departure factor with peers, as a band), a log plot of
/// every backend's isolated error / budget (the budget as a band) and a sortable layer table; per
/// pair, the verdict, the first divergence and a log plot of every aligned layer's rel L2. Every
/// point's hover text names the node and its op.
std::string CompareHtml(const nlohmann::json& report);

/// The HTML page of a data-set report (DataSetReport), self-contained as CompareHtml's: the flips
/// per pair first, a bar chart and a sortable table of every run's accuracy, the flip matrix (runs
/// x runs, hover: by attribution) and per pair of runs the first 50 flips.
std::string DataSetHtml(const nlohmann::json& report);

}  // namespace tare
