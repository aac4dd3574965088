// tare compare: runs one or more models on tare's backends with every layer traced, and says where
// and why outputs differ (docs/ARCHITECTURE.md, the numerics contract; the verdicts are computed
// in compare/attribution.h, data-set mode in compare/dataset.h, the reports in compare/report.h).
// This file checks the arguments, loads the models and inputs, prints the terminal table and
// writes --json and --html. Exit status 0 when the comparison ran (whatever the verdict).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "cli/cli.h"
#include "compare/attribution.h"
#include "compare/dataset.h"
#include "compare/report.h"
#include "converters/load_any.h"
#include "converters/onnx/onnx_converter.h"

namespace fs = std::filesystem;
using namespace tare;
using json = nlohmann::json;

namespace tare_cli {
namespace {

// Splits --expect LABEL=DIR.
Status SplitExpect(const std::string& e, std::string* label, std::string* dir) {
  const size_t eq = e.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == e.size()) return Status::Error("--expect must be LABEL=DIR, got '" + e + "'");
  *label = e.substr(0, eq);
  *dir = e.substr(eq + 1);
  return Status::Ok();
}

// The frameworks of every model from --expect (each belongs to the --model before it;
// AssignFrameworks checks the labels).
Result<std::vector<std::vector<Framework>>> ParseExpects(const CompareArgs& args) {
  std::vector<std::pair<size_t, Framework>> fws;
  for (size_t i = 0; i < args.expects.size(); ++i) {
    Framework f;
    TARE_RETURN_IF_ERROR(SplitExpect(args.expects[i], &f.label, &f.dir));
    const size_t mi = i < args.expect_model.size() ? args.expect_model[i] : std::min(i, args.models.size() - 1);
    fws.emplace_back(std::min(mi, args.models.size() - 1), std::move(f));
  }
  return AssignFrameworks(ModelLabels(args.models), args.backends, std::move(fws));
}

// Writes --html (the page `html` makes of the report) and --json, when given.
Status WriteReports(const CompareArgs& args, const json& report, std::string (*html)(const json&)) {
  if (!args.html.empty()) TARE_RETURN_IF_ERROR(WriteTextFile(args.html, html(report)));
  if (!args.json.empty()) TARE_RETURN_IF_ERROR(WriteTextFile(args.json, report.dump(2) + "\n"));
  return Status::Ok();
}

// Data-set mode: every model and every --expect is read and checked before the first run.
Status LoadDataSetModels(const CompareArgs& args, const DataSet& ds, int64_t n, const std::vector<std::vector<Framework>>& fws,
                         std::vector<DsModel>* models, std::vector<std::vector<Tensor>>* fw_logits) {
  const std::vector<std::string> labels = ModelLabels(args.models);
  fw_logits->resize(args.models.size());
  for (size_t mi = 0; mi < args.models.size(); ++mi) {
    TARE_ASSIGN_OR_RETURN(std::shared_ptr<Model> m, LoadAnyModel(args.models[mi], args.from));
    TARE_ASSIGN_OR_RETURN(DsModel dm, PrepareDsModel(m, labels[mi], ds));
    const Graph& g = dm.model->graph;
    const std::string file = SafeName(g.values[static_cast<size_t>(g.outputs[0])].name) + ".npy";
    for (const Framework& f : fws[mi]) {
      TARE_ASSIGN_OR_RETURN(Tensor t, ReadFrameworkLogits(f, file, n));
      (*fw_logits)[mi].push_back(std::move(t));
    }
    models->push_back(std::move(dm));
  }
  return Status::Ok();
}

// Prints the flips between two runs: their count by attribution and the first 20.
void PrintFlips(const PairFlips& p, bool json_report) {
  std::string summary;
  for (const auto& [why, count] : p.by_attribution) summary += (summary.empty() ? " (" : ", ") + std::to_string(count) + " " + why;
  if (!summary.empty()) summary += ")";
  std::printf("flips %s vs %s: %zu%s\n", p.a.c_str(), p.b.c_str(), p.flips.size(), summary.c_str());
  const size_t shown = std::min<size_t>(p.flips.size(), 20);
  for (size_t l = 0; l < shown; ++l) {
    const Flip& f = p.flips[l];
    char buf[160];
    std::snprintf(buf, sizeof buf, "  item %lld (label %lld): %lld -> %lld (top-1 margins %.2e / %.2e), ", static_cast<long long>(f.item),
                  static_cast<long long>(f.label), static_cast<long long>(f.a), static_cast<long long>(f.b), f.margin_a, f.margin_b);
    std::printf("%s\n", (buf + f.attribution).c_str());
  }
  if (shown < p.flips.size())
    std::printf("  ... %zu more flips%s\n", p.flips.size() - shown, json_report ? " in the JSON report" : " (--json lists them all)");
}

// Data-set mode (compare/dataset.h): accuracy of every run and, for every pair of runs, the items
// whose top-1 prediction flips, each with its attribution.
int DataSetMode(const CompareArgs& args) {
  if (!args.inputs.empty()) return Fail("--input is not used with --dataset: the items come from the data set");
  Result<DataSet> dsr = LoadDataSet(args.dataset);
  if (!dsr.ok()) return Fail(dsr.status().message());
  const DataSet ds = std::move(dsr).value();
  if (ds.items.shape[0] == 0) return Fail("the data set is empty");
  const int64_t n = args.limit > 0 ? std::min<int64_t>(ds.items.shape[0], args.limit) : ds.items.shape[0];
  Result<std::vector<std::vector<Framework>>> fws = ParseExpects(args);
  if (!fws.ok()) return Fail(fws.status().message());
  std::vector<DsModel> models;
  std::vector<std::vector<Tensor>> fw_logits;
  if (Status st = LoadDataSetModels(args, ds, n, *fws, &models, &fw_logits); !st.ok()) return Fail(st.message());
  std::function<void(const std::string&, int64_t)> progress;
  if (isatty(STDERR_FILENO))
    progress = [n](const std::string& label, int64_t done) {
      std::fprintf(stderr, "\r  %s: %lld/%lld%s", label.c_str(), static_cast<long long>(done), static_cast<long long>(n), done == n ? "\n" : "");
    };
  Result<std::vector<RunPred>> predicted = PredictAll(models, args.backends, *fws, fw_logits, ds, n, progress);
  if (!predicted.ok()) return Fail(predicted.status().message());
  const std::vector<RunPred>& runs = *predicted;
  std::vector<Accuracy> accuracy;
  for (const RunPred& r : runs) {
    const Accuracy a = AccuracyOf(r, ds, n);
    std::printf("accuracy %-36s %.4f (%lld/%lld)%s\n", r.label.c_str(), a.accuracy, static_cast<long long>(a.correct),
                static_cast<long long>(n),
                a.nan ? (" (" + std::to_string(a.nan) + " items with NaN outputs, counted wrong, predicted class -1)").c_str() : "");
    accuracy.push_back(a);
  }
  FlipAttributor attribute(models, ds, args.threshold);
  std::vector<PairFlips> pairs;
  for (size_t a = 0; a < runs.size(); ++a) {
    for (size_t b = a + 1; b < runs.size(); ++b) {
      Result<PairFlips> p = FlipsBetween(runs[a], runs[b], ds, n, attribute);
      if (!p.ok()) return Fail(p.status().message());
      PrintFlips(*p, !args.json.empty());
      pairs.push_back(std::move(p).value());
    }
  }
  if (Status st = WriteReports(args, DataSetReport(n, args.threshold, models, runs, accuracy, pairs), DataSetHtml); !st.ok())
    return Fail(st.message());
  return 0;
}

// Checks --json and --html before anything runs: each names a file in an existing directory, not
// a directory, not a model or input file, and the two differ.
Status CheckOutputPaths(const CompareArgs& args) {
  std::vector<std::string> inputs = args.models;
  for (const std::string& in : args.inputs) {
    const size_t eq = in.find('=');
    inputs.push_back(eq == std::string::npos || fs::exists(in) ? in : in.substr(eq + 1));
  }
  auto same = [](const std::string& a, const std::string& b) {
    std::error_code ec;
    if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
    return fs::absolute(a, ec).lexically_normal() == fs::absolute(b, ec).lexically_normal();
  };
  const std::pair<const char*, const std::string*> outs[] = {{"--json", &args.json}, {"--html", &args.html}};
  for (const auto& [flag, path] : outs) {
    if (path->empty()) continue;
    TARE_RETURN_IF_ERROR(CheckOutputFile(flag, *path));
    for (const std::string& in : inputs)
      if (same(*path, in)) return Status::Error(std::string(flag) + " '" + *path + "' would overwrite the input '" + in + "'");
  }
  if (!args.json.empty() && !args.html.empty() && same(args.json, args.html)) return Status::Error("--json and --html name the same file");
  return Status::Ok();
}

// The checks of the arguments that need no file.
Status CheckArgs(const CompareArgs& args) {
  TARE_RETURN_IF_ERROR(CheckCompareOptions(args.models.size(), args.backends, args.threshold));
  if (args.limit < 0) return Status::Error("--limit must be >= 0 (0: every item)");
  if (args.limit > 0 && args.dataset.empty()) return Status::Error("--limit applies to --dataset only");
  return CheckOutputPaths(args);
}

// Loads model `mi` and its inputs, then runs it on every backend (RunForComparison).
Result<ModelRuns> LoadAndRun(const CompareArgs& args, size_t mi, const std::string& label, std::vector<Framework> frameworks,
                             size_t* traced_bytes) {
  TARE_ASSIGN_OR_RETURN(std::shared_ptr<Model> model, LoadAnyModel(args.models[mi], args.from));
  Result<std::vector<NamedTensor>> inputs = BindInputs(model->graph, args.inputs);
  if (!inputs.ok()) return Status::Error(label + ": " + inputs.status().message());
  return RunForComparison(std::move(model), label, *inputs, args.backends, std::move(frameworks), traced_bytes);
}

// Prints a model's rows of the runs table and its noise floor line; the error of SummarizeModel
// after the rows computed before it.
Status PrintSummary(ModelRuns* mr, ModelSummary* s) {
  const Status st = SummarizeModel(mr, s);
  auto row = [](const std::string& name, const Metrics& m) {
    std::printf("%-28s %-10s %-12.3e %-12.3e %-12.9f %-10llu\n", name.c_str(), "ref64", m.rel_l2, m.max_abs, m.cosine,
                static_cast<unsigned long long>(m.max_ulp));
  };
  for (const VsRef64& r : s->runs) row(mr->label + " " + r.name, r.metrics);
  for (const VsRef64& f : s->frameworks) row(mr->label + " " + f.name, f.metrics);
  TARE_RETURN_IF_ERROR(st);
  if (s->floor_measured && s->quantized) {
    std::printf("quantization error of %s: rel L2 %.3e (tare's integer kernels against the float truth on ref64)\n",
                mr->label.c_str(), s->floor);
  } else if (s->floor_measured) {
    std::printf("kernel noise floor of %s: rel L2 %.3e (tare's backends against ref64)\n", mr->label.c_str(), s->floor);
  } else {
    std::printf("kernel noise floor of %s: not measured (no backend besides ref64)\n", mr->label.c_str());
  }
  return Status::Ok();
}

}  // namespace

