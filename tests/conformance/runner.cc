// ONNX backend test suite runner (the peer test suite tare measures itself against).
//
//   tare_conformance --backend ref --data /usr/share/libonnx-testdata/data --folder node
//                    [--xfail FILE] [--filter SUBSTR] [--verbose] [--timeout SECONDS]
//                    [--write-xfail FILE]   (appends each failing case and a short reason)
//
// For every case folder (model.onnx + test_data_set_*/{input_*,output_*}.pb): convert the model,
// run each data set, compare every output as ONNX's backend test does (numpy assert_allclose with
// rtol 1e-3, atol 1e-7; exact for integer and bool outputs; NaN equals NaN; a float16 or bfloat16
// output within one ULP of its type at the expected value). Cases run in a forked worker process
// (class Worker), each with a time limit, so a crash or hang is reported as that case's failure
// and the next case gets a fresh worker.
// The expected-failures file lists `case_name  reason...` lines (# comments allowed); every entry
// must give a reason. The run fails if a case not listed fails, or if a listed case passes (the
// list may only shrink: remove the entry). Last line: "N passed, N failed".
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "converters/onnx/onnx_converter.h"
#include "tests/conformance/data_set.h"

namespace fs = std::filesystem;
using namespace tare;

namespace {

struct Options {
  std::string backend = "ref";
  std::string data = "/usr/share/libonnx-testdata/data";
  std::vector<std::string> folders;
  std::string xfail;
  std::string filter;
  bool verbose = false;
  int timeout = 120;
  std::string write_xfail;  // write every failing case with its reason here (bootstrapping a list)
};

/// A short reason for the expected-failures list, from a failure message.
std::string Reason(const std::string& why) {
  if (why.find("unsupported node(s)") != std::string::npos) {
    std::vector<std::string> ops;
    size_t p = 0;
    while ((p = why.find("' (", p)) != std::string::npos) {
      size_t e = why.find(',', p);
      std::string op = why.substr(p + 3, e == std::string::npos ? std::string::npos : e - p - 3);
      if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
      p += 3;
    }
    std::string r = "unsupported op(s):";
    for (const std::string& op : ops) r += " " + op;
    return r;
  }
  if (why.find("element type 8") != std::string::npos) return "string tensors are not supported";
  if (why.find("element type 16") != std::string::npos) return "bfloat16 is not supported";
  if (why.find("segmented") != std::string::npos || why.find("2^40 elements") != std::string::npos)
    return "optional/sequence inputs (test data are not tensors) are not supported";
  std::string r = why.substr(0, 160);
  for (char& c : r)
    if (c == '\n') c = ' ';
  return r;
}

/// Compares one output; returns an empty string when it matches, else why not.
std::string Compare(const Tensor& got, const Tensor& want) {
  if (got.kind != want.kind) return "a " + TypeStr(got) + ", expected a " + TypeStr(want);
  if (!want.is_tensor()) {
    if (got.items->size() != want.items->size())
      return std::to_string(got.items->size()) + " items, expected " + std::to_string(want.items->size());
    for (size_t i = 0; i < want.items->size(); ++i) {
      std::string why = Compare((*got.items)[i], (*want.items)[i]);
      if (!why.empty()) return "item " + std::to_string(i) + ": " + why;
    }
    return "";
  }
  if (want.dtype == DType::kString || got.dtype == DType::kString) {
    if (got.dtype != want.dtype) return "dtype " + DTypeName(got.dtype) + ", expected " + DTypeName(want.dtype);
    if (got.shape != want.shape) return "shape " + ShapeStr(got.shape) + ", expected " + ShapeStr(want.shape);
    for (int64_t i = 0; i < want.numel(); ++i)
      if (got.as<std::string>()[i] != want.as<std::string>()[i])
        return "element " + std::to_string(i) + ": '" + got.as<std::string>()[i] + "', expected '" + want.as<std::string>()[i] + "'";
    return "";
  }
  if (got.shape != want.shape) return "shape " + ShapeStr(got.shape) + ", expected " + ShapeStr(want.shape);
  auto is_float = [](DType d) { return DTypeIsFloat(d) || d == DType::kBFloat16; };
  const bool want_float = is_float(want.dtype);
  if (want_float != is_float(got.dtype) || (!want_float && got.dtype != want.dtype))
    return "dtype " + DTypeName(got.dtype) + ", expected " + DTypeName(want.dtype);
  const int64_t n = want.numel();
  for (int64_t i = 0; i < n; ++i) {
    if (!want_float) {
      if (ReadInt(got, i) != ReadInt(want, i))
        return "element " + std::to_string(i) + ": " + std::to_string(ReadInt(got, i)) + ", expected " +
               std::to_string(ReadInt(want, i));
      continue;
    }
    const double g = ReadDouble(got, i), w = ReadDouble(want, i);
    if (std::isnan(w) && std::isnan(g)) continue;
    if (std::isinf(w) && g == w) continue;
    double tol = 1e-7 + 1e-3 * std::fabs(w);
    if (want.dtype == DType::kFloat16 || want.dtype == DType::kBFloat16) {
      // A narrow float output: within one unit in the last place of the narrow type at w (both
      // sides compute in float and round once, so they differ by at most one rounding step).
      const bool half = want.dtype == DType::kFloat16;
      int e = 0;
      std::frexp(std::fabs(w), &e);
      tol = std::ldexp(1.0, std::max(e - 1, half ? -14 : -126) - (half ? 10 : 7));
    }
    if (!(std::fabs(g - w) <= tol)) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "element %lld: %.9g, expected %.9g", static_cast<long long>(i), g, w);
      return buf;
    }
  }
  return "";
}

