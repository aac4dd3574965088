// Helpers shared by the `tare` subcommands (cli/main.cc, cli/compare.cc).
#pragma once
#include <string>
#include <vector>

#include "format/npy.h"
#include "runtime/session.h"

namespace tare_cli {

/// Prints "tare: error: MSG" on one line (control characters replaced) and returns exit status 1.
int Fail(const std::string& msg);
/// Writes `text` to `path` (created or replaced). Errors: the file cannot be opened or written.
tare::Status WriteTextFile(const std::string& path, const std::string& text);
/// Checks, before any work, that `path` (given with option `flag`) can name an output file: not a
/// directory, in an existing directory. Errors say which option and why.
tare::Status CheckOutputFile(const std::string& flag, const std::string& path);
/// A file name from a tensor name (format/npy.h).
using tare::SafeName;
/// Binds `--input` arguments (NAME=FILE, or FILE in graph-input order; .npy or ONNX .pb) to the
/// inputs of `g`. Errors: unknown names, an input given twice, too many inputs, unreadable files.
tare::Result<std::vector<tare::NamedTensor>> BindInputs(const tare::Graph& g, const std::vector<std::string>& input_args);

/// Arguments of `tare compare` (see cli/compare.cc).
struct CompareArgs {
  std::vector<std::string> models;
  std::vector<std::string> backends = {"ref64", "ref"};
  std::vector<std::string> inputs;
  std::vector<std::string> expects;  ///< LABEL=DIR: a framework's own outputs
  std::vector<size_t> expect_model;  ///< for each of `expects`, the index of its model (the --model before it)
  std::string json;
  std::string html;  ///< self-contained HTML report (verdicts, per-layer error plot)
  double threshold = 1e-9;
  std::string dataset;  ///< fashion-mnist:DIR or npy:DIR (items.npy, labels.npy): data-set mode
  int64_t limit = 0;    ///< data-set items to use (0: all)
  std::string from;     ///< source format of the models when not .tare (LoadAnyModel)
  bool layers = false;       ///< print every node's row (chained and isolated), not only the summary
  bool no_isolated = false;  ///< skip isolated mode (each node alone on ref64's inputs)
  std::string bisect;        ///< DIR: bisect every backend beyond `bisect_threshold`, reproducers in DIR
  double bisect_threshold = 1e-5;  ///< rel L2 of the outputs against ref64 above which a backend is bisected
  std::vector<std::string> peers;  ///< frameworks tare runs itself on the same inputs, layer by layer (cli/peers.h)
};
/// Runs `tare compare`; returns the exit status.
int CmdCompare(const CompareArgs& args);

/// Arguments of `tare bench` (see cli/bench.cc).
struct BenchArgs {
  std::string model;
  std::string from;  ///< source format when the model is not .tare
  std::vector<std::string> backends = {"ref"};
  int threads = 1;
  int iters = 10;   ///< timed runs
  int warmup = 2;   ///< untimed runs after the first run
  std::vector<std::string> inputs;  ///< [NAME=]FILE; inputs not given are generated
  std::string json;
};
/// Runs `tare bench`; returns the exit status.
int CmdBench(const BenchArgs& args);

/// Arguments of `tare fuzz` (see cli/fuzz.cc).
struct FuzzArgs {
  double seconds = 60;
  uint64_t seed = 1;
  int64_t max_models = 0;  ///< 0: no limit
  uint64_t model_seed = 0; ///< 0: the run's models; else that one model
  int max_nodes = 8;
  std::vector<std::string> backends = {"ref", "cpu", "onednn"};
  std::vector<std::string> peers;
  std::string out;
  bool no_reduce = false;
  bool no_isolate = false;    ///< engines in this process (a crash ends the run)
  double hang_seconds = 120;  ///< a model with no answer for this long is a "hang" finding
};
/// Runs `tare fuzz`; returns the exit status (1 when a tare backend has a finding).
int CmdFuzz(const FuzzArgs& args);

}  // namespace tare_cli
