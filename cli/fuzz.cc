// `tare fuzz` (issue 24; fuzz/fuzz.h): generated models on ref64, tare's backends and peers, for a
// time budget; findings reduced and written under --out. Exit status: 0 with no finding in tare's
// backends, 1 with one (or on an error), so CI fails on a new tare finding; a peer's findings are
// reported without failing the run.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "cli/cli.h"
#include "cli/peers.h"
#include "converters/onnx/onnx_writer.h"
#include "converters/tflite/tflite_writer.h"
#include "fuzz/child.h"
#include "fuzz/fuzz.h"

namespace tare_cli {
namespace {

namespace fs = std::filesystem;

/// Runs `peer` (RunPeer) on the model file written at `path` inside the temporary folder `dir`,
/// with `inputs` in the graph's input order; returns the graph outputs by name. Errors: the
/// peer's, with the temporary folder's name left out (so that one cause gives one message:
/// Finding::Key), or an output it did not give.
tare::Result<std::vector<tare::NamedTensor>> RunWrittenModel(const std::string& peer, const TempDir& dir, const std::string& path,
                                                            const tare::Model& model, const std::vector<tare::NamedTensor>& inputs) {
  std::vector<tare::NamedTensor> ordered;
  for (int v : model.graph.inputs) {
    const std::string& name = model.graph.values[static_cast<size_t>(v)].name;
    for (const tare::NamedTensor& in : inputs)
      if (in.name == name) ordered.push_back(in);
  }
  const std::string work = (fs::path(dir.path()) / "run").string();
  std::error_code ec;
  fs::create_directories(work, ec);
  tare::Result<PeerRun> got = RunPeer(peer, path, ordered, work);
  if (!got.ok()) {
    std::string msg = got.status().message();
    for (size_t at; (at = msg.find(dir.path())) != std::string::npos;) msg.replace(at, dir.path().size(), "TMP");
    return tare::Status::Error(msg);
  }
  std::vector<tare::NamedTensor> out;
  for (int v : model.graph.outputs) {
    const std::string& name = model.graph.values[static_cast<size_t>(v)].name;
    auto it = got->values.find(name);
    if (it == got->values.end()) return tare::Status::Error("peer " + peer + " gave no output " + name);
    out.push_back({name, it->second});
  }
  return out;
}

/// ONNX Runtime as a fuzz peer: the model written as ONNX (opset 17) in a fresh temporary folder,
/// run by bench/peers/ort_run.js.
tare::fuzz::Peer OrtPeer() {
  tare::fuzz::Peer p;
  p.name = "ort";
  p.run = [](const std::shared_ptr<tare::Model>& model, const std::vector<tare::NamedTensor>& inputs)
      -> tare::Result<std::vector<tare::NamedTensor>> {
    TempDir dir;
    TARE_RETURN_IF_ERROR(dir.Create());
    const std::string path = (fs::path(dir.path()) / "model.onnx").string();
    TARE_RETURN_IF_ERROR(tare::WriteOnnxModel(model->graph, path, 17));
    return RunWrittenModel("ort", dir, path, *model, inputs);
  };
  return p;
}

/// LiteRT.js as a fuzz peer: the models tare's TFLite writer can express (converters/tflite/
/// tflite_writer.h: layout-free ops) written as .tflite, run by bench/peers/tflite_run.js.
tare::fuzz::Peer TflitePeer() {
  tare::fuzz::Peer p;
  p.name = "tflite";
  p.cannot_take = [](const tare::Model& model) { return tare::TfliteInexpressible(model.graph); };
  p.run = [](const std::shared_ptr<tare::Model>& model, const std::vector<tare::NamedTensor>& inputs)
      -> tare::Result<std::vector<tare::NamedTensor>> {
    TempDir dir;
    TARE_RETURN_IF_ERROR(dir.Create());
    const std::string path = (fs::path(dir.path()) / "model.tflite").string();
    TARE_RETURN_IF_ERROR(tare::WriteTfliteModel(model->graph, path));
    return RunWrittenModel("tflite", dir, path, *model, inputs);
  };
  return p;
}

}  // namespace

int CmdFuzz(const FuzzArgs& args) {
  if (!(args.seconds > 0) || args.seconds > 7 * 24 * 3600) return Fail("--seconds must be a number of seconds in (0, 604800]");
  if (args.max_nodes < 1 || args.max_nodes > 64) return Fail("--max-nodes must be in [1, 64]");
  if (args.backends.empty() && args.peers.empty()) return Fail("--backends and --peers name no engine to test");
  if (!(args.hang_seconds >= 1 && args.hang_seconds <= 86400)) return Fail("--hang-seconds must be in [1, 86400]");
  for (const std::vector<std::string>* list : {&args.backends, &args.peers})
    for (size_t i = 0; i < list->size(); ++i)
      if (std::find(list->begin(), list->begin() + static_cast<std::ptrdiff_t>(i), (*list)[i]) != list->begin() + static_cast<std::ptrdiff_t>(i))
        return Fail(std::string(list == &args.backends ? "--backends" : "--peers") + " names '" + (*list)[i] + "' twice");
  const std::vector<std::string> avail = tare::AvailableBackends();
  for (const std::string& b : args.backends) {
    if (b == "ref64") return Fail("--backends: ref64 is the oracle, not an engine under test");
    // Created in a child process: this one starts no engine threads and no device, so that the
    // worker it forks starts its own (fuzz/child.h).
    if (std::find(avail.begin(), avail.end(), b) == avail.end() || !tare::fuzz::ProbeBackendInChild(b).ok()) {
      std::string list;
      for (const std::string& a : avail) list += (list.empty() ? "" : ", ") + a;
      return Fail("--backends: unknown or unavailable backend '" + b + "' (this build has: " + list + ")");
    }
  }
  tare::fuzz::Engines engines;
  engines.backends = args.backends;
  for (const std::string& p : args.peers) {
    if (p != "ort" && p != "tflite") return Fail("--peers: unknown peer '" + p + "' (known: ort, tflite)");
    if (tare::Status st = CheckPeerInstalled(p); !st.ok()) return Fail("--peers: " + st.message());
    engines.peers.push_back(p == "ort" ? OrtPeer() : TflitePeer());
  }
  tare::fuzz::FuzzOptions o;
  o.seconds = args.seconds;
  o.seed = args.seed;
  o.max_models = args.max_models;
  o.model_seed = args.model_seed;
  o.gen.max_nodes = args.max_nodes;
  o.reduce = !args.no_reduce;
  o.isolate = !args.no_isolate;
  o.hang_seconds = args.hang_seconds;
  o.out = args.out;
  const bool tty = isatty(fileno(stderr));
  double shown_at = -1;
  auto progress = [&](const tare::fuzz::Summary& s, double t) {
    if (!tty || t - shown_at < 0.2) return;  // at most five redraws a second
    shown_at = t;
    std::fprintf(stderr, "\r%6.0f s  %lld models  %lld findings in %zu groups   ", t, static_cast<long long>(s.models),
                 static_cast<long long>(s.findings), s.groups.size());
    std::fflush(stderr);
  };
  tare::Result<tare::fuzz::Summary> s = tare::fuzz::RunFuzz(o, engines, progress);
  if (tty) std::fprintf(stderr, "\n");
  if (!s.ok()) return Fail(s.status().message());
  std::printf("tare fuzz: seed %llu, %lld models (%lld nodes, %lld node runs checked alone) in %.0f s (%lld generated models ref64 did "
              "not run), %lld findings in %zu groups\n",
              static_cast<unsigned long long>(s->seed), static_cast<long long>(s->models), static_cast<long long>(s->nodes),
              static_cast<long long>(s->node_checks), s->seconds, static_cast<long long>(s->skipped), static_cast<long long>(s->findings),
              s->groups.size());
  for (const tare::fuzz::Group& g : s->groups)
    std::printf("  %s %s %s x%d (%d -> %d nodes): %s%s%s\n", g.finding.engine.c_str(), g.finding.kind.c_str(), g.finding.op.c_str(), g.count,
                g.original_nodes, g.nodes, g.finding.detail.c_str(), g.dir.empty() ? "" : "  ", g.dir.c_str());
  if (!args.out.empty()) std::printf("summary: %s/summary.json, %s/index.html\n", args.out.c_str(), args.out.c_str());
  return s->TareGroups(args.backends) > 0 ? 1 : 0;
}

}  // namespace tare_cli