/// Set by RunCase when a node of the case ran on the backend asked for (not on a fallback).
bool g_on_backend = false;
/// Passing cases none of whose nodes ran on the backend asked for (the parent's count).
int g_fallback_only = 0;

/// Runs one case folder; returns "" on success, else a one-line reason.
std::string RunCase(const fs::path& dir, const std::string& backend) {
  Result<std::shared_ptr<Model>> m = ConvertOnnxFile((dir / "model.onnx").string());
  if (!m.ok()) return "convert: " + m.status().message();
  std::shared_ptr<Model> model = *m;
  SessionOptions opts;
  opts.backends = {backend};
  Result<std::unique_ptr<Session>> s = Session::Create(std::shared_ptr<const Graph>(model, &model->graph), opts);
  if (!s.ok()) return "session: " + s.status().message();
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) return "no test data sets";
  const Graph& g = model->graph;
  for (const fs::path& set : sets) {
    Result<std::vector<NamedTensor>> read = ReadDataSetInputs(set, g);
    if (!read.ok()) return read.status().message();
    std::vector<NamedTensor> inputs = std::move(read).value();
    std::vector<NamedTensor> outputs;
    Status st = (*s)->Run(inputs, &outputs);
    if (!st.ok()) return "run: " + st.message();
    for (const auto& [node, where] : (*s)->Placement()) g_on_backend = g_on_backend || where == backend;
    for (size_t i = 0;; ++i) {
      fs::path p = set / ("output_" + std::to_string(i) + ".pb");
      if (!fs::exists(p)) break;
      if (i >= outputs.size()) return "fewer outputs than expected";
      Result<NamedTensor> want = ReadValueProtoFile(p.string(), g.values[g.outputs[i]].kind);
      if (!want.ok()) return want.status().message();
      if (outputs[i].tensor.dtype == DType::kBFloat16 && want->tensor.dtype == DType::kUInt16)
        want->tensor.dtype = DType::kBFloat16;  // as for inputs
      std::string why = Compare(outputs[i].tensor, want->tensor);
      if (!why.empty()) return set.filename().string() + " output " + std::to_string(i) + ": " + why;
    }
  }
  return "";
}

/// A worker process that runs cases one after another (one process start, backend and device
/// set-up for many cases: the vulkan backend's device, oneDNN's JIT kernels): the parent sends a
/// case folder per line, the worker answers each with a code byte (0 passed, 3 passed entirely on
/// the reference fallback, 1 failed), a 4-byte length and the failure reason. The parent waits
/// o.timeout seconds for each answer; a worker that crashes or hangs is killed, that case is
/// reported as crashed or timed out, and the next case starts a fresh worker.
class Worker {
 public:
  ~Worker() { Stop(); }

