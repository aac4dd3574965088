// Thread safety of the C API (docs/EMBEDDING.md, "Threads"): sessions of one shared model, created
// and run on many threads at once, give outputs bit-identical to a single-threaded run; a second
// concurrent run of one session is refused, never raced. platforms/debian/tsan.sh runs this file
// under ThreadSanitizer (backends from TARE_API_THREADS_BACKENDS: backend lists separated by ';').
#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tests/api/api_test_util.h"

namespace {

std::vector<std::string> BackendLists() {
  const char* env = std::getenv("TARE_API_THREADS_BACKENDS");
  std::string spec = env ? env : "";
  if (spec.empty()) {
    spec = "ref";
    const std::string built = tare_backends();
    if (built.find("cpu") != std::string::npos) spec += ";cpu,ref";
    if (built.find("onednn") != std::string::npos) spec += ";onednn,ref";
  }
  std::vector<std::string> out;
  size_t p = 0;
  while (p <= spec.size()) {
    const size_t q = spec.find(';', p);
    out.push_back(spec.substr(p, q == std::string::npos ? std::string::npos : q - p));
    if (q == std::string::npos) break;
    p = q + 1;
  }
  return out;
}

tare_session* NewSession(const tare_model* model, const std::string& backends) {
  tare_options* o = nullptr;
  if (tare_options_create(&o) != TARE_OK) return nullptr;
  tare_session* s = nullptr;
  if (tare_options_set_backends(o, backends.c_str()) == TARE_OK) tare_session_create(model, o, &s);
  tare_options_free(o);
  return s;
}

// Output 0's bytes after a run of the fixture, or empty on failure.
std::vector<unsigned char> OutputBytes(tare_session* s, const api_test::Fixture& fx) {
  if (api_test::RunStatus(s, fx) != TARE_OK) return {};
  const tare_tensor* y = nullptr;
  const void* data = nullptr;
  size_t bytes = 0;
  if (tare_session_output(s, 0, nullptr, &y) != TARE_OK || tare_tensor_info(y, nullptr, nullptr, nullptr, &data, &bytes) != TARE_OK)
    return {};
  const unsigned char* b = static_cast<const unsigned char*>(data);
  return std::vector<unsigned char>(b, b + bytes);
}

}  // namespace

TEST_CASE("c_api.threads.shared_model_bit_identical") {
  constexpr int kThreads = 4;
  constexpr int kRuns = 6;
  for (const char* name : {"lenet5", "resnet20"}) {
    const api_test::Fixture fx(name);
    tare_model* model = nullptr;
    REQUIRE(tare_model_load(fx.tare.c_str(), &model) == TARE_OK);
    for (const std::string& backends : BackendLists()) {
      CAPTURE(name);
      CAPTURE(backends);
      tare_session* solo = NewSession(model, backends);
      REQUIRE(solo != nullptr);
      const std::vector<unsigned char> want = OutputBytes(solo, fx);
      tare_session_free(solo);
      REQUIRE(!want.empty());
      // The single-threaded run itself matches PyTorch (float32 on these backends).
      std::vector<float> solo_out(want.size() / sizeof(float));
      std::memcpy(solo_out.data(), want.data(), solo_out.size() * sizeof(float));
      CHECK(api_test::RelL2(std::vector<double>(solo_out.begin(), solo_out.end()), fx.expected) <= 1e-4);
      std::atomic<int> identical{0}, failed{0};
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&] {
          tare_session* s = NewSession(model, backends);  // sessions created concurrently too
          for (int r = 0; r < kRuns; ++r) {
            const std::vector<unsigned char> got = s ? OutputBytes(s, fx) : std::vector<unsigned char>{};
            if (got == want) ++identical; else ++failed;
          }
          tare_session_free(s);
        });
      }
      for (std::thread& th : threads) th.join();
      CHECK(failed.load() == 0);
      CHECK(identical.load() == kThreads * kRuns);
    }
    tare_model_free(model);
  }
}

TEST_CASE("c_api.threads.one_session_two_threads") {
  const api_test::Fixture fx("lenet5");
  tare_model* model = nullptr;
  REQUIRE(tare_model_load(fx.tare.c_str(), &model) == TARE_OK);
  tare_session* s = NewSession(model, "ref");
  REQUIRE(s != nullptr);
  std::atomic<int> ok{0}, busy{0}, other{0};
  auto hammer = [&] {
    for (int r = 0; r < 20; ++r) {
      const tare_status st = api_test::RunStatus(s, fx);
      if (st == TARE_OK) {
        ++ok;
      } else if (st == TARE_ERROR_INVALID_ARGUMENT && std::strstr(tare_last_error(), "already running on another thread")) {
        ++busy;
      } else {
        ++other;
      }
    }
  };
  std::thread a(hammer), b(hammer);
  a.join();
  b.join();
  CHECK(other.load() == 0);
  CHECK(ok.load() + busy.load() == 40);
  CHECK(ok.load() > 0);
  tare_session_free(s);
  tare_model_free(model);
}
