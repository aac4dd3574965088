#include "converters/tfjs/tfjs_converter.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>

#include "converters/converter_util.h"
#include "converters/tfjs/kinds.h"
#include "converters/tfjs/weights.h"
#include "format/file_io.h"

namespace tare {
namespace {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

/// The manifest's groups. Errors: a malformed entry (named by group and index).
Result<std::vector<tfjs::WeightGroup>> Manifest(const json& j, const std::string& file) {
  std::vector<tfjs::WeightGroup> groups;
  if (!j.contains("weightsManifest")) return groups;
  if (!j["weightsManifest"].is_array()) return Status::Error(file + ": weightsManifest is not a list");
  size_t gi = 0;
  for (const json& g : j["weightsManifest"]) {
    const std::string where = file + ": weightsManifest[" + std::to_string(gi++) + "]";
    if (!g.is_object() || !g.contains("paths") || !g["paths"].is_array() || !g.contains("weights") || !g["weights"].is_array())
      return Status::Error(where + " must have 'paths' and 'weights' lists");
    tfjs::WeightGroup wg;
    for (const json& p : g["paths"]) {
      if (!p.is_string()) return Status::Error(where + ": a path is not a string");
      wg.paths.push_back(p.get<std::string>());
    }
    size_t wi = 0;
    for (const json& w : g["weights"]) {
      const std::string wh = where + ".weights[" + std::to_string(wi++) + "]";
      if (!w.is_object() || !w.contains("name") || !w["name"].is_string() || !w.contains("shape") || !w["shape"].is_array() ||
          !w.contains("dtype") || !w["dtype"].is_string())
        return Status::Error(wh + " must have a name, a shape and a dtype");
      tfjs::WeightSpec s;
      s.name = w["name"].get<std::string>();
      s.dtype = w["dtype"].get<std::string>();
      for (const json& d : w["shape"]) {
        if (!d.is_number_integer()) return Status::Error(wh + " ('" + s.name + "'): a dim is not an integer");
        s.shape.push_back(d.get<int64_t>());
      }
      if (w.contains("quantization")) {
        const json& q = w["quantization"];
        if (!q.is_object() || !q.contains("dtype") || !q["dtype"].is_string())
          return Status::Error(wh + " ('" + s.name + "'): quantization must have a dtype");
        s.quant = q["dtype"].get<std::string>();
        if (q.contains("min")) {
          if (!q["min"].is_number()) return Status::Error(wh + " ('" + s.name + "'): quantization min is not a number");
          s.min = q["min"].get<double>();
          s.has_min = true;
        }
        if (q.contains("scale")) {
          if (!q["scale"].is_number()) return Status::Error(wh + " ('" + s.name + "'): quantization scale is not a number");
          s.scale = q["scale"].get<double>();
          s.has_scale = true;
        }
      }
      wg.weights.push_back(std::move(s));
    }
    groups.push_back(std::move(wg));
  }
  return groups;
}

/// TF.js's decodeURIComponent of a shard path (%XX escapes).
std::string UriDecode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && isxdigit(static_cast<unsigned char>(s[i + 1])) && isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

Result<std::shared_ptr<Model>> Convert(const std::string& text, const std::string& name,
                                       const std::function<Result<std::vector<uint8_t>>(const std::string&)>& shard) {
  const std::string file = BaseName(name);
  json j;
  try {
    j = json::parse(text);
  } catch (const std::exception& e) {
    return Status::Error(file + " is not valid JSON: " + e.what());
  }
  if (!j.is_object() || !j.contains("modelTopology") || !j["modelTopology"].is_object())
    return Status::Error(file + " is not a TF.js model.json (no modelTopology object)");
  try {
    TARE_ASSIGN_OR_RETURN(std::vector<tfjs::WeightGroup> groups, Manifest(j, file));
    std::map<std::string, Tensor> weights;
    // A shard listed twice would multiply its bytes (no converter writes that): refused.
    std::set<std::string> seen;
    for (const tfjs::WeightGroup& g : groups)
      for (const std::string& p : g.paths)
        if (!seen.insert(UriDecode(p)).second) return Status::Error(file + ": weight shard '" + p + "' is listed twice in weightsManifest");
    Sha256 digest;  // covers model.json and its shards
    digest.Update(reinterpret_cast<const uint8_t*>(text.data()), text.size());
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      std::vector<uint8_t> bytes;
      for (const std::string& p : groups[gi].paths) {
        TARE_ASSIGN_OR_RETURN(std::vector<uint8_t> b, shard(UriDecode(p)));
        if (bytes.empty()) bytes = std::move(b);
        else bytes.insert(bytes.end(), b.begin(), b.end());
      }
      digest.Update(bytes.data(), bytes.size());
      TARE_RETURN_IF_ERROR(tfjs::DecodeGroup(groups[gi], bytes.data(), bytes.size(), file + ": weightsManifest[" + std::to_string(gi) + "]", &weights));
    }
    auto model = std::make_shared<Model>();
    Provenance& pv = model->provenance;
    pv.source_format = "tfjs";
    pv.source_file = file;
    pv.source_sha256 = digest.Hex();
    // convertedBy (the TF.js converter and its version) with generatedBy (the TensorFlow that made
    // the graph); a model saved by TF.js itself has only generatedBy ("TensorFlow.js tfjs-layers vX").
    const bool conv = j.value("convertedBy", json()).is_string(), gen = j.value("generatedBy", json()).is_string();
    pv.producer_name = conv ? j["convertedBy"].get<std::string>() : gen ? j["generatedBy"].get<std::string>() : "TensorFlow.js";
    pv.producer_version = conv && gen ? j["generatedBy"].get<std::string>() : "";
    pv.tare_version = TARE_VERSION;
    tfjs::Builder b(&model->graph, file);
    const json& topo = j["modelTopology"];
    const bool graph = j.value("format", json()) == "graph-model" || (topo.contains("node") && topo["node"].is_array());
    if (graph) {
      TARE_RETURN_IF_ERROR(tfjs::ConvertGraphModel(j, weights, b));
    } else {
      TARE_RETURN_IF_ERROR(tfjs::ConvertLayersModel(j, weights, b));
    }
    TARE_RETURN_IF_ERROR(model->graph.Validate());
    return model;
  } catch (const std::exception& e) {
    // nlohmann's type errors on values of an unexpected JSON type.
    return Status::Error(file + ": malformed model.json: " + e.what());
  }
}

}  // namespace