  /// Runs the case in the worker; returns "" or the failure reason.
  std::string Run(const fs::path& dir, const Options& o) {
    if (pid_ <= 0 && !Start(o)) return "fork failed";
    const std::string line = dir.string() + "\n";
    if (!WriteAll(to_, line.data(), line.size())) return Died();
    pollfd pfd{from_, POLLIN, 0};
    if (poll(&pfd, 1, o.timeout * 1000) <= 0) {
      kill(pid_, SIGKILL);
      Stop();
      return "timed out after " + std::to_string(o.timeout) + " s";
    }
    unsigned char code = 0;
    uint32_t len = 0;
    if (!ReadAll(from_, &code, 1) || !ReadAll(from_, &len, 4)) return Died();
    std::string msg(len, '\0');
    if (len && !ReadAll(from_, msg.data(), len)) return Died();
    if (code == 0) return "";
    if (code == 3) {  // passed with every node on the reference fallback
      ++g_fallback_only;
      return "";
    }
    return msg.empty() ? "failed" : msg;
  }

 private:
  static bool WriteAll(int fd, const void* p, size_t n) {
    const char* c = static_cast<const char*>(p);
    while (n) {
      ssize_t w = write(fd, c, n);
      if (w <= 0) return false;
      c += w;
      n -= static_cast<size_t>(w);
    }
    return true;
  }
  static bool ReadAll(int fd, void* p, size_t n) {
    char* c = static_cast<char*>(p);
    while (n) {
      ssize_t r = read(fd, c, n);
      if (r <= 0) return false;
      c += r;
      n -= static_cast<size_t>(r);
    }
    return true;
  }

  bool Start(const Options& o) {
    int down[2], up[2];
    if (pipe(down) != 0) return false;
    if (pipe(up) != 0) {
      close(down[0]);
      close(down[1]);
      return false;
    }
    std::fflush(stdout);
    pid_ = fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      close(down[1]);
      close(up[0]);
      Serve(down[0], up[1], o.backend);
      _exit(0);
    }
    close(down[0]);
    close(up[1]);
    to_ = down[1];
    from_ = up[0];
    return true;
  }

  /// The worker's loop: a case folder per line until the parent closes the pipe.
  static void Serve(int in, int out, const std::string& backend) {
    std::string line;
    char ch;
    while (read(in, &ch, 1) == 1) {
      if (ch != '\n') {
        line += ch;
        continue;
      }
      g_on_backend = false;
      std::string why;
      try {
        why = RunCase(line, backend);
      } catch (const std::exception& e) {
        why = std::string("exception: ") + e.what();
      }
      line.clear();
      if (why.size() > 400) why = why.substr(0, 400) + "...";
      const unsigned char code = why.empty() ? (g_on_backend ? 0 : 3) : 1;
      const uint32_t len = static_cast<uint32_t>(why.size());
      if (!WriteAll(out, &code, 1) || !WriteAll(out, &len, 4) || !WriteAll(out, why.data(), why.size())) return;
    }
  }

  /// The worker ended without an answer: its exit status as the case's failure.
  std::string Died() {
    close(to_);
    close(from_);
    to_ = from_ = -1;
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    if (WIFSIGNALED(status)) return "CRASHED with signal " + std::to_string(WTERMSIG(status));
    return "the worker exited with status " + std::to_string(WEXITSTATUS(status));
  }

  void Stop() {
    if (to_ >= 0) close(to_);
    if (from_ >= 0) close(from_);
    to_ = from_ = -1;
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
};

