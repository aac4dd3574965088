// tare compare: runs one or more models on tare's backends with every layer traced, and says where
// and why outputs differ (docs/ARCHITECTURE.md, the numerics contract; the verdicts are computed
// in compare/attribution.h, data-set mode in compare/dataset.h, the reports in compare/report.h).
// This file checks the arguments, loads the models and inputs, prints the terminal table and
// writes --json and --html. Exit status 0 when the comparison ran (whatever the verdict).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/peers.h"
#include "compare/attribution.h"
#include "compare/dataset.h"
#include "compare/report.h"
#include "converters/load_any.h"
#include "converters/onnx/onnx_converter.h"
#include "converters/onnx/onnx_writer.h"

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
  if (!(args.bisect_threshold > 0) || !std::isfinite(args.bisect_threshold))
    return Status::Error("--bisect-threshold must be a positive number");
  if (!args.dataset.empty() && (!args.bisect.empty() || args.layers || args.no_isolated || !args.peers.empty()))
    return Status::Error("--bisect, --layers, --no-isolated and --peer apply to single-input mode, not to --dataset");
  for (size_t i = 0; i < args.peers.size(); ++i) {
    const std::vector<std::string>& known = KnownPeers();
    if (std::find(known.begin(), known.end(), args.peers[i]) == known.end())
      return Status::Error("--peer: unknown peer '" + args.peers[i] + "' (known: ort, tflite, tfjs)");
    for (size_t j = 0; j < i; ++j)
      if (args.peers[j] == args.peers[i]) return Status::Error("--peer " + args.peers[i] + " is given twice");
    for (const std::string& e : args.expects)
      if (e.substr(0, e.find('=')) == args.peers[i]) return Status::Error("--expect label '" + args.peers[i] + "' is the name of a --peer");
  }
  if (!args.bisect.empty()) {
    std::error_code ec;
    const fs::path d(args.bisect);
    if (fs::exists(d, ec) && !fs::is_directory(d, ec)) return Status::Error("--bisect '" + args.bisect + "' exists and is not a directory");
    const fs::path parent = fs::absolute(d, ec).parent_path();
    if (!fs::exists(d, ec) && !fs::is_directory(parent, ec))
      return Status::Error("--bisect '" + args.bisect + "': its parent directory does not exist");
  }
  return CheckOutputPaths(args);
}

// The label of a peer's run of model `mi` (unique among the frameworks of every model).
std::string PeerLabel(const CompareArgs& args, const std::string& peer, const std::string& model_label) {
  return args.models.size() == 1 ? peer : peer + ":" + model_label;
}

// An input given in one layout to a model that declares the other: a rank-4 tensor whose shape is
// the NCHW -> NHWC (or NHWC -> NCHW) permutation of the declared one (-1 dims match any) is
// transposed into it, so one --input serves a PyTorch export (NCHW) and a TensorFlow one (NHWC).
// Returns the line saying so ("" when nothing was done).
std::string AdaptLayout(const Graph& g, NamedTensor* in) {
  const Value* v = nullptr;
  for (int id : g.inputs)
    if (g.values[static_cast<size_t>(id)].name == in->name) v = &g.values[static_cast<size_t>(id)];
  const Tensor& t = in->tensor;
  if (!v || !v->has_shape || v->shape.size() != 4 || t.shape.size() != 4 || t.kind != ValueKind::kTensor || t.dtype == DType::kString) return "";
  auto fits = [&](const Shape& s) {
    for (size_t d = 0; d < 4; ++d)
      if (v->shape[d] >= 0 && v->shape[d] != s[d]) return false;
    return true;
  };
  if (fits(t.shape)) return "";
  for (const std::vector<size_t>& perm : {std::vector<size_t>{0, 2, 3, 1}, std::vector<size_t>{0, 3, 1, 2}}) {
    const Shape ps = {t.shape[perm[0]], t.shape[perm[1]], t.shape[perm[2]], t.shape[perm[3]]};
    if (!fits(ps)) continue;
    Result<Tensor> y = Tensor::Alloc(t.dtype, ps);
    if (!y.ok()) return "";
    const size_t es = DTypeSize(t.dtype);
    const int64_t st[4] = {t.shape[1] * t.shape[2] * t.shape[3], t.shape[2] * t.shape[3], t.shape[3], 1};
    int64_t o = 0;
    for (int64_t a = 0; a < ps[0]; ++a)
      for (int64_t b = 0; b < ps[1]; ++b)
        for (int64_t c = 0; c < ps[2]; ++c)
          for (int64_t d = 0; d < ps[3]; ++d, ++o) {
            const int64_t idx[4] = {a, b, c, d};
            int64_t src = 0;
            for (size_t k = 0; k < 4; ++k) src += idx[k] * st[perm[k]];
            std::memcpy(static_cast<uint8_t*>(y->data) + o * es, static_cast<const uint8_t*>(t.data) + src * es, es);
          }
    const std::string line = "input '" + in->name + "': " + ShapeStr(t.shape) + " given in " + (perm[1] == 2 ? "NCHW" : "NHWC") +
                             ", fed in the model's " + (perm[1] == 2 ? "NHWC " : "NCHW ") + ShapeStr(ps);
    in->tensor = std::move(y).value();
    return line;
  }
  return "";
}

