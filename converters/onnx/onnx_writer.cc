#include "converters/onnx/onnx_writer.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <vector>

#include "onnx.pb.h"

namespace tare {
namespace {

bool IsOnnxDomain(const std::string& d) { return d.empty() || d == "ai.onnx" || d == "ai.onnx.ml" || d.rfind("ai.onnx.", 0) == 0 || d == "com.microsoft"; }

Status ToProto(const Tensor& t, const std::string& name, onnx::TensorProto* p) {
  if (!t.is_tensor()) return Status::Error("weight '" + name + "' is a " + ValueKindName(t.kind) + ", not a tensor");
  p->set_name(name);
  p->set_data_type(static_cast<int32_t>(t.dtype));
  for (int64_t d : t.shape) p->add_dims(d);
  const int64_t n = t.numel();
  if (t.dtype == DType::kString) {
    for (int64_t i = 0; i < n; ++i) p->add_string_data(t.as<std::string>()[i]);
    return Status::Ok();
  }
  if (t.dtype == DType::kInt4 || t.dtype == DType::kUInt4) {
    std::string raw(static_cast<size_t>((n + 1) / 2), '\0');
    const uint8_t* s = static_cast<const uint8_t*>(t.data);
    for (int64_t i = 0; i < n; ++i) raw[static_cast<size_t>(i / 2)] |= static_cast<char>((s[i] & 0xF) << (i % 2 ? 4 : 0));
    p->set_raw_data(raw);
    return Status::Ok();
  }
  p->set_raw_data(std::string(static_cast<const char*>(t.data), t.nbytes()));
  return Status::Ok();
}

void ToTypeProto(const Value& v, int index, onnx::TypeProto* tp) {
  onnx::TypeProto::Tensor* tt = nullptr;
  if (v.kind == ValueKind::kSequence) tt = tp->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type();
  else if (v.kind == ValueKind::kOptional)
    tt = v.optional_of_sequence
             ? tp->mutable_optional_type()->mutable_elem_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()
             : tp->mutable_optional_type()->mutable_elem_type()->mutable_tensor_type();
  else tt = tp->mutable_tensor_type();
  tt->set_elem_type(static_cast<int32_t>(v.dtype));
  if (!v.has_shape || v.kind != ValueKind::kTensor) return;
  onnx::TensorShapeProto* sp = tt->mutable_shape();
  for (size_t d = 0; d < v.shape.size(); ++d) {
    if (v.shape[d] >= 0) sp->add_dim()->set_dim_value(v.shape[d]);
    else sp->add_dim()->set_dim_param("N" + std::to_string(index) + "_" + std::to_string(d));
  }
}

Status WriteGraph(const Graph& g, const std::string& name, onnx::GraphProto* gp, bool* legacy, std::set<std::string>* domains);

Status WriteAttr(const Node& n, const std::string& name, const Attr& a, onnx::AttributeProto* ap, bool* legacy,
                 std::set<std::string>* domains) {
  ap->set_name(name);
  switch (a.kind) {
    case Attr::Kind::kInt: ap->set_type(onnx::AttributeProto::INT); ap->set_i(a.i); break;
    case Attr::Kind::kFloat: ap->set_type(onnx::AttributeProto::FLOAT); ap->set_f(a.f); break;
    case Attr::Kind::kString: ap->set_type(onnx::AttributeProto::STRING); ap->set_s(a.s); break;
    case Attr::Kind::kInts:
      ap->set_type(onnx::AttributeProto::INTS);
      for (int64_t v : a.ints) ap->add_ints(v);
      break;
    case Attr::Kind::kFloats:
      ap->set_type(onnx::AttributeProto::FLOATS);
      for (float v : a.floats) ap->add_floats(v);
      break;
    case Attr::Kind::kStrings:
      ap->set_type(onnx::AttributeProto::STRINGS);
      for (const std::string& v : a.strings) ap->add_strings(v);
      break;
    case Attr::Kind::kTensor:
      ap->set_type(onnx::AttributeProto::TENSOR);
      TARE_RETURN_IF_ERROR(ToProto(a.tensor, "", ap->mutable_t()));
      break;
    case Attr::Kind::kGraph:
      ap->set_type(onnx::AttributeProto::GRAPH);
      if (!a.graph) return Status::Error(n.Where() + ": attribute '" + name + "' has no graph");
      TARE_RETURN_IF_ERROR(WriteGraph(*a.graph, name, ap->mutable_g(), legacy, domains));
      break;
    case Attr::Kind::kType:
      ap->set_type(onnx::AttributeProto::TYPE_PROTO);
      ap->mutable_tp()->mutable_tensor_type()->set_elem_type(static_cast<int32_t>(a.i));
      break;
  }
  return Status::Ok();
}

Status WriteGraph(const Graph& g, const std::string& name, onnx::GraphProto* gp, bool* legacy, std::set<std::string>* domains) {
  gp->set_name(name);
  for (const Value& v : g.values)
    if (v.is_constant) TARE_RETURN_IF_ERROR(ToProto(v.constant, v.name, gp->add_initializer()));
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const Value& v = g.values[static_cast<size_t>(g.inputs[i])];
    onnx::ValueInfoProto* vi = gp->add_input();
    vi->set_name(v.name);
    ToTypeProto(v, static_cast<int>(i), vi->mutable_type());
  }
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const Value& v = g.values[static_cast<size_t>(g.outputs[i])];
    onnx::ValueInfoProto* vi = gp->add_output();
    vi->set_name(v.name);
    if (v.dtype != DType::kUndefined) ToTypeProto(v, static_cast<int>(i), vi->mutable_type());
  }
  for (const Node& n : g.nodes) {
    if (!IsOnnxDomain(n.domain))
      return Status::Error(StatusCode::kUnsupported, n.Where() + " is of domain '" + n.domain + "', not an ONNX op: not written as ONNX");
    onnx::NodeProto* np = gp->add_node();
    np->set_name(n.name);
    np->set_op_type(n.op);
    if (!n.domain.empty() && n.domain != "ai.onnx") {
      np->set_domain(n.domain);
      domains->insert(n.domain);
    }
    for (int v : n.inputs) np->add_input(v < 0 ? "" : g.values[static_cast<size_t>(v)].name);
    for (int v : n.outputs) np->add_output(v < 0 ? "" : g.values[static_cast<size_t>(v)].name);
    for (const auto& [an, a] : n.attrs) {
      if (an == "legacy_2d") {
        if (a.i) *legacy = true;
        continue;
      }
      if (an.rfind("tare.", 0) == 0)
        return Status::Error(StatusCode::kUnsupported, n.Where() + " has tare's own attribute '" + an +
                                                           "', which has no ONNX spelling: not written as ONNX");
      TARE_RETURN_IF_ERROR(WriteAttr(n, an, a, np->add_attribute(), legacy, domains));
    }
  }
  return Status::Ok();
}

}  // namespace

