// .npy reading and writing. The byte strings below are what numpy 1.24 writes (np.save), typed in
// by hand from its format specification: magic, version 1.0, little-endian header length, header.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "format/npy.h"

using namespace tare;

namespace {
std::string NpyBytes(const std::string& header_dict, const std::string& payload) {
  std::string h = header_dict;
  size_t total = 10 + h.size() + 1;
  h.append((64 - total % 64) % 64, ' ');
  h += '\n';
  std::string s = "\x93NUMPY";
  s += '\x01';
  s += '\x00';
  s += static_cast<char>(h.size() & 0xff);
  s += static_cast<char>(h.size() >> 8);
  return s + h + payload;
}
Result<Tensor> Parse(const std::string& s) {
  return ParseNpy(reinterpret_cast<const uint8_t*>(s.data()), s.size(), "test.npy");
}
}  // namespace

TEST_CASE("npy: reads float32 and int64 arrays") {
  float f[3] = {1.5f, -2.0f, 0.25f};
  auto t = Parse(NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", std::string(reinterpret_cast<char*>(f), 12)));
  REQUIRE(t.ok());
  CHECK(t->dtype == DType::kFloat32);
  CHECK(t->shape == Shape{3});
  CHECK(t->as<float>()[1] == -2.0f);
  int64_t i[4] = {1, 2, 3, -4};
  auto u = Parse(NpyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }", std::string(reinterpret_cast<char*>(i), 32)));
  REQUIRE(u.ok());
  CHECK(u->shape == Shape{2, 2});
  CHECK(u->as<int64_t>()[3] == -4);
  auto s = Parse(NpyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", std::string(8, '\0')));
  REQUIRE(s.ok());
  CHECK(s->shape.empty());
}

TEST_CASE("npy: rejects malformed files with a clear message") {
  const std::string ok_hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }";
  CHECK(Parse("").status().message().find("bad magic") != std::string::npos);
  CHECK(Parse(NpyBytes(ok_hdr, std::string(8, '\0'))).status().message().find("shorter") != std::string::npos);
  CHECK(Parse(NpyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (3,), }", std::string(12, '\0'))).status().message().find("Fortran") != std::string::npos);
  CHECK(Parse(NpyBytes("{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }", std::string(12, '\0'))).status().message().find("big-endian") != std::string::npos);
  CHECK(Parse(NpyBytes("{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }", std::string(24, '\0'))).status().message().find("unsupported dtype") != std::string::npos);
  CHECK_FALSE(Parse(NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }", "")).ok());
  std::string truncated = NpyBytes(ok_hdr, std::string(12, '\0')).substr(0, 20);
  CHECK_FALSE(Parse(truncated).ok());
}

TEST_CASE("npy: write then read gives the same array") {
  Tensor t = Tensor::Alloc(DType::kFloat64, {2, 1, 3}).value();
  for (int i = 0; i < 6; ++i) t.as<double>()[i] = i * 0.5 - 1;
  std::string path = (std::filesystem::temp_directory_path() / "tare_npy_test.npy").string();
  REQUIRE(WriteNpy(path, t).ok());
  auto r = ReadNpy(path);
  std::remove(path.c_str());
  REQUIRE(r.ok());
  CHECK(r->shape == Shape{2, 1, 3});
  CHECK(r->as<double>()[5] == 1.5);
}