// Loads model `mi` and its inputs (into `*inputs`), runs each --peer on it under `tmp` (into
// `*peers`, each also a framework), then runs it on every backend with every layer traced
// (RunForComparison).
Result<ModelRuns> LoadAndRun(const CompareArgs& args, size_t mi, const std::string& label, std::vector<Framework> frameworks,
                             const TempDir& tmp, size_t* traced_bytes, std::vector<NamedTensor>* inputs, std::vector<PeerRun>* peers) {
  TARE_ASSIGN_OR_RETURN(std::shared_ptr<Model> model, LoadAnyModel(args.models[mi], args.from));
  Result<std::vector<NamedTensor>> bound = BindInputs(model->graph, args.inputs);
  if (!bound.ok()) return Status::Error(label + ": " + bound.status().message());
  *inputs = *bound;
  for (NamedTensor& in : *inputs) {
    const std::string note = AdaptLayout(model->graph, &in);
    if (!note.empty()) std::printf("%s: %s\n", label.c_str(), note.c_str());
  }
  for (const std::string& peer : args.peers) {
    const std::string work = (fs::path(tmp.path()) / (std::to_string(mi) + "." + peer)).string();
    TARE_ASSIGN_OR_RETURN(PeerRun p, RunPeer(peer, args.models[mi], *inputs, work));
    p.peer = PeerLabel(args, peer, label);
    frameworks.push_back({p.peer, p.outputs_dir, {}});
    peers->push_back(std::move(p));
  }
  return RunForComparison(std::move(model), label, *inputs, args.backends, std::move(frameworks), traced_bytes, true);
}

// Prints `rows` with each column as wide as its widest cell (the last column unpadded).
void PrintTable(const std::vector<std::vector<std::string>>& rows, const char* indent = "") {
  std::vector<size_t> w;
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size(); ++c) {
      if (w.size() <= c) w.push_back(0);
      w[c] = std::max(w[c], r[c].size());
    }
  for (const auto& r : rows) {
    std::string line = indent;
    for (size_t c = 0; c < r.size(); ++c) {
      line += r[c];
      if (c + 1 < r.size()) line += std::string(w[c] - r[c].size() + 2, ' ');
    }
    std::printf("%s\n", line.c_str());
  }
}

// The runs table's row of one run or framework against ref64.
std::vector<std::string> RunRow(const std::string& name, const VsRef64& r) {
  char cos[32];
  std::snprintf(cos, sizeof cos, "%.9f", r.metrics.cosine);
  return {name, "ref64", Sci(r.metrics.rel_l2), Sci(r.metrics.max_abs), cos, std::to_string(r.metrics.max_ulp), r.worst_output};
}