bool ReadXfail(const std::string& path, std::map<std::string, std::string>* out, std::string* err) {
  std::ifstream f(path);
  if (!f) { *err = "cannot read " + path; return false; }
  std::string line;
  int lineno = 0;
  while (std::getline(f, line)) {
    ++lineno;
    size_t h = line.find('#');
    if (h == 0) continue;
    std::istringstream ss(line);
    std::string name, reason;
    if (!(ss >> name)) continue;
    std::getline(ss, reason);
    reason.erase(0, reason.find_first_not_of(" \t"));
    if (reason.empty()) { *err = path + ":" + std::to_string(lineno) + ": '" + name + "' has no reason"; return false; }
    (*out)[name] = reason;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--backend") o.backend = next();
    else if (a == "--data") o.data = next();
    else if (a == "--folder") o.folders.push_back(next());
    else if (a == "--xfail") o.xfail = next();
    else if (a == "--filter") o.filter = next();
    else if (a == "--timeout") o.timeout = std::atoi(next().c_str());
    else if (a == "--verbose") o.verbose = true;
    else if (a == "--write-xfail") o.write_xfail = next();
    else { std::fprintf(stderr, "unknown argument %s\n", a.c_str()); return 2; }
  }
  if (o.folders.empty()) o.folders = {"node", "pytorch-converted", "pytorch-operator", "simple"};
  std::map<std::string, std::string> xfail;
  std::string err;
  if (!o.xfail.empty() && !ReadXfail(o.xfail, &xfail, &err)) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 2;
  }
  int passed = 0, failed = 0, xfailed = 0, unexpected_pass = 0;
  std::ofstream xout;
  if (!o.write_xfail.empty()) {
    xout.open(o.write_xfail, std::ios::app);
    if (!xout) { std::fprintf(stderr, "cannot write %s\n", o.write_xfail.c_str()); return 2; }
  }
  std::map<std::string, std::pair<int, int>> per_folder;  // folder -> (passed, total)
  Worker worker;
  signal(SIGPIPE, SIG_IGN);  // a worker that died is seen as a failed write
  for (const std::string& folder : o.folders) {
    fs::path root = fs::path(o.data) / folder;
    std::error_code ec;
    std::vector<fs::path> cases;
    for (const auto& e : fs::directory_iterator(root, ec))
      if (fs::exists(e.path() / "model.onnx")) cases.push_back(e.path());
    if (ec) { std::fprintf(stderr, "cannot read %s: %s\n", root.c_str(), ec.message().c_str()); return 2; }
    std::sort(cases.begin(), cases.end());
    for (const fs::path& c : cases) {
      const std::string name = c.filename().string();
      if (!o.filter.empty() && name.find(o.filter) == std::string::npos) continue;
      std::string why = worker.Run(c, o);
      const bool ok = why.empty();
      if (!ok && xout) xout << name << "  " << Reason(why) << "\n";
      auto& pf = per_folder[folder];
      pf.first += ok;
      pf.second += 1;
      auto x = xfail.find(name);
      if (ok && x != xfail.end()) {
        ++unexpected_pass;
        std::printf("UNEXPECTED PASS %s/%s (listed as: %s): remove it from %s\n", folder.c_str(), name.c_str(),
                    x->second.c_str(), o.xfail.c_str());
      } else if (!ok && x == xfail.end()) {
        ++failed;
        std::printf("FAIL %s/%s: %s\n", folder.c_str(), name.c_str(), why.c_str());
      } else if (!ok) {
        ++xfailed;
        if (o.verbose) std::printf("xfail %s/%s: %s\n", folder.c_str(), name.c_str(), why.c_str());
      } else {
        ++passed;
        if (o.verbose) std::printf("pass %s/%s\n", folder.c_str(), name.c_str());
      }
    }
  }
  for (const auto& [folder, pf] : per_folder)
    std::printf("%s on %s: %d/%d passed (%.1f%%)\n", folder.c_str(), o.backend.c_str(), pf.first, pf.second,
                pf.second ? 100.0 * pf.first / pf.second : 0.0);
  if (o.backend != "ref" && o.backend != "ref64")
    std::printf("passing cases with a node on %s: %d; entirely on the reference fallback: %d\n", o.backend.c_str(),
                passed - g_fallback_only, g_fallback_only);
  std::printf("expected failures: %d; unexpected passes: %d\n", xfailed, unexpected_pass);
  std::printf("%d passed, %d failed\n", passed + xfailed, failed + unexpected_pass);
  return failed + unexpected_pass ? 1 : 0;
}
