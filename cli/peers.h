// Frameworks that `tare compare --peer NAME` runs itself on the comparison's inputs (docs/COMPARE.md,
// "Peers"): each through its runner in bench/peers/ (node.js), once on the model as given (its
// outputs: the framework's result, compared like an `--expect` folder) and once with every
// intermediate value exposed (its layers, aligned with tare's by tensor name).
//   ort     ONNX Runtime (onnxruntime-node, bench/peers/ort_run.js) on an ONNX file; the layers run
//           on a copy with every node output a graph output (WriteOnnxWithEveryValueAsOutput).
//   tflite  LiteRT.js (@litertjs/core, bench/peers/tflite_run.js, XNNPACK, 1 thread) on a TFLite
//           file; the layers run on a copy with every tensor an operator writes a subgraph output
//           (tflite_schema.js exposeTensors).
//   tfjs    TF.js 4.22 (@tensorflow/tfjs, its cpu backend, bench/peers/tfjs_run.js) on a TF.js
//           model.json; the layers are every node's output (graph models) or every layer's
//           (layers models) fetched in the same run (--all-tensors).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "runtime/session.h"

namespace tare_cli {

/// The peers `--peer` accepts.
const std::vector<std::string>& KnownPeers();

/// A folder made under the system's temporary directory (tare-peer-XXXXXX), removed with
/// everything in it when this goes away.
class TempDir {
 public:
  TempDir() = default;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();
  /// Makes the folder. Errors: the system's temporary directory is not writable.
  tare::Status Create();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// One peer's run of one model.
struct PeerRun {
  std::string peer;         ///< "ort", "tflite" or "tfjs" (the label: "ort:<model>" with several models)
  std::string version;      ///< the framework's version, as its runner reports it
  std::string outputs_dir;  ///< <SafeName(output)>.npy per output of the model as given (a Framework's dir)
  std::map<std::string, tare::Tensor> values;  ///< every value of the exposed run, by tensor name
  int exposed = 0;          ///< intermediate values made outputs
  std::vector<std::string> skipped;  ///< values not read back (string tensors, sequences), by name
};

/// Runs `peer` on the model file `model` with `inputs` (bound by name), in the folder `work`
/// (which must exist and be empty; everything written stays under it). The runner is
/// $TARE_PEERS_DIR/<runner>.js, else bench/peers/ of the source tree tare was built from, run by
/// $TARE_NODE, else `node` on the PATH. Errors: an unknown peer; a model the peer cannot run (ort:
/// not an .onnx file; tflite: not a .tflite file; tfjs: not a .json file); node or the runner missing; the runner failing (its message, e.g. ONNX
/// Runtime refusing the model); an output file it wrote that cannot be read.
tare::Result<PeerRun> RunPeer(const std::string& peer, const std::string& model, const std::vector<tare::NamedTensor>& inputs,
                              const std::string& work);

/// Whether `peer` can run here: its runner script exists (as RunPeer finds it) and its npm package
/// is installed next to it (ort: onnxruntime-node, tflite: @litertjs/core, tfjs: @tensorflow/tfjs).
/// Errors: say which is missing and how to install it.
tare::Status CheckPeerInstalled(const std::string& peer);

}  // namespace tare_cli
