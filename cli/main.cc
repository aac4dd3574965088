// The `tare` command (README.md, Use): convert, run, inspect, ops.
// Exit status 0 on success; on failure 1 with one line "tare: error: ..." on stderr.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include <algorithm>
#include <limits>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <filesystem>
#include <iostream>
#include <functional>
#include <map>

#include "cli/cli.h"
#include "converters/load_any.h"
#include "converters/onnx/onnx_converter.h"
#include "format/npy.h"
#include "runtime/ops/op.h"

namespace fs = std::filesystem;
using namespace tare;

namespace tare_cli {

int Fail(const std::string& msg) {
  std::string line = msg;
  for (char& c : line)  // one line, no terminal control characters from model-supplied names
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = c == '\n' ? ' ' : '?';
  std::fprintf(stderr, "tare: error: %s\n", line.c_str());
  return 1;
}

/// Output file name: every character outside [A-Za-z0-9._-] becomes '_'.
Status WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  if (!f) return Status::Error("cannot write '" + path + "'");
  f << text;
  f.close();
  if (!f) return Status::Error("error writing '" + path + "'");
  return Status::Ok();
}

Status CheckOutputFile(const std::string& flag, const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Status::Error(flag + " '" + path + "' is a directory");
  const std::filesystem::path parent = std::filesystem::absolute(path, ec).parent_path();
  if (!std::filesystem::is_directory(parent, ec))
    return Status::Error(flag + " '" + path + "': directory '" + parent.string() + "' does not exist");
  return Status::Ok();
}

/// Reads a .pb (ONNX TensorProto, which may carry a name) or .npy input file.
// Reads an input file: .npy, or an ONNX .pb holding a TensorProto (or the SequenceProto /
// OptionalProto that `kind` says the input it binds to takes).
Result<NamedTensor> ReadInputFile(const std::string& path, ValueKind kind) {
  if (path.size() >= 3 && path.compare(path.size() - 3, 3, ".pb") == 0) return ReadValueProtoFile(path, kind);
  TARE_ASSIGN_OR_RETURN(Tensor t, ReadNpy(path));
  return NamedTensor{"", std::move(t)};
}

int CmdConvert(const std::string& in, const std::string& out, const std::string& from) {
  std::error_code ec;
  if (out.size() < 5 || out.compare(out.size() - 5, 5, ".tare") != 0)
    return Fail("the output file must end in .tare, got '" + out + "'");
  if (fs::is_symlink(fs::symlink_status(out, ec))) return Fail("'" + out + "' is a symbolic link: tare convert does not write through it");
  for (const std::string& src : SourceFiles(in, from)) {
    std::error_code e2;
    if (fs::exists(out, e2) && fs::exists(src, e2) && fs::equivalent(src, out, e2))
      return Fail(src == in ? "refusing to overwrite the input '" + in + "'"
                            : "refusing to overwrite '" + out + "': it is a file the input reads (" + src + ")");
  }
  Result<std::shared_ptr<Model>> m = LoadAnyModel(in, from);
  if (!m.ok()) return Fail(m.status().message());
  Status s = SaveModel(**m, out);
  if (!s.ok()) return Fail(s.message());
  std::printf("wrote %s: %zu nodes, %zu values\n", out.c_str(), (*m)->graph.nodes.size(), (*m)->graph.values.size());
  return 0;
}

