#include "format/npy.h"
#include "runtime/ir/float8.h"

#include "format/file_io.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

namespace tare {
namespace {

struct DescrMap { const char* descr; DType dtype; };
constexpr DescrMap kDescrs[] = {
    {"f2", DType::kFloat16}, {"f4", DType::kFloat32}, {"f8", DType::kFloat64}, {"i1", DType::kInt8},
    {"i2", DType::kInt16},   {"i4", DType::kInt32},   {"i8", DType::kInt64},   {"u1", DType::kUInt8},
    {"u2", DType::kUInt16},  {"u4", DType::kUInt32},  {"u8", DType::kUInt64},  {"b1", DType::kBool},
};

// Finds the value text after 'key': in the header dict.
bool FindKey(const std::string& h, const std::string& key, size_t* pos) {
  size_t p = h.find("'" + key + "'");
  if (p == std::string::npos) p = h.find("\"" + key + "\"");
  if (p == std::string::npos) return false;
  p = h.find(':', p);
  if (p == std::string::npos) return false;
  *pos = p + 1;
  while (*pos < h.size() && h[*pos] == ' ') ++*pos;
  return true;
}

}  // namespace

Result<Tensor> ParseNpy(const uint8_t* data, size_t size, const std::string& name) {
  auto err = [&](const std::string& m) { return Status::Error("'" + name + "' is not a valid .npy file: " + m); };
  if (size < 10 || std::memcmp(data, "\x93NUMPY", 6) != 0) return err("bad magic");
  const int major = data[6];
  size_t hlen, hstart;
  if (major == 1) {
    hlen = data[8] | (size_t(data[9]) << 8);
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) return err("truncated header");
    hlen = data[8] | (size_t(data[9]) << 8) | (size_t(data[10]) << 16) | (size_t(data[11]) << 24);
    hstart = 12;
  } else {
    return err("unsupported version " + std::to_string(major));
  }
  if (hlen > size - hstart) return err("truncated header");
  const std::string h(reinterpret_cast<const char*>(data + hstart), hlen);
  size_t p;
  if (!FindKey(h, "descr", &p) || p >= h.size() || (h[p] != '\'' && h[p] != '"')) return err("no descr");
  size_t q = h.find(h[p], p + 1);
  if (q == std::string::npos) return err("bad descr");
  std::string descr = h.substr(p + 1, q - p - 1);
  if (descr.size() != 3) return err("unsupported dtype '" + descr + "'");
  char order = descr[0];
  std::string code = descr.substr(1);
  DType dt = DType::kUndefined;
  for (const DescrMap& m : kDescrs)
    if (code == m.descr) dt = m.dtype;
  if (dt == DType::kUndefined) return err("unsupported dtype '" + descr + "'");
  bool one_byte = DTypeSize(dt) == 1;
  if (order == '>' && !one_byte) return err("big-endian data is not supported");
  if (order != '<' && order != '|' && order != '=' && order != '>') return err("bad byte order in '" + descr + "'");
  if (!FindKey(h, "fortran_order", &p)) return err("no fortran_order");
  if (h.compare(p, 4, "True") == 0) return err("Fortran-ordered arrays are not supported");
  if (h.compare(p, 5, "False") != 0) return err("bad fortran_order");
  if (!FindKey(h, "shape", &p) || p >= h.size() || h[p] != '(') return err("no shape");
  q = h.find(')', p);
  if (q == std::string::npos) return err("bad shape");
  Shape shape;
  std::string dims = h.substr(p + 1, q - p - 1);
  size_t i = 0;
  while (i < dims.size()) {
    while (i < dims.size() && (dims[i] == ' ' || dims[i] == ',')) ++i;
    if (i >= dims.size()) break;
    if (dims[i] < '0' || dims[i] > '9') return err("bad shape '(" + dims + ")'");
    int64_t d = 0;
    while (i < dims.size() && dims[i] >= '0' && dims[i] <= '9') {
      if (d > (int64_t(1) << 40)) return err("dimension too large in shape '(" + dims + ")'");
      d = d * 10 + (dims[i++] - '0');
    }
    shape.push_back(d);
    if (shape.size() > 64) return err("too many dimensions");
  }
  Result<int64_t> n = NumElements(shape);
  if (!n.ok()) return err(n.status().message());
  size_t bytes = static_cast<size_t>(*n) * DTypeSize(dt);
  size_t off = hstart + hlen;
  if (bytes > size - off) return err("data is shorter than shape " + ShapeStr(shape) + " requires (truncated?)");
  TARE_ASSIGN_OR_RETURN(Tensor t, Tensor::Alloc(dt, shape));
  if (bytes) std::memcpy(t.data, data + off, bytes);
  return t;
}

Result<Tensor> ReadNpy(const std::string& path) {
  TARE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadRegularFile(path));
  return ParseNpy(bytes.data(), bytes.size(), path);
}

Status WriteNpy(const std::string& path, const Tensor& t) {
  if (!t.is_tensor()) return Status::Error(std::string("cannot write a ") + ValueKindName(t.kind) + " to .npy (tensors only)");
  std::string descr;
  for (const DescrMap& m : kDescrs)
    if (m.dtype == t.dtype) descr = std::string(DTypeSize(t.dtype) == 1 ? "|" : "<") + m.descr;
  // Types numpy lacks, written as what tare holds: int4 / uint4 values as int8 / uint8, float8
  // codes as uint8 (runtime/ir/float8.h), bfloat16 as its uint16 bit patterns.
  if (t.dtype == DType::kInt4) descr = "|i1";
  if (t.dtype == DType::kUInt4 || DTypeIsFloat8(t.dtype)) descr = "|u1";
  if (t.dtype == DType::kBFloat16) descr = "<u2";  // the bit patterns, as ONNX's numpy helpers hold them
  if (descr.empty()) return Status::Error("cannot write " + DTypeName(t.dtype) + " to .npy");
  std::string shape = "(";
  for (size_t i = 0; i < t.shape.size(); ++i) shape += std::to_string(t.shape[i]) + (t.shape.size() == 1 || i + 1 < t.shape.size() ? "," : "");
  shape += ")";
  // Separate dims with ", " as numpy does.
  std::string pretty;
  for (size_t i = 0; i < shape.size(); ++i) {
    pretty += shape[i];
    if (shape[i] == ',' && i + 1 < shape.size() && shape[i + 1] != ')') pretty += ' ';
  }
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + pretty + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return Status::Error("cannot write '" + path + "'");
  const char magic[8] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0};
  f.write(magic, 8);
  const uint16_t hl = static_cast<uint16_t>(header.size());
  const char len[2] = {static_cast<char>(hl & 0xff), static_cast<char>(hl >> 8)};
  f.write(len, 2);
  f.write(header.data(), static_cast<std::streamsize>(header.size()));
  f.write(static_cast<const char*>(t.data), static_cast<std::streamsize>(t.nbytes()));
  if (!f) return Status::Error("write to '" + path + "' failed");
  return Status::Ok();
}

std::string SafeName(const std::string& name) {
  std::string s = name.empty() ? "output" : name;
  for (char& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) c = '_';
  if (s == "." || s == "..") s = "_";
  return s;
}

}  // namespace tare