int CmdCompare(const CompareArgs& args) {
  if (Status st = CheckArgs(args); !st.ok()) return Fail(st.message());
  if (!args.dataset.empty()) return DataSetMode(args);
  Result<std::vector<std::vector<Framework>>> fws = ParseExpects(args);
  if (!fws.ok()) return Fail(fws.status().message());
  const std::vector<std::string> labels = ModelLabels(args.models);
  std::vector<ModelRuns> all;
  size_t traced_bytes = 0;
  for (size_t mi = 0; mi < args.models.size(); ++mi) {
    Result<ModelRuns> mr = LoadAndRun(args, mi, labels[mi], std::move((*fws)[mi]), &traced_bytes);
    if (!mr.ok()) return Fail(mr.status().message());
    all.push_back(std::move(mr).value());
  }
  std::printf("%-28s %-10s %-12s %-12s %-12s %-10s\n", "model / run", "vs", "rel_l2", "max_abs", "cosine", "max_ulp");
  std::vector<ModelSummary> summaries(all.size());
  for (size_t mi = 0; mi < all.size(); ++mi)
    if (Status st = PrintSummary(&all[mi], &summaries[mi]); !st.ok()) return Fail(st.message());
  const std::vector<PairVerdict> verdicts = JudgeAll(all, summaries, args.threshold);
  for (const PairVerdict& v : verdicts) std::printf("%s\n", v.text.c_str());
  if (Status st = WriteReports(args, CompareReport(args.threshold, summaries, verdicts), CompareHtml); !st.ok()) return Fail(st.message());
  return 0;
}

}  // namespace tare_cli