// Binds `--input` arguments to the graph inputs: NAME=FILE by name; a .pb whose TensorProto name is a
// graph input by that name; any other FILE in graph-input order among the inputs not yet bound.
Result<std::vector<NamedTensor>> BindInputs(const Graph& g, const std::vector<std::string>& input_args) {
  auto input_index = [&](const std::string& name) -> int {
    for (size_t i = 0; i < g.inputs.size(); ++i)
      if (g.values[g.inputs[i]].name == name) return static_cast<int>(i);
    return -1;
  };
  std::vector<NamedTensor> inputs;
  std::vector<bool> used(g.inputs.size(), false);
  std::vector<NamedTensor> unnamed;
  for (const std::string& arg : input_args) {
    size_t eq = arg.find('=');
    std::string name, file = arg;
    if (eq != std::string::npos && input_index(arg.substr(0, eq)) >= 0) {
      name = arg.substr(0, eq);
      file = arg.substr(eq + 1);
    } else if (eq != std::string::npos && !fs::exists(arg)) {
      return Status::Error("the model has no input named '" + arg.substr(0, eq) + "'");
    }
    // The kind of value expected: that of the named input, else of the next unbound one.
    int target = name.empty() ? -1 : input_index(name);
    for (size_t k = 0; target < 0 && k < g.inputs.size(); ++k)
      if (!used[k] && k >= unnamed.size()) target = static_cast<int>(k);
    Result<NamedTensor> t = ReadInputFile(file, target >= 0 ? g.values[g.inputs[target]].kind : ValueKind::kTensor);
    if (!t.ok()) return Status::Error(t.status().message());
    if (name.empty() && input_index(t->name) >= 0) name = t->name;
    if (name.empty()) { unnamed.push_back(std::move(t).value()); continue; }
    int i = input_index(name);
    if (used[i]) return Status::Error("input '" + name + "' is given twice");
    used[i] = true;
    inputs.push_back({name, std::move(t->tensor)});
  }
  size_t next = 0;
  for (NamedTensor& nt : unnamed) {
    while (next < g.inputs.size() && used[next]) ++next;
    if (next >= g.inputs.size())
      return Status::Error("too many inputs: the model has " + std::to_string(g.inputs.size()) + " input(s)");
    inputs.push_back({g.values[g.inputs[next]].name, std::move(nt.tensor)});
    used[next++] = true;
  }
  return inputs;
}

// "ref64,ref" -> {"ref64", "ref"} (empty items dropped).
std::vector<std::string> SplitList(const std::string& list) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    if (comma > start) items.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

}  // namespace tare_cli

using namespace tare_cli;

namespace {

/// Whether `run` may write `path`: not when it is a symbolic link (the write would land outside the
/// output folder), something other than a regular file, or one of the files the run was given
/// (`given`: the model and the --input arguments). An earlier output of the same name is replaced.
Status CheckReplaceable(const std::string& path, const std::vector<std::string>& given) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  if (ec || !fs::exists(st)) return Status::Ok();
  if (fs::is_symlink(st)) return Status::Error("'" + path + "' is a symbolic link: tare run does not write through it");
  if (!fs::is_regular_file(st)) return Status::Error("'" + path + "' exists and is not a regular file");
  for (const std::string& g : given) {
    std::error_code e2;
    if (fs::exists(g, e2) && fs::equivalent(path, g, e2))
      return Status::Error("'" + path + "' is a file this run was given (" + g + "): it is not overwritten");
  }
  return Status::Ok();
}

