// libFuzzer target: the TF.js converter (model.json parsing, the weights manifest and its shard,
// dequantization, graph and layers models), then one run of what converts. Input: model.json's text,
// a NUL byte, then the bytes of the shard `group1-shard1of1.bin` (the name the seeds' manifests use);
// without a NUL, all of it is model.json and there is no shard.
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "converters/tfjs/tfjs_converter.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const uint8_t* nul = static_cast<const uint8_t*>(std::memchr(data, 0, size));
  const size_t json_len = nul ? static_cast<size_t>(nul - data) : size;
  std::map<std::string, std::vector<uint8_t>> shards;
  if (nul) shards["group1-shard1of1.bin"].assign(nul + 1, data + size);
  tare::Result<std::shared_ptr<tare::Model>> m =
      tare::ConvertTfjsBytes(std::string(reinterpret_cast<const char*>(data), json_len), shards, "fuzz/model.json");
  if (m.ok()) tare::fuzz::RunOnce(*m);
  return 0;
}
