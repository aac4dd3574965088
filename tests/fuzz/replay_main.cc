// Replays fuzz inputs through a fuzz target's LLVMFuzzerTestOneInput without libFuzzer: the
// committed reproducers of past findings (tests/fuzz/regressions/<target>/) run in every ctest run,
// and under ASan/UBSan in the sanitizer build (-DTARE_SANITIZE=ON). Each argument is a file or a
// folder of files. Exit status 0 when every input ran (a crash or sanitizer report fails the test);
// 1 when a path cannot be read.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  int ran = 0;
  for (int i = 1; i < argc; ++i) {
    std::vector<fs::path> files;
    std::error_code ec;
    if (fs::is_directory(argv[i], ec)) {
      for (const auto& e : fs::directory_iterator(argv[i])) files.push_back(e.path());
    } else {
      files.push_back(argv[i]);
    }
    for (const fs::path& f : files) {
      std::ifstream in(f, std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "replay: cannot read %s\n", f.c_str());
        return 1;
      }
      std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      ++ran;
    }
  }
  std::printf("replayed %d input(s)\n", ran);
  return 0;
}