int CmdRun(const std::string& model_path, const std::string& from, const std::vector<std::string>& backends,
           int threads, const std::vector<std::string>& input_args, const std::string& out_dir, bool explain,
           const std::string& trace_dir, const std::vector<std::string>& pin_args) {
  Result<std::shared_ptr<Model>> m = LoadAnyModel(model_path, from);
  if (!m.ok()) return Fail(m.status().message());
  std::shared_ptr<Model> model = *m;
  SessionOptions opts;
  opts.backends = backends;
  opts.threads = threads;
  opts.trace_all = !trace_dir.empty();
  // --pin NODE=BACKEND (the last '=' splits: node names may hold one, backend names do not).
  for (const std::string& p : pin_args) {
    const size_t eq = p.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == p.size()) return Fail("--pin must be NODE=BACKEND, got '" + p + "'");
    opts.pins.emplace_back(p.substr(0, eq), p.substr(eq + 1));
  }
  std::shared_ptr<const Graph> graph(model, &model->graph);
  Result<std::unique_ptr<Session>> sr = Session::Create(graph, opts);
  if (!sr.ok()) return Fail(sr.status().message());
  Session& session = **sr;

  const Graph& g = model->graph;
  Result<std::vector<NamedTensor>> bound = BindInputs(g, input_args);
  if (!bound.ok()) return Fail(bound.status().message());
  std::vector<NamedTensor> inputs = std::move(bound).value();
  std::vector<NamedTensor> outputs;
  auto t0 = std::chrono::steady_clock::now();
  Status s = session.Run(inputs, &outputs);
  auto t1 = std::chrono::steady_clock::now();
  if (!s.ok()) return Fail(s.message());
  if (explain) {
    const std::vector<std::pair<std::string, std::string>> placement = session.Placement();
    const std::vector<std::string> notes = session.Notes();
    // Columns as wide as their longest entry (node names, backends), the notes last.
    int name_w = 4, where_w = 4;
    for (const auto& [node, where] : placement) {
      name_w = std::max(name_w, static_cast<int>(node.size()));
      where_w = std::max(where_w, static_cast<int>(where.size()));
    }
    for (size_t i = 0; i < placement.size(); ++i) {
      const bool has_note = i < notes.size() && !notes[i].empty();
      if (has_note)
        std::printf("%-*s %-*s  %s\n", name_w, placement[i].first.c_str(), where_w, placement[i].second.c_str(),
                    notes[i].c_str());
      else
        std::printf("%-*s %s\n", name_w, placement[i].first.c_str(), placement[i].second.c_str());
    }
    // Per backend (and folded / unused): how many nodes of each op type.
    std::map<std::string, std::map<std::string, int>> by;
    const Graph& g = session.graph();
    for (size_t i = 0; i < placement.size() && i < g.nodes.size(); ++i) by[placement[i].second][g.nodes[i].op]++;
    for (const auto& [where, ops] : by) {
      int total = 0;
      std::string parts;
      for (const auto& [op, k] : ops) {
        total += k;
        parts += (parts.empty() ? "" : ", ") + op + " " + std::to_string(k);
      }
      std::printf("on %s: %d node(s): %s\n", where.c_str(), total, parts.c_str());
    }
  }
  // A sequence output NAME is written item by item as NAME.0.npy, NAME.1.npy, ...; an optional
  // as its value (nothing when it holds none).
  std::vector<NamedTensor> flat;
  std::function<void(const std::string&, const Tensor&)> flatten = [&](const std::string& name, const Tensor& t) {
    if (t.kind == ValueKind::kSequence) {
      for (size_t i = 0; i < t.items->size(); ++i) flatten(name + "." + std::to_string(i), (*t.items)[i]);
    } else if (t.kind == ValueKind::kOptional) {
      if (t.items->empty()) std::printf("%s: optional, no value\n", name.c_str());
      else flatten(name, t.items->front());
    } else {
      flat.push_back({name, t});
    }
  };
  for (const NamedTensor& o : outputs) flatten(o.name, o.tensor);
  outputs = std::move(flat);
  std::map<std::string, std::string> files;  // file name -> output name
  for (const NamedTensor& o : outputs) {
    auto [it, fresh] = files.emplace(SafeName(o.name), o.name);
    if (!fresh)
      return Fail("outputs '" + it->second + "' and '" + o.name + "' would both be written to " + it->first + ".npy");
  }
  // Before anything is written: every output can be written, and no file the run was given (the
  // model, an input) nor anything outside the folders (through a symbolic link) is replaced.
  std::vector<std::string> given = {model_path};
  for (const std::string& a : input_args) {
    given.push_back(a);
    if (a.find('=') != std::string::npos) given.push_back(a.substr(a.find('=') + 1));
  }
  for (const NamedTensor& o : outputs) {
    if (o.tensor.dtype == DType::kString)
      return Fail("output '" + o.name + "' is a string tensor, which .npy cannot hold; nothing was written");
    Status ok = CheckReplaceable((fs::path(out_dir) / (SafeName(o.name) + ".npy")).string(), given);
    if (!ok.ok()) return Fail(ok.message() + "; nothing was written");
  }
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) return Fail("cannot create output directory '" + out_dir + "': " + ec.message());
  for (const NamedTensor& o : outputs) {
    std::string path = (fs::path(out_dir) / (SafeName(o.name) + ".npy")).string();
    Status w = WriteNpy(path, o.tensor);
    if (!w.ok()) return Fail(w.message());
    std::printf("%s: %s %s -> %s\n", o.name.c_str(), DTypeName(o.tensor.dtype).c_str(), ShapeStr(o.tensor.shape).c_str(),
                path.c_str());
  }
  if (!trace_dir.empty()) {
    // Every node's output as TRACE_DIR/<tensor name>.npy (non-tensor values are listed, not written).
    fs::create_directories(trace_dir, ec);
    if (ec) return Fail("cannot create trace directory '" + trace_dir + "': " + ec.message());
    std::map<std::string, std::string> tfiles;
    for (const TraceEntry& t : session.Trace()) {
      auto [it, fresh] = tfiles.emplace(SafeName(t.value), t.value);
      if (!fresh) return Fail("traced tensors '" + it->second + "' and '" + t.value + "' would both be written to " + it->first + ".npy");
      if (!t.tensor.is_tensor() || t.tensor.dtype == DType::kString) {
        std::printf("trace %s (%s %s): %s, not written\n", t.value.c_str(), t.node.c_str(), t.op.c_str(), TypeStr(t.tensor).c_str());
        continue;
      }
      std::string path = (fs::path(trace_dir) / (SafeName(t.value) + ".npy")).string();
      Status ok = CheckReplaceable(path, given);
      if (!ok.ok()) return Fail(ok.message());
      Status w = WriteNpy(path, t.tensor);
      if (!w.ok()) return Fail(w.message());
    }
    std::printf("traced %zu tensors into %s\n", tfiles.size(), trace_dir.c_str());
  }
  // Where the nodes ran, by backend (most nodes first), e.g. "onednn (40 nodes), ref (1 node)".
  std::map<std::string, int> per_backend;
  for (const auto& [node, where] : session.Placement()) {
    const std::string b = where.substr(0, where.find_first_of(" +"));
    if (b != "folded" && b != "unused") ++per_backend[b];
  }
  std::vector<std::pair<int, std::string>> order;
  for (const auto& [b, k] : per_backend) order.emplace_back(-k, b);
  std::sort(order.begin(), order.end());
  std::string ran;
  for (const auto& [k, b] : order)
    ran += (ran.empty() ? "" : ", ") + b + " (" + std::to_string(-k) + (k == -1 ? " node)" : " nodes)");
  if (ran.empty()) ran = "no backend (every node folded at plan time)";
  std::printf("ran on %s in %.1f ms; arena %zu bytes\n", ran.c_str(),
              std::chrono::duration<double, std::milli>(t1 - t0).count(), session.arena_bytes());
  return 0;
}

