// libFuzzer target: the .npy reader.
#include "format/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)tare::ParseNpy(data, size, "fuzz.npy");
  return 0;
}
