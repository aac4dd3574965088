// StatusCode (runtime/status.h) -> tare_status (include/tare/tare.h), and the exception guard:
// shared by the two halves of the C API (api/c_api.cc, converters/c_convert.cc).
#pragma once
#include <exception>
#include <new>
#include <string>

#include "include/tare/tare.h"
#include "runtime/status.h"

namespace tare {

/// The C API's code for `c`; `fallback` when the runtime left it unspecified (the caller's context).
inline tare_status ToTareStatus(StatusCode c, tare_status fallback) {
  switch (c) {
    case StatusCode::kInvalidArgument: return TARE_ERROR_INVALID_ARGUMENT;
    case StatusCode::kBadModel: return TARE_ERROR_BAD_MODEL;
    case StatusCode::kUnsupported: return TARE_ERROR_UNSUPPORTED;
    case StatusCode::kShape: return TARE_ERROR_SHAPE;
    case StatusCode::kLimit: return TARE_ERROR_LIMIT_EXCEEDED;
    case StatusCode::kIO: return TARE_ERROR_IO;
    case StatusCode::kInternal: return TARE_ERROR_INTERNAL;
    case StatusCode::kUnspecified: break;
  }
  return fallback;
}

/// Runs `body` (returning a tare_status), turning any exception into a code and a message given
/// to `fail(code, message)`, which returns the code: no exception crosses the C boundary.
template <class F, class Fail>
tare_status GuardCall(F&& body, Fail&& fail) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(TARE_ERROR_LIMIT_EXCEEDED, "out of memory");
  } catch (const std::exception& e) {
    return fail(TARE_ERROR_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return fail(TARE_ERROR_INTERNAL, "internal error: unknown exception");
  }
}

}  // namespace tare