int CmdInspect(const std::string& path, const std::string& from) {
  Result<std::shared_ptr<Model>> m = LoadAnyModel(path, from);
  if (!m.ok()) return Fail(m.status().message());
  const Model& model = **m;
  const Provenance& p = model.provenance;
  const Graph& g = model.graph;
  std::printf("source:    %s (%s), sha256 %s\n", p.source_file.c_str(), p.source_format.c_str(), p.source_sha256.c_str());
  std::string producer = p.producer_name + (p.producer_version.empty() ? "" : " " + p.producer_version);
  if (p.source_format == "onnx") producer += ", ir_version " + std::to_string(p.ir_version);
  std::printf("producer:  %s, converted by tare %s\n", producer.c_str(), p.tare_version.c_str());
  for (const auto& [d, v] : p.opset_imports)
    std::printf("opset:     %s %lld\n", d.empty() ? "ai.onnx" : d.c_str(), static_cast<long long>(v));
  auto describe = [&](int v) {
    const Value& val = g.values[v];
    return val.name + ": " + DTypeName(val.dtype) + " " + (val.has_shape ? ShapeStr(val.shape) : "[unknown]");
  };
  for (int v : g.inputs) std::printf("input:     %s\n", describe(v).c_str());
  for (int v : g.outputs) std::printf("output:    %s\n", describe(v).c_str());
  size_t weight_bytes = 0, n_weights = 0;
  for (const Value& v : g.values)
    if (v.is_constant) weight_bytes += v.constant.nbytes(), ++n_weights;
  std::printf("weights:   %zu tensors, %zu bytes\n", n_weights, weight_bytes);
  std::map<std::string, int> ops;
  for (const Node& n : g.nodes) ops[(n.domain.empty() ? "" : n.domain + ".") + n.op]++;
  std::printf("nodes:     %zu\n", g.nodes.size());
  for (const auto& [op, count] : ops) std::printf("  %-24s %d\n", op.c_str(), count);
  return 0;
}

