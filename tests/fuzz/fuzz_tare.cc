// libFuzzer target: the .tare loader (header, CRC-32, FlatBuffers verification, weights), then one
// run of what loads.
#include <cstring>

#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tare::Result<std::shared_ptr<tare::Model>> m = tare::LoadModelFromBytes(data, size);
  if (m.ok()) tare::fuzz::RunOnce(*m);
  return 0;
}
