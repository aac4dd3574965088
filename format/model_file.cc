#include "format/model_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>

#ifndef TARE_NO_ZLIB
#include <zlib.h>
#endif

#include "tare_generated.h"

namespace tare {
namespace {

constexpr char kMagic[8] = {'T', 'A', 'R', 'E', 0, 0, 0, 0};
constexpr size_t kHeaderSize = 64;
constexpr int kMaxGraphDepth = 16;  // nested subgraphs (If/Loop bodies)

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t reserved0;
  uint64_t fb_offset, fb_size, w_offset, w_size;
  uint32_t crc32;  // zlib CRC-32 of the whole file, this field taken as zero
  uint8_t reserved1[12];
};
static_assert(sizeof(Header) == kHeaderSize, "header layout");

size_t Align64(size_t n) { return (n + 63) / 64 * 64; }

#ifndef TARE_NO_ZLIB
uint32_t Crc(const uint8_t* p, size_t n, uLong c = crc32(0L, Z_NULL, 0)) {
  while (n > 0) {
    uInt chunk = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    c = crc32(c, p, chunk);
    p += chunk;
    n -= chunk;
  }
  return static_cast<uint32_t>(c);
}
#else
// The same CRC-32 as zlib's crc32() (ISO-HDLC: reflected polynomial 0xEDB88320, initial and
// final value all ones), for builds without zlib (the WebAssembly build).
uint32_t Crc(const uint8_t* p, size_t n, uint32_t c = 0) {
  static const auto table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t r = i;
      for (int k = 0; k < 8; ++k) r = (r & 1) ? 0xEDB88320u ^ (r >> 1) : r >> 1;
      t[i] = r;
    }
    return t;
  }();
  c = ~c;
  for (size_t i = 0; i < n; ++i) c = table[(c ^ p[i]) & 0xFFu] ^ (c >> 8);
  return ~c;
}
#endif

// CRC-32 of the whole file with the header's crc32 field taken as zero: a flipped bit anywhere,
// header offsets included, is caught.
uint32_t FileCrc(const uint8_t* file, size_t size) {
  Header h;
  std::memcpy(&h, file, sizeof h);
  h.crc32 = 0;
  uint32_t c = Crc(reinterpret_cast<const uint8_t*>(&h), sizeof h);
  return Crc(file + kHeaderSize, size - kHeaderSize, c);
}

// ---- writing ------------------------------------------------------------------------------

struct Writer {
  flatbuffers::FlatBufferBuilder fbb{1 << 16};
  std::vector<uint8_t> weights;

  Result<flatbuffers::Offset<fb::Weight>> AddWeight(const Tensor& t, const std::string& what) {
    if (!t.is_tensor()) return Status::Error("constant '" + what + "' is a " + ValueKindName(t.kind) + ", not a tensor");
    if (!t.data && t.numel() != 0) return Status::Error("constant '" + what + "' has no data");
    if (t.dtype == DType::kString) {
      std::vector<std::string> elems(t.as<std::string>(), t.as<std::string>() + t.numel());
      auto strings = fbb.CreateVectorOfStrings(elems);
      auto shape = fbb.CreateVector(t.shape);
      return fb::CreateWeight(fbb, static_cast<int32_t>(t.dtype), shape, 0, 0, strings);
    }
    size_t off = Align64(weights.size());
    size_t n = t.nbytes();
    weights.resize(off + n);
    if (n) std::memcpy(weights.data() + off, t.data, n);
    auto shape = fbb.CreateVector(t.shape);
    return fb::CreateWeight(fbb, static_cast<int32_t>(t.dtype), shape, off, n);
  }

