// The converter half of the C API (include/tare/tare.h, "converters"): tare_convert, and the hook
// through which tare_model_load reads .onnx and .tflite files when this library is linked.
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <new>
#include <string>

#include "api/c_status.h"
#include "converters/load_any.h"
#include "include/tare/tare.h"

using namespace tare;

namespace {

tare_status CodeOf(const Status& s, tare_status fallback) { return ToTareStatus(s.code(), fallback); }

char* Dup(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p) std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

// tare_converter_fn: converts `path` to a .tare image in malloc'd memory.
tare_status ConvertToBuffer(const char* path, void** data, size_t* bytes, char** error) {
  *data = nullptr;
  *bytes = 0;
  *error = nullptr;
  try {
    Result<std::shared_ptr<Model>> m = LoadAnyModel(path);
    if (!m.ok()) {
      *error = Dup(m.status().message());
      return CodeOf(m.status(), TARE_ERROR_BAD_MODEL);
    }
    Result<std::vector<uint8_t>> image = SerializeModel(**m);
    if (!image.ok()) {
      *error = Dup(image.status().message());
      return CodeOf(image.status(), TARE_ERROR_BAD_MODEL);
    }
    void* p = std::malloc(image->size());
    if (!p) {
      *error = Dup("out of memory");
      return TARE_ERROR_LIMIT_EXCEEDED;
    }
    std::memcpy(p, image->data(), image->size());
    *data = p;
    *bytes = image->size();
    return TARE_OK;
  } catch (const std::bad_alloc&) {
    *error = Dup("out of memory");
    return TARE_ERROR_LIMIT_EXCEEDED;
  } catch (const std::exception& e) {
    *error = Dup(std::string("internal error: ") + e.what());
    return TARE_ERROR_INTERNAL;
  } catch (...) {
    *error = Dup("internal error: unknown exception");
    return TARE_ERROR_INTERNAL;
  }
}

// Plugs the converter into tare_model_load when the library is loaded.
__attribute__((constructor)) void RegisterConverter() { tare_set_converter(&ConvertToBuffer); }

tare_status Fail(tare_status code, const std::string& msg) {
  tare_set_last_error(msg.c_str());
  return code;
}

tare_status Convert(const char* src, const char* dst) {
  if (!src || !dst) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_convert: src and dst must not be NULL");
  namespace fs = std::filesystem;
  const std::string in = src, out = dst;
  if (out.size() < 5 || out.compare(out.size() - 5, 5, ".tare") != 0)
    return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_convert: the output file must end in .tare, got '" + out + "'");
  std::error_code ec;
  if (fs::exists(out, ec) && fs::equivalent(in, out, ec))
    return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_convert: refusing to overwrite the input '" + in + "'");
  for (const std::string& src : SourceFiles(in)) {  // a TF.js model.json's shards too
    std::error_code e2;
    if (fs::exists(out, e2) && fs::exists(src, e2) && fs::equivalent(src, out, e2))
      return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_convert: refusing to overwrite '" + out + "': it is a file the input reads (" + src + ")");
  }
  if (fs::is_directory(out, ec)) return Fail(TARE_ERROR_IO, "tare_convert: '" + out + "' is a directory");
  const fs::path parent = fs::absolute(out, ec).parent_path();
  if (!fs::is_directory(parent, ec))
    return Fail(TARE_ERROR_IO, "tare_convert: directory '" + parent.string() + "' of '" + out + "' does not exist");
  Result<std::shared_ptr<Model>> m = LoadAnyModel(in);
  if (!m.ok()) return Fail(CodeOf(m.status(), TARE_ERROR_BAD_MODEL), m.status().message());
  const Status st = SaveModel(**m, out);
  if (!st.ok()) return Fail(CodeOf(st, TARE_ERROR_IO), st.message());
  return TARE_OK;
}

}  // namespace

extern "C" tare_status tare_convert(const char* src, const char* dst) {
  tare_set_converter(&ConvertToBuffer);
  return GuardCall([&] { return Convert(src, dst); }, Fail);
}
