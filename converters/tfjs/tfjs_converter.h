// TF.js (model.json plus binary weight shards, TensorFlow.js's web export) to tare's IR.
//
// Both kinds TF.js writes are read: graph models (`format: graph-model`, TensorFlow GraphDef
// nodes; converters/tfjs/graph_model.cc) and layers models (a Keras model_config;
// layers_model.cc). The weights manifest's shards are read relative to model.json, in manifest
// order, and decoded as TF.js does (float32, int32, bool; uint8/uint16 with min and scale, float16:
// weights.h). Layout: TensorFlow's NHWC is carried as the TFLite converter carries it (graph inputs
// and outputs keep TensorFlow's shapes and names, weights are permuted at conversion, NCHW inside,
// Transposes only where an op needs TensorFlow's order; builder.h). Nothing but model.json and its
// shards is read; TF.js is not needed.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "format/model_file.h"

namespace tare {

/// Converts the TF.js model whose model.json is at `path`. Errors (one line): unreadable or
/// malformed JSON, no modelTopology, a weights manifest entry that is malformed, a shard that is
/// missing, outside model.json's folder, or short (its size against the manifest's weights), a
/// bad quantization entry, and, in one message, every unsupported op (node name and op) or layer
/// (layer name and class), with the file's name.
Result<std::shared_ptr<Model>> ConvertTfjsFile(const std::string& path);
/// Same from memory: model.json's text and each shard's bytes by its manifest path; `name` is used
/// in messages and provenance.
Result<std::shared_ptr<Model>> ConvertTfjsBytes(const std::string& model_json,
                                                const std::map<std::string, std::vector<uint8_t>>& shards,
                                                const std::string& name);
/// The files converting `path` reads: model.json and each shard of its manifest (paths as they
/// would be opened). Best effort: only model.json when it cannot be parsed. (`tare convert` refuses
/// to write its output over any of them.)
std::vector<std::string> TfjsSourceFiles(const std::string& path);

}  // namespace tare
