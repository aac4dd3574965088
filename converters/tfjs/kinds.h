// The two kinds of TF.js model (builder.h lists the files): each fills a Builder from model.json.
#pragma once
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "converters/tfjs/builder.h"

namespace tare {
namespace tfjs {

/// `format: graph-model`: j["modelTopology"]["node"] (GraphDef nodes, `attr` maps in TensorFlow's
/// JSON form), Const values from `weights` (by node name). Inputs: the Placeholders (shapes from
/// j["signature"] or j["userDefinedMetadata"]["signature"] where more concrete); outputs: the
/// signature's outputs, else every node no other node reads. Errors: every unsupported op in one
/// message (node name, op), then the first conversion error.
Status ConvertGraphModel(const nlohmann::ordered_json& j, std::map<std::string, Tensor>& weights, Builder& b);
/// Layers models: j["modelTopology"]["model_config"] (Keras Sequential or functional), weights
/// by `<layer>/<weight>` name. Errors: every unsupported layer class in one message, then the first
/// conversion error.
Status ConvertLayersModel(const nlohmann::ordered_json& j, std::map<std::string, Tensor>& weights, Builder& b);

}  // namespace tfjs
}  // namespace tare