Result<std::shared_ptr<Model>> ConvertTfjsBytes(const std::string& model_json, const std::map<std::string, std::vector<uint8_t>>& shards,
                                                const std::string& name) {
  return Convert(model_json, name, [&](const std::string& p) -> Result<std::vector<uint8_t>> {
    auto it = shards.find(p);
    if (it == shards.end()) return Status::Error(BaseName(name) + ": weight shard '" + p + "' is missing");
    return it->second;
  });
}

namespace {

/// The shard `p` of the model.json at `path`: inside model.json's folder (no absolute path, no
/// "..", and no symbolic link leading out of it). Errors: a path leaving the folder.
Result<fs::path> ShardPath(const std::string& path, const std::string& p) {
  const fs::path rel(p);
  if (rel.is_absolute() || std::any_of(rel.begin(), rel.end(), [](const fs::path& c) { return c == ".."; }))
    return Status::Error(BaseName(path) + ": weight shard path '" + p + "' leaves model.json's folder");
  const fs::path dir = fs::path(path).parent_path();
  const fs::path full = dir / rel;
  std::error_code ec, ec2;
  const fs::path real = fs::weakly_canonical(full, ec), real_dir = fs::weakly_canonical(dir.empty() ? fs::path(".") : dir, ec2);
  if (!ec && !ec2) {
    const std::string r = real.string(), d = real_dir.string();
    if (r.compare(0, d.size(), d) != 0 || (r.size() > d.size() && r[d.size()] != '/' && d != "/"))
      return Status::Error(BaseName(path) + ": weight shard '" + p + "' leads out of model.json's folder (to " + r + ")");
  }
  return full;
}

}  // namespace

std::vector<std::string> TfjsSourceFiles(const std::string& path) {
  std::vector<std::string> files = {path};
  Result<std::vector<uint8_t>> bytes = ReadRegularFile(path, size_t(512) << 20);
  if (!bytes.ok()) return files;
  try {
    const json j = json::parse(bytes->begin(), bytes->end());
    Result<std::vector<tfjs::WeightGroup>> groups = Manifest(j, BaseName(path));
    if (!groups.ok()) return files;
    for (const tfjs::WeightGroup& g : *groups)
      for (const std::string& p : g.paths) {
        Result<fs::path> f = ShardPath(path, UriDecode(p));
        if (f.ok()) files.push_back(f->string());
      }
  } catch (const std::exception&) {
  }
  return files;
}

Result<std::shared_ptr<Model>> ConvertTfjsFile(const std::string& path) {
  TARE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadRegularFile(path, size_t(512) << 20));
  const std::string text(bytes.begin(), bytes.end());
  return Convert(text, path, [&](const std::string& p) -> Result<std::vector<uint8_t>> {
    TARE_ASSIGN_OR_RETURN(fs::path full, ShardPath(path, p));
    std::error_code ec;
    if (!fs::exists(full, ec)) return Status::Error(BaseName(path) + ": weight shard '" + full.string() + "' is missing");
    return ReadRegularFile(full.string());
  });
}

}  // namespace tare
