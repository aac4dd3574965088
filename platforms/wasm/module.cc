// The WebAssembly module's own entry point (platforms/wasm): everything else it exports is the C
// API of include/tare/tare.h, linked from libtare.
#include <cstdlib>

extern "C" {

/// `bytes` of memory aligned to 64 bytes (what tare_model_load_buffer requires of a model's
/// bytes), freed with free(); NULL when out of memory. JavaScript's _malloc gives only 16.
void* tare_wasm_alloc64(size_t bytes) {
  void* p = nullptr;
  return posix_memalign(&p, 64, bytes ? bytes : 1) == 0 ? p : nullptr;
}

}  // extern "C"