  Result<flatbuffers::Offset<fb::Graph>> AddGraph(const Graph& g) {
    std::vector<flatbuffers::Offset<fb::Value>> values;
    for (const Value& v : g.values) {
      flatbuffers::Offset<fb::Weight> w = 0;
      if (v.is_constant) { TARE_ASSIGN_OR_RETURN(w, AddWeight(v.constant, v.name)); }
      auto name = fbb.CreateString(v.name);
      auto shape = fbb.CreateVector(v.shape);
      values.push_back(fb::CreateValue(fbb, name, static_cast<int32_t>(v.dtype), v.has_shape, shape, w,
                                        static_cast<int8_t>(v.kind), v.optional_of_sequence));
    }
    std::vector<flatbuffers::Offset<fb::Node>> nodes;
    for (const Node& n : g.nodes) {
      std::vector<flatbuffers::Offset<fb::Attribute>> attrs;
      for (const auto& [name, a] : n.attrs) {
        flatbuffers::Offset<fb::Weight> tw = 0;
        flatbuffers::Offset<fb::Graph> sub = 0;
        if (a.kind == Attr::Kind::kTensor) { TARE_ASSIGN_OR_RETURN(tw, AddWeight(a.tensor, n.name + "." + name)); }
        if (a.kind == Attr::Kind::kGraph && a.graph) { TARE_ASSIGN_OR_RETURN(sub, AddGraph(*a.graph)); }
        auto an = fbb.CreateString(name);
        auto s = fbb.CreateString(a.s);
        auto ints = fbb.CreateVector(a.ints);
        auto floats = fbb.CreateVector(a.floats);
        auto strings = fbb.CreateVectorOfStrings(a.strings);
        attrs.push_back(fb::CreateAttribute(fbb, an, static_cast<fb::AttrKind>(a.kind), a.i, a.f, s, ints,
                                            floats, strings, tw, sub));
      }
      auto nn = fbb.CreateString(n.name);
      auto op = fbb.CreateString(n.op);
      auto dom = fbb.CreateString(n.domain);
      auto ins = fbb.CreateVector(n.inputs);
      auto outs = fbb.CreateVector(n.outputs);
      auto av = fbb.CreateVector(attrs);
      nodes.push_back(fb::CreateNode(fbb, nn, op, dom, ins, outs, av));
    }
    auto vv = fbb.CreateVector(values);
    auto nv = fbb.CreateVector(nodes);
    auto iv = fbb.CreateVector(g.inputs);
    auto ov = fbb.CreateVector(g.outputs);
    return fb::CreateGraph(fbb, vv, nv, iv, ov);
  }
};

// ---- reading ------------------------------------------------------------------------------

struct Reader {
  const uint8_t* weights;
  uint64_t w_size;
  std::shared_ptr<void> owner;

  Result<Tensor> ReadWeight(const fb::Weight* w, const std::string& what) {
    if (!w) return Status::Error("constant '" + what + "' has no weight record");
    if (!DTypeIsValid(w->dtype())) return Status::Error("weight '" + what + "' has invalid dtype " + std::to_string(w->dtype()));
    Shape shape;
    if (w->shape()) shape.assign(w->shape()->begin(), w->shape()->end());
    Result<int64_t> n = NumElements(shape);
    if (!n.ok()) return Status::Error("weight '" + what + "': " + n.status().message());
    DType dt = static_cast<DType>(w->dtype());
    if (dt == DType::kString) {
      const uint64_t count = w->strings() ? w->strings()->size() : 0;
      if (count != static_cast<uint64_t>(*n) || w->size() != 0)
        return Status::Error("string weight '" + what + "' has " + std::to_string(count) + " strings, shape " +
                             ShapeStr(shape) + " needs " + std::to_string(*n));
      TARE_ASSIGN_OR_RETURN(Tensor t, Tensor::Alloc(dt, shape));
      for (uint64_t i = 0; i < count; ++i) t.as<std::string>()[i] = w->strings()->Get(static_cast<flatbuffers::uoffset_t>(i))->str();
      return t;
    }
    uint64_t bytes = static_cast<uint64_t>(*n) * DTypeSize(dt);
    if (w->size() != bytes)
      return Status::Error("weight '" + what + "' size " + std::to_string(w->size()) + " does not match shape " +
                           ShapeStr(shape) + " of " + DTypeName(dt) + " (" + std::to_string(bytes) + " bytes)");
    if (w->offset() % 64 != 0) return Status::Error("weight '" + what + "' is not 64-byte aligned");
    if (w->offset() > w_size || bytes > w_size - w->offset())
      return Status::Error("weight '" + what + "' lies outside the weight section");
    return Tensor::View(dt, shape, const_cast<uint8_t*>(weights + w->offset()), owner);
  }

  static Result<std::vector<int>> Ids(const flatbuffers::Vector<int32_t>* v) {
    std::vector<int> out;
    if (v) out.assign(v->begin(), v->end());
    return out;
  }