// Summarizes every model (SummarizeModel) and prints the runs table, then each model's noise floor
// line; on an error, the rows computed before it.
Status PrintSummaries(std::vector<ModelRuns>* all, std::vector<ModelSummary>* summaries) {
  std::vector<std::vector<std::string>> rows = {{"model / run", "vs", "rel_l2", "max_abs", "cosine", "max_ulp", "worst output"}};
  for (size_t mi = 0; mi < all->size(); ++mi) {
    ModelRuns& mr = (*all)[mi];
    ModelSummary& s = (*summaries)[mi];
    const Status st = SummarizeModel(&mr, &s);
    for (const VsRef64& r : s.runs) rows.push_back(RunRow(mr.label + " " + r.name, r));
    for (const VsRef64& f : s.frameworks) rows.push_back(RunRow(mr.label + " " + f.name, f));
    if (!st.ok()) {
      PrintTable(rows);
      return st;
    }
  }
  PrintTable(rows);
  for (size_t mi = 0; mi < all->size(); ++mi) {
    const ModelSummary& s = (*summaries)[mi];
    const char* label = (*all)[mi].label.c_str();
    if (s.floor_measured && s.quantized) {
      std::printf("quantization error of %s: rel L2 %.3e (tare's integer kernels against the float truth on ref64)\n", label, s.floor);
    } else if (s.floor_measured) {
      std::printf("kernel noise floor of %s: rel L2 %.3e (tare's backends against ref64)\n", label, s.floor);
    } else {
      std::printf("kernel noise floor of %s: not measured (no backend besides ref64)\n", label);
    }
  }
  return Status::Ok();
}

// "node 'n' (Op)".
std::string NodeRef(const NodeDistance& d) { return "node '" + d.name + "' (" + d.op + ")"; }

// One backend's layers: the summary line, a line per node over budget in isolated mode (a kernel
// bug) and, with --layers, every node's row.
void PrintLayers(const std::string& label, const BackendLayers& l, bool every_node, bool peer = false) {
  const NodeDistance* worst = nullptr;
  int not_isolated = 0;
  std::string why_not;
  for (const NodeDistance& d : l.nodes) {
    if (d.chained && (!worst || d.chained->rel_l2 > worst->chained->rel_l2 || std::isnan(d.chained->rel_l2))) worst = &d;
    if (!d.isolated || !d.isolated->evaluated) {
      ++not_isolated;
      if (why_not.empty()) why_not = NodeRef(d) + ": " + (d.isolated ? d.isolated->why : d.isolated_error);
    }
  }
  std::string line = "layers of " + label + " on " + l.backend + ": " + std::to_string(l.nodes.size()) + " nodes; chained: ";
  line += worst ? "worst rel L2 " + Sci(worst->chained->rel_l2) + " at " + NodeRef(*worst) : "nothing compared";
  if (!peer) {
    line += "; isolated: " + std::to_string(l.isolated - l.over_budget) + " of " + std::to_string(l.isolated) + " nodes within budget";
    if (l.isolated) line += ", worst " + Sci(l.worst_ratio) + " of its budget at node '" + l.worst_node + "'";
    if (not_isolated) line += "; " + std::to_string(not_isolated) + " not checked (first: " + why_not + ")";
  }
  std::printf("%s\n", line.c_str());
  for (const NodeDistance& d : l.nodes)
    if (d.isolated && d.isolated->evaluated && d.isolated->ratio > 1)
      std::printf("kernel bug: %s on %s: %s is %s times its error budget alone on ref64's inputs (output '%s', element %lld, K %g; ran on %s)\n",
                  label.c_str(), l.backend.c_str(), NodeRef(d).c_str(), Sci(d.isolated->ratio).c_str(), d.isolated->worst_output.c_str(),
                  static_cast<long long>(d.isolated->worst_index), d.isolated->k, d.isolated_placement.c_str());
  if (!every_node) return;
  std::vector<std::vector<std::string>> rows = {{"node", "op", "ran on", "chained rel_l2", "chained max_abs", "isolated / budget"}};
  for (const NodeDistance& d : l.nodes) {
    std::string iso = d.isolated && d.isolated->evaluated ? Sci(d.isolated->ratio) : "-";
    rows.push_back({d.name, d.op, d.placement, d.chained ? Sci(d.chained->rel_l2) : "-", d.chained ? Sci(d.chained->max_abs) : "-", iso});
  }
  PrintTable(rows, "  ");
}

