// tare's IR back to an ONNX file: for the one-node reproducers of `tare compare --bisect`
// (compare/layers.h, OneNodeModel), so that the node can be run alone in ONNX Runtime, onnx's
// reference evaluator or any other framework.
#pragma once
#include <cstdint>
#include <string>

#include "runtime/ir/graph.h"

namespace tare {

/// Writes `graph` as an ONNX ModelProto to `path`, refusing to overwrite an existing file. Ops are
/// written in the form tare's IR holds them: the form of `source_opset` (the default-domain opset of
/// the model the graph came from; 0 when unknown: 17, the newest of Debian's onnx), except where
/// the ONNX converter rewrote an older form. The opset written is therefore: 11 when a node carries
/// the `legacy_2d` attribute the converter gives Softmax, LogSoftmax and Hardmax of opsets before
/// 13 (the attribute is dropped: opset 11's op has that meaning); 17 when the graph has a DFT (tare
/// holds DFT-17's axis attribute); else max(13, source_opset) (older forms are rewritten to 13's).
/// The IR version follows the opset (ONNX's release table: 6 for 11, 8 up to 17, 10 up to 22, 11
/// for 23); other domains (e.g. ai.onnx.preview.training) are imported at version 1. Weights become
/// initializers (raw_data, little-endian; int4/uint4 packed two per byte, low nibble first);
/// graph inputs and outputs carry their dtype and shape (an unknown dimension as a dim_param).
/// Errors: the file exists or cannot be written; a node of a non-ONNX domain (TFLite's quantized
/// ops, domain "tflite"); a node with an attribute of tare's own (name "tare.*": captured values
/// of control flow, Scan-8's form, rounding Casts) that has no ONNX spelling; a non-tensor weight.
Status WriteOnnxModel(const Graph& graph, const std::string& path, int64_t source_opset = 0);

/// Copies the ONNX file `src` to `dst` with every output of every node of its main graph also a
/// graph output (the way Polygraphy's "mark all" exposes a model's intermediate values to ONNX
/// Runtime; subgraphs of If/Loop/Scan are left as they are). An added output keeps the type of the
/// file's value_info entry for it, else has no type (ONNX Runtime infers it). External data files
/// are linked (symlinks) next to `dst` at their relative locations. Returns the number of outputs
/// added. Errors: `dst` exists (never overwritten), `src` unreadable or not an ONNX model
/// ("bad_model"), an external data location outside `src`'s folder, `dst` not writable.
Result<int> WriteOnnxWithEveryValueAsOutput(const std::string& src, const std::string& dst);

}  // namespace tare