  Result<std::shared_ptr<Graph>> ReadGraph(const fb::Graph* g, int depth) {
    if (depth > kMaxGraphDepth) return Status::Error("subgraphs nested deeper than " + std::to_string(kMaxGraphDepth));
    auto graph = std::make_shared<Graph>();
    if (g->values()) {
      for (const fb::Value* v : *g->values()) {
        Value val;
        val.name = v->name()->str();
        if (!DTypeIsValid(v->dtype()) && v->dtype() != 0)
          return Status::Error("value '" + val.name + "' has invalid dtype " + std::to_string(v->dtype()));
        val.dtype = static_cast<DType>(v->dtype());
        val.has_shape = v->has_shape();
        if (v->kind() < 0 || v->kind() > static_cast<int8_t>(ValueKind::kOptional))
          return Status::Error("value '" + val.name + "' has invalid kind " + std::to_string(v->kind()));
        val.kind = static_cast<ValueKind>(v->kind());
        val.optional_of_sequence = v->optional_of_sequence();
        if (v->shape()) val.shape.assign(v->shape()->begin(), v->shape()->end());
        if (v->weight()) {
          TARE_ASSIGN_OR_RETURN(val.constant, ReadWeight(v->weight(), val.name));
          val.is_constant = true;
          val.dtype = val.constant.dtype;
          val.shape = val.constant.shape;
          val.has_shape = true;
        }
        graph->values.push_back(std::move(val));
      }
    }
    if (g->nodes()) {
      for (const fb::Node* n : *g->nodes()) {
        Node node;
        node.name = n->name() ? n->name()->str() : "";
        node.op = n->op()->str();
        node.domain = n->domain() ? n->domain()->str() : "";
        TARE_ASSIGN_OR_RETURN(node.inputs, Ids(n->inputs()));
        TARE_ASSIGN_OR_RETURN(node.outputs, Ids(n->outputs()));
        if (n->attributes()) {
          for (const fb::Attribute* a : *n->attributes()) {
            Attr attr;
            int k = static_cast<int>(a->kind());
            if (k < 0 || k > static_cast<int>(Attr::Kind::kType))
              return Status::Error(node.Where() + ": attribute '" + a->name()->str() + "' has invalid kind");
            attr.kind = static_cast<Attr::Kind>(k);
            attr.i = a->i();
            attr.f = a->f();
            if (a->s()) attr.s = a->s()->str();
            if (a->ints()) attr.ints.assign(a->ints()->begin(), a->ints()->end());
            if (a->floats()) attr.floats.assign(a->floats()->begin(), a->floats()->end());
            if (a->strings()) for (auto s : *a->strings()) attr.strings.push_back(s->str());
            if (attr.kind == Attr::Kind::kTensor) {
              TARE_ASSIGN_OR_RETURN(attr.tensor, ReadWeight(a->tensor(), node.name + "." + a->name()->str()));
            }
            if (attr.kind == Attr::Kind::kGraph) {
              if (!a->graph()) return Status::Error(node.Where() + ": graph attribute without a graph");
              TARE_ASSIGN_OR_RETURN(attr.graph, ReadGraph(a->graph(), depth + 1));
            }
            node.attrs[a->name()->str()] = std::move(attr);
          }
        }
        graph->nodes.push_back(std::move(node));
      }
    }
    TARE_ASSIGN_OR_RETURN(graph->inputs, Ids(g->inputs()));
    TARE_ASSIGN_OR_RETURN(graph->outputs, Ids(g->outputs()));
    TARE_RETURN_IF_ERROR(graph->Validate());
    return graph;
  }
};

Result<std::shared_ptr<Model>> Parse(const uint8_t* base, size_t size, std::shared_ptr<void> owner) {
  if (size < kHeaderSize) return Status::Error("file is too short to be a .tare model (" + std::to_string(size) + " bytes)");
  Header h;
  std::memcpy(&h, base, sizeof h);
  if (std::memcmp(h.magic, kMagic, 8) != 0) return Status::Error("not a .tare model (bad magic)");
  static const uint8_t kZeros[12] = {};
  if (h.reserved0 != 0 || std::memcmp(h.reserved1, kZeros, sizeof kZeros) != 0)
    return Status::Error("reserved header bytes are not zero (corrupt file or a newer format)");
  if (FileCrc(base, size) != h.crc32)
    return Status::Error("checksum mismatch: the file is corrupt or truncated");
  if (h.version != kFormatVersion)
    return Status::Error("unsupported .tare format version " + std::to_string(h.version) + " (this build reads " +
                         std::to_string(kFormatVersion) + ")");
  if (h.fb_offset < kHeaderSize || h.fb_offset > size || h.fb_size > size - h.fb_offset || h.fb_offset % 8)
    return Status::Error("model section lies outside the file (truncated?)");
  if (h.w_offset % 64 || h.w_offset > size || h.w_size > size - h.w_offset)
    return Status::Error("weight section lies outside the file (truncated?)");
  const uint8_t* fbp = base + h.fb_offset;
  flatbuffers::Verifier verifier(fbp, h.fb_size, 64, 1000000);
  if (!fb::VerifyModelBuffer(verifier)) return Status::Error("model section failed FlatBuffers verification (corrupt file)");
  const fb::Model* m = fb::GetModel(fbp);
  if (m->format_version() != kFormatVersion) return Status::Error("model section has an unsupported format version");
  Reader r{base + h.w_offset, h.w_size, std::move(owner)};
  auto model = std::make_shared<Model>();
  TARE_ASSIGN_OR_RETURN(std::shared_ptr<Graph> g, r.ReadGraph(m->graph(), 0));
  model->graph = std::move(*g);
  if (const fb::Provenance* p = m->provenance()) {
    auto str = [](const flatbuffers::String* s) { return s ? s->str() : std::string(); };
    Provenance& pv = model->provenance;
    pv.source_format = str(p->source_format());
    pv.source_file = str(p->source_file());
    pv.source_sha256 = str(p->source_sha256());
    pv.producer_name = str(p->producer_name());
    pv.producer_version = str(p->producer_version());
    pv.ir_version = p->ir_version();
    pv.tare_version = str(p->tare_version());
    if (p->opset_imports())
      for (const fb::OpsetImport* o : *p->opset_imports()) pv.opset_imports.emplace_back(str(o->domain()), o->version());
  }
  return model;
}

}  // namespace

