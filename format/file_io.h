// Reading whole files safely: only regular files, with a size cap, and errors that say why.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/status.h"

namespace tare {

/// Reads all of `path`. Errors (naming the file): cannot open (with the OS reason), not a regular
/// file (directories, devices such as /dev/zero, pipes), empty, larger than `max_bytes`.
Result<std::vector<uint8_t>> ReadRegularFile(const std::string& path, size_t max_bytes = size_t(2) << 30);

}  // namespace tare
