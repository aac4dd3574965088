// The .tare file: save a Graph with its provenance, and load one by mmap with every byte verified
// before use. Layout (docs/FORMAT.md):
//   [0, 64)            header: magic "TARE\0\0\0\0", u32 format version, u32 reserved,
//                      u64 flatbuffer offset, u64 flatbuffer size, u64 weights offset,
//                      u64 weights size, u32 CRC-32 (zlib) of all bytes after the header,
//                      12 bytes reserved (little-endian)
//   [fb_off, +fb_size) FlatBuffer with root tare.fb.Model (format/tare.fbs), identifier "TARE"
//   [w_off, +w_size)   weight section, 64-byte aligned; each weight 64-byte aligned within it
// Weights are exposed zero-copy: constant Tensors point into the mapping, which they keep alive.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/ir/graph.h"

namespace tare {

/// Version of the file layout and schema this build writes; loads accept exactly this version.
constexpr uint32_t kFormatVersion = 2;  // 2: value kinds, string weights, Type attributes

/// Where a model came from (stored in every .tare file).
struct Provenance {
  std::string source_format;   ///< "onnx", "tflite", "tfjs"
  std::string source_file;     ///< base name of the source file
  std::string source_sha256;   ///< hex digest of the source file's bytes
  std::string producer_name;   ///< e.g. "pytorch"
  std::string producer_version;
  int64_t ir_version = 0;
  std::vector<std::pair<std::string, int64_t>> opset_imports;  ///< (domain, version)
  std::string tare_version;
};

/// A loaded or converted model: the graph plus where it came from.
struct Model {
  Graph graph;
  Provenance provenance;
};

/// Serializes `model` to `path` (overwrites it). Errors: I/O failures, values whose constant data
/// is missing, graphs over the format's limits.
Status SaveModel(const Model& model, const std::string& path);
/// Serializes to bytes (same layout as the file).
Result<std::vector<uint8_t>> SerializeModel(const Model& model);

/// Maps and verifies a .tare file. Errors (one line, naming the file; StatusCode::kIO for a file
/// that cannot be opened or mapped, kBadModel for the rest): cannot open, too short,
/// bad magic or version, checksum mismatch (any flipped bit), header offsets outside the file, FlatBuffers verification failure, a
/// weight outside the weight section or misaligned or with a size that does not match its shape,
/// invalid dtype, ids out of range, a graph that is not in topological order.
Result<std::shared_ptr<Model>> LoadModel(const std::string& path);
/// Same checks on an in-memory buffer (copied into aligned storage; used by tests and fuzzers).
Result<std::shared_ptr<Model>> LoadModelFromBytes(const uint8_t* data, size_t size);
/// Same checks on the caller's memory, used in place (not copied): weights point into `data`, which
/// must stay valid and unchanged while the model or anything made from it lives; `owner`, when
/// given, is kept alive as long as they are (the C API's tare_model_load_buffer passes none).
/// Errors (StatusCode::kInvalidArgument): NULL data, data not 64-byte aligned; then those of
/// LoadModel (kBadModel).
Result<std::shared_ptr<Model>> LoadModelFromMemory(const uint8_t* data, size_t size, std::shared_ptr<void> owner = nullptr);

}  // namespace tare