Result<std::vector<uint8_t>> SerializeModel(const Model& model) {
  Writer w;
  TARE_ASSIGN_OR_RETURN(auto graph, w.AddGraph(model.graph));
  const Provenance& p = model.provenance;
  std::vector<flatbuffers::Offset<fb::OpsetImport>> opsets;
  for (const auto& [d, v] : p.opset_imports) opsets.push_back(fb::CreateOpsetImport(w.fbb, w.fbb.CreateString(d), v));
  auto prov = fb::CreateProvenance(w.fbb, w.fbb.CreateString(p.source_format), w.fbb.CreateString(p.source_file),
                                   w.fbb.CreateString(p.source_sha256), w.fbb.CreateString(p.producer_name),
                                   w.fbb.CreateString(p.producer_version), p.ir_version, w.fbb.CreateVector(opsets),
                                   w.fbb.CreateString(p.tare_version));
  w.fbb.Finish(fb::CreateModel(w.fbb, kFormatVersion, prov, graph), fb::ModelIdentifier());
  Header h{};
  std::memcpy(h.magic, kMagic, 8);
  h.version = kFormatVersion;
  h.fb_offset = kHeaderSize;
  h.fb_size = w.fbb.GetSize();
  h.w_offset = Align64(h.fb_offset + h.fb_size);
  h.w_size = w.weights.size();
  std::vector<uint8_t> out(h.w_offset + h.w_size, 0);
  std::memcpy(out.data() + h.fb_offset, w.fbb.GetBufferPointer(), h.fb_size);
  if (h.w_size) std::memcpy(out.data() + h.w_offset, w.weights.data(), h.w_size);
  h.crc32 = 0;
  std::memcpy(out.data(), &h, sizeof h);
  h.crc32 = FileCrc(out.data(), out.size());
  std::memcpy(out.data(), &h, sizeof h);
  return out;
}

Status SaveModel(const Model& model, const std::string& path) {
  TARE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, SerializeModel(model));
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return Status::Error("cannot write '" + path + "'");
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) return Status::Error("write to '" + path + "' failed");
  return Status::Ok();
}

Result<std::shared_ptr<Model>> LoadModel(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return Status::Error(StatusCode::kIO, "cannot open '" + path + "': " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::Error(StatusCode::kIO, "'" + path + "' is not a regular file");
  }
  size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    return Status::Error("'" + path + "' is empty");
  }
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return Status::Error(StatusCode::kIO, "cannot map '" + path + "': " + std::strerror(errno));
  std::shared_ptr<void> owner(p, [size](void* q) { ::munmap(q, size); });
  Result<std::shared_ptr<Model>> m = Parse(static_cast<const uint8_t*>(p), size, owner);
  if (!m.ok()) return m.status().With("'" + path + "'").OrCode(StatusCode::kBadModel);
  return m;
}

Result<std::shared_ptr<Model>> LoadModelFromBytes(const uint8_t* data, size_t size) {
  size_t cap = Align64(size ? size : 1);
  void* p = std::aligned_alloc(64, cap);
  if (!p) return Status::Error(StatusCode::kLimit, "out of memory");
  if (size) std::memcpy(p, data, size);
  std::shared_ptr<void> owner(p, std::free);
  return LoadModelFromMemory(static_cast<const uint8_t*>(p), size, std::move(owner));
}

Result<std::shared_ptr<Model>> LoadModelFromMemory(const uint8_t* data, size_t size, std::shared_ptr<void> owner) {
  if (!data && size) return Status::Error(StatusCode::kInvalidArgument, "the model buffer is NULL");
  if (reinterpret_cast<uintptr_t>(data) % 64 != 0)
    return Status::Error(StatusCode::kInvalidArgument,
                         "the model buffer must be 64-byte aligned (as a mapped file is), so its weights can be used in place");
  Result<std::shared_ptr<Model>> m = Parse(data, size, std::move(owner));
  if (!m.ok()) return m.status().OrCode(StatusCode::kBadModel);
  return m;
}

}  // namespace tare