int CmdOps(bool markdown) {
  // Per op, the built-in backends that run it (nodes cpu does not claim run on ref).
  std::vector<std::unique_ptr<Backend>> all;
  for (const std::string& b : AvailableBackends()) {
    Result<std::unique_ptr<Backend>> be = CreateBackend(b);
    if (be.ok()) all.push_back(std::move(be).value());
  }
  auto backends_of = [&](const OpSpec& s) {
    std::string names;
    for (const auto& b : all)
      if (b->ClaimsOp(s.domain, s.name)) names += (names.empty() ? "" : ",") + b->name();
    return names;
  };
  // The opsets and dtypes of each op: runtime/ops/op_coverage.inc, which tests/unit/ops_doc_test.cc
  // keeps in step with op_list.inc ("?" would mark an op it lacks).
  struct OpCoverage {
    const char* domain;
    const char* name;
    const char* opsets;
    const char* dtypes;
  };
  static const OpCoverage kCoverage[] = {
#define TARE_OP_COVERAGE(domain, name, opsets, dtypes) {domain, #name, opsets, dtypes},
#include "runtime/ops/op_coverage.inc"
#undef TARE_OP_COVERAGE
  };
  auto coverage = [](const OpSpec& s) {
    for (const OpCoverage& c : kCoverage)
      if (std::string(c.domain) == s.domain && std::string(c.name) == s.name) return c;
    return OpCoverage{s.domain, s.name, "?", "?"};
  };
  if (markdown) {
    std::printf("# Ops\n\nGenerated by `build/tare ops --markdown > docs/OPS.md` from runtime/ops/op_list.inc and\n"
                "runtime/ops/op_coverage.inc.\n"
                "ONNX models of opsets 1 to 23 are converted to the forms below (converters/onnx).\n"
                "Error budgets: docs/NUMERICS.md.\n\n"
                "opsets: the ONNX versions of the op (since-versions up to opset 23, from tools/op_versions.py).\n"
                "dtypes: the element types tare runs it on; float32 runs as float on `ref` and as double on\n"
                "`ref64`; int8..int64 is int8, int16, int32, int64 (likewise uint8..uint64); \"any\" is every\n"
                "element type but string (float16/32/64, bfloat16, int8..int64, uint8..uint64, bool).\n"
                "float16 and bfloat16 run wherever float32 is listed: computed in float (double on `ref64`),\n"
                "each output rounded once to the narrow type (docs/NUMERICS.md, \"float16 and bfloat16\").\n\n"
                "| op | domain | opsets | dtypes | semantics | error budget | backends |\n"
                "| --- | --- | --- | --- | --- | --- | --- |\n");
    auto cell = [](const char* text) {  // a '|' inside a cell must be escaped in Markdown
      std::string c;
      for (const char* p = text; *p; ++p) c += *p == '|' ? std::string("\\|") : std::string(1, *p);
      return c;
    };
    for (const OpSpec& s : AllOps()) {
      const OpCoverage c = coverage(s);
      std::printf("| %s | %s | %s | %s | %s | %s | %s |\n", s.name, s.domain, cell(c.opsets).c_str(),
                  cell(c.dtypes).c_str(), cell(s.doc).c_str(), cell(s.budget.text).c_str(), backends_of(s).c_str());
    }
    return 0;
  }
  // The backends column is as wide as its longest entry (it grows with the backends built in).
  int width = 8;
  for (const OpSpec& s : AllOps()) width = std::max(width, static_cast<int>(backends_of(s).size()));
  int name_w = 2, family_w = 6;
  for (const OpSpec& s : AllOps()) {
    name_w = std::max(name_w, static_cast<int>(std::string(s.name).size() + (*s.domain ? std::string(s.domain).size() + 1 : 0)));
    family_w = std::max(family_w, static_cast<int>(std::string(s.family).size()));
  }
  std::printf("%-*s %-*s %-*s %s\n", name_w, "op", family_w, "family", width, "backends",
              "semantics / error budget / opsets / dtypes");
  for (const OpSpec& s : AllOps()) {
    const OpCoverage c = coverage(s);
    std::string name = std::string(*s.domain ? std::string(s.domain) + "." : "") + s.name;
    std::printf("%-*s %-*s %-*s %s; %s; opsets %s; %s\n", name_w, name.c_str(), family_w, s.family, width,
                backends_of(s).c_str(), s.doc,
                s.budget.text, c.opsets, c.dtypes);
  }
  return 0;
}