// A folder under `dir` for a reproducer that no earlier one uses (NAME, NAME.2, NAME.3, ...).
std::string FreshFolder(const std::string& dir, const std::string& name) {
  std::string p = (fs::path(dir) / name).string();
  for (int i = 2; fs::exists(p); ++i) p = (fs::path(dir) / (name + "." + std::to_string(i))).string();
  return p;
}

// The default-domain opset of the model's source file (0 when not an ONNX file).
int64_t SourceOpset(const Model& m) {
  for (const auto& [domain, version] : m.provenance.opset_imports)
    if (domain.empty() || domain == "ai.onnx") return version;
  return 0;
}

// Writes a bisection's reproducer: FOLDER/model.tare, model.onnx (when ONNX can hold the node),
// inputs/<name>.npy, and the node's outputs on ref64 and on the backend (ref64/, BACKEND/).
// Returns the folder; notes what could not be written in `*notes`.
Result<std::string> WriteReproducer(const std::string& dir, const std::string& label, const Bisection& b, const Model& source,
                                    std::vector<std::string>* notes) {
  const OneNodeModel& rep = *b.reproducer;
  const std::string folder = FreshFolder(dir, SafeName(label) + "." + b.backend + "." + SafeName(b.name));
  std::error_code ec;
  fs::create_directories(fs::path(folder) / "inputs", ec);
  if (ec) return Status::Error("cannot create " + folder + ": " + ec.message());
  Model m;
  m.graph = *rep.graph;
  m.provenance = source.provenance;
  TARE_RETURN_IF_ERROR(SaveModel(m, (fs::path(folder) / "model.tare").string()));
  if (Status st = WriteOnnxModel(*rep.graph, (fs::path(folder) / "model.onnx").string(), SourceOpset(source)); !st.ok())
    notes->push_back("no model.onnx: " + st.message());
  for (const NamedTensor& in : rep.inputs) {
    if (in.tensor.dtype == DType::kString) {
      notes->push_back("input '" + in.name + "' is a string tensor: not written as .npy");
      continue;
    }
    TARE_RETURN_IF_ERROR(WriteNpy((fs::path(folder) / "inputs" / (SafeName(in.name) + ".npy")).string(), in.tensor));
  }
  for (const std::string& backend : {std::string("ref64"), b.backend}) {
    SessionOptions o;
    o.backends = {backend};
    TARE_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, Session::Create(rep.graph, o));
    std::vector<NamedTensor> out;
    TARE_RETURN_IF_ERROR(s->Run(rep.inputs, &out));
    fs::create_directories(fs::path(folder) / backend, ec);
    for (const NamedTensor& t : out)
      if (t.tensor.is_tensor() && t.tensor.dtype != DType::kString)
        TARE_RETURN_IF_ERROR(WriteNpy((fs::path(folder) / backend / (SafeName(t.name) + ".npy")).string(), t.tensor));
  }
  return folder;
}

// Each peer's layers against ref64 (chained only: a framework's kernels are not run alone), with
// where it leaves tare's per-layer noise floor (`backends`: tare's layers), printed.
void ComparePeerLayers(const CompareArgs& args, const ModelRuns& mr, const std::vector<PeerRun>& peers,
                       const std::vector<BackendLayers>& backends, json* out) {
  const BackendRun& r64 = mr.runs[0];
  for (const PeerRun& p : peers) {
    std::vector<std::pair<std::string, std::string>> placement = r64.placement;
    for (auto& [node, where] : placement)
      if (where != "folded" && where != "unused") where = p.peer;
    int transposed = 0;
    BackendLayers l = ChainedLayers(mr.model->graph, p.peer, PeerValuesInTareLayout(p.values, r64.values, &transposed), placement, r64.values);
    for (NodeDistance& d : l.nodes) {
      if (d.chained_error == "not traced") d.chained_error = "not among " + p.peer + "'s values (a tensor of tare's own)";
      d.isolated_error = "not run: isolated mode runs tare's backends";
    }
    const Departure dep = FirstDeparture(l, backends);
    PrintLayers(mr.label, l, args.layers, true);
    std::printf("%s: %s\n", mr.label.c_str(), dep.text.c_str());
    json jl = LayersJson(l);
    jl["peer"] = true;
    jl["version"] = p.version;
    jl["exposed_values"] = p.exposed;
    jl["nhwc_values"] = transposed;
    jl["departure"] = DepartureJson(dep);
    (*out)["layers"].push_back(std::move(jl));
  }
}

