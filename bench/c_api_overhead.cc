// The C API's per-run overhead (issue 17, docs/PERFORMANCE.md "Embedding"): one model, one input,
// timed through tare_session_run (include/tare/tare.h) and through the C++ Session::Run that the
// CLI (`tare run`, `tare bench`) calls, alternately in one process, same backend list.
//   tare_c_api_overhead MODEL.tare INPUT_NAME DIM... [--backends LIST] [--runs N] [--rounds R]
// The input is float32 of the given shape, filled with 0.5. Each round times N runs of each path
// back to back (steady_clock around the N runs; the C path creates its input tensor once, as an
// application does, and reads output 0's pointer after each run); the figures are the medians over
// R rounds of the per-run mean, in microseconds, and their difference (the C API's cost).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "format/model_file.h"
#include "include/tare/tare.h"
#include "runtime/session.h"

namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int Die(const std::string& msg) {
  std::fprintf(stderr, "tare_c_api_overhead: %s\n", msg.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) return Die("usage: tare_c_api_overhead MODEL.tare INPUT_NAME DIM... [--backends LIST] [--runs N] [--rounds R]");
  const std::string path = argv[1], input = argv[2];
  std::vector<int64_t> dims;
  std::string backends = "ref";
  int runs = 20000, rounds = 7;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--backends" && i + 1 < argc) backends = argv[++i];
    else if (a == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--rounds" && i + 1 < argc) rounds = std::max(1, std::atoi(argv[++i]));
    else dims.push_back(std::atoll(a.c_str()));
  }
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  std::vector<float> x(n, 0.5f);

  // The C API.
  tare_model* model = nullptr;
  tare_options* options = nullptr;
  tare_session* session = nullptr;
  tare_tensor* tensor = nullptr;
  if (tare_model_load(path.c_str(), &model) != TARE_OK || tare_options_create(&options) != TARE_OK ||
      tare_options_set_backends(options, backends.c_str()) != TARE_OK || tare_session_create(model, options, &session) != TARE_OK ||
      tare_tensor_create(TARE_DTYPE_FLOAT32, dims.data(), dims.size(), x.data(), n * sizeof(float), &tensor) != TARE_OK)
    return Die(tare_last_error());
  const char* name = input.c_str();
  const tare_tensor* in = tensor;

  // The C++ path of the CLI.
  tare::Result<std::shared_ptr<tare::Model>> m = tare::LoadModel(path);
  if (!m.ok()) return Die(m.status().message());
  tare::SessionOptions so;
  so.backends.clear();
  for (size_t p = 0, q; p <= backends.size(); p = q + 1) {
    q = backends.find(',', p);
    if (q == std::string::npos) q = backends.size();
    so.backends.push_back(backends.substr(p, q - p));
  }
  std::shared_ptr<const tare::Graph> graph(*m, &(*m)->graph);
  tare::Result<std::unique_ptr<tare::Session>> s = tare::Session::Create(graph, so);
  if (!s.ok()) return Die(s.status().message());
  std::vector<tare::NamedTensor> inputs = {{input, tare::Tensor::View(tare::DType::kFloat32, dims, x.data())}};
  std::vector<tare::NamedTensor> outputs;

  using Clock = std::chrono::steady_clock;
  std::vector<double> c_us, cpp_us;
  const tare_tensor* out = nullptr;
  for (int r = 0; r <= rounds; ++r) {  // round 0 warms up (plans both sessions)
    auto t0 = Clock::now();
    for (int i = 0; i < runs; ++i) {
      if (tare_session_run(session, &name, &in, 1) != TARE_OK || tare_session_output(session, 0, nullptr, &out) != TARE_OK)
        return Die(tare_last_error());
    }
    auto t1 = Clock::now();
    for (int i = 0; i < runs; ++i) {
      tare::Status st = (*s)->Run(inputs, &outputs);
      if (!st.ok()) return Die(st.message());
    }
    auto t2 = Clock::now();
    if (r == 0) continue;
    c_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / runs);
    cpp_us.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count() / runs);
  }
  const double c = Median(c_us), cpp = Median(cpp_us);
  std::printf("model %s, backends %s, %d runs x %d rounds\n", path.c_str(), backends.c_str(), runs, rounds);
  std::printf("C API tare_session_run    %.3f us/run (median of round means)\n", c);
  std::printf("C++ Session::Run (CLI)    %.3f us/run\n", cpp);
  std::printf("C API overhead            %.3f us/run\n", c - cpp);
  tare_tensor_free(tensor);
  tare_session_free(session);
  tare_options_free(options);
  tare_model_free(model);
  return 0;
}