/// `tare campaign ...` (issue 25) is Python (campaign/tare_campaign, on Dask): runs
/// TARE_PYTHON -m tare_campaign with the rest of the arguments, the campaign package and the tare
/// module on PYTHONPATH and this executable as TARE_EXE. Returns only when the exec fails.
int ExecCampaign(int argc, char** argv) {
#if defined(TARE_CAMPAIGN_DIR) && defined(TARE_PYTHON_MODULE_DIR) && defined(TARE_PYTHON_EXE)
  std::string path = std::string(TARE_CAMPAIGN_DIR) + ":" + TARE_PYTHON_MODULE_DIR;
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) path += std::string(":") + old;
  setenv("PYTHONPATH", path.c_str(), 1);
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0 && !std::getenv("TARE_EXE")) {
    self[n] = 0;
    setenv("TARE_EXE", self, 1);
  }
  std::vector<char*> args = {const_cast<char*>(TARE_PYTHON_EXE), const_cast<char*>("-m"), const_cast<char*>("tare_campaign")};
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  execv(TARE_PYTHON_EXE, args.data());
  std::fprintf(stderr, "tare: error: tare campaign: cannot run %s: %s\n", TARE_PYTHON_EXE, std::strerror(errno));
#else
  (void)argc;
  (void)argv;
  std::fprintf(stderr, "tare: error: tare campaign is not in this build (it needs the Python module)\n");
