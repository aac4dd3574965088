#include "cli/peers.h"

#include <spawn.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "converters/onnx/onnx_writer.h"
#include "format/npy.h"

extern char** environ;

namespace fs = std::filesystem;
using namespace tare;

namespace tare_cli {
namespace {

#ifndef TARE_PEERS_DIR
#define TARE_PEERS_DIR "bench/peers"
#endif

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

// The last non-empty line of a text file (a runner's stderr), or "".
std::string LastLine(const std::string& path) {
  std::ifstream f(path);
  std::string line, last;
  while (std::getline(f, line))
    if (!line.empty()) last = line;
  return last;
}

// Runs `argv` (argv[0] looked up on the PATH), its stdout and stderr into `log`; waits for it.
Status Spawn(const std::vector<std::string>& argv, const std::string& log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return Status::Error(StatusCode::kIO, "cannot run '" + argv[0] + "': " + std::strerror(rc) + " (set TARE_NODE to node.js)");
  int ws = 0;
  while (waitpid(pid, &ws, 0) < 0)
    if (errno != EINTR) return Status::Error(StatusCode::kIO, std::string("waitpid: ") + std::strerror(errno));
  if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0) return Status::Ok();
  std::string why = LastLine(log);
  if (why.empty()) why = WIFSIGNALED(ws) ? "killed by signal " + std::to_string(WTERMSIG(ws)) : "exit " + std::to_string(WEXITSTATUS(ws));
  return Status::Error(why);
}

// Runs the peer's runner on `model` (ort_run.js: inputs as NAME=FILE; tflite_run.js: the files in
// the model's input order), writing to `out`; reads its manifest.
Result<nlohmann::json> RunRunner(const std::string& peer, const std::string& model, const std::vector<std::string>& input_args,
                                 const std::vector<std::string>& input_files, bool all_tensors, const std::string& out,
                                 const std::string& log) {
  const std::string script = peer == "ort" ? "ort_run.js" : peer == "tfjs" ? "tfjs_run.js" : "tflite_run.js";
  const std::string runner = (fs::path(EnvOr("TARE_PEERS_DIR", TARE_PEERS_DIR)) / script).string();
  if (!fs::exists(runner))
    return Status::Error(StatusCode::kIO, "--peer " + peer + ": the runner " + runner + " is missing (set TARE_PEERS_DIR to tare's bench/peers)");
  std::vector<std::string> argv = {EnvOr("TARE_NODE", "node"), runner, model};
  if (peer == "ort") {
    for (const std::string& a : input_args) argv.insert(argv.end(), {"--input", a});
  } else if (peer == "tfjs") {
    for (const std::string& a : input_args) argv.insert(argv.end(), {"--input", a});
    argv.push_back("--manifest");
    if (all_tensors) argv.push_back("--all-tensors");
  } else {
    argv.insert(argv.end(), input_files.begin(), input_files.end());
    argv.insert(argv.end(), {"--manifest", "--repeat", "1"});
    if (all_tensors) argv.push_back("--all-tensors");
  }
  argv.insert(argv.end(), {"--out", out});
  if (Status st = Spawn(argv, log); !st.ok()) return Status::Error("--peer " + peer + " on " + model + ": " + st.message());
  std::ifstream f(fs::path(out) / "manifest.json");
  nlohmann::json m = nlohmann::json::parse(f, nullptr, false);
  if (m.is_discarded() || !m.contains("outputs") || !m["outputs"].is_array())
    return Status::Error(StatusCode::kIO, "--peer " + peer + ": no readable manifest.json in " + out);
  return m;
}

}  // namespace