Status WriteOnnxModel(const Graph& graph, const std::string& path, int64_t source_opset) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return Status::Error(StatusCode::kInvalidArgument, path + " exists: not overwritten");
  onnx::ModelProto m;
  m.set_producer_name("tare");
  bool legacy = false;
  std::set<std::string> domains;
  TARE_RETURN_IF_ERROR(WriteGraph(graph, "tare", m.mutable_graph(), &legacy, &domains));
  onnx::OperatorSetIdProto* op = m.add_opset_import();
  op->set_domain("");
  bool dft = false;
  for (const Node& n : graph.nodes) dft = dft || n.op == "DFT";
  const int64_t opset = legacy ? 11 : dft ? 17 : std::max<int64_t>(13, source_opset > 0 ? source_opset : 17);
  op->set_version(opset);
  m.set_ir_version(opset <= 11 ? 6 : opset <= 17 ? 8 : opset <= 22 ? 10 : 11);
  for (const std::string& d : domains) {
    onnx::OperatorSetIdProto* o = m.add_opset_import();
    o->set_domain(d);
    o->set_version(1);
  }
  std::string bytes;
  if (!m.SerializeToString(&bytes)) return Status::Error(path + ": the model does not serialize (over 2 GiB?)");
  std::ofstream f(path, std::ios::binary);
  if (!f) return Status::Error("cannot write " + path);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) return Status::Error("cannot write " + path);
  return Status::Ok();
}

Result<int> WriteOnnxWithEveryValueAsOutput(const std::string& src, const std::string& dst) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dst, ec)) return Status::Error(StatusCode::kInvalidArgument, dst + " exists: not overwritten");
  std::ifstream in(src, std::ios::binary);
  if (!in) return Status::Error(StatusCode::kIO, "cannot read " + src);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  onnx::ModelProto m;
  if (bytes.empty() || bytes.size() > static_cast<size_t>(INT32_MAX) || !m.ParseFromString(bytes))
    return Status::Error(StatusCode::kBadModel, "'" + src + "' is not a valid ONNX model (protobuf parse failed)");
  onnx::GraphProto* g = m.mutable_graph();
  // External data files (paths relative to the model's folder) are linked next to the copy.
  const fs::path src_dir = fs::absolute(src, ec).parent_path(), dst_dir = fs::absolute(dst, ec).parent_path();
  std::set<std::string> linked;
  for (const onnx::TensorProto& t : g->initializer()) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL) continue;
    for (const onnx::StringStringEntryProto& e : t.external_data()) {
      if (e.key() != "location" || !linked.insert(e.value()).second) continue;
      const fs::path rel = fs::path(e.value()).lexically_normal();
      if (rel.is_absolute() || rel.empty() || *rel.begin() == "..")
        return Status::Error(StatusCode::kBadModel, "'" + src + "': external data location '" + e.value() + "' is outside the model's folder");
      fs::create_directories((dst_dir / rel).parent_path(), ec);
      fs::create_symlink(src_dir / rel, dst_dir / rel, ec);
      if (ec) return Status::Error(StatusCode::kIO, "cannot link " + (src_dir / rel).string() + ": " + ec.message());
    }
  }
  std::set<std::string> outputs;
  for (const onnx::ValueInfoProto& o : g->output()) outputs.insert(o.name());
  std::map<std::string, const onnx::ValueInfoProto*> declared;
  for (const onnx::ValueInfoProto& v : g->value_info()) declared[v.name()] = &v;
  std::vector<onnx::ValueInfoProto> added;
  for (const onnx::NodeProto& n : g->node())
    for (const std::string& o : n.output()) {
      if (o.empty() || !outputs.insert(o).second) continue;
      onnx::ValueInfoProto v;
      if (auto it = declared.find(o); it != declared.end()) v = *it->second;
      v.set_name(o);
      added.push_back(std::move(v));
    }
  for (onnx::ValueInfoProto& v : added) *g->add_output() = std::move(v);
  std::string out;
  if (!m.SerializeToString(&out)) return Status::Error(dst + ": the model does not serialize (over 2 GiB?)");
  std::ofstream f(dst, std::ios::binary);
  if (!f) return Status::Error(StatusCode::kIO, "cannot write " + dst);
  f.write(out.data(), static_cast<std::streamsize>(out.size()));
  if (!f) return Status::Error(StatusCode::kIO, "cannot write " + dst);
  return static_cast<int>(added.size());
}

}  // namespace tare