#endif
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "campaign") return ExecCampaign(argc, argv);
  CLI::App app{"tare: a controlled-baseline inference runtime"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("tare ") + TARE_VERSION);

  std::string from, conv_in, conv_out;
  auto* convert = app.add_subcommand("convert", "convert a model (.onnx, .tflite, TF.js model.json) to .tare");
  convert->add_option("input", conv_in, "source model")->required();
  convert->add_option("-o,--output", conv_out, "output .tare file")->required();
  convert->add_option("--from", from, "source format: onnx, tflite or tfjs (default: from the extension; .json is a TF.js model.json)");

  std::string run_model, out_dir, trace_dir, backend = "ref";
  std::vector<std::string> input_args, pin_args;
  int threads = 1;
  bool explain = false;
  auto* run = app.add_subcommand("run", "run a model on inputs and write its outputs as .npy");
  run->add_option("model", run_model, ".tare file or any convertible model")->required();
  run->add_option("--backend", backend, "ref64 | ref | cpu | onednn | vulkan, as built (comma-separated priority list; default ref)");
  run->add_option("--threads", threads, "threads (ref backends are single-threaded)")->check(CLI::Range(1, 1024));
  run->add_option("--input", input_args, "[NAME=]FILE (.npy or ONNX TensorProto .pb), repeatable");
  run->add_option("--output-dir", out_dir,
                  "directory for <output name>.npy (earlier outputs of the same name are replaced; the model, "
                  "the inputs and symbolic links never are)")->required();
  run->add_option("--from", from, "source format when MODEL is not .tare");
  run->add_flag("--explain", explain, "print which backend ran each node (and how, where the backend says: oneDNN's implementation)");
  run->add_option("--trace-dir", trace_dir, "also write every node's output as DIR/<tensor name>.npy");
  run->add_option("--pin", pin_args,
                  "NODE=BACKEND: run that node on that backend (of the same precision as --backend), repeatable; "
                  "--explain shows where each node ran");

  std::string inspect_model;
  auto* inspect = app.add_subcommand("inspect", "print a model's provenance, inputs, outputs and ops");
  inspect->add_option("model", inspect_model, ".tare, .onnx or .tflite file")->required();
  inspect->add_option("--from", from, "source format when MODEL is not .tare");

  CompareArgs cmp;
  std::string cmp_backends = "ref64,ref";
  auto* compare = app.add_subcommand("compare", "run models on tare's backends, trace every layer, say where and why outputs differ");
  CLI::Option* cmp_model = compare->add_option("--model", cmp.models, "model file (.onnx, .tflite, TF.js model.json or .tare), repeatable")->required();
  compare->add_option("--backends", cmp_backends, "comma-separated, starting with ref64 (default ref64,ref)");
  compare->add_option("--input", cmp.inputs, "[NAME=]FILE, repeatable (the same inputs for every model)");
  CLI::Option* cmp_expect = compare->add_option(
      "--expect", cmp.expects,
      "LABEL=DIR: a framework's own outputs (<output name>.npy; [N, classes] with --dataset) for the --model before it, repeatable");
  compare->add_option("--json", cmp.json, "write the report as JSON");
  compare->add_option("--html", cmp.html, "write a self-contained HTML report with a per-layer error plot");
  compare->add_option("--dataset", cmp.dataset, "fashion-mnist:DIR or npy:DIR (items.npy, labels.npy): accuracy and top-1 flips");
  compare->add_option("--limit", cmp.limit, "use the first N data-set items (0: all)");
  compare->add_option("--from", cmp.from, "source format of the models when not .tare (onnx, tflite, tfjs)");
  compare->add_option("--threshold", cmp.threshold, "relative L2 above which ref64 results differ (default 1e-9)");
  compare->add_flag("--layers", cmp.layers, "print every node of every backend against ref64 (chained and isolated), not only the summary");
  compare->add_flag("--no-isolated", cmp.no_isolated, "skip isolated mode (each node run alone on ref64's inputs against its error budget)");
  compare->add_option("--bisect", cmp.bisect,
                      "DIR: for each backend whose outputs differ from ref64 beyond --bisect-threshold, find the first node "
                      "responsible and write a one-node reproducer (.onnx, .tare, .npy) under DIR");
  compare->add_option("--bisect-threshold", cmp.bisect_threshold, "relative L2 of the outputs against ref64 that --bisect looks for (default 1e-5)");
  compare->add_option("--peer", cmp.peers,
                      "a framework to run on the same inputs with every intermediate value exposed, its layers aligned with tare's "
                      "(ort: ONNX Runtime on .onnx, tflite: LiteRT.js on .tflite, tfjs: TF.js on a model.json, through node.js and bench/peers; repeatable)")
      ->delimiter(',');

  BenchArgs bench_args;
  std::string bench_backend = "ref";
  auto* bench = app.add_subcommand("bench", "time a model: load, first run, latency percentiles, memory, FLOPs");
  bench->add_option("model", bench_args.model, ".tare, .onnx or .tflite file")->required();
  bench->add_option("--backend", bench_backend, "ref64 | ref | cpu | onednn | vulkan, as built (comma-separated priority list; default ref)");
  bench->add_option("--threads", bench_args.threads, "threads for the session (ref backends are single-threaded)")
      ->check(CLI::Range(1, 1024));
  bench->add_option("--iters", bench_args.iters, "timed runs (default 10)")->check(CLI::Range(1, 1000000));
  bench->add_option("--warmup", bench_args.warmup, "untimed runs after the first run (default 2)")->check(CLI::Range(0, 1000000));
  bench->add_option("--input", bench_args.inputs, "[NAME=]FILE (.npy or .pb), repeatable; inputs not given are generated");
  bench->add_option("--json", bench_args.json, "also write the results as one JSON object");
  bench->add_option("--from", bench_args.from, "source format when MODEL is not .tare");

  FuzzArgs fz;
  std::string fz_backends = "ref,cpu,onednn", fz_peers;
  app.add_subcommand("campaign", "run a campaign file's grid of models x engines x threads on Dask, and report it (tare campaign run|report --help; docs/CAMPAIGNS.md)")
      ->allow_extras();
  auto* fuzz = app.add_subcommand("fuzz", "generate random valid models, run them on ref64, tare's backends and peers, reduce what differs");
  fuzz->add_option("--seconds", fz.seconds, "time budget in seconds, in (0, 604800] (default 60): no new model starts after it; reducing the last findings may take longer");
  fuzz->add_option("--seed", fz.seed, "seed of the run: the same seed gives the same models (default 1)");
  fuzz->add_option("--max-models", fz.max_models, "stop after this many models (default 0: no limit)")->check(CLI::Range(int64_t(0), int64_t(1) << 40));
  fuzz->add_option("--model-seed", fz.model_seed,
                   "check only the model of this seed, as finding.txt names it (with the run's --max-nodes); its files go to OUT/model/")
      ->check(CLI::Range(uint64_t{1}, std::numeric_limits<uint64_t>::max()));
  fuzz->add_option("--max-nodes", fz.max_nodes, "nodes per generated model, at most, in [1, 64] (default 8; part of what a seed generates)");
  fuzz->add_option("--backends", fz_backends, "tare backends under test, comma-separated (default ref,cpu,onednn; the oracle is ref64)");
  fuzz->add_option("--peers", fz_peers, "peer frameworks under test, comma-separated: ort (ONNX Runtime), tflite (LiteRT.js, on the models tare's TFLite writer can express), both through node.js and bench/peers");
  fuzz->add_option("--out", fz.out, "folder for findings/, summary.json and index.html (new or empty; without it nothing is written)");
  fuzz->add_flag("--no-reduce", fz.no_reduce, "keep findings' models as generated");
  fuzz->add_flag("--no-isolate", fz.no_isolate,
                 "run the engines in this process (for a debugger); by default a worker process runs them, so that a crash or a hang is a finding");
  fuzz->add_option("--hang-seconds", fz.hang_seconds, "a model that gets no answer for this long is a hang finding (default 120)")
      ->check(CLI::Range(1.0, 86400.0));

  bool ops_markdown = false;
  auto* ops = app.add_subcommand("ops", "list the ops tare implements");
  ops->add_flag("--markdown", ops_markdown, "print docs/OPS.md");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return Fail(e.what());
  }
  try {
    if (*convert) return CmdConvert(conv_in, conv_out, from);
    if (*run) {
      std::vector<std::string> backends = SplitList(backend);
      if (backends.empty()) return Fail("--backend is empty");
      return CmdRun(run_model, from, backends, threads, input_args, out_dir, explain, trace_dir, pin_args);
    }
    if (*inspect) return CmdInspect(inspect_model, from);
    if (*compare) {
      cmp.backends = SplitList(cmp_backends);
      // Each --expect belongs to the --model given before it.
      size_t models_seen = 0;
      for (const CLI::Option* o : compare->parse_order()) {
        if (o == cmp_model) ++models_seen;
        if (o == cmp_expect) {
          if (!models_seen) return Fail("--expect must follow the --model whose outputs it holds");
          cmp.expect_model.push_back(models_seen - 1);
        }
      }
      return CmdCompare(cmp);
    }
    if (*fuzz) {
      fz.backends = SplitList(fz_backends);
      fz.peers = SplitList(fz_peers);
      return CmdFuzz(fz);
    }
    if (*bench) {
      bench_args.backends = SplitList(bench_backend);
      return CmdBench(bench_args);
    }
    if (*ops) return CmdOps(ops_markdown);
  } catch (const std::bad_alloc&) {
    return Fail("out of memory");
  } catch (const std::exception& e) {
    return Fail(std::string("internal error: ") + e.what());
  }
  return 1;
}