const std::vector<std::string>& KnownPeers() {
  static const std::vector<std::string> peers = {"ort", "tflite", "tfjs"};
  return peers;
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

Status TempDir::Create() {
  std::error_code ec;
  std::string tmpl = (fs::temp_directory_path(ec) / "tare-peer-XXXXXX").string();
  if (ec || !::mkdtemp(tmpl.data())) return Status::Error(StatusCode::kIO, "cannot make a temporary folder " + tmpl + ": " + std::strerror(errno));
  path_ = tmpl;
  return Status::Ok();
}

Status CheckPeerInstalled(const std::string& peer) {
  const std::string script = peer == "ort" ? "ort_run.js" : peer == "tfjs" ? "tfjs_run.js" : "tflite_run.js";
  const std::string package = peer == "ort" ? "onnxruntime-node" : peer == "tfjs" ? "@tensorflow/tfjs" : "@litertjs/core";
  const fs::path dir = EnvOr("TARE_PEERS_DIR", TARE_PEERS_DIR);
  std::error_code ec;
  if (!fs::exists(dir / script, ec))
    return Status::Error(StatusCode::kIO, "peer " + peer + ": the runner " + (dir / script).string() + " is missing (set TARE_PEERS_DIR to tare's bench/peers)");
  if (!fs::exists(dir / "node_modules" / package, ec))
    return Status::Error(StatusCode::kIO, "peer " + peer + ": " + package + " is not installed in " + dir.string() +
                                              " (cd " + dir.string() + " && npm install --ignore-scripts)");
  return Status::Ok();
}

Result<PeerRun> RunPeer(const std::string& peer, const std::string& model, const std::vector<NamedTensor>& inputs,
                        const std::string& work) {
  if (peer != "ort" && peer != "tflite" && peer != "tfjs")
    return Status::Error(StatusCode::kInvalidArgument, "--peer: unknown peer '" + peer + "' (known: ort, tflite, tfjs)");
  const std::string ext = fs::path(model).extension().string();
  const std::string want = peer == "ort" ? ".onnx" : peer == "tfjs" ? ".json" : ".tflite";
  if (ext != want)
    return Status::Error(StatusCode::kInvalidArgument, "--peer " + peer + " runs " +
                                                           (peer == "ort" ? "ONNX" : peer == "tfjs" ? "TF.js model.json" : "TFLite") +
                                                           " files (" + want + "); '" + model + "' is not one");
  PeerRun r;
  r.peer = peer;
  std::vector<std::string> input_args, input_files;
  fs::create_directories(fs::path(work) / "inputs");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string file = (fs::path(work) / "inputs" / (std::to_string(i) + ".npy")).string();
    TARE_RETURN_IF_ERROR(WriteNpy(file, inputs[i].tensor));
    input_args.push_back(inputs[i].name + "=" + file);
    input_files.push_back(file);
  }
  const std::string log = (fs::path(work) / (peer + ".log")).string();
  r.outputs_dir = (fs::path(work) / "outputs").string();
  TARE_ASSIGN_OR_RETURN(nlohmann::json first, RunRunner(peer, model, input_args, input_files, false, r.outputs_dir, log));
  const char* version_key = peer == "ort" ? "ort_version" : peer == "tfjs" ? "tfjs_version" : "litert_version";
  if (first.contains(version_key) && first[version_key].is_string()) r.version = first[version_key].get<std::string>();
  std::string layers_model = model;
  if (peer == "ort") {
    layers_model = (fs::path(work) / "exposed" / "model.onnx").string();
    fs::create_directories(fs::path(layers_model).parent_path());
    TARE_ASSIGN_OR_RETURN(r.exposed, WriteOnnxWithEveryValueAsOutput(model, layers_model));
  }
  const std::string layers_dir = (fs::path(work) / "layers").string();
  TARE_ASSIGN_OR_RETURN(nlohmann::json m, RunRunner(peer, layers_model, input_args, input_files, true, layers_dir, log));
  if (peer != "ort") r.exposed = static_cast<int>(m["outputs"].size() + m.value("skipped", nlohmann::json::array()).size()) -
                                    static_cast<int>(first["outputs"].size() + first.value("skipped", nlohmann::json::array()).size());
  for (const nlohmann::json& o : m["outputs"]) {
    if (!o.contains("name") || !o.contains("file") || !o["name"].is_string() || !o["file"].is_string())
      return Status::Error(StatusCode::kIO, "--peer " + peer + ": a bad entry in " + layers_dir + "/manifest.json");
    TARE_ASSIGN_OR_RETURN(Tensor t, ReadNpy((fs::path(layers_dir) / o["file"].get<std::string>()).string()));
    r.values.emplace(o["name"].get<std::string>(), std::move(t));
  }
  if (m.contains("skipped"))
    for (const nlohmann::json& s : m["skipped"]) r.skipped.push_back(s.value("name", std::string()));
  return r;
}

}  // namespace tare_cli
