#include "format/file_io.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace tare {

Result<std::vector<uint8_t>> ReadRegularFile(const std::string& path, size_t max_bytes) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Status::Error(StatusCode::kIO, "cannot open '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return Status::Error(StatusCode::kIO, "'" + path + "' is not a regular file");
  const size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) return Status::Error("'" + path + "' is empty");
  if (size > max_bytes)
    return Status::Error(StatusCode::kLimit, "'" + path + "' is larger than " + std::to_string(max_bytes) + " bytes");
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::Error(StatusCode::kIO, "cannot open '" + path + "': " + std::strerror(errno));
  std::vector<uint8_t> bytes(size);
  if (!f.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size)))
    return Status::Error(StatusCode::kIO, "cannot read '" + path + "' (it changed while being read?)");
  return bytes;
}

}  // namespace tare