// Layers of every backend of one model (chained, then isolated unless --no-isolated) and of every
// peer, printed; with --bisect, each backend bisected and its reproducer written. Returns the
// model's JSON `layers` and `bisections`.
Result<json> CompareLayers(const CompareArgs& args, const ModelRuns& mr, const ModelSummary& s, const std::vector<NamedTensor>& inputs,
                           const std::vector<PeerRun>& peers) {
  const BackendRun& r64 = mr.runs[0];
  json out = {{"layers", json::array()}, {"bisections", json::array()}};
  std::vector<BackendLayers> tare_layers = ModelLayers(mr, s.quantized, !args.no_isolated);
  for (size_t i = 1; i < mr.runs.size(); ++i) {
    const BackendRun& r = mr.runs[i];
    const BackendLayers& l = tare_layers[i - 1];
    PrintLayers(mr.label, l, args.layers);
    out["layers"].push_back(LayersJson(l));
    if (args.bisect.empty()) continue;
    TARE_ASSIGN_OR_RETURN(Bisection b, BisectBackend(mr.model, r.backend, inputs, r64.outputs, r64.values, r.placement, r.values,
                                                     args.bisect_threshold));
    std::printf("bisect %s on %s\n", mr.label.c_str(), b.text.c_str());
    std::string folder;
    if (b.verdict == "found" && b.reproducer) {
      std::vector<std::string> notes;
      TARE_ASSIGN_OR_RETURN(folder, WriteReproducer(args.bisect, mr.label, b, *mr.model, &notes));
      std::printf("  reproducer: %s (model.onnx, model.tare, inputs/, ref64/ and %s/ outputs)\n", folder.c_str(), b.backend.c_str());
      for (const std::string& n : notes) std::printf("  %s\n", n.c_str());
    }
    out["bisections"].push_back(BisectionJson(b, folder));
  }
  ComparePeerLayers(args, mr, peers, tare_layers, &out);
  return out;
}

}  // namespace

int CmdCompare(const CompareArgs& args) {
  if (Status st = CheckArgs(args); !st.ok()) return Fail(st.message());
  if (!args.dataset.empty()) return DataSetMode(args);
  Result<std::vector<std::vector<Framework>>> fws = ParseExpects(args);
  if (!fws.ok()) return Fail(fws.status().message());
  const std::vector<std::string> labels = ModelLabels(args.models);
  std::vector<ModelRuns> all;
  std::vector<std::vector<NamedTensor>> inputs(args.models.size());
  std::vector<std::vector<PeerRun>> peers(args.models.size());
  TempDir tmp;
  if (!args.peers.empty())
    if (Status st = tmp.Create(); !st.ok()) return Fail(st.message());
  size_t traced_bytes = 0;
  for (size_t mi = 0; mi < args.models.size(); ++mi) {
    Result<ModelRuns> mr = LoadAndRun(args, mi, labels[mi], std::move((*fws)[mi]), tmp, &traced_bytes, &inputs[mi], &peers[mi]);
    if (!mr.ok()) return Fail(mr.status().message());
    all.push_back(std::move(mr).value());
  }
  std::vector<ModelSummary> summaries(all.size());
  if (Status st = PrintSummaries(&all, &summaries); !st.ok()) return Fail(st.message());
  std::vector<json> layers;
  for (size_t mi = 0; mi < all.size(); ++mi) {
    Result<json> l = CompareLayers(args, all[mi], summaries[mi], inputs[mi], peers[mi]);
    if (!l.ok()) return Fail(l.status().message());
    layers.push_back(std::move(l).value());
  }
  const std::vector<PairVerdict> verdicts = JudgeAll(all, summaries, args.threshold);
  for (const PairVerdict& v : verdicts) std::printf("%s\n", v.text.c_str());
  json report = CompareReport(args.threshold, summaries, verdicts);
  for (size_t mi = 0; mi < layers.size(); ++mi) report["models"][mi].update(layers[mi]);
  if (Status st = WriteReports(args, report, CompareHtml); !st.ok()) return Fail(st.message());
  return 0;
}

}  // namespace tare_cli
